/* MPI_MODE_NOCHECK locks followed by ordinary ones on the same target. A
 * shared lock with MPI_MODE_NOCHECK, then (after a barrier, so nothing
 * conflicts) an ordinary shared lock, then an exclusive lock, from the
 * same origin to the same target, with data checks; then the same on
 * oneself. MPICH 4.0.2 hangs in the exclusive lock (its NOCHECK state
 * sticks to the target); the watchdog turns the hang into a FAIL line. */
#include "rma.h"

int main(int argc, char **argv)
{
    rma_init(&argc, &argv);
    watchdog(4);
    MPI_Win win;
    int *w = alloc_win(8 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    self_lock(win, MPI_LOCK_EXCLUSIVE);
    for (int i = 0; i < 8; i++)
        w[i] = 0;
    self_unlock(win);
    MPI_Barrier(MPI_COMM_WORLD);
    int right = (me + 1) % np, left = (me + np - 1) % np;
    for (int self = 0; self < 2; self++) {
        int t = self ? me : right, src = self ? me : left;
        int one = 1, got = -1;
        cur_mode = self ? "self: shared nocheck" : "shared nocheck";
        MPI_Win_lock(MPI_LOCK_SHARED, t, MPI_MODE_NOCHECK, win);
        MPI_Accumulate(&one, 1, MPI_INT, t, 2 * self, 1, MPI_INT, MPI_SUM, win);
        MPI_Win_unlock(t, win);
        MPI_Barrier(MPI_COMM_WORLD);
        cur_mode = self ? "self: shared" : "shared after nocheck";
        MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win);
        MPI_Accumulate(&one, 1, MPI_INT, t, 2 * self, 1, MPI_INT, MPI_SUM, win);
        MPI_Win_unlock(t, win);
        MPI_Barrier(MPI_COMM_WORLD);
        cur_mode = self ? "self: exclusive" : "exclusive after nocheck";
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win);
        MPI_Get(&got, 1, MPI_INT, t, 2 * self, 1, MPI_INT, win);
        MPI_Win_flush(t, win);
        got++;
        MPI_Put(&got, 1, MPI_INT, t, 2 * self + 1, 1, MPI_INT, win);
        MPI_Win_unlock(t, win);
        MPI_Barrier(MPI_COMM_WORLD);
        CHECK(got == 3, "%s: read-modify-write saw %d", cur_mode, got);
        self_lock(win, MPI_LOCK_SHARED);
        CHECK(w[2 * self] == 2 && w[2 * self + 1] == 3, "%s: from %d: %d %d", cur_mode, src, w[2 * self],
              w[2 * self + 1]);
        self_unlock(win);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Win_free(&win);
    return rma_finish();
}
