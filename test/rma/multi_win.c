/* Several windows alive at once (allocate with different sizes and
 * units, a Win_create, and a second allocate on a duplicated
 * communicator), with epochs open on several at the same time (lock_all on
 * one, a lock on another, fence on a third), operations interleaved
 * between them; each window's data is checked separately, then they are
 * freed in an order different from creation. */
#include "rma.h"

#define NW 4
int main(int argc, char **argv)
{
    rma_init(&argc, &argv);
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Win win[NW];
    int *base[NW];
    int counts[NW] = {8, 32, 16, 24};
    base[0] = alloc_win(counts[0] * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win[0]);
    base[1] = alloc_win(counts[1] * sizeof(int), 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win[1]); /* byte units */
    base[2] = malloc(counts[2] * sizeof(int));
    MPI_Win_create(base[2], counts[2] * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win[2]);
    base[3] = alloc_win(counts[3] * sizeof(int), sizeof(int), MPI_INFO_NULL, dup, &win[3]);
    for (int k = 0; k < NW; k++) {
        if (k == 2) {
            for (int i = 0; i < counts[k]; i++)
                base[k][i] = 0;
            continue;
        }
        self_lock(win[k], MPI_LOCK_EXCLUSIVE);
        for (int i = 0; i < counts[k]; i++)
            base[k][i] = 0;
        self_unlock(win[k]);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    int right = (me + 1) % np, left = (me + np - 1) % np;

    for (int round = 0; round < 3; round++) {
        cur_mode = "interleaved epochs";
        MPI_Win_fence(0, win[2]);
        MPI_Win_lock_all(0, win[0]);
        MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win[3]);
        for (int k = 0; k < NW; k++) {
            int v = 1000 * k + 100 * round + me, one = 1;
            if (k == 1) { /* byte displacement units; a lock nested inside the other epochs */
                MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win[1]);
                MPI_Put(&v, 1, MPI_INT, right, me * sizeof(int), 1, MPI_INT, win[1]);
                MPI_Accumulate(&one, 1, MPI_INT, right, (counts[1] - 1) * sizeof(int), 1, MPI_INT, MPI_SUM, win[1]);
                MPI_Win_unlock(right, win[1]);
            } else {
                MPI_Put(&v, 1, MPI_INT, right, me, 1, MPI_INT, win[k]);
            }
        }
        MPI_Win_unlock(right, win[3]);
        MPI_Win_unlock_all(win[0]);
        MPI_Win_fence(MPI_MODE_NOSUCCEED, win[2]);
        MPI_Barrier(MPI_COMM_WORLD);
        for (int k = 0; k < NW; k++) {
            int want = 1000 * k + 100 * round + left;
            if (k != 2)
                self_lock(win[k], MPI_LOCK_SHARED);
            CHECK(base[k][left] == want, "round %d window %d: %d want %d", round, k, base[k][left], want);
            if (k == 1)
                CHECK(base[1][counts[1] - 1] == round + 1, "round %d window 1 counter %d", round, base[1][counts[1] - 1]);
            if (k != 2)
                self_unlock(win[k]);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Win_free(&win[2]);
    MPI_Win_free(&win[0]);
    MPI_Win_free(&win[3]);
    MPI_Win_free(&win[1]);
    free(base[2]);
    MPI_Comm_free(&dup);
    return rma_finish();
}
