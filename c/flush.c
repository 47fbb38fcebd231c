/*
 * MPI_Win_flush, flush_local, flush_all, flush_local_all and MPI_Win_sync
 * on redirected windows: an origin's operations complete wherever they
 * went (epoch.c).
 */
#include "epoch.h"
#include "quiesce.h"

typedef int (*flush_fn)(int, MPI_Win);
typedef int (*flush_all_fn)(MPI_Win);

/* Whether this origin has nothing to complete on a window that spans
 * nodes: it issued no operation there since its operations were last
 * complete (issued, agree.c). Quiescence skips such a flush: it brings no
 * evidence of stalls or of the ghost path's cost. */
static inline int nothing_issued(const ghost_win_t *w) { return !w->local && !w->issued; }

/* Whether a flush waits on nobody: on a node-local window, whose operations
 * are complete when they return (its flush is a memory fence), or with
 * nothing issued. Global Arrays flushes every window at every sync, so
 * that NWChem makes some 100,000 such flushes a second per rank. Profiling
 * leaves them untimed (GHOST_DEFINE_RMA_UNLESS): they say nothing of
 * communication, and timing one would cost two reads of the time-stamp
 * counter, about 20 ns each on a virtual machine, against 10-20 ns for
 * the flush. */
static inline int waits_on_nobody(const ghost_win_t *w) { return w && (w->local || nothing_issued(w)); }
static inline int idle_flush(int rank, MPI_Win win) { return (void)rank, waits_on_nobody(ghost_redirected(win)); }
static inline int idle_flush_all(MPI_Win win) { return waits_on_nobody(ghost_redirected(win)); }

static int flush_one(MPI_Win win, int rank, flush_fn real)
{
    ghost_win_t *w = ghost_redirected(win);
    if (!w)
        return real(rank, win);
    if (w->local)
        return ghost_win_error(w, ghost_local_flush(w, rank));
    if (rank == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (!ghost_valid_target(w, rank))
        return ghost_win_error(w, MPI_ERR_RANK);
    ghost_count_sync(GHOST_SYNC_FLUSH);
    GHOST_SYNC_CALL(GHOST_CALL_FLUSH);
    if (ghost_epoch_of(w, rank) == GHOST_EPOCH_NONE)
        return ghost_win_error(w, MPI_ERR_RMA_SYNC);
    int idle = nothing_issued(w);
    ghost_wake_target(w, &w->t[rank]);
    int rc = ghost_flush_target(w, &w->t[rank], real);
    if (rc == MPI_SUCCESS && w->quiesce && !idle)
        ghost_quiesce_consider(w);
    return ghost_win_error(w, rc);
}

/* Flushes the global window rank by rank (see ghost_flush_global), when this
 * origin holds an epoch on the window. */
static int flush_every(MPI_Win win, flush_fn one, flush_all_fn all)
{
    ghost_win_t *w = ghost_redirected(win);
    if (!w)
        return all(win);
    if (w->local)
        return ghost_win_error(w, ghost_local_flush(w, -1));
    ghost_count_sync(GHOST_SYNC_FLUSH);
    GHOST_SYNC_CALL(GHOST_CALL_FLUSH_ALL);
    int rc = MPI_SUCCESS, idle = nothing_issued(w);
    ghost_wake_covered(w);
    if (w->lockall || w->fence_open || w->access_open || __atomic_load_n(&w->nlocked, __ATOMIC_RELAXED) > 0)
        rc = ghost_flush_global(w, one);
    /* Only a remote flush completes the operations at their targets. */
    if (rc == MPI_SUCCESS && one == GHOST_REAL(MPI_Win_flush)) {
        ghost_untouch_all(w);
        ghost_ops_complete(w); /* agree.c */
    }
    if (rc == MPI_SUCCESS && w->quiesce && !idle)
        ghost_quiesce_consider(w);
    return ghost_win_error(w, rc);
}

GHOST_DEFINE_RMA_UNLESS(idle_flush, MPI_Win_flush, (int rank, MPI_Win win), (rank, win), {
    return flush_one(win, rank, GHOST_REAL(MPI_Win_flush));
})

GHOST_DEFINE_RMA_UNLESS(idle_flush, MPI_Win_flush_local, (int rank, MPI_Win win), (rank, win), {
    return flush_one(win, rank, GHOST_REAL(MPI_Win_flush_local));
})

GHOST_DEFINE_RMA_UNLESS(idle_flush_all, MPI_Win_flush_all, (MPI_Win win), (win), {
    return flush_every(win, GHOST_REAL(MPI_Win_flush), GHOST_REAL(MPI_Win_flush_all));
})

GHOST_DEFINE_RMA_UNLESS(idle_flush_all, MPI_Win_flush_local_all, (MPI_Win win), (win), {
    return flush_every(win, GHOST_REAL(MPI_Win_flush_local), GHOST_REAL(MPI_Win_flush_local_all));
})

/* The global window is always in a passive epoch, so syncing it is legal at
 * any time; it orders this process's load/stores with RMA on the segment. */
GHOST_DEFINE_RMA(MPI_Win_sync, (MPI_Win win), (win), {
    ghost_win_t *w = ghost_redirected(win);
    if (!w)
        return GHOST_REAL(MPI_Win_sync)(win);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (w->local)
        return MPI_SUCCESS;
    return ghost_win_error(w, GHOST_REAL(MPI_Win_sync)(w->gwin));
})
