/* Get_accumulate atomicity under contention: every rank adds 1.0 to a
 * double counter and 1 to an int counter on rank 0 with one
 * MPI_Get_accumulate(SUM) each, under lock_all + flush_local (the fetched
 * value is available at local completion). Fetched values must be unique
 * (0..N-1 for both counters) and the totals exact. argv[1]: adds per rank (default 64). */
#include "rma.h"

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    rma_init(&argc, &argv);
    int iters = argc > 1 ? atoi(argv[1]) : 64;
    MPI_Win win;
    /* a double at byte 0 and an int at byte 8, disp_unit 1 */
    char *base = alloc_win(16, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    self_lock(win, MPI_LOCK_EXCLUSIVE);
    *(double *)base = 0.0;
    *(int *)(base + 8) = 0;
    self_unlock(win);
    MPI_Barrier(MPI_COMM_WORLD);

    double one = 1.0, *seen = malloc(sizeof(double) * iters * 2);
    int ione = 1, iseen;
    cur_mode = "get_accumulate";
    MPI_Win_lock_all(0, win);
    for (int i = 0; i < iters; i++) {
        MPI_Get_accumulate(&one, 1, MPI_DOUBLE, &seen[i], 1, MPI_DOUBLE, 0, 0, 1, MPI_DOUBLE, MPI_SUM, win);
        MPI_Get_accumulate(&ione, 1, MPI_INT, &iseen, 1, MPI_INT, 0, 8, 1, MPI_INT, MPI_SUM, win);
        MPI_Win_flush_local(0, win);
        seen[iters + i] = iseen;
    }
    MPI_Win_unlock_all(win);

    cur_mode = "check";
    int n = iters * np;
    double *all = malloc(sizeof(double) * n * 2);
    for (int half = 0; half < 2; half++) {
        MPI_Allgather(seen + half * iters, iters, MPI_DOUBLE, all, iters, MPI_DOUBLE, MPI_COMM_WORLD);
        qsort(all, n, sizeof(double), cmp_d);
        int bad = -1;
        for (int k = 0; k < n; k++)
            if (all[k] != (double)k) {
                bad = k;
                break;
            }
        CHECK(bad < 0, "%s counter: fetched values not 0..%d once each: sorted[%d] = %g", half ? "int" : "double",
              n - 1, bad, bad < 0 ? 0 : all[bad]);
    }
    if (me == 0) {
        self_lock(win, MPI_LOCK_SHARED);
        CHECK(*(double *)base == n && *(int *)(base + 8) == n, "totals %g %d want %d", *(double *)base,
              *(int *)(base + 8), n);
        self_unlock(win);
    }
    free(all);
    free(seen);
    MPI_Win_free(&win);
    return rma_finish();
}
