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
 * that many empty polls.
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

int ghost_yield_after = 0; /* 0: never yield (ghosts, GHOST_NG=0, or turned off) */

int ghost_count_progress = 0;

static __thread unsigned empty_polls;
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
        empty_polls = 0;
        if (ghost_count_progress)
            progress_events += events;
    } else if (ghost_yield_after > 0 && ++empty_polls >= (unsigned)ghost_yield_after) {
        empty_polls = 0;
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
