/*
 * Many MPI_Win_allocate windows alive at once, under MPI_ERRORS_RETURN:
 * argv[1] of them (default 2000), of sizes that differ per window and per
 * rank. Each is written by its owner; on the first, a middle and the last
 * window every rank accumulates into its right neighbour under a shared
 * lock and reads the sums back, and MPI_WIN_BASE/SIZE/DISP_UNIT are what
 * the allocation returned. Then the windows are freed in an order unlike
 * their creation, new ones (one of them 8 MiB) are made in the freed room,
 * and those work too. Plain MPICH 4.0.2 holds about 2,040 windows per
 * process (one communicator context each); Ghost must not need more.
 */
#include "check.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int me, np;

static MPI_Aint size_of(int i) { return 64 + 8 * ((i * 7 + me * 3) % 32); }

/* Every rank adds me+1 to word 1 of its right neighbour, under a shared
 * lock, and then checks its own word 1 once all are done. */
static void exercise(MPI_Win win, long *base, MPI_Aint size, int i)
{
    void *abase = NULL;
    MPI_Aint *asize = NULL;
    int *aunit = NULL, flag = 0;
    MPI_Win_get_attr(win, MPI_WIN_BASE, &abase, &flag);
    CHECK(flag && abase == base, "window %d: MPI_WIN_BASE %p, want %p", i, abase, (void *)base);
    MPI_Win_get_attr(win, MPI_WIN_SIZE, &asize, &flag);
    CHECK(flag && asize && *asize == size, "window %d: MPI_WIN_SIZE %ld, want %ld", i,
          asize ? (long)*asize : -1L, (long)size);
    MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &aunit, &flag);
    CHECK(flag && aunit && *aunit == (int)sizeof(long), "window %d: MPI_WIN_DISP_UNIT %d", i, aunit ? *aunit : -1);

    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, win);
    base[1] = 0;
    MPI_Win_unlock(me, win);
    MPI_Barrier(MPI_COMM_WORLD);
    long add = me + 1;
    int right = (me + 1) % np, left = (me + np - 1) % np;
    MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win);
    int rc = MPI_Accumulate(&add, 1, MPI_LONG, right, 1, 1, MPI_LONG, MPI_SUM, win);
    CHECK(rc == MPI_SUCCESS, "window %d: accumulate: error %d", i, rc);
    MPI_Win_unlock(right, win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_SHARED, me, 0, win);
    long got = base[1];
    MPI_Win_unlock(me, win);
    CHECK(got == left + 1, "window %d: word 1 is %ld, want %d", i, got, left + 1);
    CHECK(base[0] == 1000L * i + me, "window %d: the owner's word 0 is %ld, want %ld", i, base[0], 1000L * i + me);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int n = argc > 1 ? atoi(argv[1]) : 2000;
    MPI_Win *wins = malloc(sizeof(MPI_Win) * n);
    long **bases = malloc(sizeof(long *) * n);

    int made = 0, rc = MPI_SUCCESS;
    for (; made < n; made++) {
        rc = MPI_Win_allocate(size_of(made), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &bases[made],
                              &wins[made]);
        if (rc != MPI_SUCCESS)
            break;
        bases[made][0] = 1000L * made + me;
    }
    CHECK(made == n, "only %d of %d windows could be allocated (error %d)", made, n, rc);
    if (made == n) {
        exercise(wins[0], bases[0], size_of(0), 0);
        exercise(wins[n / 2], bases[n / 2], size_of(n / 2), n / 2);
        exercise(wins[n - 1], bases[n - 1], size_of(n - 1), n - 1);
    }

    /* Free the odd ones, then the even ones from the end: the free room
     * ends up in many pieces before it joins up again. */
    for (int i = 1; i < made; i += 2)
        MPI_Win_free(&wins[i]);
    for (int i = (made - 1) / 2 * 2; i >= 0; i -= 2)
        MPI_Win_free(&wins[i]);
    for (int i = 0; i < made; i++)
        CHECK(wins[i] == MPI_WIN_NULL, "window %d: MPI_Win_free left a handle", i);

    /* The room is there again, for small windows and for a large one. */
    enum { AGAIN = 16 };
    MPI_Win again[AGAIN];
    long *abase[AGAIN];
    for (int i = 0; i < AGAIN; i++) {
        MPI_Aint size = i == AGAIN / 2 ? (MPI_Aint)8 << 20 : size_of(i);
        rc = MPI_Win_allocate(size, sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &abase[i], &again[i]);
        CHECK(rc == MPI_SUCCESS, "window %d after the frees: error %d", i, rc);
        if (rc != MPI_SUCCESS)
            MPI_Abort(MPI_COMM_WORLD, 1);
        abase[i][0] = 1000L * i + me;
        if (i == AGAIN / 2)
            memset(abase[i] + 2, 0x5a, ((size_t)8 << 20) - 16);
    }
    for (int i = 0; i < AGAIN; i++)
        exercise(again[i], abase[i], i == AGAIN / 2 ? (MPI_Aint)8 << 20 : size_of(i), i);
    for (int i = 0; i < AGAIN; i++)
        MPI_Win_free(&again[i]);

    free(wins);
    free(bases);
    check_summary();
    MPI_Finalize();
    return 0;
}
