/* Pass-through: MPI_Win_create over user memory (malloc'd, and a stack
 * array with disp_unit 1) keeps working: attributes (flavor CREATE, base
 * and size as given), Put/Get/Accumulate/Fetch_and_op/CAS under lock_all,
 * fence and PSCW, with checks. */
#include "rma.h"

int main(int argc, char **argv)
{
    rma_init(&argc, &argv);
    int n = 32, *mem = malloc(n * sizeof(int));
    for (int i = 0; i < n; i++)
        mem[i] = 100 * me + i;
    MPI_Win win;
    MPI_Win_create(mem, n * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    int *flavor, flag;
    void *base;
    MPI_Aint *size;
    MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flag);
    CHECK(flag && *flavor == MPI_WIN_FLAVOR_CREATE, "flavor %d", *flavor);
    MPI_Win_get_attr(win, MPI_WIN_BASE, &base, &flag);
    CHECK(flag && base == mem, "base %p want %p", base, (void *)mem);
    MPI_Win_get_attr(win, MPI_WIN_SIZE, &size, &flag);
    CHECK(flag && *size == (MPI_Aint)(n * sizeof(int)), "size %ld", (long)*size);
    MPI_Group g, wg;
    int gs;
    MPI_Win_get_group(win, &g);
    MPI_Group_size(g, &gs);
    CHECK(gs == np, "group size %d", gs);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    int cmp;
    MPI_Group_compare(g, wg, &cmp);
    CHECK(cmp == MPI_IDENT, "group compare %d", cmp);
    MPI_Group_free(&wg);
    MPI_Barrier(MPI_COMM_WORLD);

    int right = (me + 1) % np, left = (me + np - 1) % np, got[4], one = 1, old = -1, cmpv, newv = -1, sw = -2;
    cur_mode = "lock_all";
    MPI_Win_lock_all(0, win);
    int v = 7000 + me;
    MPI_Put(&v, 1, MPI_INT, right, 0, 1, MPI_INT, win);
    MPI_Get(got, 4, MPI_INT, right, 4, 4, MPI_INT, win);
    MPI_Accumulate(&one, 1, MPI_INT, 0, 8, 1, MPI_INT, MPI_SUM, win);
    MPI_Fetch_and_op(&one, &old, MPI_INT, right, 9, MPI_SUM, win);
    cmpv = 100 * right + 10;
    MPI_Compare_and_swap(&newv, &cmpv, &sw, MPI_INT, right, 10, win);
    MPI_Win_unlock_all(win);
    for (int i = 0; i < 4; i++)
        CHECK(got[i] == 100 * right + 4 + i, "get %d = %d", i, got[i]);
    CHECK(old == 100 * right + 9, "fetch_and_op %d", old);
    CHECK(sw == 100 * right + 10, "cas %d", sw);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_SHARED, me, 0, win);
    CHECK(mem[0] == 7000 + left, "put from left %d", mem[0]);
    CHECK(mem[9] == 100 * me + 9 + 1 && mem[10] == -1, "fop/cas results %d %d", mem[9], mem[10]);
    if (me == 0)
        CHECK(mem[8] == 8 + np, "accumulate %d", mem[8]);
    MPI_Win_unlock(me, win);
    MPI_Barrier(MPI_COMM_WORLD);

    cur_mode = "fence";
    MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
    v = 8000 + me;
    MPI_Put(&v, 1, MPI_INT, right, 1, 1, MPI_INT, win);
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    CHECK(mem[1] == 8000 + left, "fence put %d", mem[1]);

    cur_mode = "pscw";
    MPI_Win_post(g, 0, win);
    MPI_Win_start(g, 0, win);
    v = 9000 + me;
    MPI_Put(&v, 1, MPI_INT, right, 2, 1, MPI_INT, win);
    MPI_Accumulate(&one, 1, MPI_INT, right, 3, 1, MPI_INT, MPI_SUM, win);
    MPI_Win_complete(win);
    MPI_Win_wait(win);
    CHECK(mem[2] == 9000 + left && mem[3] == 100 * me + 3 + 1, "pscw %d %d", mem[2], mem[3]);
    MPI_Group_free(&g);
    MPI_Win_free(&win);
    free(mem);

    cur_mode = "stack memory, disp_unit 1";
    char stack[64];
    memset(stack, 0, sizeof(stack));
    MPI_Win_create(stack, sizeof(stack), 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_fence(0, win);
    char c = 'a' + me;
    MPI_Put(&c, 1, MPI_CHAR, right, 5 + me, 1, MPI_CHAR, win);
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    CHECK(stack[5 + left] == 'a' + left, "byte put %d", stack[5 + left]);
    MPI_Win_free(&win);
    return rma_finish();
}
