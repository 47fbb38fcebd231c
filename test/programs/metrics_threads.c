/*
 * Counting under MPI_THREAD_MULTIPLE: THREADS threads of every user rank
 * issue OPS accumulates each to the next rank, concurrently, in one
 * lock_all epoch, each flushing its own. More threads than Ghost has
 * counter slots per process, so that some share the overflow slot. The
 * accumulated total is checked, and test/metrics_test.go checks that the
 * textfile counts exactly THREADS * OPS accumulates per rank.
 *
 * usage: metrics_threads
 */
#include "async_state.h"

#include <mpi.h>

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

enum { THREADS = 12, OPS = 1000 };

static MPI_Win win;
static int target;

static void *issue(void *arg)
{
    (void)arg;
    int64_t one = 1;
    for (int i = 0; i < OPS; i++) {
        MPI_Accumulate(&one, 1, MPI_INT64_T, target, 0, 1, MPI_INT64_T, MPI_SUM, win);
        if (i % 100 == 99)
            MPI_Win_flush(target, win);
    }
    MPI_Win_flush(target, win);
    return NULL;
}

int main(int argc, char **argv)
{
    int rank, size;
    init_thread_multiple(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int64_t *mem;
    MPI_Win_allocate(sizeof(int64_t), sizeof(int64_t), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    *mem = 0;
    target = (rank + 1) % size;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock_all(0, win);
    pthread_t th[THREADS];
    for (int i = 0; i < THREADS; i++)
        pthread_create(&th[i], NULL, issue, NULL);
    for (int i = 0; i < THREADS; i++)
        pthread_join(th[i], NULL);
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win);
    int64_t got = *mem;
    MPI_Win_unlock(rank, win);
    int ok = got == (int64_t)THREADS * OPS;
    printf("rank %d: %s: %lld accumulated, want %d\n", rank, ok ? "done" : "WRONG", (long long)got, THREADS * OPS);
    MPI_Win_free(&win);
    MPI_Finalize();
    return !ok;
}
