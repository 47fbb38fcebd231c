/* Fetch_and_op atomicity under contention: every rank increments one
 * counter on rank 0 with MPI_Fetch_and_op(SUM) and keeps every value it
 * fetched. All fetched values together must be exactly 0..N-1, each once,
 * and the counter must end at N. Half the increments use lock/unlock per
 * op, half lock_all + flush. argv[1]: increments per rank (default 64). */
#include "rma.h"

static int cmp_ll(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    rma_init(&argc, &argv);
    int iters = argc > 1 ? atoi(argv[1]) : 64;
    MPI_Win win;
    long long *c = alloc_win(sizeof(long long), sizeof(long long), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    self_lock(win, MPI_LOCK_EXCLUSIVE);
    *c = 0;
    self_unlock(win);
    MPI_Barrier(MPI_COMM_WORLD);

    long long one = 1, *seen = malloc(sizeof(long long) * iters);
    int i = 0;
    cur_mode = "lock per op";
    for (; i < iters / 2; i++) {
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
        MPI_Fetch_and_op(&one, &seen[i], MPI_LONG_LONG, 0, 0, MPI_SUM, win);
        MPI_Win_unlock(0, win);
    }
    cur_mode = "lockall flush";
    MPI_Win_lock_all(0, win);
    for (; i < iters; i++) {
        MPI_Fetch_and_op(&one, &seen[i], MPI_LONG_LONG, 0, 0, MPI_SUM, win);
        MPI_Win_flush(0, win);
    }
    MPI_Win_unlock_all(win);
    for (int k = 1; k < iters; k++)
        CHECK(seen[k] > seen[k - 1], "fetched values not increasing: %lld then %lld", seen[k - 1], seen[k]);

    cur_mode = "check";
    long long n = (long long)iters * np, *all = malloc(sizeof(long long) * n);
    MPI_Allgather(seen, iters, MPI_LONG_LONG, all, iters, MPI_LONG_LONG, MPI_COMM_WORLD);
    qsort(all, n, sizeof(long long), cmp_ll);
    long long bad = -1;
    for (long long k = 0; k < n; k++)
        if (all[k] != k) {
            bad = k;
            break;
        }
    CHECK(bad < 0, "fetched values are not 0..%lld once each: sorted[%lld] = %lld", n - 1, bad, bad < 0 ? 0 : all[bad]);
    if (me == 0) {
        self_lock(win, MPI_LOCK_SHARED);
        CHECK(*c == n, "counter %lld want %lld", *c, n);
        self_unlock(win);
    }
    free(all);
    free(seen);
    MPI_Win_free(&win);
    return rma_finish();
}
