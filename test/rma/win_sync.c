/* MPI_Win_sync in one long lock_all epoch (the unified-model idiom):
 * (1) each rank stores locally, Win_sync, barrier; the others Get it;
 * (2) a rank puts and flushes, then tells the target by a message; the
 * target Win_syncs and loads the value;
 * (3) a flag written by a remote put is polled by the target with loads
 * and Win_sync (plus MPI_Iprobe to drive MPICH's progress), then data
 * written before the flag must be visible too. */
#include "rma.h"

enum { STORE = 0, IN = 8, DATA = 16, FLAG = 24, WN = 25 };
int main(int argc, char **argv)
{
    rma_init(&argc, &argv);
    MPI_Win win;
    volatile int *w = alloc_win(WN * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    int right = (me + 1) % np, left = (me + np - 1) % np;
    MPI_Win_lock_all(0, win);
    for (int i = 0; i < WN; i++)
        w[i] = 0;
    MPI_Win_sync(win);
    MPI_Barrier(MPI_COMM_WORLD);

    for (int round = 0; round < 3; round++) {
        cur_mode = "store, sync, remote get";
        for (int i = 0; i < 8; i++)
            w[STORE + i] = 100 * round + 10 * me + i;
        MPI_Win_sync(win);
        MPI_Barrier(MPI_COMM_WORLD);
        int got[8], want[8];
        MPI_Get(got, 8, MPI_INT, right, STORE, 8, MPI_INT, win);
        MPI_Win_flush(right, win);
        for (int i = 0; i < 8; i++)
            want[i] = 100 * round + 10 * right + i;
        check_ints(got, want, 8, "get of stored values");
        MPI_Barrier(MPI_COMM_WORLD); /* nobody reads STORE any more before the next stores */

        cur_mode = "put, flush, message, sync, load";
        int pb[8];
        for (int i = 0; i < 8; i++)
            pb[i] = -(100 * round + 10 * me + i);
        MPI_Put(pb, 8, MPI_INT, right, IN, 8, MPI_INT, win);
        MPI_Win_flush(right, win);
        int token = round;
        MPI_Sendrecv_replace(&token, 1, MPI_INT, right, 5, left, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Win_sync(win);
        int bad = 0;
        for (int i = 0; i < 8; i++)
            bad += w[IN + i] != -(100 * round + 10 * left + i);
        CHECK(bad == 0, "[%s] %d loaded values wrong, first %d", cur_mode, bad, w[IN]);
        MPI_Barrier(MPI_COMM_WORLD);
    }

    cur_mode = "poll a flag";
    double t0 = MPI_Wtime();
    if (me == 0) {
        int data[8], flag = 1;
        for (int i = 0; i < 8; i++)
            data[i] = 777 + i;
        for (int t = 1; t < np; t++) {
            MPI_Put(data, 8, MPI_INT, t, DATA, 8, MPI_INT, win);
            MPI_Win_flush(t, win); /* data complete before the flag is written */
            MPI_Put(&flag, 1, MPI_INT, t, FLAG, 1, MPI_INT, win);
            MPI_Win_flush(t, win);
        }
    } else {
        int seen = 0, probe;
        while (!seen && MPI_Wtime() - t0 < 20) {
            MPI_Win_sync(win);
            seen = w[FLAG];
            MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &probe, MPI_STATUS_IGNORE);
        }
        CHECK(seen == 1, "flag never arrived");
        MPI_Win_sync(win);
        for (int i = 0; i < 8; i++)
            CHECK(w[DATA + i] == 777 + i, "data[%d] = %d after the flag", i, w[DATA + i]);
    }
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
    return rma_finish();
}
