/* Mutual exclusion under exclusive locks: inside MPI_LOCK_EXCLUSIVE epochs
 * every rank does a read-modify-write with Get, flush and Put, on a counter
 * on rank 0 and on a block on the last rank. An owner word is also claimed
 * and released inside each epoch: nobody may ever find it taken. Totals
 * must be exact. argv[1]: iterations per rank (default 20). */
#include "rma.h"

#define K 4
int main(int argc, char **argv)
{
    rma_init(&argc, &argv);
    int iters = argc > 1 ? atoi(argv[1]) : 20;
    MPI_Win win;
    int *w = alloc_win((2 + K) * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    self_lock(win, MPI_LOCK_EXCLUSIVE);
    for (int j = 0; j < 2 + K; j++)
        w[j] = 0;
    self_unlock(win);
    MPI_Barrier(MPI_COMM_WORLD);

    int last = np - 1, intruders = 0;
    for (int i = 0; i < iters; i++) {
        cur_mode = "counter on rank 0";
        int v[2], mine = me + 1, zero = 0;
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        MPI_Get(v, 2, MPI_INT, 0, 0, 2, MPI_INT, win); /* v[0] counter, v[1] owner */
        MPI_Win_flush(0, win);
        intruders += v[1] != 0;
        v[0]++;
        MPI_Put(&v[0], 1, MPI_INT, 0, 0, 1, MPI_INT, win);
        MPI_Put(&mine, 1, MPI_INT, 0, 1, 1, MPI_INT, win);
        MPI_Win_flush(0, win);
        MPI_Get(&v[1], 1, MPI_INT, 0, 1, 1, MPI_INT, win);
        MPI_Win_flush(0, win);
        CHECK(v[1] == mine, "owner word %d while I (%d) hold the lock", v[1], mine);
        MPI_Put(&zero, 1, MPI_INT, 0, 1, 1, MPI_INT, win);
        MPI_Win_unlock(0, win);

        cur_mode = "block on last rank";
        int b[K];
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, last, 0, win);
        MPI_Get(b, K, MPI_INT, last, 2, K, MPI_INT, win);
        MPI_Win_flush(last, win);
        for (int k = 0; k < K; k++)
            b[k] += k + 1;
        MPI_Put(b, K, MPI_INT, last, 2, K, MPI_INT, win);
        MPI_Win_unlock(last, win);
    }
    CHECK(intruders == 0, "found the owner word taken %d times", intruders);
    MPI_Barrier(MPI_COMM_WORLD);

    cur_mode = "check";
    int c = -1, b[K];
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    MPI_Get(&c, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
    MPI_Win_unlock(0, win);
    MPI_Win_lock(MPI_LOCK_SHARED, last, 0, win);
    MPI_Get(b, K, MPI_INT, last, 2, K, MPI_INT, win);
    MPI_Win_unlock(last, win);
    CHECK(c == iters * np, "counter %d want %d", c, iters * np);
    int want[K];
    for (int k = 0; k < K; k++)
        want[k] = iters * np * (k + 1);
    check_ints(b, want, K, "block");
    MPI_Win_free(&win);
    return rma_finish();
}
