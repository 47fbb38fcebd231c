/* Local load/store under a lock on oneself: each rank, in turn, locks its
 * own window exclusively, stores a block, and unlocks; the others then read
 * it with MPI_Get. Then the others put into the owner's window and the
 * owner reads the values with plain loads under a shared self-lock. Then
 * load-modify-store under an exclusive self-lock interleaved with remote
 * accumulates from the others (all under locks, so the total is exact). */
#include "rma.h"

#define K 8
int main(int argc, char **argv)
{
    rma_init(&argc, &argv);
    int rounds = argc > 1 ? atoi(argv[1]) : 10;
    MPI_Win win;
    int *w = alloc_win((np + 1) * K * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    self_lock(win, MPI_LOCK_EXCLUSIVE);
    for (int i = 0; i < (np + 1) * K; i++)
        w[i] = 0;
    self_unlock(win);
    MPI_Barrier(MPI_COMM_WORLD);

    for (int owner = 0; owner < np; owner++) {
        cur_mode = "store, then remote get";
        if (me == owner) {
            MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, win);
            for (int i = 0; i < K; i++)
                w[i] = 1000 * owner + i;
            MPI_Win_unlock(me, win);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        int got[K], want[K];
        MPI_Win_lock(MPI_LOCK_SHARED, owner, 0, win);
        MPI_Get(got, K, MPI_INT, owner, 0, K, MPI_INT, win);
        MPI_Win_unlock(owner, win);
        for (int i = 0; i < K; i++)
            want[i] = 1000 * owner + i;
        check_ints(got, want, K, "remote view of owner's stores");
        MPI_Barrier(MPI_COMM_WORLD);

        cur_mode = "remote put, then load";
        int pb[K];
        for (int i = 0; i < K; i++)
            pb[i] = -(1000 * owner + 100 * me + i);
        if (me != owner) {
            MPI_Win_lock(MPI_LOCK_EXCLUSIVE, owner, 0, win);
            MPI_Put(pb, K, MPI_INT, owner, (me + 1) * K, K, MPI_INT, win);
            MPI_Win_unlock(owner, win);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        if (me == owner) {
            MPI_Win_lock(MPI_LOCK_SHARED, me, 0, win);
            for (int o = 0; o < np; o++) {
                if (o == owner)
                    continue;
                for (int i = 0; i < K; i++)
                    want[i] = -(1000 * owner + 100 * o + i);
                check_ints(w + (o + 1) * K, want, K, "owner's loads of remote puts");
            }
            MPI_Win_unlock(me, win);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }

    cur_mode = "load-modify-store vs remote accumulate";
    /* counter at w[K-1] of rank 0: rank 0 adds locally, the others remotely */
    self_lock(win, MPI_LOCK_EXCLUSIVE);
    if (me == 0)
        w[K - 1] = 0;
    self_unlock(win);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int r = 0; r < rounds; r++) {
        if (me == 0) {
            MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
            w[K - 1] += 1000;
            MPI_Win_unlock(0, win);
        } else {
            int one = 1;
            MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
            MPI_Accumulate(&one, 1, MPI_INT, 0, K - 1, 1, MPI_INT, MPI_SUM, win);
            MPI_Win_unlock(0, win);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    int total = -1;
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    MPI_Get(&total, 1, MPI_INT, 0, K - 1, 1, MPI_INT, win);
    MPI_Win_unlock(0, win);
    CHECK(total == rounds * (1000 + np - 1), "counter %d want %d", total, rounds * (1000 + np - 1));
    MPI_Win_free(&win);
    return rma_finish();
}
