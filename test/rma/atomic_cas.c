/* Compare_and_swap atomicity under contention: every rank increments one
 * counter on the last rank with a CAS loop (guess, swap guess+1, retry with
 * the value returned). Each successful swap's old value must be unique
 * across all ranks (0..N-1), and the counter must end at N. Uses lock_all +
 * flush, and a lock/unlock per attempt for the first few increments.
 * argv[1]: increments per rank (default 32). */
#include "rma.h"

static int cmp_int(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }

int main(int argc, char **argv)
{
    rma_init(&argc, &argv);
    int iters = argc > 1 ? atoi(argv[1]) : 32;
    MPI_Win win;
    int t = np - 1;
    int *c = alloc_win(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    self_lock(win, MPI_LOCK_EXCLUSIVE);
    *c = 0;
    self_unlock(win);
    MPI_Barrier(MPI_COMM_WORLD);

    int *won = malloc(sizeof(int) * iters), guess = 0, attempts = 0;
    cur_mode = "cas loop";
    for (int i = 0; i < iters; i++) {
        int lockall = i >= iters / 4;
        if (lockall && i == iters / 4)
            MPI_Win_lock_all(0, win);
        for (;;) {
            int newv = guess + 1, old = -1;
            if (!lockall)
                MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win);
            MPI_Compare_and_swap(&newv, &guess, &old, MPI_INT, t, 0, win);
            if (lockall)
                MPI_Win_flush(t, win);
            else
                MPI_Win_unlock(t, win);
            attempts++;
            if (old == guess) {
                won[i] = old;
                guess = newv;
                break;
            }
            /* the counter only grows: a failed swap saw a later value */
            CHECK(old > guess, "failed cas returned %d after guess %d", old, guess);
            guess = old;
        }
    }
    if (iters / 4 < iters)
        MPI_Win_unlock_all(win);

    cur_mode = "check";
    int n = iters * np, *all = malloc(sizeof(int) * n);
    MPI_Allgather(won, iters, MPI_INT, all, iters, MPI_INT, MPI_COMM_WORLD);
    qsort(all, n, sizeof(int), cmp_int);
    int bad = -1;
    for (int k = 0; k < n; k++)
        if (all[k] != k) {
            bad = k;
            break;
        }
    CHECK(bad < 0, "swapped-out values are not 0..%d once each: sorted[%d] = %d", n - 1, bad, bad < 0 ? 0 : all[bad]);
    int final = -1;
    MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win);
    MPI_Get(&final, 1, MPI_INT, t, 0, 1, MPI_INT, win);
    MPI_Win_unlock(t, win);
    CHECK(final == n, "counter %d want %d", final, n);
    CHECK(attempts >= iters, "attempts %d", attempts);
    free(all);
    free(won);
    MPI_Win_free(&win);
    return rma_finish();
}
