/* Barriers on MPI_COMM_WORLD where only some ranks hold a window: the even
 * ranks allocate one on their own communicator (under GHOST_ASYNC=auto on
 * two fake nodes it spans them, so it may switch outside collectives),
 * the odd ranks hold none. Ghost turns each barrier into a collective of
 * its own; every rank must take the same kind of collective whatever
 * windows it holds, or the barrier hangs. Between the barriers the even
 * ranks accumulate into rank 0 of their communicator, and the total is
 * checked at the end, as is that every rank went through every round. */
#include "check.h"

#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    int rounds = argc > 1 ? atoi(argv[1]) : 50;
    MPI_Comm evens;
    MPI_Comm_split(MPI_COMM_WORLD, me % 2 ? MPI_UNDEFINED : 0, me, &evens);
    MPI_Win win = MPI_WIN_NULL;
    long *sum = NULL;
    int nevens = 0;
    if (evens != MPI_COMM_NULL) {
        MPI_Comm_size(evens, &nevens);
        MPI_Win_allocate(sizeof(long), sizeof(long), MPI_INFO_NULL, evens, &sum, &win);
        *sum = 0;
        MPI_Win_lock_all(0, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    for (int r = 0; r < rounds; r++) {
        if (win != MPI_WIN_NULL) {
            long one = 1;
            MPI_Accumulate(&one, 1, MPI_LONG, 0, 0, 1, MPI_LONG, MPI_SUM, win);
            MPI_Win_flush(0, win);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    int mine = rounds, all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(all == rounds * np, "%d rounds in all, want %d", all, rounds * np);
    if (win != MPI_WIN_NULL) {
        MPI_Win_unlock_all(win);
        MPI_Barrier(evens);
        int rank;
        MPI_Comm_rank(evens, &rank);
        if (rank == 0) {
            MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
            long got = *sum;
            MPI_Win_unlock(0, win);
            CHECK(got == (long)rounds * nevens, "sum %ld, want %ld", got, (long)rounds * nevens);
        }
        MPI_Win_free(&win);
        MPI_Comm_free(&evens);
    }
    check_summary();
    MPI_Finalize();
    return 0;
}
