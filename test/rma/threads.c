/* MPI_THREAD_MULTIPLE: several threads per rank issue RMA concurrently in
 * one lock_all epoch opened by the main thread. Each thread accumulates
 * into its own slot on every target, increments a shared counter on rank 0
 * with Fetch_and_op + flush (fetched values must all differ, across all
 * threads of all ranks), and does an Rput/Rget pair on its own slot.
 * Exact totals are checked. Skips (passes trivially, with a note) if the
 * library does not provide MPI_THREAD_MULTIPLE. argv[1]: iterations. */
#include "rma.h"
#include <pthread.h>

#define NT 3
static int iters = 40;
static MPI_Win win;
static long long *fetched; /* [NT][iters] */
enum { SHARED = 0, SLOTS = 1, RPUT = SLOTS + 4 * NT };

static void *worker(void *arg)
{
    int id = (int)(intptr_t)arg;
    long long one = 1;
    for (int i = 0; i < iters; i++) {
        for (int k = 0; k < np; k++) {
            int t = (me + k + id) % np;
            MPI_Accumulate(&one, 1, MPI_LONG_LONG, t, SLOTS + me * NT + id, 1, MPI_LONG_LONG, MPI_SUM, win);
        }
        MPI_Fetch_and_op(&one, &fetched[id * iters + i], MPI_LONG_LONG, 0, SHARED, MPI_SUM, win);
        MPI_Win_flush(0, win);
    }
    MPI_Win_flush_all(win);
    long long v = 1000 * me + id, back = -1;
    int t = (me + 1) % np;
    MPI_Request r;
    MPI_Rput(&v, 1, MPI_LONG_LONG, t, RPUT + me * NT + id, 1, MPI_LONG_LONG, win, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    MPI_Win_flush(t, win);
    MPI_Rget(&back, 1, MPI_LONG_LONG, t, RPUT + me * NT + id, 1, MPI_LONG_LONG, win, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    return (void *)(intptr_t)(back == v);
}

static int cmp_ll(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    int provided;
    rma_init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (argc > 1)
        iters = atoi(argv[1]);
    if (provided < MPI_THREAD_MULTIPLE) {
        if (me == 0)
            printf("note: MPI_THREAD_MULTIPLE not provided (%d): skipped\n", provided);
        CHECK(1, "skipped");
        return rma_finish();
    }
    long long *w = alloc_win((RPUT + 4 * NT) * sizeof(long long), sizeof(long long), MPI_INFO_NULL,
                             MPI_COMM_WORLD, &win);
    self_lock(win, MPI_LOCK_EXCLUSIVE);
    for (int i = 0; i < RPUT + 4 * NT; i++)
        w[i] = 0;
    self_unlock(win);
    MPI_Barrier(MPI_COMM_WORLD);
    fetched = malloc(sizeof(long long) * NT * iters);

    cur_mode = "threads";
    MPI_Win_lock_all(0, win);
    pthread_t th[NT];
    for (int i = 0; i < NT; i++)
        pthread_create(&th[i], NULL, worker, (void *)(intptr_t)i);
    for (int i = 0; i < NT; i++) {
        void *ok;
        pthread_join(th[i], &ok);
        CHECK(ok, "thread %d: rget did not return its own rput", i);
    }
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);

    cur_mode = "check";
    self_lock(win, MPI_LOCK_SHARED);
    for (int o = 0; o < np; o++)
        for (int i = 0; i < NT; i++)
            CHECK(w[SLOTS + o * NT + i] == iters, "slot of rank %d thread %d: %lld", o, i, w[SLOTS + o * NT + i]);
    if (me == 0)
        CHECK(w[SHARED] == (long long)np * NT * iters, "shared counter %lld", w[SHARED]);
    self_unlock(win);
    long long n = (long long)np * NT * iters, *all = malloc(sizeof(long long) * n);
    MPI_Allgather(fetched, NT * iters, MPI_LONG_LONG, all, NT * iters, MPI_LONG_LONG, MPI_COMM_WORLD);
    qsort(all, n, sizeof(long long), cmp_ll);
    long long bad = -1;
    for (long long k = 0; k < n; k++)
        if (all[k] != k) {
            bad = k;
            break;
        }
    CHECK(bad < 0, "fetched values not 0..%lld once each (sorted[%lld] = %lld)", n - 1, bad, bad < 0 ? 0 : all[bad]);
    free(all);
    free(fetched);
    MPI_Win_free(&win);
    return rma_finish();
}
