/*
 * What a window answers about itself, and the hints it takes after
 * allocation: MPI_Win_shared_query, MPI_Win_get_attr, MPI_Win_set_info
 * (async_config switches redirection) and MPI_Win_get_info.
 */
#include "epoch.h"

#include <stdio.h>
#include <string.h>

/* A node-local window's segments are all mapped here, in the node arena or
 * in a shared window (local.c): answer from Ghost's record, with the size
 * each owner asked for, not the one with its control block. Other windows
 * are MPICH's answer. */
static int shared_query(MPI_Win win, int rank, MPI_Aint *size, MPI_Aint *disp_unit, void *baseptr,
                        int (*real)(MPI_Win, int, MPI_Aint *, MPI_Aint *, void *))
{
    ghost_win_t *w = ghost_win_find(win);
    if (!w || !w->local)
        return real(win, rank, size, disp_unit, baseptr);
    if (rank == MPI_PROC_NULL) {
        rank = 0;
        while (rank < w->nusers - 1 && w->t[rank].size == 0)
            rank++;
    }
    if ((unsigned)rank >= (unsigned)w->nusers)
        return ghost_win_error(w, MPI_ERR_RANK);
    *size = w->t[rank].size;
    *disp_unit = w->t[rank].disp_unit;
    *(void **)baseptr = w->t[rank].addr;
    return MPI_SUCCESS;
}

static int real_shared_query(MPI_Win win, int rank, MPI_Aint *size, MPI_Aint *disp_unit, void *baseptr)
{
    int du;
    int rc = GHOST_REAL(MPI_Win_shared_query)(win, rank, size, &du, baseptr);
    *disp_unit = du;
    return rc;
}

GHOST_DEFINE_LOCAL(MPI_Win_shared_query, (MPI_Win win, int rank, MPI_Aint *size, int *disp_unit, void *baseptr),
             (win, rank, size, disp_unit, baseptr), {
                 MPI_Aint du = 0;
                 int rc = shared_query(win, rank, size, &du, baseptr, real_shared_query);
                 *disp_unit = (int)du;
                 return rc;
             })

#ifdef GHOST_HAVE_LARGE_COUNT
GHOST_DEFINE_LOCAL(MPI_Win_shared_query_c, (MPI_Win win, int rank, MPI_Aint *size, MPI_Aint *disp_unit, void *baseptr),
             (win, rank, size, disp_unit, baseptr), {
                 return shared_query(win, rank, size, disp_unit, baseptr, GHOST_REAL(MPI_Win_shared_query_c));
             })
#endif

/* The flavor and the memory model are those of the window the application
 * asked for. A redirected or node-local window's handle may be a dynamic
 * window, whose base, size and disp_unit MPICH does not know, and a plain
 * window's size was rounded up for alignment: Ghost answers for the memory
 * the application asked for (ghost_win_attr). */
GHOST_DEFINE_LOCAL(MPI_Win_get_attr, (MPI_Win win, int keyval, void *attribute_val, int *flag), (win, keyval, attribute_val, flag), {
    ghost_win_t *w = ghost_win_find(win);
    if (w && ghost_win_attr(w, keyval, attribute_val, flag))
        return MPI_SUCCESS;
    return GHOST_REAL(MPI_Win_get_attr)(win, keyval, attribute_val, flag);
})

/* async_config switches redirection: at the next fence, or inside the call
 * with symmetric=true, where the application promises that all its
 * operations are complete and that every rank calls it. The barrier comes
 * before the switch, so no origin can use the new path while another may
 * still be using the old one: every accumulate to a target keeps one path. */
GHOST_DEFINE(MPI_Win_set_info, (MPI_Win win, MPI_Info info), (win, info), {
    int rc = GHOST_REAL(MPI_Win_set_info)(win, info);
    ghost_win_t *w = ghost_win_find(win);
    if (rc != MPI_SUCCESS || !w)
        return rc;
    char value[16], sym[8];
    int flag = 0, symmetric = 0;
    ghost_info_get(info, "async_config", value, sizeof value, &flag);
    ghost_info_get(info, "symmetric", sym, sizeof sym, &symmetric);
    symmetric = symmetric && strcmp(sym, "true") == 0;
    if (!flag) {
        /* symmetric=true alone is an agreement point for the profiling. */
        if (symmetric && ghost_async_auto && !w->plain && !w->local && !w->pinned) {
            int agreed;
            rc = ghost_agreeing_barrier(w, &agreed);
            if (rc == MPI_SUCCESS) {
                ghost_win_set_redirect(w, agreed, GHOST_POINT_SET_INFO);
                ghost_gp_agreed();
            }
        }
        return ghost_win_error(w, rc);
    }
    int on = strcmp(value, "on") == 0, off = strcmp(value, "off") == 0;
    if (!on && !off) {
        static int told;
        if (!__atomic_exchange_n(&told, 1, __ATOMIC_RELAXED))
            fprintf(stderr, "ghost: warning: MPI_Win_set_info: async_config=\"%s\" is not valid: "
                            "accepted values are on or off; ignored\n", value);
        return rc;
    }
    if (w->local) /* served in shared memory: there is no redirection to switch */
        return rc;
    if (w->plain) {
        static int told_plain;
        if (on && !__atomic_exchange_n(&told_plain, 1, __ATOMIC_RELAXED))
            fprintf(stderr, "ghost: warning: MPI_Win_set_info: async_config=on on a window allocated "
                            "with redirection off has no effect; allocate it with async_config=on\n");
        return rc;
    }
    if (symmetric) {
        rc = GHOST_REAL(MPI_Barrier)(w->pscw);
        ghost_win_set_redirect(w, on, GHOST_POINT_SET_INFO);
        w->pending = -1;
    } else {
        w->pending = on;
    }
    return ghost_win_error(w, rc);
})

/* Adds Ghost's own hints to what MPICH reports. */
GHOST_DEFINE_LOCAL(MPI_Win_get_info, (MPI_Win win, MPI_Info *info_used), (win, info_used), {
    int rc = GHOST_REAL(MPI_Win_get_info)(win, info_used);
    ghost_win_t *w = ghost_win_find(win);
    if (rc != MPI_SUCCESS || !w)
        return rc;
    GHOST_REAL(MPI_Info_set)(*info_used, "async_config", (!w->plain && w->redirect) ? "on" : "off");
    if (!w->plain) {
        static const char *names[] = {"lock", "lockall", "fence", "pscw"};
        char epochs[40] = "";
        for (int i = 0; i < 4; i++)
            if (w->epochs & (1 << i)) {
                if (epochs[0])
                    strcat(epochs, ",");
                strcat(epochs, names[i]);
            }
        GHOST_REAL(MPI_Info_set)(*info_used, "epochs_used", epochs);
        GHOST_REAL(MPI_Info_set)(*info_used, "no_local_load_store", w->no_local_load_store ? "true" : "false");
    }
    return rc;
})
