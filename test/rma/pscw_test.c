/* PSCW exposure completed with an MPI_Win_test loop: rank 0 is the only
 * target and polls Win_test (doing local work between polls) while every
 * other rank, in turn, accesses it; then every rank exposes to rank 0,
 * which accesses them all with one start group. Data checked at each end. */
#include "rma.h"

#define K 4
int main(int argc, char **argv)
{
    rma_init(&argc, &argv);
    MPI_Win win;
    int *w = alloc_win(4 * K * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    for (int i = 0; i < 4 * K; i++)
        w[i] = -1;
    MPI_Group world, g0, others;
    MPI_Win_get_group(win, &world);
    int zero = 0;
    MPI_Group_incl(world, 1, &zero, &g0);
    MPI_Group_excl(world, 1, &zero, &others);

    cur_mode = "rank 0 exposed, test loop";
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) {
        MPI_Win_post(others, 0, win);
        int flag = 0;
        long polls = 0;
        volatile double work = 0;
        while (!flag) {
            for (int i = 0; i < 100; i++)
                work += i * 0.5;
            MPI_Win_test(win, &flag);
            polls++;
        }
        CHECK(polls >= 1, "polls %ld", polls);
        for (int o = 1; o < np; o++)
            for (int i = 0; i < K; i++)
                CHECK(w[o * K + i] == o * 100 + i, "slot of %d [%d] = %d", o, i, w[o * K + i]);
    } else {
        int buf[K];
        for (int i = 0; i < K; i++)
            buf[i] = me * 100 + i;
        MPI_Win_start(g0, 0, win);
        MPI_Put(buf, K, MPI_INT, 0, me * K, K, MPI_INT, win);
        MPI_Win_complete(win);
    }

    cur_mode = "others exposed, test loop";
    if (me == 0) {
        int got[4][K];
        MPI_Win_start(others, 0, win);
        for (int t = 1; t < np; t++) {
            int v = 7000 + t;
            MPI_Put(&v, 1, MPI_INT, t, 0, 1, MPI_INT, win);
            MPI_Get(got[t], K, MPI_INT, t, K, K, MPI_INT, win);
        }
        MPI_Win_complete(win);
        for (int t = 1; t < np; t++)
            for (int i = 0; i < K; i++)
                CHECK(got[t][i] == t * 10 + i, "got from %d [%d] = %d", t, i, got[t][i]);
    } else {
        for (int i = 0; i < K; i++)
            w[K + i] = me * 10 + i; /* before post: no epoch open */
        MPI_Win_post(g0, 0, win);
        int flag = 0;
        while (!flag)
            MPI_Win_test(win, &flag);
        CHECK(w[0] == 7000 + me, "put from 0 = %d", w[0]);
        /* a test after completion needs a new exposure epoch: do one more, empty */
        MPI_Win_post(g0, 0, win);
        MPI_Win_wait(win);
    }
    if (me == 0) {
        MPI_Win_start(others, 0, win); /* matches the empty epochs */
        MPI_Win_complete(win);
    }
    MPI_Group_free(&world);
    MPI_Group_free(&g0);
    MPI_Group_free(&others);
    MPI_Win_free(&win);
    return rma_finish();
}
