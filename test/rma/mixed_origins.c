/* Origins on the target's node and on other nodes, on one target at once.
 *
 * Every rank hammers counters on rank 0 (and on the last rank) with
 * accumulate-type operations under shared locks and lock_all, and with
 * Get/Put read-modify-writes under exclusive locks. On fake nodes the
 * targets have origins on their own node and on the other one; whatever
 * path each origin's operations take (a ghost, the node's shared memory,
 * MPICH), accumulates to one location must stay atomic and exclusive locks
 * must exclude everyone. Totals are exact or the test fails.
 * argv[1]: iterations per rank (default 50). */
#include "rma.h"

enum { C_ACC, C_FOP, C_CAS, C_EXCL, C_OWNER, C_LOCKALL, NCOUNTERS };

/* One increment with a compare-and-swap retry loop. */
static void cas_increment(int target, int disp, MPI_Win win)
{
    long cur = 0, seen;
    for (;;) {
        long next = cur + 1;
        MPI_Compare_and_swap(&next, &cur, &seen, MPI_LONG, target, disp, win);
        MPI_Win_flush(target, win);
        if (seen == cur)
            return;
        cur = seen;
    }
}

int main(int argc, char **argv)
{
    rma_init(&argc, &argv);
    int iters = argc > 1 ? atoi(argv[1]) : 50;

    /* Which ranks share rank 0's node: printed, so a run on fake nodes
     * shows that both kinds of origins were there. */
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int first, on_node0, node0;
    MPI_Allreduce(&me, &first, 1, MPI_INT, MPI_MIN, node);
    on_node0 = first == 0;
    MPI_Allreduce(&on_node0, &node0, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0)
        printf("mixed_origins: %d of %d ranks on rank 0's node\n", node0, np);
    MPI_Comm_free(&node);

    MPI_Win win;
    long *w = alloc_win(NCOUNTERS * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    self_lock(win, MPI_LOCK_EXCLUSIVE);
    for (int j = 0; j < NCOUNTERS; j++)
        w[j] = 0;
    self_unlock(win);
    MPI_Barrier(MPI_COMM_WORLD);

    int last = np - 1, intruders = 0;
    long one = 1, old;
    for (int i = 0; i < iters; i++) {
        cur_mode = "shared lock: acc, fop, cas";
        for (int t = 0; t <= last; t += last) {
            MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win);
            MPI_Accumulate(&one, 1, MPI_LONG, t, C_ACC, 1, MPI_LONG, MPI_SUM, win);
            MPI_Fetch_and_op(&one, &old, MPI_LONG, t, C_FOP, MPI_SUM, win);
            MPI_Win_flush(t, win);
            cas_increment(t, C_CAS, win);
            MPI_Win_unlock(t, win);
            if (last == 0)
                break;
        }

        cur_mode = "lock_all: acc";
        MPI_Win_lock_all(0, win);
        MPI_Accumulate(&one, 1, MPI_LONG, 0, C_LOCKALL, 1, MPI_LONG, MPI_SUM, win);
        MPI_Win_flush_all(win);
        MPI_Win_unlock_all(win);

        cur_mode = "exclusive lock: get/put";
        long v[2], mine = me + 1, zero = 0;
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        MPI_Get(v, 2, MPI_LONG, 0, C_EXCL, 2, MPI_LONG, win);
        MPI_Win_flush(0, win);
        intruders += v[1] != 0;
        v[0]++;
        MPI_Put(&v[0], 1, MPI_LONG, 0, C_EXCL, 1, MPI_LONG, win);
        MPI_Put(&mine, 1, MPI_LONG, 0, C_OWNER, 1, MPI_LONG, win);
        MPI_Win_flush(0, win);
        MPI_Get(&v[1], 1, MPI_LONG, 0, C_OWNER, 1, MPI_LONG, win);
        MPI_Win_flush(0, win);
        CHECK(v[1] == mine, "owner word %ld while I (%ld) hold the lock", v[1], mine);
        MPI_Put(&zero, 1, MPI_LONG, 0, C_OWNER, 1, MPI_LONG, win);
        MPI_Win_unlock(0, win);
    }
    CHECK(intruders == 0, "found the owner word taken %d times", intruders);
    MPI_Barrier(MPI_COMM_WORLD);

    cur_mode = "check";
    long total = (long)iters * np;
    if (me == 0 || me == last) {
        /* The targets read their own memory, as load/store under a self lock. */
        self_lock(win, MPI_LOCK_SHARED);
        CHECK(w[C_ACC] == total, "MPI_Accumulate counter %ld want %ld", w[C_ACC], total);
        CHECK(w[C_FOP] == total, "MPI_Fetch_and_op counter %ld want %ld", w[C_FOP], total);
        CHECK(w[C_CAS] == total, "MPI_Compare_and_swap counter %ld want %ld", w[C_CAS], total);
        if (me == 0) {
            CHECK(w[C_EXCL] == total, "exclusive-lock counter %ld want %ld", w[C_EXCL], total);
            CHECK(w[C_LOCKALL] == total, "lock_all counter %ld want %ld", w[C_LOCKALL], total);
        }
        self_unlock(win);
    }
    MPI_Win_free(&win);
    return rma_finish();
}
