/* Helpers shared by the test programs that watch or set a window's
 * redirection state.
 *
 * Whether MPI_Win_get_info reports a window as redirected (async_config
 * "on"): the state Ghost's adaptation has given it. Shared by the test
 * programs that watch windows switch. */
#ifndef ASYNC_STATE_H
#define ASYNC_STATE_H
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int state_on(MPI_Win win)
{
    MPI_Info info;
    char v[16] = "";
    int flag = 0;
    MPI_Win_get_info(win, &info);
    /* MPI-3's MPI_Info_get, which Open MPI 4.1 (MPI 3.1) has, where MPICH
     * 4 would take MPI_Info_get_string. */
    MPI_Info_get(info, "async_config", (int)sizeof v - 1, v, &flag);
    MPI_Info_free(&info);
    return flag && strcmp(v, "on") == 0;
}

/* Sets a window's redirection the way a user does: async_config with
 * symmetric=true, the hint that lets Ghost switch at once. */
static void set_async_config(MPI_Win win, const char *value)
{
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "async_config", value);
    MPI_Info_set(info, "symmetric", "true");
    MPI_Win_set_info(win, info);
    MPI_Info_free(&info);
}

/* MPI_Init_thread asking for MPI_THREAD_MULTIPLE, aborting when it is not
 * provided: the programs that call MPI from several threads need it. */
static void init_thread_multiple(int *argc, char ***argv)
{
    int provided, rank;
    MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (provided != MPI_THREAD_MULTIPLE) {
        printf("rank %d: MPI_THREAD_MULTIPLE not provided (%d)\n", rank, provided);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}
#endif
