/*
 * What the synchronization calls on redirected windows share (epoch.c):
 * lock.c, flush.c, fence.c, pscw.c and win_info.c include this header.
 */
#ifndef GHOST_EPOCH_H_INCLUDED
#define GHOST_EPOCH_H_INCLUDED

#include "agree.h"
#include "counters.h"
#include "local.h"
#include "win.h"

/* An internal point-to-point operation (lock, unlock, flush, a get, a post
 * or complete message) and an internal collective, counted for the call
 * being served (counters.h) before they are made. */
#define P2P(op) (ghost_count_internal(GHOST_INTERNAL_P2P, 1), (op))
#define COLLECTIVE(op) (ghost_count_internal(GHOST_INTERNAL_COLLECTIVE, 1), (op))

static inline int ghost_valid_target(const ghost_win_t *w, int rank)
{
    return rank >= 0 && rank < w->nusers;
}

/* Doorbells: wake the ghosts that hold or will hold this origin's
 * operations to t, to every target, or to the targets a flush_all, fence
 * or unlock_all covers (the touched ones when the window tracks them). */
void ghost_wake_target(const ghost_win_t *w, const ghost_target_t *t);
void ghost_wake_all(ghost_win_t *w);
void ghost_wake_covered(ghost_win_t *w);
/* The ghosts of this node that hold this origin's operations to t, as a
 * ghost_waiting_on mask (doorbell.h). */
unsigned ghost_waiting_mask(const ghost_win_t *w, const ghost_target_t *t);
/* Starts a new touched list: after a complete flush of the old one. */
void ghost_untouch_all(ghost_win_t *w);
/* Completes this origin's operations to t, or to every covered target, on
 * the global window, with flush (MPI_Win_flush or MPI_Win_flush_local). */
int ghost_flush_target(ghost_win_t *w, ghost_target_t *t, int (*flush)(int, MPI_Win));
int ghost_flush_global(ghost_win_t *w, int (*flush)(int, MPI_Win));
/* One MPI atomic on the global window at (rank, disp), completed by a
 * flush of rank, while this thread waits on the ghosts of this node in
 * mask (ghost_waiting_on): compare-and-swap when cmp is set, fetch-and-op
 * when result is, else an accumulate. Lock words (lock.c) and quiescence
 * words (quiesce.c) go through their agent this way. */
int ghost_atomic_completed(ghost_win_t *w, int rank, MPI_Aint disp, unsigned mask, MPI_Datatype type, MPI_Op op,
                           const void *in, const void *cmp, void *result);

/* The barrier of a fence or of a symmetric MPI_Win_set_info (fence.c). */
int ghost_agreeing_barrier(ghost_win_t *w, int *agreed);

#endif
