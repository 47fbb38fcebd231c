/* Accumulate atomicity under contention: every rank adds to one counter on
 * the last rank with MPI_Accumulate(SUM), many times, in three ways: one
 * lock/unlock per add, lock_all with a flush per add, and lock_all with all
 * adds in flight at once. The exact totals are checked by every rank.
 * argv[1]: iterations per phase (default 64). */
#include "rma.h"

int main(int argc, char **argv)
{
    rma_init(&argc, &argv);
    int iters = argc > 1 ? atoi(argv[1]) : 64;
    MPI_Win win;
    long long *c = alloc_win(4 * sizeof(long long), sizeof(long long), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    int t = np - 1;
    self_lock(win, MPI_LOCK_EXCLUSIVE);
    c[0] = c[1] = c[2] = 0;
    c[3] = 0;
    self_unlock(win);
    MPI_Barrier(MPI_COMM_WORLD);

    long long add = me + 1, addd = 3;
    cur_mode = "lock per add";
    for (int i = 0; i < iters; i++) {
        MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win);
        MPI_Accumulate(&add, 1, MPI_LONG_LONG, t, 0, 1, MPI_LONG_LONG, MPI_SUM, win);
        MPI_Win_unlock(t, win);
    }
    cur_mode = "lockall flush per add";
    MPI_Win_lock_all(0, win);
    for (int i = 0; i < iters; i++) {
        MPI_Accumulate(&add, 1, MPI_LONG_LONG, t, 1, 1, MPI_LONG_LONG, MPI_SUM, win);
        MPI_Win_flush(t, win);
    }
    cur_mode = "lockall batched";
    for (int i = 0; i < iters; i++) {
        MPI_Accumulate(&add, 1, MPI_LONG_LONG, t, 2, 1, MPI_LONG_LONG, MPI_SUM, win);
        /* the same counter from both ends of the window's 64-bit words */
        MPI_Accumulate(&addd, 1, MPI_LONG_LONG, t, 3, 1, MPI_LONG_LONG, MPI_SUM, win);
    }
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);

    cur_mode = "check";
    long long want = (long long)iters * np * (np + 1) / 2, got[4];
    MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win);
    MPI_Get(got, 4, MPI_LONG_LONG, t, 0, 4, MPI_LONG_LONG, win);
    MPI_Win_unlock(t, win);
    for (int k = 0; k < 3; k++)
        CHECK(got[k] == want, "counter %d = %lld want %lld", k, got[k], want);
    CHECK(got[3] == 3LL * iters * np, "counter 3 = %lld", got[3]);
    if (me == t) {
        self_lock(win, MPI_LOCK_SHARED);
        CHECK(c[0] == want && c[1] == want && c[2] == want, "local view %lld %lld %lld", c[0], c[1], c[2]);
        self_unlock(win);
    }
    MPI_Win_free(&win);
    return rma_finish();
}
