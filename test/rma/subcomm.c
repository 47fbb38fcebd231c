/* Windows on sub-communicators: MPI_Comm_split of the world into halves
 * (even and odd ranks, reversed order), a window on each half and one on
 * the whole world at the same time. The window group must equal the
 * communicator's group and translate to the right world ranks; RMA within
 * the half uses half ranks; a window on a single-rank communicator
 * (MPI_COMM_SELF) works too. */
#include "rma.h"

int main(int argc, char **argv)
{
    rma_init(&argc, &argv);
    watchdog(20); /* it runs in a few seconds; a hang here is in window setup or teardown */
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, me % 2, -me, &half);
    int hr, hn;
    MPI_Comm_rank(half, &hr);
    MPI_Comm_size(half, &hn);
    MPI_Win hw, ww, sw;
    int *h = alloc_win(8 * sizeof(int), sizeof(int), MPI_INFO_NULL, half, &hw);
    int *wb = alloc_win(8 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &ww);
    int *s = alloc_win(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_SELF, &sw);

    cur_mode = "groups";
    MPI_Group hg, cg, worldg;
    MPI_Win_get_group(hw, &hg);
    MPI_Comm_group(half, &cg);
    MPI_Comm_group(MPI_COMM_WORLD, &worldg);
    int cmp;
    MPI_Group_compare(hg, cg, &cmp);
    CHECK(cmp == MPI_IDENT, "half window group vs half comm group: %d", cmp);
    int *in = malloc(sizeof(int) * hn), *out = malloc(sizeof(int) * hn);
    for (int i = 0; i < hn; i++)
        in[i] = i;
    MPI_Group_translate_ranks(hg, hn, in, worldg, out);
    /* half rank i is the i-th largest world rank of my parity */
    int top = np - 1;
    while (top % 2 != me % 2)
        top--;
    for (int i = 0; i < hn; i++)
        CHECK(out[i] == top - 2 * i, "half rank %d is world rank %d, want %d", i, out[i], top - 2 * i);
    free(in);
    free(out);
    MPI_Group g1;
    int gs;
    MPI_Win_get_group(sw, &g1);
    MPI_Group_size(g1, &gs);
    CHECK(gs == 1, "self window group size %d", gs);
    MPI_Group_free(&g1);
    MPI_Group_free(&hg);
    MPI_Group_free(&cg);
    MPI_Group_free(&worldg);

    cur_mode = "rma in the half and the world";
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, hr, 0, hw);
    for (int i = 0; i < 8; i++)
        h[i] = 0;
    MPI_Win_unlock(hr, hw);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, ww);
    for (int i = 0; i < 8; i++)
        wb[i] = 0;
    MPI_Win_unlock(me, ww);
    MPI_Barrier(MPI_COMM_WORLD);
    int hright = (hr + 1) % hn, hleft = (hr + hn - 1) % hn, v = 100 + me, one = 1;
    MPI_Win_lock_all(0, hw);
    MPI_Win_lock_all(0, ww);
    MPI_Put(&v, 1, MPI_INT, hright, 1, 1, MPI_INT, hw);
    for (int t = 0; t < hn; t++)
        MPI_Accumulate(&one, 1, MPI_INT, t, 0, 1, MPI_INT, MPI_SUM, hw);
    MPI_Accumulate(&one, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, ww);
    MPI_Win_unlock_all(ww);
    MPI_Win_unlock_all(hw);
    MPI_Barrier(MPI_COMM_WORLD);
    int hleft_world = top - 2 * hleft;
    MPI_Win_lock(MPI_LOCK_SHARED, hr, 0, hw);
    CHECK(h[1] == 100 + hleft_world, "put from half-left (world %d): %d", hleft_world, h[1]);
    CHECK(h[0] == hn, "half accumulate %d want %d", h[0], hn);
    MPI_Win_unlock(hr, hw);
    if (me == 0) {
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, ww);
        CHECK(wb[0] == np, "world accumulate %d", wb[0]);
        MPI_Win_unlock(0, ww);
    }

    cur_mode = "comm_self window";
    int got = -1, val = 42 + me;
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, sw);
    MPI_Put(&val, 1, MPI_INT, 0, 2, 1, MPI_INT, sw);
    MPI_Win_flush(0, sw);
    MPI_Get(&got, 1, MPI_INT, 0, 2, 1, MPI_INT, sw);
    MPI_Win_unlock(0, sw);
    CHECK(got == 42 + me && s[2] == 42 + me, "self window: got %d, memory %d", got, s[2]);

    MPI_Win_free(&sw);
    MPI_Win_free(&hw);
    MPI_Win_free(&ww);
    MPI_Comm_free(&half);
    return rma_finish();
}
