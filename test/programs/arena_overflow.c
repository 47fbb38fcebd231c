/*
 * More window memory than a user's part of the node arena holds: argv[2]
 * windows of argv[1] MiB each (default 6 of 256 MiB, against 1 GiB parts),
 * so that the last ones cannot live in the pooled global window and get
 * internal objects of their own, beside pooled ones. On every window, each
 * rank accumulates into the first and the last word of its right
 * neighbour's window under an exclusive lock, and puts into the word
 * before the last in a fence epoch; the owner checks all three. Only the
 * touched pages are used: the arena and the node segments are sparse.
 */
#include "check.h"

#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Aint bytes = (MPI_Aint)(argc > 1 ? atoi(argv[1]) : 256) << 20;
    int n = argc > 2 ? atoi(argv[2]) : 6;
    MPI_Aint last = bytes / (MPI_Aint)sizeof(long) - 1;
    int right = (me + 1) % np, left = (me + np - 1) % np;

    MPI_Win *wins = malloc(sizeof(MPI_Win) * (size_t)n);
    long **bases = malloc(sizeof(long *) * (size_t)n);
    for (int i = 0; i < n; i++) {
        int rc = MPI_Win_allocate(bytes, sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &bases[i], &wins[i]);
        CHECK(rc == MPI_SUCCESS, "window %d of %ld MiB: error %d", i, (long)(bytes >> 20), rc);
        if (rc != MPI_SUCCESS)
            MPI_Abort(MPI_COMM_WORLD, 1);
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, wins[i]);
        bases[i][0] = bases[i][last - 1] = bases[i][last] = 0;
        MPI_Win_unlock(me, wins[i]);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < n; i++) {
        long add = 100L * i + me + 1;
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, wins[i]);
        MPI_Accumulate(&add, 1, MPI_LONG, right, 0, 1, MPI_LONG, MPI_SUM, wins[i]);
        MPI_Accumulate(&add, 1, MPI_LONG, right, last, 1, MPI_LONG, MPI_SUM, wins[i]);
        MPI_Win_unlock(right, wins[i]);
        MPI_Win_fence(0, wins[i]);
        MPI_Put(&add, 1, MPI_LONG, right, last - 1, 1, MPI_LONG, wins[i]);
        MPI_Win_fence(0, wins[i]);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < n; i++) {
        long want = 100L * i + left + 1;
        MPI_Win_lock(MPI_LOCK_SHARED, me, 0, wins[i]);
        CHECK(bases[i][0] == want && bases[i][last] == want && bases[i][last - 1] == want,
              "window %d: first %ld, before last %ld, last %ld, want %ld", i, bases[i][0], bases[i][last - 1],
              bases[i][last], want);
        MPI_Win_unlock(me, wins[i]);
    }
    for (int i = 0; i < n; i++)
        MPI_Win_free(&wins[i]);
    free(wins);
    free(bases);
    check_summary();
    MPI_Finalize();
    return 0;
}
