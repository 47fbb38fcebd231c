/* Implicit agreement points (GHOST_ASYNC=auto) in a program that never
 * fences nor calls MPI_Win_set_info: Global Arrays' shape, a window under
 * lock_all(MPI_MODE_NOCHECK) for its whole life, phases that end with
 * flush_all on every window and MPI_Barrier.
 *
 * Window A spans MPI_COMM_WORLD; window B spans `half`, the even ranks;
 * window C spans MPI_COMM_WORLD and is used only in exclusive lock epochs
 * (lock, accumulate, unlock), whose last unlock completes its operations.
 * Communication phases count on rank 0 of A with MPI_Accumulate,
 * MPI_Fetch_and_op and Compare_and_swap loops (and accumulate on B and C);
 * compute phases spin outside MPI. Before the barrier that ends a phase,
 * each phase also makes one barrier where a switch of A is not safe, and
 * checks that A kept its state on every rank there:
 *   kind 0: rank 0 issued an accumulate after its flush_all (flushed after);
 *   kind 1: the barrier is over a communicator without the last rank;
 *   kind 2: the barrier is over `half`, B's communicator, which misses A's
 *           odd ranks (B may switch there, A may not).
 * After the phase's full barrier every rank reads A's state back, the ranks
 * compare, and rank 0 prints "phase P KIND -> on|off" (A),
 * "phase P half -> on|off" (B) and "phase P lock KIND -> on|off" (C). Then come `barriers` back-to-back barriers,
 * where no vote changes (each rank prints "rank R made N barriers"). The
 * counters are checked exactly at the end.
 * Usage: implicit [phases] [phase_ms] [barriers] */
#include "check.h"
#include "async_state.h"
#include <stdlib.h>
#include <string.h>


/* Checks that every rank of comm holds state `want` for win. */
static void agree_on(MPI_Win win, MPI_Comm comm, int want, const char *where, int phase)
{
    int on = state_on(win), lo, hi;
    CHECK(want < 0 || on == want, "phase %d %s: state %d, expected it to stay %d", phase, where, on, want);
    MPI_Allreduce(&on, &lo, 1, MPI_INT, MPI_MIN, comm);
    MPI_Allreduce(&on, &hi, 1, MPI_INT, MPI_MAX, comm);
    CHECK(lo == hi, "phase %d %s: ranks disagree on the state", phase, where);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int phases = argc > 1 ? atoi(argv[1]) : 6;
    double phase_s = (argc > 2 ? atof(argv[2]) : 300) / 1000;
    int barriers = argc > 3 ? atoi(argv[3]) : 0;
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm half, but_last;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2 == 0 ? 0 : MPI_UNDEFINED, rank, &half);
    MPI_Comm_split(MPI_COMM_WORLD, rank < size - 1 ? 0 : MPI_UNDEFINED, rank, &but_last);

    long *a, *b = NULL, *c;
    MPI_Win wa, wb = MPI_WIN_NULL, wc;
    MPI_Win_allocate(SLOTS * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &a, &wa);
    memset(a, 0, SLOTS * sizeof(long));
    MPI_Win_allocate(sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &c, &wc);
    *c = 0;
    if (half != MPI_COMM_NULL) {
        MPI_Win_allocate(sizeof(long), sizeof(long), MPI_INFO_NULL, half, &b, &wb);
        *b = 0;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock_all(MPI_MODE_NOCHECK, wa);
    if (wb != MPI_WIN_NULL)
        MPI_Win_lock_all(MPI_MODE_NOCHECK, wb);

    long iters = 0, unsafe_accs = 0, one = 1;
    for (int p = 0; p < phases; p++) {
        int comm = p % 2 == 1;
        double t0 = MPI_Wtime();
        if (comm) {
            while (MPI_Wtime() - t0 < phase_s) {
                count_on_rank0(wa);
                if (wb != MPI_WIN_NULL)
                    MPI_Accumulate(&one, 1, MPI_LONG, 0, 0, 1, MPI_LONG, MPI_SUM, wb);
                MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, wc);
                MPI_Accumulate(&one, 1, MPI_LONG, 0, 0, 1, MPI_LONG, MPI_SUM, wc);
                MPI_Win_unlock(0, wc);
                iters++;
            }
        } else {
            compute_until(t0 + phase_s);
        }
        MPI_Win_flush_all(wa);
        if (wb != MPI_WIN_NULL)
            MPI_Win_flush_all(wb);

        int before = state_on(wa);
        switch ((p / 2) % 3) {
        case 0:
            if (rank == 0) {
                MPI_Accumulate(&one, 1, MPI_LONG, 0, ACC, 1, MPI_LONG, MPI_SUM, wa);
                unsafe_accs++;
            }
            MPI_Barrier(MPI_COMM_WORLD);
            agree_on(wa, MPI_COMM_WORLD, before, "after an operation issued since flush_all", p);
            if (rank == 0)
                MPI_Win_flush_all(wa);
            break;
        case 1:
            if (but_last != MPI_COMM_NULL)
                MPI_Barrier(but_last);
            CHECK(state_on(wa) == before, "phase %d: A switched at a barrier that missed the last rank", p);
            break;
        case 2:
            if (half != MPI_COMM_NULL) {
                MPI_Barrier(half);
                agree_on(wb, half, -1, "B after its own communicator's barrier", p);
            }
            CHECK(state_on(wa) == before, "phase %d: A switched at a barrier over B's communicator", p);
            break;
        }

        MPI_Barrier(MPI_COMM_WORLD);
        agree_on(wa, MPI_COMM_WORLD, -1, "after the full barrier", p);
        if (half != MPI_COMM_NULL)
            agree_on(wb, half, -1, "B after the full barrier", p);
        agree_on(wc, MPI_COMM_WORLD, -1, "C after the full barrier", p);
        if (rank == 0) {
            printf("phase %d %s -> %s\n", p, comm ? "comm" : "compute", state_on(wa) ? "on" : "off");
            printf("phase %d half -> %s\n", p, state_on(wb) ? "on" : "off");
            printf("phase %d lock %s -> %s\n", p, comm ? "comm" : "compute", state_on(wc) ? "on" : "off");
            fflush(stdout);
        }
    }

    for (int i = 0; i < barriers; i++)
        MPI_Barrier(MPI_COMM_WORLD);
    printf("rank %d made %d barriers\n", rank, barriers);

    long total = 0, accs = 0;
    MPI_Allreduce(&iters, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&unsafe_accs, &accs, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    long btotal = 0;
    if (half != MPI_COMM_NULL)
        MPI_Allreduce(&iters, &btotal, 1, MPI_LONG, MPI_SUM, half);
    /* Every operation was flushed before the last full barrier: rank 0
     * syncs its copy of the windows and reads the totals. */
    if (rank == 0) {
        MPI_Win_sync(wa);
        MPI_Win_sync(wb);
        CHECK(a[ACC] == total + accs, "ACC total %ld, expected %ld", a[ACC], total + accs);
        CHECK(a[FOP] == total, "FOP total %ld, expected %ld", a[FOP], total);
        CHECK(a[CAS] == total, "CAS total %ld, expected %ld", a[CAS], total);
        CHECK(*b == btotal, "B total %ld, expected %ld", *b, btotal);
    }
    /* C's epochs are closed; rank 0 reads its own total in one of its own. */
    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, wc);
        CHECK(*c == total, "C total %ld, expected %ld", *c, total);
        MPI_Win_unlock(0, wc);
    }
    MPI_Win_unlock_all(wa);
    if (wb != MPI_WIN_NULL)
        MPI_Win_unlock_all(wb);
    if (wb != MPI_WIN_NULL)
        MPI_Win_free(&wb);
    MPI_Win_free(&wc);
    MPI_Win_free(&wa);
    if (half != MPI_COMM_NULL)
        MPI_Comm_free(&half);
    if (but_last != MPI_COMM_NULL)
        MPI_Comm_free(&but_last);
    check_summary();
    MPI_Finalize();
    return 0;
}
