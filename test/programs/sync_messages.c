/*
 * A few synchronization calls of each kind on one window that spans every
 * node, for test/sync_messages_test.go to read their internal message
 * counts from the metrics (ghost_sync_internal_operations_total).
 *
 * usage: sync_messages one|all
 *   one: every rank puts to its right neighbour only between two
 *        synchronizations, the pattern whose cost must not grow with the job;
 *   all: every rank puts to every rank, the contrast.
 *
 * Per rank, with K = ROUNDS:
 *   K x { lock(shared, right); put; flush(right); unlock(right) }
 *   K x { lock_all(NOCHECK); put to the targets; flush_all; put; unlock_all }
 *   fence(NOPRECEDE), then K x { put to the targets; fence(0) }
 * then checks that every put landed, and frees the window.
 */
#include "check.h"

#include <mpi.h>
#include <stdlib.h>
#include <string.h>

enum { ROUNDS = 8 };

/* Puts value into slot `me` of every target of this round. */
static void put_targets(MPI_Win win, int all, int me, int n, int value)
{
    for (int i = 0; i < (all ? n : 1); i++) {
        int t = all ? i : (me + 1) % n;
        MPI_Put(&value, 1, MPI_INT, t, me, 1, MPI_INT, win);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    int all = argc > 1 && strcmp(argv[1], "all") == 0;
    int right = (me + 1) % n, left = (me + n - 1) % n;

    int *mem;
    MPI_Win win;
    MPI_Win_allocate(n * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    for (int i = 0; i < n; i++)
        mem[i] = -1;
    MPI_Barrier(MPI_COMM_WORLD);

    int value = 0;
    for (int k = 0; k < ROUNDS; k++) {
        value++;
        MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win);
        MPI_Put(&value, 1, MPI_INT, right, me, 1, MPI_INT, win);
        MPI_Win_flush(right, win);
        MPI_Win_unlock(right, win);
    }
    for (int k = 0; k < ROUNDS; k++) {
        MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
        put_targets(win, all, me, n, ++value);
        MPI_Win_flush_all(win);
        put_targets(win, all, me, n, ++value);
        MPI_Win_unlock_all(win);
    }
    MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
    for (int k = 0; k < ROUNDS; k++) {
        put_targets(win, all, me, n, ++value);
        MPI_Win_fence(k == ROUNDS - 1 ? MPI_MODE_NOSUCCEED : 0, win);
    }

    /* Every origin that wrote here wrote the same last value. */
    for (int i = 0; i < n; i++)
        if (all || i == left)
            CHECK(mem[i] == value, "slot %d holds %d, want %d", i, mem[i], value);
    MPI_Win_free(&win);
    check_summary();
    MPI_Finalize();
    return 0;
}
