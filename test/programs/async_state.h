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
/* The counters on rank 0 that the programs watching windows switch update
 * across the switches: one slot each for MPI_Accumulate, MPI_Fetch_and_op
 * and a Compare_and_swap loop, all adding 1. */
enum { ACC, FOP, CAS, SLOTS };

/* Adds 1 to each of rank 0's counter slots of win, every update completed
 * by MPI_Win_flush: the accumulate and fetch-and-op together, then a
 * read and a compare-and-swap until the swap lands. win must be in a
 * passive-target epoch on rank 0. */
static inline void count_on_rank0(MPI_Win win)
{
    long one = 1, old;
    MPI_Accumulate(&one, 1, MPI_LONG, 0, ACC, 1, MPI_LONG, MPI_SUM, win);
    MPI_Fetch_and_op(&one, &old, MPI_LONG, 0, FOP, MPI_SUM, win);
    MPI_Win_flush(0, win);
    for (long seen = -1;;) {
        MPI_Get_accumulate(NULL, 0, MPI_LONG, &seen, 1, MPI_LONG, 0, CAS, 1, MPI_LONG, MPI_NO_OP, win);
        MPI_Win_flush(0, win);
        long next = seen + 1, got;
        MPI_Compare_and_swap(&next, &seen, &got, MPI_LONG, 0, CAS, win);
        MPI_Win_flush(0, win);
        if (got == seen)
            break;
    }
}
#endif
