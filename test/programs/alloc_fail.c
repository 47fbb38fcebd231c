/*
 * MPI_Win_allocate that cannot succeed on one rank, under MPI_ERRORS_RETURN:
 * rank 1 asks for 2^50 bytes. Every rank must get an error (Ghost agrees
 * on the outcome of an allocation), and nobody may hang: a window and a
 * collective afterwards work on every rank. argv[1]: the rank that asks
 * too much (default 1).
 */
#include "check.h"

#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int greedy = argc > 1 ? atoi(argv[1]) : 1;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    MPI_Aint bytes = me == greedy ? (MPI_Aint)1 << 50 : 64;
    int *base = NULL;
    MPI_Win win = MPI_WIN_NULL;
    int rc = MPI_Win_allocate(bytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    CHECK(rc != MPI_SUCCESS, "MPI_Win_allocate of %ld bytes on rank %d returned MPI_SUCCESS here", (long)bytes,
          greedy);
    CHECK(win == MPI_WIN_NULL, "a failed MPI_Win_allocate left a window handle");
    if (rc == MPI_SUCCESS && win != MPI_WIN_NULL)
        MPI_Win_free(&win);

    /* Nothing hangs and nothing is left half made. */
    rc = MPI_Win_allocate(64, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    CHECK(rc == MPI_SUCCESS, "a window after the failed one: error %d", rc);
    if (rc == MPI_SUCCESS) {
        int one = 1;
        base[0] = 0;
        MPI_Win_fence(0, win);
        MPI_Accumulate(&one, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win);
        MPI_Win_fence(0, win);
        if (me == 0)
            CHECK(base[0] == size, "rank 0 got %d of %d increments", base[0], size);
        MPI_Win_free(&win);
    }
    int sum = 0;
    MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(sum == size * (size - 1) / 2, "allreduce after the failure: %d", sum);
    check_summary();
    MPI_Finalize();
    return 0;
}
