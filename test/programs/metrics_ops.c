/*
 * Issues a known number of RMA operations of every kind, first through the
 * ghosts and then, after switching the window's redirection off with
 * MPI_Win_set_info(async_config=off, symmetric=true), straight to the
 * targets, for test/metrics_test.go to find in the metrics.
 *
 * Every user rank targets the next one. Per rank:
 *   redirected: put 3 (one Rput), get 4 (one Rget), acc 5, get_acc 6, fop 7, cas 8
 *   direct:     put 1, get 2 (one Rget), acc 3, get_acc 4, fop 5, cas 6
 * put/get move 4 ints, acc/get_acc 2 ints, fop one int64, cas one int.
 * Synchronization: two lock_all epochs, no flush.
 *
 * usage: metrics_ops [HOLD_FILE]
 * With HOLD_FILE, the ranks wait after the last operation until that file
 * exists (at most 120 s), so that a scraper can read the exporters; without
 * it they finalize right after the last operation.
 */
#include "async_state.h"

#include <mpi.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static void ops(MPI_Win win, int target, int put, int get, int acc, int gacc, int fop, int cas, int rput,
                int rget)
{
    int buf[4] = {1, 2, 3, 4}, res[4];
    int64_t one = 1, old;
    int cmp = 0, swap = 1, got;
    MPI_Request req;
    MPI_Win_lock_all(0, win);
    for (int i = 0; i < put - rput; i++)
        MPI_Put(buf, 4, MPI_INT, target, 0, 4, MPI_INT, win);
    for (int i = 0; i < rput; i++) {
        MPI_Rput(buf, 4, MPI_INT, target, 0, 4, MPI_INT, win, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    for (int i = 0; i < get - rget; i++)
        MPI_Get(res, 4, MPI_INT, target, 4, 4, MPI_INT, win);
    for (int i = 0; i < rget; i++) {
        MPI_Rget(res, 4, MPI_INT, target, 4, 4, MPI_INT, win, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    for (int i = 0; i < acc; i++)
        MPI_Accumulate(buf, 2, MPI_INT, target, 8, 2, MPI_INT, MPI_SUM, win);
    for (int i = 0; i < gacc; i++)
        MPI_Get_accumulate(buf, 2, MPI_INT, res, 2, MPI_INT, target, 8, 2, MPI_INT, MPI_SUM, win);
    for (int i = 0; i < fop; i++)
        MPI_Fetch_and_op(&one, &old, MPI_INT64_T, target, 2, MPI_SUM, win);
    for (int i = 0; i < cas; i++)
        MPI_Compare_and_swap(&swap, &cmp, &got, MPI_INT, target, 12, win);
    MPI_Win_unlock_all(win);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int target = (rank + 1) % size;

    int *base;
    MPI_Win win;
    MPI_Win_allocate(64 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);

    ops(win, target, 3, 4, 5, 6, 7, 8, 1, 1);

    set_async_config(win, "off");

    ops(win, target, 1, 2, 3, 4, 5, 6, 0, 1);

    if (argc > 1) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0) {
            printf("holding until %s exists\n", argv[1]);
            fflush(stdout);
            struct timespec pause = {0, 50 * 1000 * 1000};
            for (int i = 0; i < 2400 && access(argv[1], F_OK) != 0; i++)
                nanosleep(&pause, NULL);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Win_free(&win);
    printf("rank %d of %d: done\n", rank, size);
    MPI_Finalize();
    return 0;
}
