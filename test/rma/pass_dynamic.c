/* Pass-through: MPI_Win_create_dynamic with MPI_Win_attach/detach. Each
 * rank attaches two regions, publishes their addresses (MPI_Get_address,
 * Allgather), and the others Put/Get/Accumulate at absolute addresses under
 * lock_all; a region is detached and another attached in its place, and
 * the new one is used. Flavor is MPI_WIN_FLAVOR_DYNAMIC. */
#include "rma.h"

int main(int argc, char **argv)
{
    rma_init(&argc, &argv);
    MPI_Win win;
    MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    int *flavor, flag;
    MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flag);
    CHECK(flag && *flavor == MPI_WIN_FLAVOR_DYNAMIC, "flavor %d", *flavor);
    int right = (me + 1) % np, left = (me + np - 1) % np;
    int *a = calloc(16, sizeof(int)), *b = calloc(16, sizeof(int));
    for (int i = 0; i < 16; i++)
        b[i] = 50 * me + i;
    MPI_Win_attach(win, a, 16 * sizeof(int));
    MPI_Win_attach(win, b, 16 * sizeof(int));
    MPI_Aint mine[2], *all = malloc(sizeof(MPI_Aint) * 2 * np);
    MPI_Get_address(a, &mine[0]);
    MPI_Get_address(b, &mine[1]);
    MPI_Allgather(mine, 2, MPI_AINT, all, 2, MPI_AINT, MPI_COMM_WORLD);

    cur_mode = "attached";
    int v[4] = {me, me + 1, me + 2, me + 3}, got[4], one = 1;
    MPI_Win_lock_all(0, win);
    MPI_Put(v, 4, MPI_INT, right, all[2 * right], 4, MPI_INT, win);
    MPI_Get(got, 4, MPI_INT, right, MPI_Aint_add(all[2 * right + 1], 8 * sizeof(int)), 4, MPI_INT, win);
    MPI_Accumulate(&one, 1, MPI_INT, 0, MPI_Aint_add(all[0], 15 * sizeof(int)), 1, MPI_INT, MPI_SUM, win);
    MPI_Win_unlock_all(win);
    for (int i = 0; i < 4; i++)
        CHECK(got[i] == 50 * right + 8 + i, "get from b of %d [%d] = %d", right, i, got[i]);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_SHARED, me, 0, win);
    for (int i = 0; i < 4; i++)
        CHECK(a[i] == left + i, "put into a [%d] = %d", i, a[i]);
    if (me == 0)
        CHECK(a[15] == np, "accumulate %d", a[15]);
    MPI_Win_unlock(me, win);
    MPI_Barrier(MPI_COMM_WORLD);

    cur_mode = "detach and attach another";
    MPI_Win_detach(win, b);
    int *c = calloc(8, sizeof(int));
    MPI_Win_attach(win, c, 8 * sizeof(int));
    MPI_Get_address(c, &mine[1]);
    MPI_Allgather(mine, 2, MPI_AINT, all, 2, MPI_AINT, MPI_COMM_WORLD);
    MPI_Win_lock_all(0, win);
    int w = 900 + me;
    MPI_Put(&w, 1, MPI_INT, right, MPI_Aint_add(all[2 * right + 1], 3 * sizeof(int)), 1, MPI_INT, win);
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_SHARED, me, 0, win);
    CHECK(c[3] == 900 + left, "put into new region %d", c[3]);
    MPI_Win_unlock(me, win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_detach(win, a);
    MPI_Win_detach(win, c);
    MPI_Win_free(&win);
    free(a);
    free(b);
    free(c);
    free(all);
    return rma_finish();
}
