/* PSCW with neighbour groups only: each rank exposes its window to its
 * left and right neighbours and accesses them; puts to the right, gets
 * from the left, accumulates into both. Several rounds with checks after
 * each MPI_Win_wait. With two ranks both neighbours are the same rank. */
#include "rma.h"

enum { FROM_LEFT = 0, SUM = 1, EXPOSED = 2, WN = 3 };

static MPI_Group neighbours(MPI_Win win, int left, int right)
{
    MPI_Group g, n;
    MPI_Win_get_group(win, &g);
    int ranks[2] = {left, right};
    MPI_Group_incl(g, left == right ? 1 : 2, ranks, &n);
    MPI_Group_free(&g);
    return n;
}

int main(int argc, char **argv)
{
    rma_init(&argc, &argv);
    int rounds = argc > 1 ? atoi(argv[1]) : 8;
    MPI_Win win;
    int *w = alloc_win(WN * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    int right = (me + 1) % np, left = (me + np - 1) % np;
    MPI_Group nb = neighbours(win, left, right);
    w[FROM_LEFT] = -1;
    w[SUM] = 0;
    for (int r = 0; r < rounds; r++) {
        cur_mode = "pscw round";
        w[EXPOSED] = 500 * r + me; /* local store outside any epoch of mine */
        MPI_Win_post(nb, 0, win);
        MPI_Win_start(nb, 0, win);
        int pv = 100 * r + me, got = -1, one = me + 1;
        MPI_Put(&pv, 1, MPI_INT, right, FROM_LEFT, 1, MPI_INT, win);
        MPI_Get(&got, 1, MPI_INT, left, EXPOSED, 1, MPI_INT, win);
        MPI_Accumulate(&one, 1, MPI_INT, right, SUM, 1, MPI_INT, MPI_SUM, win);
        if (left != right)
            MPI_Accumulate(&one, 1, MPI_INT, left, SUM, 1, MPI_INT, MPI_SUM, win);
        MPI_Win_complete(win);
        CHECK(got == 500 * r + left, "round %d: got %d from left", r, got);
        MPI_Win_wait(win);
        CHECK(w[FROM_LEFT] == 100 * r + left, "round %d: put from left %d", r, w[FROM_LEFT]);
        int per = left == right ? left + 1 : left + 1 + right + 1;
        CHECK(w[SUM] == (r + 1) * per, "round %d: sum %d want %d", r, w[SUM], (r + 1) * per);
    }
    MPI_Group_free(&nb);
    MPI_Win_free(&win);
    return rma_finish();
}
