/*
 * PSCW on redirected windows: MPI_Win_post, start, complete, wait and test.
 * The access epoch is passive mode on the global window; post and complete
 * are messages on a private communicator, never the application's, under a
 * tag of this window's own.
 */
#include "epoch.h"

#include <stdlib.h>

/* PSCW messages on w->pscw, which all windows over one communicator may
 * share: the window's own pair of tags keeps their messages apart. */
#define TAG_POST(w) ((w)->tag)
#define TAG_COMPLETE(w) ((w)->tag + 1)

/* Translates a group into ranks of the window's group. */
static int group_ranks(ghost_win_t *w, MPI_Group group, int *out, int *n)
{
    MPI_Group wgroup;
    int rc = GHOST_REAL(MPI_Win_get_group)(w->user, &wgroup);
    if (rc != MPI_SUCCESS)
        return rc;
    GHOST_REAL(MPI_Group_size)(group, n);
    int *in = malloc(sizeof(int) * (*n > 0 ? *n : 1));
    for (int i = 0; i < *n; i++)
        in[i] = i;
    rc = GHOST_REAL(MPI_Group_translate_ranks)(group, *n, in, wgroup, out);
    free(in);
    GHOST_REAL(MPI_Group_free)(&wgroup);
    for (int i = 0; rc == MPI_SUCCESS && i < *n; i++)
        if (out[i] == MPI_UNDEFINED)
            rc = MPI_ERR_GROUP;
    return rc;
}

GHOST_DEFINE_RMA(MPI_Win_post, (MPI_Group group, int assert, MPI_Win win), (group, assert, win), {
    ghost_win_t *w = ghost_redirected(win);
    if (!w)
        return GHOST_REAL(MPI_Win_post)(group, assert, win);
    if (w->nexposure > 0)
        return ghost_win_error(w, MPI_ERR_RMA_SYNC);
    int n;
    int rc = group_ranks(w, group, w->exposure, &n);
    if (rc != MPI_SUCCESS)
        return ghost_win_error(w, rc);
    if (w->local)
        return ghost_win_error(w, ghost_local_post(w, w->exposure, n, assert));
    GHOST_SYNC_CALL(GHOST_CALL_PSCW);
    /* Local stores before the post must be visible to the origins' gets. */
    rc = GHOST_REAL(MPI_Win_sync)(w->gwin);
    for (int i = 0; rc == MPI_SUCCESS && i < n; i++)
        if (!(assert & MPI_MODE_NOCHECK))
            rc = P2P(GHOST_REAL(MPI_Send)(NULL, 0, MPI_BYTE, w->exposure[i], TAG_POST(w), w->pscw));
    w->nexposure = n;
    if (rc == MPI_SUCCESS)
        ghost_count_sync(GHOST_SYNC_POST);
    return ghost_win_error(w, rc);
})

GHOST_DEFINE_RMA(MPI_Win_start, (MPI_Group group, int assert, MPI_Win win), (group, assert, win), {
    ghost_win_t *w = ghost_redirected(win);
    if (!w)
        return GHOST_REAL(MPI_Win_start)(group, assert, win);
    if (w->access_open)
        return ghost_win_error(w, MPI_ERR_RMA_SYNC);
    int n;
    int rc = group_ranks(w, group, w->access, &n);
    if (w->local)
        return ghost_win_error(w, rc != MPI_SUCCESS ? rc : ghost_local_start(w, w->access, n, assert));
    GHOST_SYNC_CALL(GHOST_CALL_PSCW);
    for (int i = 0; rc == MPI_SUCCESS && i < n; i++)
        ghost_wake_target(w, &w->t[w->access[i]]);
    for (int i = 0; rc == MPI_SUCCESS && i < n; i++)
        if (!(assert & MPI_MODE_NOCHECK))
            rc = GHOST_REAL(MPI_Recv)(NULL, 0, MPI_BYTE, w->access[i], TAG_POST(w), w->pscw,
                                      MPI_STATUS_IGNORE);
    w->naccess = rc == MPI_SUCCESS ? n : 0;
    w->access_open = rc == MPI_SUCCESS;
    if (rc == MPI_SUCCESS)
        ghost_count_sync(GHOST_SYNC_START);
    return ghost_win_error(w, rc);
})

GHOST_DEFINE_RMA(MPI_Win_complete, (MPI_Win win), (win), {
    ghost_win_t *w = ghost_redirected(win);
    if (!w)
        return GHOST_REAL(MPI_Win_complete)(win);
    if (w->local)
        return ghost_win_error(w, ghost_local_complete(w));
    if (!w->access_open)
        return ghost_win_error(w, MPI_ERR_RMA_SYNC);
    GHOST_SYNC_CALL(GHOST_CALL_PSCW);
    int rc = MPI_SUCCESS;
    for (int i = 0; i < w->naccess; i++)
        ghost_wake_target(w, &w->t[w->access[i]]);
    for (int i = 0; rc == MPI_SUCCESS && i < w->naccess; i++)
        rc = ghost_flush_target(w, &w->t[w->access[i]], GHOST_REAL(MPI_Win_flush));
    for (int i = 0; rc == MPI_SUCCESS && i < w->naccess; i++)
        rc = P2P(GHOST_REAL(MPI_Send)(NULL, 0, MPI_BYTE, w->access[i], TAG_COMPLETE(w), w->pscw));
    w->naccess = 0;
    w->access_open = 0;
    return ghost_win_error(w, rc);
})

/* Receives the complete messages that have arrived; with block, all of them. */
static int collect_completes(ghost_win_t *w, int block)
{
    int rc = MPI_SUCCESS;
    while (w->nexposure > 0 && rc == MPI_SUCCESS) {
        int origin = w->exposure[w->nexposure - 1];
        if (!block) {
            int arrived = 0;
            rc = GHOST_REAL(MPI_Iprobe)(origin, TAG_COMPLETE(w), w->pscw, &arrived, MPI_STATUS_IGNORE);
            if (rc != MPI_SUCCESS || !arrived)
                break;
        }
        rc = GHOST_REAL(MPI_Recv)(NULL, 0, MPI_BYTE, origin, TAG_COMPLETE(w), w->pscw,
                                  MPI_STATUS_IGNORE);
        if (rc == MPI_SUCCESS)
            w->nexposure--;
    }
    if (rc == MPI_SUCCESS && w->nexposure == 0)
        rc = GHOST_REAL(MPI_Win_sync)(w->gwin); /* see what the origins wrote */
    return rc;
}

GHOST_DEFINE_RMA(MPI_Win_wait, (MPI_Win win), (win), {
    ghost_win_t *w = ghost_redirected(win);
    if (!w)
        return GHOST_REAL(MPI_Win_wait)(win);
    int done;
    if (w->local)
        return ghost_win_error(w, ghost_local_wait(w, 1, &done));
    GHOST_SYNC_CALL(GHOST_CALL_PSCW);
    return ghost_win_error(w, collect_completes(w, 1));
})

GHOST_DEFINE_RMA(MPI_Win_test, (MPI_Win win, int *flag), (win, flag), {
    ghost_win_t *w = ghost_redirected(win);
    if (!w)
        return GHOST_REAL(MPI_Win_test)(win, flag);
    if (w->local)
        return ghost_win_error(w, ghost_local_wait(w, 0, flag));
    GHOST_SYNC_CALL(GHOST_CALL_PSCW);
    int rc = collect_completes(w, 0);
    *flag = (rc == MPI_SUCCESS && w->nexposure == 0);
    return ghost_win_error(w, rc);
})
