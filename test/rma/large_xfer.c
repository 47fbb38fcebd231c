/* Large transfers: 1 MiB Put, Get and Accumulate (doubles) to the right
 * neighbour in one epoch, under lock_all + flush and under fence (three
 * times: a Get that is still incomplete after the closing fence does not
 * show every time), and a large strided (vector) put. Checks every element.
 * argv[1]: size in doubles. */
#include "rma.h"

int main(int argc, char **argv)
{
    rma_init(&argc, &argv);
    int n = argc > 1 ? atoi(argv[1]) : 131072;
    MPI_Win win;
    double *w = alloc_win(3 * (MPI_Aint)n * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    int right = (me + 1) % np, left = (me + np - 1) % np;
    double *src = malloc(sizeof(double) * n), *dst = malloc(sizeof(double) * n);
    MPI_Datatype every2;
    MPI_Type_vector(n / 2, 1, 2, MPI_DOUBLE, &every2);
    MPI_Type_commit(&every2);

    enum { M = 4 }; /* modes: lockall+flush, then fence three times */
    for (int m = 0; m < M; m++) {
        cur_mode = m ? "fence" : "lockall+flush";
        self_lock(win, MPI_LOCK_EXCLUSIVE);
        for (int i = 0; i < 3 * n; i++)
            w[i] = i;
        self_unlock(win);
        MPI_Barrier(MPI_COMM_WORLD);
        for (int i = 0; i < n; i++) {
            src[i] = me * 1e7 + i + m;
            dst[i] = -1;
        }
        if (m == 0)
            MPI_Win_lock_all(0, win);
        else
            MPI_Win_fence(0, win);
        MPI_Put(src, n, MPI_DOUBLE, right, 0, n, MPI_DOUBLE, win);
        MPI_Accumulate(src, n, MPI_DOUBLE, right, n, n, MPI_DOUBLE, MPI_SUM, win);
        MPI_Get(dst, n, MPI_DOUBLE, right, 2 * n, n, MPI_DOUBLE, win);
        if (m == 0) {
            MPI_Win_flush(right, win);
            MPI_Win_unlock_all(win);
        } else {
            MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
        }
        int bad = 0, first = -1;
        for (int i = 0; i < n; i++)
            if (dst[i] != 2 * n + i && bad++ == 0)
                first = i;
        CHECKM(bad == 0, "get: %d wrong, first at %d = %g", bad, first, first < 0 ? 0 : dst[first]);
        MPI_Barrier(MPI_COMM_WORLD);
        self_lock(win, MPI_LOCK_SHARED);
        bad = 0;
        first = -1;
        for (int i = 0; i < n; i++) {
            if (w[i] != left * 1e7 + i + m && bad++ == 0)
                first = i;
            if (w[n + i] != n + i + left * 1e7 + i + m && bad++ == 0)
                first = n + i;
        }
        CHECKM(bad == 0, "put/acc: %d wrong, first at %d = %g", bad, first, first < 0 ? 0 : w[first]);
        self_unlock(win);
        MPI_Barrier(MPI_COMM_WORLD);
    }

    cur_mode = "strided put";
    MPI_Win_lock_all(0, win);
    MPI_Put(src, n / 2, MPI_DOUBLE, right, 2 * n, 1, every2, win);
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    self_lock(win, MPI_LOCK_SHARED);
    int bad = 0;
    for (int i = 0; i < n; i++) {
        double want = i % 2 == 0 ? left * 1e7 + i / 2 + (M - 1) : 2 * n + i; /* src of the last mode */
        bad += w[2 * n + i] != want;
    }
    CHECK(bad == 0, "strided put: %d wrong", bad);
    self_unlock(win);
    MPI_Type_free(&every2);
    free(src);
    free(dst);
    MPI_Win_free(&win);
    return rma_finish();
}
