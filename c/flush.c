/*
 * MPI_Win_flush, flush_local, flush_all, flush_local_all and MPI_Win_sync
 * on redirected windows: an origin's operations complete wherever they
 * went (epoch.c).
 */
#include "epoch.h"
#include "quiesce.h"

typedef int (*flush_fn)(int, MPI_Win);
typedef int (*flush_all_fn)(MPI_Win);

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
    ghost_wake_target(w, &w->t[rank]);
    int rc = ghost_flush_target(w, &w->t[rank], real);
    if (rc == MPI_SUCCESS && w->quiesce)
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
    int rc = MPI_SUCCESS;
    ghost_wake_covered(w);
    if (w->lockall || w->fence_open || w->access_open || __atomic_load_n(&w->nlocked, __ATOMIC_RELAXED) > 0)
        rc = ghost_flush_global(w, one);
    /* Only a remote flush completes the operations at their targets. */
    if (rc == MPI_SUCCESS && one == GHOST_REAL(MPI_Win_flush)) {
        ghost_untouch_all(w);
        ghost_ops_complete(w); /* agree.c */
    }
    if (rc == MPI_SUCCESS && w->quiesce)
        ghost_quiesce_consider(w);
    return ghost_win_error(w, rc);
}

GHOST_DEFINE_RMA(MPI_Win_flush, (int rank, MPI_Win win), (rank, win), {
    return flush_one(win, rank, GHOST_REAL(MPI_Win_flush));
})

GHOST_DEFINE_RMA(MPI_Win_flush_local, (int rank, MPI_Win win), (rank, win), {
    return flush_one(win, rank, GHOST_REAL(MPI_Win_flush_local));
})

GHOST_DEFINE_RMA(MPI_Win_flush_all, (MPI_Win win), (win), {
    return flush_every(win, GHOST_REAL(MPI_Win_flush), GHOST_REAL(MPI_Win_flush_all));
})

GHOST_DEFINE_RMA(MPI_Win_flush_local_all, (MPI_Win win), (win), {
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
