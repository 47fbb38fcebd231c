/* Window attributes of an MPI_Win_allocate window: MPI_WIN_BASE is the
 * pointer Win_allocate returned, MPI_WIN_SIZE and MPI_WIN_DISP_UNIT are
 * what this rank asked for (sizes and units differ per rank),
 * MPI_WIN_CREATE_FLAVOR is MPI_WIN_FLAVOR_ALLOCATE and MPI_WIN_MODEL is
 * separate or unified. MPI_Win_get_group has exactly the ranks of
 * MPI_COMM_WORLD (no hidden process), in the same order. The window name
 * can be set and read back. */
#include "rma.h"

int main(int argc, char **argv)
{
    rma_init(&argc, &argv);
    MPI_Aint size = 64 * (me + 1);
    int unit = me % 2 ? 8 : 4;
    void *base = NULL;
    MPI_Win win;
    MPI_Win_allocate(size, unit, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    CHECK(base != NULL, "Win_allocate returned a NULL base for %ld bytes", (long)size);

    void *abase = NULL;
    MPI_Aint *asize = NULL;
    int *aunit = NULL, *flavor = NULL, *model = NULL, flag = 0;
    MPI_Win_get_attr(win, MPI_WIN_BASE, &abase, &flag);
    CHECK(flag && abase == base, "MPI_WIN_BASE %p, want %p (flag %d)", abase, base, flag);
    MPI_Win_get_attr(win, MPI_WIN_SIZE, &asize, &flag);
    CHECK(flag && asize && *asize == size, "MPI_WIN_SIZE %ld, want %ld", asize ? (long)*asize : -1L, (long)size);
    MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &aunit, &flag);
    CHECK(flag && aunit && *aunit == unit, "MPI_WIN_DISP_UNIT %d, want %d", aunit ? *aunit : -1, unit);
    MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flag);
    CHECK(flag && flavor && *flavor == MPI_WIN_FLAVOR_ALLOCATE, "MPI_WIN_CREATE_FLAVOR %d", flavor ? *flavor : -1);
    MPI_Win_get_attr(win, MPI_WIN_MODEL, &model, &flag);
    CHECK(flag && model && (*model == MPI_WIN_UNIFIED || *model == MPI_WIN_SEPARATE), "MPI_WIN_MODEL %d",
          model ? *model : -1);
    CHECK(((uintptr_t)base) % 8 == 0, "base %p not 8-byte aligned", base);

    /* the memory is usable: fill it and read it from the left neighbour */
    self_lock(win, MPI_LOCK_EXCLUSIVE);
    memset(base, me + 1, size);
    self_unlock(win);
    MPI_Barrier(MPI_COMM_WORLD);
    int right = (me + 1) % np;
    MPI_Aint rsize = 64 * (right + 1);
    unsigned char *rb = malloc(rsize);
    MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win);
    MPI_Get(rb, rsize, MPI_BYTE, right, 0, rsize, MPI_BYTE, win); /* disp 0: any unit */
    MPI_Win_unlock(right, win);
    int bad = 0;
    for (MPI_Aint i = 0; i < rsize; i++)
        bad += rb[i] != right + 1;
    CHECK(bad == 0, "%d bytes of the right neighbour's window wrong", bad);
    free(rb);

    MPI_Group wg, world;
    MPI_Win_get_group(win, &wg);
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int gsize, grank, cmp;
    MPI_Group_size(wg, &gsize);
    MPI_Group_rank(wg, &grank);
    CHECK(gsize == np, "window group size %d, world %d", gsize, np);
    CHECK(grank == me, "window group rank %d, world rank %d", grank, me);
    MPI_Group_compare(wg, world, &cmp);
    CHECK(cmp == MPI_IDENT, "window group vs world group: %d, want MPI_IDENT", cmp);
    int *in = malloc(sizeof(int) * np), *out = malloc(sizeof(int) * np);
    for (int i = 0; i < np; i++)
        in[i] = i;
    MPI_Group_translate_ranks(wg, np, in, world, out);
    for (int i = 0; i < np; i++)
        CHECK(out[i] == i, "window rank %d is world rank %d", i, out[i]);
    free(in);
    free(out);
    MPI_Group_free(&wg);
    MPI_Group_free(&world);

    char name[MPI_MAX_OBJECT_NAME];
    int len;
    MPI_Win_set_name(win, "ghost-test-window");
    MPI_Win_get_name(win, name, &len);
    CHECK(!strcmp(name, "ghost-test-window") && len == 17, "window name %s", name);
    MPI_Win_free(&win);
    CHECK(win == MPI_WIN_NULL, "Win_free left a handle");
    return rma_finish();
}
