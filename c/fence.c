/*
 * MPI_Win_fence on redirected windows: flush, sync memory, and a barrier of
 * the users on a private communicator, which under GHOST_ASYNC=auto is also
 * the window's agreement point (agree.c).
 */
#include "epoch.h"

/* The barrier of a fence or of a symmetric MPI_Win_set_info. Under
 * GHOST_ASYNC=auto it is the ballot (agree.c), an allreduce that costs the
 * same, and *agreed gets the window-wide decision; otherwise -1. */
int ghost_agreeing_barrier(ghost_win_t *w, int *agreed)
{
    *agreed = -1;
    if (!ghost_async_auto)
        return COLLECTIVE(GHOST_REAL(MPI_Barrier)(w->pscw));
    return ghost_window_ballot(w, agreed);
}

GHOST_DEFINE_RMA(MPI_Win_fence, (int assert, MPI_Win win), (assert, win), {
    ghost_win_t *w = ghost_redirected(win);
    if (!w)
        return GHOST_REAL(MPI_Win_fence)(assert, win);
    if (w->local)
        return ghost_win_error(w, ghost_local_fence(w, assert));
    ghost_count_sync(GHOST_SYNC_FENCE);
    GHOST_SYNC_CALL(GHOST_CALL_FENCE);
    int rc = MPI_SUCCESS;
    ghost_wake_covered(w);
    /* Complete this origin's operations of the epoch that ends here. */
    if (!(assert & MPI_MODE_NOPRECEDE))
        rc = ghost_flush_global(w, GHOST_REAL(MPI_Win_flush));
    if (rc == MPI_SUCCESS)
        ghost_untouch_all(w);
    /* Publish local stores before others may read, then wait for everyone's
     * operations to be complete, then see what they wrote. */
    if (rc == MPI_SUCCESS)
        rc = GHOST_REAL(MPI_Win_sync)(w->gwin);
    int agreed = -1;
    if (rc == MPI_SUCCESS)
        rc = ghost_agreeing_barrier(w, &agreed);
    if (rc == MPI_SUCCESS)
        rc = GHOST_REAL(MPI_Win_sync)(w->gwin);
    /* Every origin's operations of the closed epoch are complete and every
     * rank is past the barrier: the point where a state that all ranks set
     * (MPI_Win_set_info is collective) or agreed can take effect everywhere.
     * What the application asked for wins over the profiling vote, and a
     * window allocated with async_config=on keeps what it was given. */
    if (w->pending >= 0) {
        ghost_win_set_redirect(w, w->pending, GHOST_POINT_FENCE);
        w->pending = -1;
    } else if (agreed >= 0 && !w->pinned) {
        ghost_win_set_redirect(w, agreed, GHOST_POINT_FENCE);
    }
    if (agreed >= 0)
        ghost_gp_agreed();
    if (rc == MPI_SUCCESS)
        ghost_ops_complete(w); /* agree.c */
    w->fence_open = !(assert & MPI_MODE_NOSUCCEED);
    return ghost_win_error(w, rc);
})
