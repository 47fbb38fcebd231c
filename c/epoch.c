/*
 * Synchronization on redirected windows. Every epoch's operations travel on
 * the global window, which stays under lock_all(NOCHECK) for the window's
 * whole life; what each epoch adds:
 *
 *  - lock(t): Ghost's own reader-writer lock word of t (lock.c), taken with
 *    MPI atomics through t's agent. MPI_MODE_NOCHECK takes nothing.
 *  - lock_all: a shared lock on every target's word, so that it still
 *    excludes other origins' exclusive locks. With MPI_MODE_NOCHECK, or when
 *    epochs_used rules out "lock", nothing can conflict and nothing is taken.
 *  - fence: flush the global window, sync memory, barrier on a private
 *    communicator of the users; NOPRECEDE skips the flush, NOSUCCEED closes
 *    the access epoch.
 *  - PSCW: passive mode on the global window, with post and complete
 *    messages on a private communicator, never the application's, under a
 *    tag of this window's own.
 *
 * This file holds what those calls share: waking the ghosts that hold an
 * origin's operations, and completing those operations wherever they went.
 * The calls themselves are in lock.c (the lock words, lock, unlock,
 * lock_all, unlock_all), flush.c (flush*, sync), fence.c and pscw.c; on
 * node-local windows they go to local.c.
 */
#include "epoch.h"

/* The ghosts of t that hold this origin's operations: all of them when
 * PUT/GET may be spread, else only the bound one. */
static inline int spreads(const ghost_target_t *t)
{
    return ghost_load_policy != GHOST_LOAD_STATIC && t->nghosts > 1;
}

/* Wakes every ghost that holds or will hold this origin's operations to t. */
void ghost_wake_target(const ghost_win_t *w, const ghost_target_t *t)
{
    if (!w->redirect)
        return;
    if (spreads(t)) {
        for (int i = 0; i < t->nghosts; i++)
            ghost_wake(t, i);
    } else {
        ghost_wake(t, t->bound_idx);
    }
}

/* The ghosts of this node that hold this origin's operations to t, as a
 * ghost_waiting_on mask (doorbell.h). */
unsigned ghost_waiting_mask(const ghost_win_t *w, const ghost_target_t *t)
{
    unsigned mask = 0;
    if (w->redirect)
        for (int i = 0; i < t->nghosts; i++)
            if (t->ghost_local[i] >= 0)
                mask |= 1u << t->ghost_local[i];
    return mask;
}

/* The targets a flush_all, fence or unlock_all must cover: the touched
 * ones when the window tracks them, else all. Returns how many, in *list
 * (NULL: 0 .. n-1). */
static int covered(const ghost_win_t *w, const int **list)
{
    *list = w->track_touched ? w->touched : NULL;
    return w->track_touched ? w->ntouched : w->nusers;
}
#define COVERED_RANK(list, i) ((list) ? (list)[i] : (i))

/* Starts a new touched list: after a complete flush of the old one. */
void ghost_untouch_all(ghost_win_t *w)
{
    for (int i = 0; i < w->ntouched; i++)
        w->t[w->touched[i]].touched = 0;
    w->ntouched = 0;
}

/* Wakes the ghosts of every target. */
void ghost_wake_all(ghost_win_t *w)
{
    for (int r = 0; r < w->nusers; r++)
        ghost_wake_target(w, &w->t[r]);
}

/* Wakes the ghosts of every target whose operations are to be completed. */
void ghost_wake_covered(ghost_win_t *w)
{
    const int *list;
    int n = covered(w, &list);
    for (int i = 0; i < n; i++)
        ghost_wake_target(w, &w->t[COVERED_RANK(list, i)]);
}

/* Whether some operation to t took the path that the window's state does
 * not since the last remote flush (t->crossed); a remote flush takes the
 * mark, as it is about to complete them. The plain load first spares the
 * common case, no mark, a locked exchange. */
static inline int crossed_since_flush(ghost_target_t *t, int remote)
{
    if (!__atomic_load_n(&t->crossed, __ATOMIC_ACQUIRE))
        return 0;
    return remote ? __atomic_exchange_n(&t->crossed, 0, __ATOMIC_ACQ_REL) : 1;
}

/* Flushes this origin's operations to t on the global window, wherever
 * they went: t's agent, the node's other ghosts when PUT/GET spread, and the
 * other path of GP and of the hardware bypass (rma.c). */
int ghost_flush_target(ghost_win_t *w, ghost_target_t *t, int (*flush)(int, MPI_Win))
{
    unsigned waiting = ghost_waiting_on;
    ghost_waiting_on |= ghost_waiting_mask(w, t);
    if (t->stale)
        for (int i = 0; i < t->nghosts; i++)
            if (t->ghost_local[i] >= 0)
                ghost_waiting_on |= 1u << t->ghost_local[i];
    int main_rank = ghost_anchor(w, t);
    uint64_t t0 = GHOST_PROFILING() ? ghost_ticks() : 0;
    int rc = P2P(flush(main_rank, w->gwin));
    if (t0 && main_rank == t->self) { /* completed by the target's own MPI: it may have been computing */
        uint64_t stall = ghost_prof_direct_completion(&t->fastest, ghost_ticks() - t0);
        if (w->quiesce)
            w->q_stall += stall;
    }
    /* Only a remote flush applies the accumulates at the target; a local
     * one completes there what returned a result. */
    int remote = flush == GHOST_REAL(MPI_Win_flush);
    if (rc == MPI_SUCCESS && crossed_since_flush(t, remote)) {
        rc = P2P(flush(main_rank == t->self ? t->bound : t->self, w->gwin));
        if (rc != MPI_SUCCESS && remote)
            __atomic_store_n(&t->crossed, 1, __ATOMIC_RELEASE);
    }
    if (w->redirect && spreads(t))
        for (int i = 0; i < t->nghosts && rc == MPI_SUCCESS; i++)
            if (t->ghosts[i] != t->bound)
                rc = P2P(flush(t->ghosts[i], w->gwin));
    if (t->stale) {
        if (rc == MPI_SUCCESS && main_rank != t->self)
            rc = P2P(flush(t->self, w->gwin));
        for (int i = 0; i < t->nghosts && rc == MPI_SUCCESS; i++)
            if (t->ghosts[i] != main_rank) {
                ghost_wake(t, i);
                rc = P2P(flush(t->ghosts[i], w->gwin));
            }
    }
    ghost_waiting_on = waiting;
    if (rc == MPI_SUCCESS && remote)
        t->acc_pending = t->stale = 0;
    if (rc == MPI_SUCCESS && w->quiesce && t->ops_pending) {
        int blocked = t->ops_pending & OPS_BLOCKING;
        t->ops_pending &= remote ? 0 : ~OPS_FETCHED;
        w->npending -= blocked && !(t->ops_pending & OPS_BLOCKING);
    }
    return rc;
}

/* Completes this origin's operations on the global window, target by
 * target. MPICH 4.0.2's MPI_Win_flush_all returned there before a large
 * MPI_Get that followed a large accumulate to a busy ghost had landed
 * (test/rma/large_xfer.c); flushing each rank does not. */
int ghost_flush_global(ghost_win_t *w, int (*flush)(int, MPI_Win))
{
    int rc = MPI_SUCCESS;
    const int *list;
    int n = covered(w, &list);
    for (int i = 0; i < n && rc == MPI_SUCCESS; i++)
        rc = ghost_flush_target(w, &w->t[COVERED_RANK(list, i)], flush);
    return rc;
}

int ghost_atomic_completed(ghost_win_t *w, int rank, MPI_Aint disp, unsigned mask, MPI_Datatype type, MPI_Op op,
                           const void *in, const void *cmp, void *result)
{
    unsigned waiting = ghost_waiting_on;
    ghost_waiting_on |= mask;
    int rc;
    if (cmp)
        rc = P2P(GHOST_REAL(MPI_Compare_and_swap)(in, cmp, result, type, rank, disp, w->gwin));
    else if (result)
        rc = P2P(GHOST_REAL(MPI_Fetch_and_op)(in, result, type, rank, disp, op, w->gwin));
    else
        rc = P2P(GHOST_REAL(MPI_Accumulate)(in, 1, type, rank, disp, 1, type, op, w->gwin));
    if (rc == MPI_SUCCESS)
        rc = P2P(GHOST_REAL(MPI_Win_flush)(rank, w->gwin));
    ghost_waiting_on = waiting;
    return rc;
}
