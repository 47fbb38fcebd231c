/* A computation phase and then a communication phase, with no collective
 * between them (GHOST_ASYNC=auto; c/quiesce.c, the stall and busy rules),
 * in one lock_all(MPI_MODE_NOCHECK) epoch.
 *
 *  - Computation: each rank computes in chunks, chunk_ms long on odd
 *    ranks and a fifth of that on even ones, and between them accumulates
 *    into its right neighbour and flushes: an even rank's flushes wait on
 *    its odd neighbour, so the window switches to redirection at a
 *    quiescence point (the stall rule).
 *  - Communication: every rank accumulates into every rank and flushes,
 *    in a tight loop. Nothing waits for computation, and the ranks spend
 *    the phase in RMA calls, so the window switches back to the direct
 *    path at a quiescence point (the busy rule). The cost rule alone may
 *    not: the direct path's price and stalls were learned in the phase
 *    before.
 *
 * Each rank prints "rank R: computation ended on|off, communication ended
 * on|off" before the final barrier, where the state may change again,
 * and "phases T1 T2": when the communication phase began and ended, in
 * seconds since the Unix epoch (the trace's clock). The counter is checked
 * exactly.
 * Usage: busy_phase [computation seconds] [communication seconds] [chunk_ms] */
#include "check.h"
#include "async_state.h"
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>

static double unix_now(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return tv.tv_sec + tv.tv_usec * 1e-6;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    double comp_s = argc > 1 ? atof(argv[1]) : 0.5, comm_s = argc > 2 ? atof(argv[2]) : 0.5;
    double chunk_s = (argc > 3 ? atof(argv[3]) : 5) / 1000;
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long *counter, one = 1, issued = 0;
    MPI_Win win;
    MPI_Win_allocate(sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &counter, &win);
    *counter = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock_all(MPI_MODE_NOCHECK, win);

    /* First every rank accumulates into its neighbour while all are in MPI:
     * what a completion costs when the target is there, against which an
     * origin tells a stall (c/prof.c). */
    int peer = (rank + 1) % size;
    for (int i = 0; i < 100; i++, issued++) {
        MPI_Accumulate(&one, 1, MPI_LONG, peer, 0, 1, MPI_LONG, MPI_SUM, win);
        MPI_Win_flush(peer, win);
    }
    double t0 = MPI_Wtime();
    while (MPI_Wtime() - t0 < comp_s) {
        MPI_Accumulate(&one, 1, MPI_LONG, peer, 0, 1, MPI_LONG, MPI_SUM, win);
        MPI_Win_flush(peer, win);
        issued++;
        compute_until(MPI_Wtime() + (rank % 2 == 1 ? chunk_s : chunk_s / 5));
    }
    int comp_on = state_on(win);

    double comm_began = unix_now();
    t0 = MPI_Wtime();
    while (MPI_Wtime() - t0 < comm_s) {
        for (int r = 0; r < size; r++)
            MPI_Accumulate(&one, 1, MPI_LONG, r, 0, 1, MPI_LONG, MPI_SUM, win);
        MPI_Win_flush_all(win);
        issued += size;
    }
    int comm_on = state_on(win);
    double comm_ended = unix_now();
    printf("rank %d: computation ended %s, communication ended %s\n", rank, comp_on ? "on" : "off",
           comm_on ? "on" : "off");
    if (rank == 0)
        printf("phases %.6f %.6f\n", comm_began, comm_ended);

    MPI_Win_flush_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    long total = 0, sum = 0;
    MPI_Allreduce(&issued, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    /* The window memory is read after the barrier that followed every
     * origin's flush_all (MPI_Win_sync orders the load with it). */
    MPI_Win_sync(win);
    long mine = *counter;
    MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    CHECK(sum == total, "the counters hold %ld, the ranks added %ld", sum, total);
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
    check_summary();
    MPI_Finalize();
    return 0;
}
