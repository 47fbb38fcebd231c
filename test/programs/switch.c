/* Redirection switched on and off while every rank hammers shared counters.
 * Each phase flips async_config, alternately with MPI_Win_set_info followed
 * by a fence, and with MPI_Win_set_info(symmetric=true). After each switch
 * every rank reads the state back (MPI_Win_get_info) and the ranks compare:
 * it must be identical everywhere. Then they count on rank 0 with
 * MPI_Accumulate, MPI_Fetch_and_op, Compare_and_swap loops and read-modify-
 * write under exclusive locks; the exact totals are checked every phase.
 * Usage: switch [phases] [ops per rank per phase] [cas32]
 * cas32: the compare-and-swap counter is a 32-bit int at the start of its
 * slot, for Open MPI 4.1.4, whose osc/rdma crashes on a 64-bit
 * compare-and-swap a rank issues to itself (rank 0 here), plain or under
 * Ghost's direct path. */
#include "check.h"
#include "async_state.h"
#include <stdlib.h>
#include <string.h>

/* async_state.h's counters, then the exclusive read-modify-write slot. */
enum { RMW = SLOTS, SWITCH_SLOTS };

static void set_state(MPI_Win win, int on, int symmetric)
{
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "async_config", on ? "on" : "off");
    if (symmetric)
        MPI_Info_set(info, "symmetric", "true");
    MPI_Win_set_info(win, info);
    MPI_Info_free(&info);
    if (!symmetric)
        MPI_Win_fence(0, win);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int phases = argc > 1 ? atoi(argv[1]) : 8, n = argc > 2 ? atoi(argv[2]) : 50;
    int cas32 = argc > 3 && strcmp(argv[3], "cas32") == 0;
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long *mem;
    MPI_Win win;
    MPI_Win_allocate(SWITCH_SLOTS * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    for (int i = 0; i < SWITCH_SLOTS; i++)
        mem[i] = 0;
    MPI_Win_fence(0, win);
    /* A new window starts redirected, or under GHOST_ASYNC=auto in the state
     * its ranks' votes agreed on: either way, the same on every rank. */
    int first = state_on(win), lowest = 0, highest = 0;
    MPI_Allreduce(&first, &lowest, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&first, &highest, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    CHECK(lowest == highest, "ranks disagree on the new window's state");
    long one = 1, old;
    for (int p = 0; p < phases; p++) {
        int on = p % 2 == 1, symmetric = (p / 2) % 2 == 1;
        set_state(win, on, symmetric);
        int mine = state_on(win), all[64];
        MPI_Allgather(&mine, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD);
        for (int r = 0; r < size && r < 64; r++)
            CHECK(all[r] == on, "phase %d: rank %d sees state %d, want %d", p, r, all[r], on);

        MPI_Win_lock_all(0, win);
        for (int i = 0; i < n; i++) {
            MPI_Accumulate(&one, 1, MPI_LONG, 0, ACC, 1, MPI_LONG, MPI_SUM, win);
            MPI_Fetch_and_op(&one, &old, MPI_LONG, 0, FOP, MPI_SUM, win);
            MPI_Win_flush(0, win);
            /* The counter's low bytes are the int's on this little-endian
             * machine, and the long's upper half stays 0. */
            long cur = 0, res = 0, next;
            int cur32 = 0, res32 = 0, next32;
            for (;;) {
                next = cur + 1, next32 = cur32 + 1;
                if (cas32)
                    MPI_Compare_and_swap(&next32, &cur32, &res32, MPI_INT, 0, CAS, win);
                else
                    MPI_Compare_and_swap(&next, &cur, &res, MPI_LONG, 0, CAS, win);
                MPI_Win_flush(0, win);
                if (cas32 ? res32 == cur32 : res == cur)
                    break;
                cur = res, cur32 = res32;
            }
        }
        MPI_Win_unlock_all(win);
        for (int i = 0; i < n / 5 + 1; i++) {
            long v;
            MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
            MPI_Get(&v, 1, MPI_LONG, 0, RMW, 1, MPI_LONG, win);
            MPI_Win_flush(0, win);
            v++;
            MPI_Put(&v, 1, MPI_LONG, 0, RMW, 1, MPI_LONG, win);
            MPI_Win_unlock(0, win);
        }
        MPI_Win_fence(0, win);
        if (rank == 0) {
            long want = (long)(p + 1) * n * size, want_rmw = (long)(p + 1) * (n / 5 + 1) * size;
            CHECK(mem[ACC] == want, "phase %d: accumulate total %ld, want %ld", p, mem[ACC], want);
            CHECK(mem[FOP] == want, "phase %d: fetch_and_op total %ld, want %ld", p, mem[FOP], want);
            CHECK(mem[CAS] == want, "phase %d: compare_and_swap total %ld, want %ld", p, mem[CAS], want);
            CHECK(mem[RMW] == want_rmw, "phase %d: exclusive read-modify-write %ld, want %ld", p, mem[RMW], want_rmw);
        }
        MPI_Win_fence(0, win);
    }
    MPI_Win_free(&win);
    check_summary();
    MPI_Finalize();
    return 0;
}
