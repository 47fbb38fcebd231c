/* Ordering of accumulate-type operations from one origin to one target
 * location (the default accumulate_ordering rar,raw,war,waw), with no
 * flush in between: a run of MPI_REPLACE accumulates leaves the last value;
 * Get_accumulate(NO_OP) and Fetch_and_op after an Accumulate see it;
 * Compare_and_swap after a REPLACE compares against the new value. Every
 * rank does this to every target (its own slots) in one lock_all epoch
 * and under a lock per target. Also a window with accumulate_ordering=none:
 * only the flushed result is checked there. */
#include "rma.h"

enum { REPL = 0, SUMS = 4, CASW = 8, WN = 12 };
static void run(MPI_Win win, int *w, int reps, int lockall, int ordered)
{
    self_lock(win, MPI_LOCK_EXCLUSIVE);
    for (int i = 0; i < WN; i++)
        w[i] = 0;
    self_unlock(win);
    MPI_Barrier(MPI_COMM_WORLD);
    if (lockall)
        MPI_Win_lock_all(0, win);
    for (int k = 0; k < np; k++) {
        int t = (me + k) % np, one = 1, seen = -1, fetched = -1, swapped = -1, cmpv, newv = -7;
        if (!lockall)
            MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win);
        int *vals = malloc(sizeof(int) * reps);
        for (int r = 0; r < reps; r++) {
            vals[r] = 1000 * me + r + 1;
            MPI_Accumulate(&vals[r], 1, MPI_INT, t, REPL + me, 1, MPI_INT, MPI_REPLACE, win);
        }
        for (int r = 0; r < reps; r++)
            MPI_Accumulate(&one, 1, MPI_INT, t, SUMS + me, 1, MPI_INT, MPI_SUM, win);
        MPI_Get_accumulate(NULL, 0, MPI_INT, &seen, 1, MPI_INT, t, REPL + me, 1, MPI_INT, MPI_NO_OP, win);
        MPI_Fetch_and_op(&one, &fetched, MPI_INT, t, SUMS + me, MPI_SUM, win);
        cmpv = 1000 * me + reps; /* the last REPLACE value */
        MPI_Accumulate(&cmpv, 1, MPI_INT, t, CASW + me, 1, MPI_INT, MPI_REPLACE, win);
        MPI_Compare_and_swap(&newv, &cmpv, &swapped, MPI_INT, t, CASW + me, win);
        if (lockall)
            MPI_Win_flush(t, win);
        else
            MPI_Win_unlock(t, win);
        if (ordered) {
            CHECKM(seen == 1000 * me + reps, "target %d: no_op after %d replaces saw %d", t, reps, seen);
            CHECKM(fetched == reps, "target %d: fetch_and_op after %d sums saw %d", t, reps, fetched);
            CHECKM(swapped == cmpv, "target %d: cas after replace saw %d", t, swapped);
        }
        free(vals);
    }
    if (lockall)
        MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    self_lock(win, MPI_LOCK_SHARED);
    for (int o = 0; o < np; o++) {
        if (ordered)
            CHECKM(w[REPL + o] == 1000 * o + reps, "replace run from %d ended at %d", o, w[REPL + o]);
        else
            CHECKM(w[REPL + o] > 1000 * o && w[REPL + o] <= 1000 * o + reps, "replace from %d: %d", o, w[REPL + o]);
        CHECKM(w[SUMS + o] == reps + 1, "sums from %d: %d", o, w[SUMS + o]);
        if (ordered)
            CHECKM(w[CASW + o] == -7, "cas from %d: %d", o, w[CASW + o]);
    }
    self_unlock(win);
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    rma_init(&argc, &argv);
    int reps = argc > 1 ? atoi(argv[1]) : 50;
    MPI_Win win;
    int *w = alloc_win(WN * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    cur_mode = "ordered lock_all";
    run(win, w, reps, 1, 1);
    cur_mode = "ordered lock";
    run(win, w, reps, 0, 1);
    MPI_Win_free(&win);

    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "accumulate_ordering", "none");
    w = alloc_win(WN * sizeof(int), sizeof(int), info, MPI_COMM_WORLD, &win);
    MPI_Info_free(&info);
    cur_mode = "accumulate_ordering=none";
    run(win, w, reps, 1, 0);
    MPI_Win_free(&win);
    return rma_finish();
}
