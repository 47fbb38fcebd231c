/* PSCW assertions and asymmetric groups: post and start with
 * MPI_MODE_NOCHECK (a barrier orders every post before any start),
 * post with MPI_MODE_NOSTORE and MPI_MODE_NOPUT for a get-only epoch, and
 * an epoch where only the last rank accesses everyone else. */
#include "rma.h"

#define K 3
int main(int argc, char **argv)
{
    rma_init(&argc, &argv);
    MPI_Win win;
    int *w = alloc_win(4 * K * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Group all, others, glast;
    MPI_Win_get_group(win, &all);
    int last = np - 1, buf[K], got[4][K];
    MPI_Group_excl(all, 1, &last, &others);
    MPI_Group_incl(all, 1, &last, &glast);
    for (int i = 0; i < 4 * K; i++)
        w[i] = -1;

    cur_mode = "nocheck";
    MPI_Win_post(all, MPI_MODE_NOCHECK, win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_start(all, MPI_MODE_NOCHECK, win);
    for (int i = 0; i < K; i++)
        buf[i] = 10 * me + i;
    for (int t = 0; t < np; t++)
        MPI_Put(buf, K, MPI_INT, t, me * K, K, MPI_INT, win);
    MPI_Win_complete(win);
    MPI_Win_wait(win);
    for (int o = 0; o < np; o++)
        for (int i = 0; i < K; i++)
            CHECK(w[o * K + i] == 10 * o + i, "nocheck: slot %d[%d] = %d", o, i, w[o * K + i]);

    cur_mode = "nostore noput";
    MPI_Win_post(all, MPI_MODE_NOSTORE | MPI_MODE_NOPUT, win);
    MPI_Win_start(all, 0, win);
    for (int t = 0; t < np; t++)
        MPI_Get(got[t], K, MPI_INT, t, me * K, K, MPI_INT, win);
    MPI_Win_complete(win);
    MPI_Win_wait(win);
    for (int t = 0; t < np; t++)
        for (int i = 0; i < K; i++)
            CHECK(got[t][i] == 10 * me + i, "noput: got %d[%d] = %d", t, i, got[t][i]);

    cur_mode = "one origin";
    if (me == last) {
        MPI_Win_start(others, 0, win);
        for (int t = 0; t < last; t++) {
            int v = 555 + t;
            MPI_Accumulate(&v, 1, MPI_INT, t, 0, 1, MPI_INT, MPI_REPLACE, win);
        }
        MPI_Win_complete(win);
    } else {
        MPI_Win_post(glast, 0, win);
        MPI_Win_wait(win);
        CHECK(w[0] == 555 + me, "one origin: replaced value %d", w[0]);
    }
    MPI_Group_free(&glast);
    MPI_Group_free(&all);
    MPI_Group_free(&others);
    MPI_Win_free(&win);
    return rma_finish();
}
