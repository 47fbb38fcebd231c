/* Asynchronous progress, as a functional check. User rank 1 (the target)
 * makes no MPI call and watches its own window memory; user rank 0 does
 * lock, one operation (argv[1]: acc or put), unlock. The target prints
 * whether the value arrived while it was still outside MPI (within argv[2]
 * seconds), and the origin prints how long its unlock took.
 *
 * Under Ghost the value lands while the target computes. Under plain MPICH
 * it lands only after the target calls MPI again: the Go test asserts both.
 * With argv[3] = "switch-off", the window's redirection is switched off with
 * MPI_Win_set_info(async_config=off, symmetric=true) first: operations then
 * go straight to the target, which behaves like plain MPICH again. */
#include "async_state.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const char *op = argc > 1 ? argv[1] : "acc";
    double bound = argc > 2 ? atof(argv[2]) : 10.0;
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    long *mem;
    MPI_Win win;
    MPI_Win_allocate(sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    *mem = 0;
    if (argc > 3 && strcmp(argv[3], "switch-off") == 0) {
        set_async_config(win, "off");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        /* Outside MPI from here until the value arrives or the bound passes. */
        volatile long *watch = mem;
        double t0 = now();
        while (*watch != 42 && now() - t0 < bound)
            ;
        double waited = now() - t0;
        printf("target: arrived_outside_mpi=%d after %.3f s\n", *watch == 42, waited);
        fflush(stdout);
    } else if (rank == 0) {
        long v = 42;
        double t0 = now();
        MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
        if (strcmp(op, "put") == 0)
            MPI_Put(&v, 1, MPI_LONG, 1, 0, 1, MPI_LONG, win);
        else
            MPI_Accumulate(&v, 1, MPI_LONG, 1, 0, 1, MPI_LONG, MPI_SUM, win);
        MPI_Win_unlock(1, win);
        printf("origin: %s completed in %.6f s\n", op, now() - t0);
        fflush(stdout);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1)
        printf("target: final value %ld\n", *mem);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
