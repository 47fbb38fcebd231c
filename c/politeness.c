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
 * a long wait sleeps instead (doze, below).
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
    LOAD_CHECK_TICKS = 2000000, /* about 1 ms */
};
static __thread long doze_ns; /* the next sleep of this wait; 0: none yet */
static __thread unsigned calls_seen; /* ghost_calls_begun at the last yield */
static __thread uint64_t load_checked; /* TSC of the last look at the load */
static __thread int load_over;

static int host_oversubscribed(void)
{
    uint64_t now = __rdtsc();
    if (now - load_checked > LOAD_CHECK_TICKS) {
        load_checked = now;
        load_over = ghost_runnable() > ghost_cores();
    }
    return load_over;
}

static void doze(void)
{
    doze_ns = doze_ns ? (2 * doze_ns < DOZE_MAX_NS ? 2 * doze_ns : DOZE_MAX_NS) : DOZE_FIRST_NS;
    int slack = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
    if (slack > DOZE_SLACK_NS)
        prctl(PR_SET_TIMERSLACK, (unsigned long)DOZE_SLACK_NS, 0, 0, 0);
    struct timespec ts = {0, doze_ns};
    nanosleep(&ts, NULL);
    if (slack > DOZE_SLACK_NS)
        prctl(PR_SET_TIMERSLACK, (unsigned long)slack, 0, 0, 0);
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
            sched_yield();
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
