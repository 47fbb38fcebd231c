/* One window through every kind of epoch in turn, several times: fence,
 * then lock/unlock, then PSCW, then lock_all with flush, then fence again
 * (with NOPRECEDE after passive epochs), each with puts and accumulates
 * whose results are checked before the next kind starts. */
#include "rma.h"

int main(int argc, char **argv)
{
    rma_init(&argc, &argv);
    int rounds = argc > 1 ? atoi(argv[1]) : 3;
    MPI_Win win;
    int *w = alloc_win(8 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    int right = (me + 1) % np, left = (me + np - 1) % np, one = 1;
    MPI_Group g;
    MPI_Win_get_group(win, &g);
    for (int i = 0; i < 8; i++)
        w[i] = 0;
    int expect_sum = 0;
    for (int r = 0; r < rounds; r++) {
        int v;
        cur_mode = "fence";
        MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
        v = 1000 * r + 100 + me;
        MPI_Put(&v, 1, MPI_INT, right, 0, 1, MPI_INT, win);
        MPI_Accumulate(&one, 1, MPI_INT, right, 7, 1, MPI_INT, MPI_SUM, win);
        MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
        expect_sum++;
        CHECKM(w[0] == 1000 * r + 100 + left && w[7] == expect_sum, "round %d: %d %d", r, w[0], w[7]);
        MPI_Barrier(MPI_COMM_WORLD); /* NOSUCCEED ends the epoch but does not hold the others back */

        cur_mode = "lock";
        v = 1000 * r + 200 + me;
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win);
        MPI_Put(&v, 1, MPI_INT, right, 1, 1, MPI_INT, win);
        MPI_Accumulate(&one, 1, MPI_INT, right, 7, 1, MPI_INT, MPI_SUM, win);
        MPI_Win_unlock(right, win);
        MPI_Barrier(MPI_COMM_WORLD);
        expect_sum++;
        self_lock(win, MPI_LOCK_SHARED);
        CHECKM(w[1] == 1000 * r + 200 + left && w[7] == expect_sum, "round %d: %d %d", r, w[1], w[7]);
        self_unlock(win);
        MPI_Barrier(MPI_COMM_WORLD);

        cur_mode = "pscw";
        MPI_Win_post(g, 0, win);
        MPI_Win_start(g, 0, win);
        v = 1000 * r + 300 + me;
        MPI_Put(&v, 1, MPI_INT, right, 2, 1, MPI_INT, win);
        MPI_Accumulate(&one, 1, MPI_INT, right, 7, 1, MPI_INT, MPI_SUM, win);
        MPI_Win_complete(win);
        MPI_Win_wait(win);
        expect_sum++;
        CHECKM(w[2] == 1000 * r + 300 + left && w[7] == expect_sum, "round %d: %d %d", r, w[2], w[7]);
        MPI_Barrier(MPI_COMM_WORLD);

        cur_mode = "lock_all";
        v = 1000 * r + 400 + me;
        MPI_Win_lock_all(0, win);
        MPI_Put(&v, 1, MPI_INT, right, 3, 1, MPI_INT, win);
        MPI_Accumulate(&one, 1, MPI_INT, right, 7, 1, MPI_INT, MPI_SUM, win);
        MPI_Win_flush(right, win);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Win_sync(win);
        expect_sum++;
        CHECKM(w[3] == 1000 * r + 400 + left && w[7] == expect_sum, "round %d: %d %d", r, w[3], w[7]);
        MPI_Win_unlock_all(win);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Group_free(&g);
    MPI_Win_free(&win);
    return rma_finish();
}
