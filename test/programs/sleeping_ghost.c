/*
 * Latency of epochs that find their ghost asleep. User rank 1 (the target)
 * computes outside MPI for the whole run; user rank 0 (the origin) runs
 * argv[1] epochs of lock(exclusive), one 8-byte accumulate, unlock on it,
 * pausing argv[2] ms before each so that the target's ghost has gone to
 * sleep (GHOST_WAIT=adaptive sleeps up to 1 or 8 ms at a time). Run on the ghost
 * path (GHOST_NODE_LOCAL=off, or the target on another node's ghost).
 *
 * An epoch is several exchanges with the ghost (lock request and grant,
 * the operation, the unlock and its acknowledgement); without a ring at
 * each step, each could wait for the ghost's next timed wake. The origin
 * prints the median, the 90th percentile and the slowest epoch in µs, and
 * the number of epochs over 1 ms; test/progress_test.go judges them.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int n = argc > 1 ? atoi(argv[1]) : 100;
    double pause_ms = argc > 2 ? atof(argv[2]) : 3.0;
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    long *base;
    MPI_Win win;
    MPI_Win_allocate(sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    *base = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        double *lat = malloc(n * sizeof *lat);
        long one = 1;
        for (int i = 0; i < n; i++) {
            struct timespec p = {0, (long)(pause_ms * 1e6)};
            nanosleep(&p, NULL);
            double t0 = now();
            MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
            MPI_Accumulate(&one, 1, MPI_LONG, 1, 0, 1, MPI_LONG, MPI_SUM, win);
            MPI_Win_unlock(1, win);
            lat[i] = (now() - t0) * 1e6;
        }
        qsort(lat, n, sizeof *lat, cmp);
        int over = 0;
        for (int i = 0; i < n; i++)
            over += lat[i] > 1000;
        printf("origin: epochs %d median_us %.1f p90_us %.1f max_us %.1f over_1ms %d\n", n, lat[n / 2],
               lat[n * 9 / 10], lat[n - 1], over);
        fflush(stdout);
        free(lat);
        /* Tell the target to stop computing. */
        long stop = -1000000;
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
        MPI_Accumulate(&stop, 1, MPI_LONG, 1, 0, 1, MPI_LONG, MPI_SUM, win);
        MPI_Win_unlock(1, win);
    } else if (rank == 1) {
        /* Compute outside MPI until the origin's last accumulate lands. */
        volatile double x = 1;
        while (__atomic_load_n(base, __ATOMIC_ACQUIRE) >= 0)
            for (int k = 0; k < 10000; k++)
                x = x * 1.0000001 + 1e-9;
        printf("target: counted %ld epochs\n", *base + 1000000);
        fflush(stdout);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
