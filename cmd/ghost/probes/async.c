/* The asynchronous-progress probe of `ghost doctor` (embedded in the ghost
 * binary, built with mpicc at run time). Two ranks: rank 1, the target,
 * computes outside MPI for argv[2] seconds while watching its own window
 * memory; rank 0, the origin, issues one operation to it and completes it:
 *
 *   acc          MPI_Win_lock(shared), MPI_Accumulate(MPI_SUM), MPI_Win_unlock
 *   put-lockall  MPI_Win_lock_all(NOCHECK), MPI_Put, MPI_Win_unlock_all
 *
 * With asynchronous progress (hardware, a progress thread, or Ghost's
 * ghosts) the operation completes while the target computes; without, it
 * completes only when the target calls MPI again, after the compute time.
 * Each rank prints one line that the doctor parses:
 *
 *   probe: origin op=acc op_s=0.000412
 *   probe: target compute_s=0.300001 arrived_s=0.000388 value=42
 *
 * arrived_s is when the value appeared in the target's memory while it
 * computed, or -1 if it did not. 4 KiB per rank keeps every window base
 * aligned, away from MPICH 4.0.2's small-window alignment bug. */
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
    double compute = argc > 2 ? atof(argv[2]) : 0.3;
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2 || (strcmp(op, "acc") != 0 && strcmp(op, "put-lockall") != 0)) {
        if (rank == 0)
            fprintf(stderr, "probe: usage: 2 ranks, probe acc|put-lockall [compute seconds]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    long *mem;
    MPI_Win win;
    MPI_Win_allocate(4096, sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    mem[0] = 0;
    MPI_Barrier(MPI_COMM_WORLD);

    if (rank == 1) {
        volatile long *watch = mem;
        double t0 = now(), arrived = -1, t;
        while ((t = now() - t0) < compute)
            if (arrived < 0 && *watch == 42)
                arrived = t;
        MPI_Barrier(MPI_COMM_WORLD);
        printf("probe: target compute_s=%.6f arrived_s=%.6f value=%ld\n", t, arrived, *watch);
    } else {
        long v = 42;
        double t0 = now();
        if (strcmp(op, "acc") == 0) {
            MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
            MPI_Accumulate(&v, 1, MPI_LONG, 1, 0, 1, MPI_LONG, MPI_SUM, win);
            MPI_Win_unlock(1, win);
        } else {
            MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
            MPI_Put(&v, 1, MPI_LONG, 1, 0, 1, MPI_LONG, win);
            MPI_Win_unlock_all(win);
        }
        double t = now() - t0;
        MPI_Barrier(MPI_COMM_WORLD);
        printf("probe: origin op=%s op_s=%.6f\n", op, t);
    }
    fflush(stdout);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
