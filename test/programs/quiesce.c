/* Switches outside collectives (GHOST_ASYNC=auto, c/quiesce.c) in a
 * program whose ranks never meet between their allocations and their end:
 * the windows stay under lock_all(MPI_MODE_NOCHECK) or lock epochs, and
 * the only barrier comes after the work.
 *
 *  A (MPI_COMM_WORLD): its zeros published with a fence before its
 *    lock_all, every rank counts on rank 0 with MPI_Accumulate,
 *    MPI_Fetch_and_op and a Compare_and_swap loop, each completed by
 *    MPI_Win_flush: quiet after every flush, so it may switch. Each rank
 *    also writes its own slot of rank 0 and of its right neighbour with
 *    MPI_Put and MPI_Rput and reads it back with MPI_Get and MPI_Rget after
 *    a flush, and replaces a word with MPI_Accumulate(MPI_REPLACE) that an
 *    MPI_Get_accumulate(MPI_NO_OP) right after it, unflushed, must see
 *    (MPI's default accumulate ordering), whatever the path of each. First
 *    of all it puts to its loose slot of rank 0, which computes, and
 *    completes that PUT only with the flushes of the rest of the iteration,
 *    so that switches find it in flight; the GET after them must see it.
 *  B (MPI_COMM_WORLD): every rank accumulates into its right neighbour and
 *    completes only locally (MPI_Win_flush_local): on the direct path its
 *    operations stay in flight until the final flush_all, so no rank is
 *    quiet on B before it, and B must not switch to redirection until then
 *    although its flushes keep asking. Redirected, a rank asked to go
 *    direct completes its accumulates through the ghosts itself, so B may
 *    switch that way, and its counter must stay exact across it.
 *  C (MPI_COMM_WORLD): exclusive lock epochs on rank 0 (lock, accumulate,
 *    unlock): a rank inside one is not quiet, a rank between two is.
 *  E (the even ranks): a fetch-and-op counter on E's rank 0, completed by
 *    flush: switches among its own ranks only.
 *
 * Rank 0 computes compute_ms outside MPI after each of its iterations, so
 * that the others' completions on A and E stall on it (the stall rule);
 * with GHOST_TEST_FAULT=quiesce_flip:D every rank also coordinates flips
 * to the other state, both ways, after its flushes. At the end every
 * counter must be exact, and after the barrier every rank of a window
 * holds the same state. Rank 0 prints "states A=on|off B=... C=... E=..."
 * and "loops ended T": when the first rank left its loop, in seconds since
 * the Unix epoch (the trace's clock).
 * Usage: quiesce [seconds] [compute_ms] */
#include "check.h"
#include "async_state.h"
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Window A: the counters (async_state.h: ACC, FOP, CAS), then, per rank r,
 * its PUT slot at SLOTS + 2r and its REPLACE slot at SLOTS + 2r + 1, and
 * its loose slot at SLOTS + 2 size + r. */

static void agree_on(MPI_Win win, MPI_Comm comm, const char *name)
{
    int on = state_on(win), lo, hi;
    MPI_Allreduce(&on, &lo, 1, MPI_INT, MPI_MIN, comm);
    MPI_Allreduce(&on, &hi, 1, MPI_INT, MPI_MAX, comm);
    CHECK(lo == hi, "window %s: the ranks disagree on its state after the barrier", name);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    double seconds = argc > 1 ? atof(argv[1]) : 1.0;
    double compute_s = (argc > 2 ? atof(argv[2]) : 2) / 1000;
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm even;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2 == 0 ? 0 : MPI_UNDEFINED, rank, &even);

    long *a, *b, *c, *e = NULL;
    MPI_Win wa, wb, wc, we = MPI_WIN_NULL;
    int awords = SLOTS + 3 * size;
    MPI_Win_allocate(awords * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &a, &wa);
    MPI_Win_allocate(sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &b, &wb);
    MPI_Win_allocate(sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &c, &wc);
    memset(a, 0, awords * sizeof(long));
    *b = *c = 0;
    if (even != MPI_COMM_NULL) {
        MPI_Win_allocate(sizeof(long), sizeof(long), MPI_INFO_NULL, even, &e, &we);
        *e = 0;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    /* A's zeros are published with a fence, as programs often do before
     * their passive epochs: the lock_all that follows, with nothing issued
     * in between, means the fence opened no epoch, so A must still switch
     * outside collectives. */
    MPI_Win_fence(0, wa);
    MPI_Win_lock_all(MPI_MODE_NOCHECK, wa);
    MPI_Win_lock_all(MPI_MODE_NOCHECK, wb);
    if (we != MPI_WIN_NULL)
        MPI_Win_lock_all(MPI_MODE_NOCHECK, we);

    int right = (rank + 1) % size;
    long iters = 0, one = 1, old;
    double t0 = MPI_Wtime();
    while (MPI_Wtime() - t0 < seconds) {
        long mine = (long)rank << 40 | iters, back = -1, ordered = -1, loose = -1;
        MPI_Aint loose_slot = SLOTS + 2 * size + rank;
        MPI_Put(&mine, 1, MPI_LONG, 0, loose_slot, 1, MPI_LONG, wa);
        count_on_rank0(wa);
        /* Data on both paths, to rank 0 and to the right neighbour. */
        MPI_Aint put_slot = SLOTS + 2 * rank, rep_slot = put_slot + 1;
        for (int k = 0; k < 2; k++) {
            int target = k == 0 ? 0 : right;
            MPI_Request req;
            if (iters % 2 == 0) {
                MPI_Put(&mine, 1, MPI_LONG, target, put_slot, 1, MPI_LONG, wa);
            } else {
                MPI_Rput(&mine, 1, MPI_LONG, target, put_slot, 1, MPI_LONG, wa, &req);
                MPI_Wait(&req, MPI_STATUS_IGNORE);
            }
            MPI_Win_flush(target, wa);
            if (iters % 2 == 0) {
                MPI_Get(&back, 1, MPI_LONG, target, put_slot, 1, MPI_LONG, wa);
                MPI_Win_flush(target, wa);
            } else {
                MPI_Rget(&back, 1, MPI_LONG, target, put_slot, 1, MPI_LONG, wa, &req);
                MPI_Wait(&req, MPI_STATUS_IGNORE);
            }
            CHECK(back == mine, "iteration %ld: read %lx back from rank %d, wrote %lx", iters, back, target, mine);
            MPI_Accumulate(&mine, 1, MPI_LONG, target, rep_slot, 1, MPI_LONG, MPI_REPLACE, wa);
            MPI_Get_accumulate(NULL, 0, MPI_LONG, &ordered, 1, MPI_LONG, target, rep_slot, 1, MPI_LONG, MPI_NO_OP, wa);
            MPI_Win_flush(target, wa);
            CHECK(ordered == mine, "iteration %ld: the get-accumulate after a replace at rank %d read %lx, want %lx",
                  iters, target, ordered, mine);
        }
        MPI_Get(&loose, 1, MPI_LONG, 0, loose_slot, 1, MPI_LONG, wa);
        MPI_Win_flush(0, wa);
        CHECK(loose == mine, "iteration %ld: read %lx back from the loose slot at rank 0, put %lx before the flushes",
              iters, loose, mine);
        MPI_Accumulate(&one, 1, MPI_LONG, right, 0, 1, MPI_LONG, MPI_SUM, wb);
        MPI_Win_flush_local(right, wb);
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, wc);
        MPI_Accumulate(&one, 1, MPI_LONG, 0, 0, 1, MPI_LONG, MPI_SUM, wc);
        MPI_Win_unlock(0, wc);
        if (we != MPI_WIN_NULL) {
            MPI_Fetch_and_op(&one, &old, MPI_LONG, 0, 0, MPI_SUM, we);
            MPI_Win_flush(0, we);
        }
        iters++;
        if (rank == 0)
            compute_until(MPI_Wtime() + compute_s);
    }
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    double loop_end = (double)now.tv_sec + now.tv_nsec / 1e9, first_end = 0;
    MPI_Allreduce(&loop_end, &first_end, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    MPI_Win_flush_all(wa);
    MPI_Win_flush_all(wb);
    if (we != MPI_WIN_NULL)
        MPI_Win_flush_all(we);
    MPI_Barrier(MPI_COMM_WORLD);

    agree_on(wa, MPI_COMM_WORLD, "A");
    agree_on(wb, MPI_COMM_WORLD, "B");
    agree_on(wc, MPI_COMM_WORLD, "C");
    if (even != MPI_COMM_NULL)
        agree_on(we, even, "E");

    long total = 0, even_total = 0, left_iters = 0, mine_even = rank % 2 == 0 ? iters : 0;
    MPI_Allreduce(&iters, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&mine_even, &even_total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Sendrecv(&iters, 1, MPI_LONG, right, 0, &left_iters, 1, MPI_LONG, (rank + size - 1) % size, 0,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    /* The window memory is read after the barrier that followed every
     * origin's flush_all (MPI_Win_sync orders the loads with it). */
    MPI_Win_sync(wa);
    MPI_Win_sync(wb);
    CHECK(*b == left_iters, "B: %ld accumulates arrived from the left neighbour, which made %ld", *b, left_iters);
    if (rank == 0) {
        for (int s = 0; s < SLOTS; s++)
            CHECK(a[s] == total, "A slot %d holds %ld, want %ld", s, a[s], total);
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, wc);
        CHECK(*c == total, "C holds %ld, want %ld", *c, total);
        MPI_Win_unlock(0, wc);
        CHECK(*e == even_total, "E holds %ld, want %ld", *e, even_total);
        printf("states A=%s B=%s C=%s E=%s iterations %ld\n", state_on(wa) ? "on" : "off", state_on(wb) ? "on" : "off",
               state_on(wc) ? "on" : "off", state_on(we) ? "on" : "off", total);
        printf("loops ended %.6f\n", first_end);
        fflush(stdout);
    }

    MPI_Win_unlock_all(wa);
    MPI_Win_unlock_all(wb);
    if (we != MPI_WIN_NULL) {
        MPI_Win_unlock_all(we);
        MPI_Win_free(&we);
        MPI_Comm_free(&even);
    }
    MPI_Win_free(&wc);
    MPI_Win_free(&wb);
    MPI_Win_free(&wa);
    check_summary();
    MPI_Finalize();
    return 0;
}
