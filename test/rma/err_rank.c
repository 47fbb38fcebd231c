/* Error path: with MPI_ERRORS_RETURN on the window, operations aimed at an
 * out-of-range rank (size, and -5) return an error of class MPI_ERR_RANK
 * instead of aborting, in a lock_all epoch and for lock itself; the window
 * stays usable afterwards (a normal put and get are checked). A user error
 * handler on the window is called with the window handle. */
#include "rma.h"

static int handler_calls;
static MPI_Win handler_win;
static void on_error(MPI_Win *w, int *code, ...)
{
    handler_calls++;
    handler_win = *w;
    (void)code;
}

int main(int argc, char **argv)
{
    rma_init(&argc, &argv);
    MPI_Win win;
    int *w = alloc_win(16 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    MPI_Errhandler eh;
    MPI_Win_get_errhandler(win, &eh);
    CHECK(eh == MPI_ERRORS_RETURN, "errhandler not MPI_ERRORS_RETURN");
    MPI_Errhandler_free(&eh);
    self_lock(win, MPI_LOCK_EXCLUSIVE);
    for (int i = 0; i < 16; i++)
        w[i] = i;
    self_unlock(win);
    MPI_Barrier(MPI_COMM_WORLD);

    int v = 1, got = 0, cls, rc;
    int bad[2] = {np, -5};
    MPI_Win_lock_all(0, win);
    for (int b = 0; b < 2; b++) {
        cur_mode = b ? "rank -5" : "rank == size";
        rc = MPI_Put(&v, 1, MPI_INT, bad[b], 0, 1, MPI_INT, win);
        MPI_Error_class(rc, &cls);
        CHECKM(rc != MPI_SUCCESS && cls == MPI_ERR_RANK, "put: rc %d class %d", rc, cls);
        rc = MPI_Get(&got, 1, MPI_INT, bad[b], 0, 1, MPI_INT, win);
        MPI_Error_class(rc, &cls);
        CHECKM(rc != MPI_SUCCESS && cls == MPI_ERR_RANK, "get: rc %d class %d", rc, cls);
        rc = MPI_Accumulate(&v, 1, MPI_INT, bad[b], 0, 1, MPI_INT, MPI_SUM, win);
        MPI_Error_class(rc, &cls);
        CHECKM(rc != MPI_SUCCESS && cls == MPI_ERR_RANK, "accumulate: rc %d class %d", rc, cls);
        rc = MPI_Fetch_and_op(&v, &got, MPI_INT, bad[b], 0, MPI_SUM, win);
        MPI_Error_class(rc, &cls);
        CHECKM(rc != MPI_SUCCESS && cls == MPI_ERR_RANK, "fetch_and_op: rc %d class %d", rc, cls);
        MPI_Request req = MPI_REQUEST_NULL;
        rc = MPI_Rput(&v, 1, MPI_INT, bad[b], 0, 1, MPI_INT, win, &req);
        MPI_Error_class(rc, &cls);
        CHECKM(rc != MPI_SUCCESS && cls == MPI_ERR_RANK, "rput: rc %d class %d", rc, cls);
    }
    MPI_Win_unlock_all(win);

    cur_mode = "lock of a bad rank";
    rc = MPI_Win_lock(MPI_LOCK_SHARED, np, 0, win);
    MPI_Error_class(rc, &cls);
    CHECKM(rc != MPI_SUCCESS && cls == MPI_ERR_RANK, "lock: rc %d class %d", rc, cls);

    cur_mode = "window still usable";
    int right = (me + 1) % np, left = (me + np - 1) % np, val = 500 + me;
    MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win);
    MPI_Put(&val, 1, MPI_INT, right, 3, 1, MPI_INT, win);
    MPI_Get(&got, 1, MPI_INT, right, 5, 1, MPI_INT, win);
    MPI_Win_unlock(right, win);
    CHECKM(got == 5, "get after errors %d", got);
    MPI_Barrier(MPI_COMM_WORLD);
    self_lock(win, MPI_LOCK_SHARED);
    CHECKM(w[3] == 500 + left, "put after errors %d", w[3]);
    self_unlock(win);
    MPI_Barrier(MPI_COMM_WORLD);

    cur_mode = "user error handler";
    MPI_Errhandler user;
    MPI_Win_create_errhandler(on_error, &user);
    MPI_Win_set_errhandler(win, user);
    MPI_Win_lock_all(0, win);
    rc = MPI_Put(&v, 1, MPI_INT, np + 3, 0, 1, MPI_INT, win);
    MPI_Win_unlock_all(win);
    CHECKM(handler_calls == 1 && handler_win == win, "handler called %d times, with the window: %d", handler_calls,
           handler_win == win);
    MPI_Errhandler_free(&user);
    MPI_Win_free(&win);
    return rma_finish();
}
