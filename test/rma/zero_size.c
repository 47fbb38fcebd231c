/* Zero-byte windows: odd ranks allocate 0 bytes, even ranks 64. Attributes
 * of an empty window (MPI_WIN_SIZE 0), zero-count operations aimed at an
 * empty window, and normal operations among the non-empty ones, in
 * lock_all and fence epochs. */
#include "rma.h"

int main(int argc, char **argv)
{
    rma_init(&argc, &argv);
    MPI_Aint bytes = me % 2 ? 0 : 64;
    int *w = NULL;
    MPI_Win win;
    MPI_Win_allocate(bytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &w, &win);
    MPI_Aint *asize;
    int flag;
    MPI_Win_get_attr(win, MPI_WIN_SIZE, &asize, &flag);
    CHECK(flag && *asize == bytes, "MPI_WIN_SIZE %ld want %ld", (long)*asize, (long)bytes);
    if (bytes) {
        self_lock(win, MPI_LOCK_EXCLUSIVE);
        for (int i = 0; i < 16; i++)
            w[i] = 0;
        self_unlock(win);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    int v = me + 1, dummy = 9;
    for (int m = 0; m < 2; m++) {
        cur_mode = m ? "fence" : "lock_all";
        if (m)
            MPI_Win_fence(0, win);
        else
            MPI_Win_lock_all(0, win);
        for (int t = 0; t < np; t++) {
            if (t % 2) {
                MPI_Put(&dummy, 0, MPI_INT, t, 0, 0, MPI_INT, win);
                MPI_Get(&dummy, 0, MPI_INT, t, 0, 0, MPI_INT, win);
                MPI_Accumulate(&dummy, 0, MPI_INT, t, 0, 0, MPI_INT, MPI_SUM, win);
            } else {
                MPI_Accumulate(&v, 1, MPI_INT, t, m, 1, MPI_INT, MPI_SUM, win);
                MPI_Put(&v, 1, MPI_INT, t, 2 + me, 1, MPI_INT, win);
            }
        }
        if (m)
            MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
        else
            MPI_Win_unlock_all(win);
        CHECK(dummy == 9, "zero-count get wrote %d", dummy);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (bytes) {
        self_lock(win, MPI_LOCK_SHARED);
        CHECK(w[0] == np * (np + 1) / 2 && w[1] == np * (np + 1) / 2, "sums %d %d", w[0], w[1]);
        for (int o = 0; o < np; o++)
            CHECK(w[2 + o] == o + 1, "put from %d: %d", o, w[2 + o]);
        self_unlock(win);
    }
    MPI_Win_free(&win);
    return rma_finish();
}
