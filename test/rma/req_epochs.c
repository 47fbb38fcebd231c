/* Request operations and epoch boundaries: (1) requests issued under an
 * exclusive lock and waited for only after MPI_Win_unlock (the unlock
 * completes them; the wait frees them); (2) an Rput request waited for
 * only after the flush that completed it remotely; (3) Rget results polled with
 * MPI_Test while the epoch stays open; (4) request ops under lock_all with
 * MPI_MODE_NOCHECK. */
#include "rma.h"

int main(int argc, char **argv)
{
    rma_init(&argc, &argv);
    MPI_Win win;
    int *w = alloc_win(16 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    self_lock(win, MPI_LOCK_EXCLUSIVE);
    for (int j = 0; j < 16; j++)
        w[j] = 100 * me + j;
    self_unlock(win);
    MPI_Barrier(MPI_COMM_WORLD);
    int right = (me + 1) % np, left = (me + np - 1) % np;
    MPI_Request r[4];

    cur_mode = "wait after unlock";
    int v = 7000 + me, got = -1, one = 1, old = -1;
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win);
    MPI_Rput(&v, 1, MPI_INT, right, 0, 1, MPI_INT, win, &r[0]);
    MPI_Rget(&got, 1, MPI_INT, right, 1, 1, MPI_INT, win, &r[1]);
    MPI_Raccumulate(&one, 1, MPI_INT, right, 2, 1, MPI_INT, MPI_SUM, win, &r[2]);
    MPI_Rget_accumulate(&one, 1, MPI_INT, &old, 1, MPI_INT, right, 3, 1, MPI_INT, MPI_SUM, win, &r[3]);
    MPI_Win_unlock(right, win);
    MPI_Status st[4];
    MPI_Waitall(4, r, st);
    CHECK(got == 100 * right + 1, "rget %d", got);
    CHECK(old == 100 * right + 3, "rget_accumulate old %d", old);
    MPI_Barrier(MPI_COMM_WORLD);
    self_lock(win, MPI_LOCK_SHARED);
    CHECK(w[0] == 7000 + left, "rput from left %d", w[0]);
    CHECK(w[2] == 100 * me + 2 + 1 && w[3] == 100 * me + 3 + 1, "accumulates %d %d", w[2], w[3]);
    self_unlock(win);
    MPI_Barrier(MPI_COMM_WORLD);

    cur_mode = "wait after flush";
    int v2 = 8000 + me;
    MPI_Win_lock_all(0, win);
    MPI_Rput(&v2, 1, MPI_INT, right, 4, 1, MPI_INT, win, &r[0]);
    MPI_Win_flush(right, win);
    MPI_Wait(&r[0], &st[0]);
    CHECK(r[0] == MPI_REQUEST_NULL, "wait left a handle");
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    self_lock(win, MPI_LOCK_SHARED);
    CHECK(w[4] == 8000 + left, "rput from left %d", w[4]);
    self_unlock(win);
    MPI_Barrier(MPI_COMM_WORLD);

    cur_mode = "test loop in open epoch";
    int g8[8];
    MPI_Win_lock(MPI_LOCK_SHARED, left, 0, win);
    MPI_Rget(g8, 8, MPI_INT, left, 8, 8, MPI_INT, win, &r[0]);
    int flag = 0;
    while (!flag)
        MPI_Test(&r[0], &flag, &st[0]);
    for (int j = 0; j < 8; j++)
        CHECK(g8[j] == 100 * left + 8 + j, "g8[%d] = %d", j, g8[j]);
    MPI_Win_unlock(left, win);
    MPI_Barrier(MPI_COMM_WORLD);

    cur_mode = "lock_all nocheck";
    int fetched[4];
    MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
    for (int t = 0; t < np; t++)
        MPI_Rget_accumulate(NULL, 0, MPI_INT, &fetched[t], 1, MPI_INT, t, 9, 1, MPI_INT, MPI_NO_OP, win, &r[t]);
    MPI_Waitall(np, r, st);
    MPI_Win_unlock_all(win);
    for (int t = 0; t < np; t++)
        CHECK(fetched[t] == 100 * t + 9, "no_op fetch from %d = %d", t, fetched[t]);
    MPI_Win_free(&win);
    return rma_finish();
}
