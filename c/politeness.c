/*
 * Polite waiting for user processes.
 *
 * MPI busy-polls inside every blocking call (Wait, Barrier, Win_flush,
 * Win_unlock...). When ranks and ghosts share cores, a user spinning while
 * it waits for its ghost takes the very core the ghost needs: NWChem's water
 * SCF with 2 users and 1 ghost on 2 cores took 4 minutes that way.
 *
 * So Ghost interposes the function each MPI calls through the PLT on every
 * pass of those loops: after GHOST_YIELD_AFTER consecutive passes that found
 * nothing, the user process yields its core once. On dedicated cores
 * sched_yield returns at once, so the cost there is one system call per
 * that many empty polls. Where the host has more runnable tasks than cores,
 * a long wait sleeps instead (doze, below); where it has fewer and the
 * yields still hand the core to another task, the user sleeps once, so
 * that it wakes on an idle core (hop, below).
 *
 * - MPICH's ch4:ucx progress engine calls UCX's ucp_worker_progress.
 * - Open MPI's loops call opal_progress (libopen-pal), which polls every
 *   transport, UCX included: interposing it rather than UCX covers
 *   osc/rdma over shared memory or TCP, osc/pt2pt and osc/ucx alike, and
 *   counts each pass once.
 */
#define _GNU_SOURCE
#include "doorbell.h"
#include "ghost.h"

#include <dlfcn.h>
#include <sched.h>
#include <sys/prctl.h>
#include <time.h>
#include <x86intrin.h>

int ghost_yield_after = 0; /* 0: never yield (ghosts, GHOST_NG=0, or turned off) */

int ghost_count_progress = 0;

__thread unsigned ghost_calls_begun;

static __thread unsigned empty_polls;
/* Yields since this thread's progress last found something. */
static __thread unsigned empty_yields;

/* Doze: after DOZE_AFTER_YIELDS yields in a row inside one MPI call
 * (ghost_calls_begun), about a millisecond of waiting, a user sleeps
 * instead of yielding, while a ghost of its node is awake and the host has
 * more runnable tasks than this process has CPUs. A yield keeps the task
 * runnable on its core: with 2 users and 1 ghost on 2 cores, a user that
 * waits in a barrier while its neighbour streams operations through the
 * ghost kept one core for itself while the neighbour and the ghost took
 * turns on the other. Asleep, it leaves its core idle, and the scheduler
 * moves one of them there. The first sleep is DOZE_FIRST_NS, and each
 * further one in the same wait twice the last, up to DOZE_MAX_NS: the
 * longer the core stays idle, the likelier the scheduler is to move a task
 * that ran there a moment ago (it keeps such tasks where their caches are).
 * The sleeps run with a timer slack of DOZE_SLACK_NS instead of the
 * thread's own (50 us by default, restored after each sleep: it is the
 * application's), so that they end when asked.
 *
 * A wait that ends while the user sleeps ends late, and the core it left
 * may have gone to a task that is not Ghost's, which the user then waits
 * for. Hence the conditions: one call, so that a run of short waits (MPICH's
 * shared-memory messages complete without an event of its UCX progress) is
 * not taken for one long wait; an awake ghost, so that a program beside the
 * job, or a neighbour in a ping-pong, does not take the core; and a
 * millisecond, so that the barriers of balanced steps, which wait for a few
 * hundred microseconds, keep their yields (bench/results/2026-11-27-user-doze.md). */
enum {
    DOZE_AFTER_YIELDS = 128,
    DOZE_FIRST_NS = 20000,
    DOZE_MAX_NS = 160000,
    DOZE_SLACK_NS = 1000,
};
static __thread long doze_ns; /* the next sleep of this wait; 0: none yet */
static __thread unsigned calls_seen; /* ghost_calls_begun at the last yield */

static int host_oversubscribed(void) { return ghost_runnable_recent() > ghost_cores(); }

static void sleep_ns(long ns)
{
    int slack = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
    if (slack > DOZE_SLACK_NS)
        prctl(PR_SET_TIMERSLACK, (unsigned long)DOZE_SLACK_NS, 0, 0, 0);
    struct timespec ts = {0, ns};
    nanosleep(&ts, NULL);
    if (slack > DOZE_SLACK_NS)
        prctl(PR_SET_TIMERSLACK, (unsigned long)slack, 0, 0, 0);
}

static void doze(void)
{
    doze_ns = doze_ns ? (2 * doze_ns < DOZE_MAX_NS ? 2 * doze_ns : DOZE_MAX_NS) : DOZE_FIRST_NS;
    sleep_ns(doze_ns);
}

/* Hop: a user whose yields keep handing its core to another task, on a
 * host with no more runnable tasks than this process has CPUs, shares its
 * core while another one idles. Two waiting users end up that way on 2
 * cores after dozes beside a busy ghost: when the ghost sleeps again, its
 * core idles, and the scheduler does not pull either user there, since
 * both ran a moment ago (it keeps such tasks where their caches are), for
 * some milliseconds in which every step runs at half speed
 * (bench/results/2026-11-27-session33-checks.md). A wake-up, on the other
 * hand, goes to an idle core: so after HOP_AFTER such yields in a row the
 * user sleeps briefly instead. A yield gave the core away when it took
 * HOP_SHARED_TICKS or more (alone on its core, sched_yield returns in about
 * a microsecond; beside another waiting user, after that user's next
 * GHOST_USER_YIELD polls). A hop that did not help doubles the yields the
 * next one needs, up to HOP_AFTER_MAX, so that a job bound to fewer cores
 * than the host has idle does not keep sleeping. */
enum {
    HOP_SHARED_TICKS = 10000, /* about 5 us */
    HOP_AFTER = 4,
    HOP_AFTER_MAX = 1024,
    HOP_NS = 20000,
};
static __thread unsigned shared_yields, hop_after = HOP_AFTER;

static void yield_or_hop(void)
{
    uint64_t t0 = __rdtsc();
    sched_yield();
    if (__rdtsc() - t0 < HOP_SHARED_TICKS) {
        shared_yields = 0;
        hop_after = HOP_AFTER;
        return;
    }
    if (++shared_yields < hop_after || ghost_cores() < 2 || host_oversubscribed())
        return;
    shared_yields = 0;
    hop_after = 2 * hop_after < HOP_AFTER_MAX ? 2 * hop_after : HOP_AFTER_MAX;
    sleep_ns(HOP_NS);
}

/* Only the ghost's serving thread makes MPI calls in a ghost. */
static unsigned long progress_events, progress_seen;

/* An operation from another node reaches a ghost through the network
 * (UCX), rings no doorbell, and is served inside MPI's progress: this is how the ghost's
 * wait policy learns that it did work (shim/ghost.go), so that it stays
 * awake while another node's origin polls through it instead of dozing
 * between that origin's operations. */
int ghost_progressed(void)
{
    int grew = progress_events != progress_seen;
    progress_seen = progress_events;
    return grew;
}

/* After one pass of MPI's progress, which completed events operations. */
static inline void polled(unsigned events)
{
    if (ghost_waiting_on)
        ghost_ring_waited();
    if (events) {
        empty_polls = empty_yields = 0;
        doze_ns = 0;
        if (ghost_count_progress)
            progress_events += events;
    } else if (ghost_yield_after > 0 && ++empty_polls >= (unsigned)ghost_yield_after) {
        empty_polls = 0;
        if (calls_seen != ghost_calls_begun) { /* a new wait: its own stretch */
            calls_seen = ghost_calls_begun;
            empty_yields = 0;
            doze_ns = 0;
        }
        if (++empty_yields >= DOZE_AFTER_YIELDS && ghost_node_ghost_awake() && host_oversubscribed())
            doze();
        else
            yield_or_hop();
    }
}

#ifdef GHOST_ABI_MPICH
static unsigned (*real_progress)(void *worker);

unsigned ucp_worker_progress(void *worker)
{
    if (__builtin_expect(real_progress == NULL, 0))
        real_progress = (unsigned (*)(void *))dlsym(RTLD_NEXT, "ucp_worker_progress");
    unsigned events = real_progress(worker);
    polled(events);
    return events;
}
#else
static int (*real_progress)(void);

int opal_progress(void)
{
    if (__builtin_expect(real_progress == NULL, 0))
        real_progress = (int (*)(void))dlsym(RTLD_NEXT, "opal_progress");
    int events = real_progress();
    polled(events > 0 ? (unsigned)events : 0);
    return events;
}
#endif
