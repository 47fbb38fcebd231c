/* Waits on a target that computes are not communication (issue 13): with
 * redirection off, a flush to a target outside MPI completes only when the
 * target calls MPI again, and that wait is exactly what redirection
 * removes, so it must not push the vote to "off".
 *
 * Two ranks. Phases alternate, each one fence epoch (a lock_all with
 * MPI_MODE_NOCHECK inside, for the flushes) closed by MPI_Win_fence, where
 * GHOST_ASYNC=auto agrees on the votes:
 *  - "stall": rank 1 computes in chunks of 20 ms and accumulates into
 *    rank 0 between them; rank 0 computes 1 ms between its accumulates into
 *    rank 1, each flushed at once. Rank 0 spends nearly all its time in
 *    flushes that wait for rank 1's chunks: counted as communication, its
 *    CR is near 1; as stalls, near 0. Both ranks compute, so redirection
 *    must be on after the phase. Each stall phase starts with redirection
 *    off (MPI_Win_set_info with symmetric=true).
 *  - "comm": both ranks accumulate into both ranks with a flush_all each,
 *    in a tight loop: redirection must be off after the phase.
 * A stall phase starts with a few flushed accumulates that both ranks
 * exchange while both are inside MPI, so that each origin has seen what a
 * completion costs when its target is in MPI (the first completion to a
 * target seeds that estimate). Rank 0 prints "phase P KIND -> on|off";
 * the accumulated values are checked exactly.
 * Usage: stall [phases] [phase_ms] */
#include "async_state.h"
#include "check.h"

#include <stdlib.h>

/* Every stall phase starts with redirection off: the case where waits on
 * a computing target used to keep the vote off. */
static void redirection_off(MPI_Win win)
{
    set_async_config(win, "off");
    CHECK(!state_on(win), "redirection on after set_info(async_config=off, symmetric=true)");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int phases = argc > 1 ? atoi(argv[1]) : 4;
    double phase_s = (argc > 2 ? atof(argv[2]) : 400) / 1000;
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0)
            printf("stall: needs 2 ranks, has %d\n", size);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    long *mem, one = 1, sent = 0;
    MPI_Win win;
    MPI_Win_allocate(sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    *mem = 0;
    int other = 1 - rank;
    MPI_Win_fence(0, win);
    for (int p = 0; p < phases; p++) {
        int comm = p % 2 == 1;
        if (!comm)
            redirection_off(win);
        MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
        for (int i = 0; !comm && i < 20; i++) { /* both ranks are in MPI */
            MPI_Accumulate(&one, 1, MPI_LONG, other, 0, 1, MPI_LONG, MPI_SUM, win);
            MPI_Win_flush(other, win);
            sent++;
        }
        double end = MPI_Wtime() + phase_s;
        while (MPI_Wtime() < end) {
            if (comm) {
                for (int t = 0; t < size; t++)
                    MPI_Accumulate(&one, 1, MPI_LONG, t, 0, 1, MPI_LONG, MPI_SUM, win);
                MPI_Win_flush_all(win);
                sent += size;
                continue;
            }
            compute_until(MPI_Wtime() + (rank == 1 ? 0.02 : 0.001));
            MPI_Accumulate(&one, 1, MPI_LONG, other, 0, 1, MPI_LONG, MPI_SUM, win);
            MPI_Win_flush(other, win);
            sent++;
        }
        MPI_Win_unlock_all(win);
        MPI_Win_fence(0, win);
        int on = state_on(win), all[2];
        MPI_Allgather(&on, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD);
        CHECK(all[0] == all[1], "phase %d: rank 0 has state %d, rank 1 has %d", p, all[0], all[1]);
        if (rank == 0) {
            printf("phase %d %s -> %s\n", p, comm ? "comm" : "stall", on ? "on" : "off");
            fflush(stdout);
        }
    }
    long total = 0, landed = 0;
    MPI_Allreduce(&sent, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(mem, &landed, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    CHECK(landed == total, "accumulated %ld, sent %ld", landed, total);
    MPI_Win_free(&win);
    check_summary();
    MPI_Finalize();
    return 0;
}
