/* Errors Ghost detects itself go through the right errhandler and leave
 * the program running under MPI_ERRORS_RETURN:
 *  - MPI_Win_allocate and MPI_Win_allocate_c with a negative size or a
 *    disp_unit of 0 fail on the communicator (every MPI does);
 *  - under Ghost (GHOST_NG set by ghost run), an operation whose target
 *    range lies outside the target's window fails with MPI_ERR_RMA_RANGE on
 *    the window and moves nothing, where plain MPICH does not check (nor
 *    does it for a window that spans nodes without ghosts: MPICH's own). */
#include "rma.h"

static int error_class(int rc)
{
    int cls = rc;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &cls);
    return cls;
}

int main(int argc, char **argv)
{
    rma_init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    void *base;
    MPI_Win win;
    cur_mode = "allocate";
    int rc = MPI_Win_allocate(-8, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    CHECK(rc != MPI_SUCCESS, "MPI_Win_allocate with size -8 succeeded");
    rc = MPI_Win_allocate(8, 0, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    CHECK(rc != MPI_SUCCESS, "MPI_Win_allocate with disp_unit 0 succeeded");
#if MPI_VERSION >= 4 /* MPI-4's large-count form: not in Open MPI 4.1 */
    rc = MPI_Win_allocate_c(8, 0, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    CHECK(rc != MPI_SUCCESS, "MPI_Win_allocate_c with disp_unit 0 succeeded");
#endif

    cur_mode = "range";
    long *w; /* exactly 4 elements: alloc_win would round the size up */
    MPI_Win_allocate(4 * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &w, &win);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    self_lock(win, MPI_LOCK_EXCLUSIVE);
    for (int i = 0; i < 4; i++)
        w[i] = 7;
    self_unlock(win);
    MPI_Barrier(MPI_COMM_WORLD);
    /* Ghost checks ranges on its own windows: every window, except one that
     * spans nodes without ghosts (GHOST_NG=0), which is MPICH's own. */
    MPI_Comm node;
    int node_size;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &node_size);
    MPI_Comm_free(&node);
    const char *ng = getenv("GHOST_NG");
    if (ng && !(strcmp(ng, "0") == 0 && node_size < np)) {
        int target = (me + 1) % np;
        long v[8] = {0}, one = 1;
        MPI_Win_lock(MPI_LOCK_SHARED, target, 0, win);
        rc = MPI_Put(v, 2, MPI_LONG, target, 3, 2, MPI_LONG, win); /* elements 3 and 4 of 4 */
        CHECK(error_class(rc) == MPI_ERR_RMA_RANGE, "Put past the window's end: class %d", error_class(rc));
        rc = MPI_Accumulate(&one, 1, MPI_LONG, target, -1, 1, MPI_LONG, MPI_SUM, win);
        CHECK(error_class(rc) == MPI_ERR_RMA_RANGE, "Accumulate before the window: class %d", error_class(rc));
        rc = MPI_Get(v, 8, MPI_LONG, target, 0, 8, MPI_LONG, win);
        CHECK(error_class(rc) == MPI_ERR_RMA_RANGE, "Get of 8 from a window of 4: class %d", error_class(rc));
        rc = MPI_Put(v, 0, MPI_LONG, target, 100, 0, MPI_LONG, win);
        CHECK(rc == MPI_SUCCESS, "an empty Put anywhere: rc %d", rc);
        MPI_Win_unlock(target, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    self_lock(win, MPI_LOCK_SHARED);
    for (int i = 0; i < 4; i++)
        CHECK(w[i] == 7, "element %d is %ld after refused operations", i, w[i]);
    self_unlock(win);
    MPI_Win_free(&win);
    return rma_finish();
}
