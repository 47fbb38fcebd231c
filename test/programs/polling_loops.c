/* Loops of atomic reads (MPI_Fetch_and_op and MPI_Get_accumulate with
 * MPI_NO_OP), as applications poll counters and flags, on every target:
 * same-node ones (which Ghost reads in the node segment) and others.
 * argv[1] is the number of operations per target and of polling rounds.
 *
 * 1. Ordering: each origin adds 1 to its own counter at every target and
 *    reads it back at once, without a flush between (MPI orders one
 *    origin's accumulates to a location: the read must see the add), and
 *    again after a flush. Every value is exact.
 * 2. Polling that must terminate: in each round every rank but 0 adds 1 to
 *    an arrival counter on the last rank, rank 0 polls it until all have
 *    arrived, then sets a 4-byte round flag on rank 1 with MPI_REPLACE, which
 *    the others poll until they see the round. No polled value may run
 *    ahead of what was written; a poll that never ends fails after 30 s.
 * 3. After unlock_all every counter holds exactly what was added. */
#include "check.h"

#include <stdlib.h>

enum { POLL_LIMIT_S = 30 };

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    const int iters = argc > 1 ? atoi(argv[1]) : 50;
    /* Byte displacements: per-origin counters, the arrival counter, and
     * the round flag (an int). */
    const MPI_Aint arrived_at = (MPI_Aint)n * sizeof(long), round_at = arrived_at + sizeof(long);
    char *base;
    MPI_Win win;
    MPI_Win_allocate(round_at + sizeof(long), 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    for (MPI_Aint i = 0; i < round_at + (MPI_Aint)sizeof(long); i++)
        base[i] = 0;
    MPI_Barrier(MPI_COMM_WORLD);

    const long one = 1, none = 0;
    const MPI_Aint mine = (MPI_Aint)me * sizeof(long);
    MPI_Win_lock_all(0, win);
    for (int t = 0; t < n; t++) {
        for (int i = 1; i <= iters; i++) {
            long got = -1;
            MPI_Accumulate(&one, 1, MPI_LONG, t, mine, 1, MPI_LONG, MPI_SUM, win);
            if (i % 2)
                MPI_Fetch_and_op(&none, &got, MPI_LONG, t, mine, MPI_NO_OP, win);
            else
                MPI_Get_accumulate(&none, 1, MPI_LONG, &got, 1, MPI_LONG, t, mine, 1, MPI_LONG, MPI_NO_OP, win);
            MPI_Win_flush(t, win);
            CHECK(got == i, "target %d, add %d: read %ld right after it", t, i, got);
            got = -1;
            MPI_Fetch_and_op(&none, &got, MPI_LONG, t, mine, MPI_NO_OP, win);
            MPI_Win_flush(t, win);
            CHECK(got == i, "target %d, add %d: read %ld after a flush", t, i, got);
        }
    }

    const int last = n - 1, flag_rank = n > 1 ? 1 : 0;
    for (int k = 1; k <= iters; k++) {
        double start = MPI_Wtime();
        if (me != 0) {
            MPI_Accumulate(&one, 1, MPI_LONG, last, arrived_at, 1, MPI_LONG, MPI_SUM, win);
            MPI_Win_flush(last, win);
        } else {
            const long want = (long)k * (n - 1);
            long seen = -1;
            while (seen != want && MPI_Wtime() - start < POLL_LIMIT_S) {
                MPI_Fetch_and_op(&none, &seen, MPI_LONG, last, arrived_at, MPI_NO_OP, win);
                MPI_Win_flush(last, win);
                if (seen > want)
                    break;
            }
            CHECK(seen == want, "round %d: arrivals polled %ld, want %ld", k, seen, want);
            MPI_Accumulate(&k, 1, MPI_INT, flag_rank, round_at, 1, MPI_INT, MPI_REPLACE, win);
            MPI_Win_flush(flag_rank, win);
        }
        int round = -1;
        const int zero = 0;
        while (round < k && MPI_Wtime() - start < POLL_LIMIT_S) {
            MPI_Get_accumulate(&zero, 1, MPI_INT, &round, 1, MPI_INT, flag_rank, round_at, 1, MPI_INT, MPI_NO_OP, win);
            MPI_Win_flush(flag_rank, win);
        }
        CHECK(round == k, "round %d: flag polled %d", k, round);
        if (round != k)
            break;
    }
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);

    /* Everyone's operations are complete; see them in this process's own
     * memory inside an epoch on itself. */
    MPI_Win_lock(MPI_LOCK_SHARED, me, 0, win);
    MPI_Win_sync(win);
    for (int j = 0; j < n; j++)
        CHECK(((long *)base)[j] == iters, "origin %d's counter here: %ld, want %d", j, ((long *)base)[j], iters);
    if (me == last)
        CHECK(*(long *)(base + arrived_at) == (long)iters * (n - 1), "arrivals %ld, want %ld",
              *(long *)(base + arrived_at), (long)iters * (n - 1));
    if (me == flag_rank)
        CHECK(*(int *)(base + round_at) == iters, "round flag %d, want %d", *(int *)(base + round_at), iters);
    MPI_Win_unlock(me, win);
    MPI_Win_free(&win);
    check_summary();
    MPI_Finalize();
    return 0;
}
