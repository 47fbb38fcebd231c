/*
 * What a user that waits costs the others when processes share cores.
 * User rank 1 issues accumulates and flushes to rank 0 through its ghost
 * (run with GHOST_NODE_LOCAL=off and GHOST_ASYNC=on) for argv[1] ms, which
 * keeps it and the ghost busy, while rank 0 waits in MPI_Barrier for it.
 * With the job on 2 CPUs that is three runnable processes on two cores.
 *
 * Rank 0 prints its wait's wall time and the CPU time its thread used in
 * it. A waiter that only yields keeps its core: the CPU time is most of
 * the wall time, and rank 1 and the ghost share the other core. One that
 * dozes (c/politeness.c) leaves its core to them. Both ranks check the
 * accumulated value; test/progress_test.go judges the rest.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double clock_s(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    double busy_s = (argc > 1 ? atof(argv[1]) : 400) / 1e3;
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0)
            fprintf(stderr, "waiting_user: run with 2 user ranks, not %d\n", size);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    long *base;
    MPI_Win win;
    MPI_Win_allocate(sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    *base = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    long sent = 0;
    if (rank == 1) {
        long one = 1;
        double t0 = clock_s(CLOCK_MONOTONIC);
        MPI_Win_lock_all(0, win);
        while (clock_s(CLOCK_MONOTONIC) - t0 < busy_s) {
            MPI_Accumulate(&one, 1, MPI_LONG, 0, 0, 1, MPI_LONG, MPI_SUM, win);
            MPI_Win_flush(0, win);
            sent++;
        }
        MPI_Win_unlock_all(win);
        MPI_Barrier(MPI_COMM_WORLD);
    } else {
        double wall0 = clock_s(CLOCK_MONOTONIC), cpu0 = clock_s(CLOCK_THREAD_CPUTIME_ID);
        MPI_Barrier(MPI_COMM_WORLD);
        double wall = clock_s(CLOCK_MONOTONIC) - wall0, cpu = clock_s(CLOCK_THREAD_CPUTIME_ID) - cpu0;
        printf("waiter: wall_ms %.1f cpu_ms %.1f\n", wall * 1e3, cpu * 1e3);
    }
    MPI_Bcast(&sent, 1, MPI_LONG, 1, MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    long got = 0;
    MPI_Get(&got, 1, MPI_LONG, 0, 0, 1, MPI_LONG, win);
    MPI_Win_unlock(0, win);
    if (rank == 0)
        printf("waiter: sent %ld landed %ld %s\n", sent, got, got == sent && sent > 0 ? "correct" : "WRONG");
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
