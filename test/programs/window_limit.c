/*
 * Redirected windows up to the limit (issue 12): MPI_Win_allocate of
 * small windows over MPI_COMM_WORLD, under MPI_ERRORS_RETURN, until argv[1]
 * are alive or an allocation fails. A failure must be an MPI error returned
 * on every rank at the same window (no abort, no hang), and a collective
 * after it must work. Then one real operation on the first and on the last
 * window (an accumulate under an exclusive lock on the rank across, read
 * back by its owner), then every window is freed.
 *
 * argv[1]: windows to try; argv[2]: the fewest that must succeed. Rank 0
 * prints "live windows: N".
 */
#include "check.h"

#include <stdlib.h>

/* Every rank adds its rank + 1 to slot 0 of the next rank's window, under
 * an exclusive lock; the owner reads its slot back after a barrier. */
static void one_operation(MPI_Win win, long *base, int me, int size, const char *which)
{
    int peer = (me + 1) % size;
    long add = me + 1;
    base[0] = 0;
    MPI_Win_sync(win);
    MPI_Barrier(MPI_COMM_WORLD);
    int rc = MPI_Win_lock(MPI_LOCK_EXCLUSIVE, peer, 0, win);
    CHECK(rc == MPI_SUCCESS, "%s window: MPI_Win_lock: error %d", which, rc);
    rc = MPI_Accumulate(&add, 1, MPI_LONG, peer, 0, 1, MPI_LONG, MPI_SUM, win);
    CHECK(rc == MPI_SUCCESS, "%s window: MPI_Accumulate: error %d", which, rc);
    rc = MPI_Win_unlock(peer, win);
    CHECK(rc == MPI_SUCCESS, "%s window: MPI_Win_unlock: error %d", which, rc);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_SHARED, me, 0, win);
    long got = base[0];
    MPI_Win_unlock(me, win);
    long want = (me + size - 1) % size + 1;
    CHECK(got == want, "%s window: rank %d holds %ld, want %ld", which, me, got, want);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int want = argc > 1 ? atoi(argv[1]) : 2100;
    int need = argc > 2 ? atoi(argv[2]) : want;

    MPI_Win *wins = malloc(sizeof(MPI_Win) * (size_t)want);
    long **bases = malloc(sizeof(long *) * (size_t)want);
    int n = 0, failed = MPI_SUCCESS;
    for (; n < want; n++) {
        wins[n] = MPI_WIN_NULL;
        int rc = MPI_Win_allocate(64, sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &bases[n], &wins[n]);
        if (rc != MPI_SUCCESS) {
            failed = rc;
            CHECK(wins[n] == MPI_WIN_NULL, "a failed MPI_Win_allocate left a window handle");
            break;
        }
        MPI_Win_set_errhandler(wins[n], MPI_ERRORS_RETURN);
    }
    /* Every rank stopped at the same window, and the world still works. */
    int lo = n, hi = n;
    int rc = MPI_Allreduce(MPI_IN_PLACE, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    CHECK(rc == MPI_SUCCESS, "MPI_Allreduce after %d windows: error %d", n, rc);
    MPI_Allreduce(MPI_IN_PLACE, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    CHECK(lo == hi, "ranks stopped at different windows: %d to %d", lo, hi);
    if (failed != MPI_SUCCESS && me == 0) {
        char msg[MPI_MAX_ERROR_STRING];
        int len = 0, class = 0;
        MPI_Error_class(failed, &class);
        MPI_Error_string(class, msg, &len);
        printf("allocation %d failed with error class %d: %s\n", n + 1, class, msg);
    }
    if (me == 0)
        printf("live windows: %d\n", n);
    CHECK(n >= need, "only %d windows alive at once, want at least %d", n, need);

    if (n > 0) {
        one_operation(wins[0], bases[0], me, size, "first");
        one_operation(wins[n - 1], bases[n - 1], me, size, "last");
    }
    for (int i = 0; i < n; i++) {
        rc = MPI_Win_free(&wins[i]);
        if (rc != MPI_SUCCESS) {
            CHECK(rc == MPI_SUCCESS, "MPI_Win_free of window %d: error %d", i, rc);
            break;
        }
    }
    /* Everything was given back: a new window works. */
    MPI_Win win;
    long *base;
    rc = MPI_Win_allocate(64, sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    CHECK(rc == MPI_SUCCESS, "a window after freeing them all: error %d", rc);
    if (rc == MPI_SUCCESS) {
        MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
        one_operation(win, base, me, size, "new");
        MPI_Win_free(&win);
    }
    free(wins);
    free(bases);
    check_summary();
    MPI_Finalize();
    return 0;
}
