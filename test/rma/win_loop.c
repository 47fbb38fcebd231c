/* Windows created and freed in a loop (20 times by default), with sizes
 * that change each time, one accumulate and one put per window checked
 * before it is freed; every 10th iteration keeps a second window alive
 * across the next iteration. Catches leaks of internal windows or
 * communicators (which run out after a few thousand) and stale state
 * reused from a freed window. argv[1]: iterations. */
#include "rma.h"

int main(int argc, char **argv)
{
    rma_init(&argc, &argv);
    int iters = argc > 1 ? atoi(argv[1]) : 20;
    MPI_Win keep = MPI_WIN_NULL;
    int *keep_base = NULL, keep_val = -1;
    int right = (me + 1) % np, left = (me + np - 1) % np;
    for (int it = 0; it < iters; it++) {
        cur_mode = "loop";
        MPI_Win win;
        int n = 4 + (it % 7) * 4;
        int *w = alloc_win(n * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
        self_lock(win, MPI_LOCK_EXCLUSIVE);
        for (int i = 0; i < n; i++)
            w[i] = -it;
        self_unlock(win);
        MPI_Barrier(MPI_COMM_WORLD);
        int v = 1000 * it + me, one = 1;
        MPI_Win_lock_all(0, win);
        MPI_Put(&v, 1, MPI_INT, right, n - 1, 1, MPI_INT, win);
        MPI_Accumulate(&one, 1, MPI_INT, right, 0, 1, MPI_INT, MPI_SUM, win);
        MPI_Win_unlock_all(win);
        MPI_Barrier(MPI_COMM_WORLD);
        self_lock(win, MPI_LOCK_SHARED);
        CHECK(w[n - 1] == 1000 * it + left, "iteration %d: put %d", it, w[n - 1]);
        CHECK(w[0] == -it + 1, "iteration %d: accumulate %d", it, w[0]);
        self_unlock(win);
        if (keep != MPI_WIN_NULL) {
            self_lock(keep, MPI_LOCK_SHARED);
            CHECK(keep_base[0] == keep_val, "kept window changed: %d want %d", keep_base[0], keep_val);
            self_unlock(keep);
            MPI_Win_free(&keep);
        }
        if (it % 10 == 0) {
            keep = win;
            keep_base = w;
            keep_val = w[0];
        } else {
            MPI_Win_free(&win);
        }
    }
    if (keep != MPI_WIN_NULL)
        MPI_Win_free(&keep);
    return rma_finish();
}
