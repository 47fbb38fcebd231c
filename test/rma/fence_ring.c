/* Fence epochs with data checks, many in a row: in every epoch each rank
 * puts into its right neighbour, gets from its left neighbour a value that
 * neighbour stored locally before the fence (local stores alternate
 * between two slots so they never overlap an epoch that reads them), and
 * accumulates into a counter on rank 0. Checks follow every fence. A fence
 * that closes epoch e also opens epoch e+1, so the put and accumulate
 * targets alternate between two slots as well: a check of epoch e's data
 * never overlaps epoch e+1's updates.
 * argv[1]: epochs (default 10). */
#include "rma.h"

enum { IN = 0, LOC0 = 2, LOC1 = 3, CNT = 4, WN = 6 };
static int put_val(int r, int e) { return 1000 * e + 10 * r + 1; }
static int loc_val(int r, int e) { return -(1000 * e + 10 * r + 2); }

int main(int argc, char **argv)
{
    rma_init(&argc, &argv);
    int epochs = argc > 1 ? atoi(argv[1]) : 10;
    MPI_Win win;
    int *w = alloc_win(WN * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    int right = (me + 1) % np, left = (me + np - 1) % np;
    for (int j = 0; j < WN; j++)
        w[j] = 0;
    w[LOC0] = loc_val(me, 0); /* read in epoch 0 */
    cur_mode = "fence";
    MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
    for (int e = 0; e < epochs; e++) {
        int pv = put_val(me, e), got = 0, one = me + 1;
        MPI_Put(&pv, 1, MPI_INT, right, IN + e % 2, 1, MPI_INT, win);
        MPI_Get(&got, 1, MPI_INT, left, e % 2 ? LOC1 : LOC0, 1, MPI_INT, win);
        MPI_Accumulate(&one, 1, MPI_INT, 0, CNT + e % 2, 1, MPI_INT, MPI_SUM, win);
        w[e % 2 ? LOC0 : LOC1] = loc_val(me, e + 1); /* for epoch e+1: not accessed in epoch e */
        MPI_Win_fence(e == epochs - 1 ? MPI_MODE_NOSUCCEED : 0, win);
        CHECK(w[IN + e % 2] == put_val(left, e), "epoch %d: put from left = %d", e, w[IN + e % 2]);
        CHECK(got == loc_val(left, e), "epoch %d: got %d from left, want %d", e, got, loc_val(left, e));
        if (me == 0)
            CHECK(w[CNT + e % 2] == (e / 2 + 1) * np * (np + 1) / 2, "epoch %d: counter %d", e, w[CNT + e % 2]);
    }
    MPI_Win_free(&win);
    return rma_finish();
}
