/* A window allocated with async_config=on under GHOST_ASYNC=auto is the
 * application's to switch: the profiling votes leave it alone, at
 * allocation, at fences and at implicit points, while a window allocated
 * without the key follows them; MPI_Win_set_info still switches it.
 *
 *  1. Both windows are allocated; A's state is the ballot's, P (pinned)
 *     is on.
 *  2. A communication phase, every rank accumulating into every rank,
 *     closed by fences and by flush_all + MPI_Barrier (implicit points):
 *     the votes say off, and P must stay on.
 *  3. P is set off with MPI_Win_set_info(async_config=off, symmetric).
 *  4. A compute phase outside MPI, then a fence on each window: the votes
 *     say on, A switches on, and P must stay off.
 * Every accumulated value is checked exactly.
 *
 * Usage: pinned [compute_ms] [communication steps] */
#include "async_state.h"
#include "check.h"
#include <stdlib.h>

static void communicate(MPI_Win *wins, int n, int size, int steps, long *sent)
{
    long one = 1;
    for (int s = 0; s < steps; s++) { /* a count, not a time: every rank makes the same fences */
        for (int w = 0; w < n; w++) {
            for (int t = 0; t < size; t++)
                MPI_Accumulate(&one, 1, MPI_LONG, t, 0, 1, MPI_LONG, MPI_SUM, wins[w]);
            MPI_Win_fence(0, wins[w]);
        }
        sent[0] += size;
    }
    /* Global Arrays' sync: flush_all in a lock_all epoch, then a barrier. */
    for (int w = 0; w < n; w++) {
        MPI_Win_lock_all(MPI_MODE_NOCHECK, wins[w]);
        for (int t = 0; t < size; t++)
            MPI_Accumulate(&one, 1, MPI_LONG, t, 0, 1, MPI_LONG, MPI_SUM, wins[w]);
        MPI_Win_flush_all(wins[w]);
    }
    sent[0] += size;
    MPI_Barrier(MPI_COMM_WORLD);
    for (int w = 0; w < n; w++)
        MPI_Win_unlock_all(wins[w]);
    for (int w = 0; w < n; w++)
        MPI_Win_fence(0, wins[w]);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double phase = (argc > 1 ? atof(argv[1]) : 300) / 1000;
    int steps = argc > 2 ? atoi(argv[2]) : 200;
    MPI_Info on;
    MPI_Info_create(&on);
    MPI_Info_set(on, "async_config", "on");
    long *mem[2];
    MPI_Win wins[2]; /* A, P */
    MPI_Win_allocate(sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &mem[0], &wins[0]);
    MPI_Win_allocate(sizeof(long), sizeof(long), on, MPI_COMM_WORLD, &mem[1], &wins[1]);
    MPI_Info_free(&on);
    for (int w = 0; w < 2; w++) {
        *mem[w] = 0;
        MPI_Win_fence(0, wins[w]);
    }
    CHECK(state_on(wins[1]), "the window allocated with async_config=on is off at allocation");

    long sent = 0;
    communicate(wins, 2, size, steps, &sent);
    CHECK(!state_on(wins[0]), "after a communication phase the window without the key is on");
    CHECK(state_on(wins[1]), "after a communication phase the window allocated with async_config=on is off");

    set_async_config(wins[1], "off");
    CHECK(!state_on(wins[1]), "MPI_Win_set_info(async_config=off) left the pinned window on");
    compute_until(MPI_Wtime() + phase);
    for (int w = 0; w < 2; w++)
        MPI_Win_fence(0, wins[w]);
    CHECK(state_on(wins[0]), "after a compute phase the window without the key is off");
    CHECK(!state_on(wins[1]), "after a compute phase the pinned window, set off, is on");
    if (rank == 0)
        printf("A %s P %s\n", state_on(wins[0]) ? "on" : "off", state_on(wins[1]) ? "on" : "off");

    /* Each rank added sent/size to every rank on each window. */
    long all = 0;
    MPI_Allreduce(&sent, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    for (int w = 0; w < 2; w++) {
        long total = 0;
        MPI_Allreduce(mem[w], &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
        CHECK(total == all, "window %d holds %ld accumulated, %ld were sent", w, total, all);
        MPI_Win_free(&wins[w]);
    }
    check_summary();
    MPI_Finalize();
    return checks_failed != 0;
}
