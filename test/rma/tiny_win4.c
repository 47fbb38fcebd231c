/* A 4-byte window on every rank: MPI_Win_allocate packs such windows side
 * by side, so most bases are 4, 8 or 12 bytes off a 16-byte boundary. On
 * MPICH 4.0.2, intranode RMA to such a base lands on the base rounded down
 * to 16 bytes (CAS compares the wrong word), which this program detects;
 * MPIR_CVAR_NOLOCAL=1 hides it, and Ghost must make it right. Phases, each
 * checked by the owner's loads and by a remote Get: Put from the left
 * neighbour, Accumulate SUM from everyone, Fetch_and_op from everyone
 * (fetched values distinct), Compare_and_swap race (one winner), and
 * Get_accumulate REPLACE from the right neighbour. */
#include "rma.h"

static MPI_Win win;
static int *w;

static void set_own(int v)
{
    self_lock(win, MPI_LOCK_EXCLUSIVE);
    *w = v;
    self_unlock(win);
    MPI_Barrier(MPI_COMM_WORLD);
}

/* the owner's load and the left neighbour's Get must both see want */
static void expect_all(int want, const char *what)
{
    MPI_Barrier(MPI_COMM_WORLD);
    self_lock(win, MPI_LOCK_SHARED);
    int mine = *w;
    self_unlock(win);
    CHECK(mine == want, "%s: rank %d's own 4 bytes hold %d, want %d", what, me, mine, want);
    int right = (me + 1) % np, got = -1;
    MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win);
    MPI_Get(&got, 1, MPI_INT, right, 0, 1, MPI_INT, win);
    MPI_Win_unlock(right, win);
    CHECK(got == want, "%s: Get from rank %d returned %d, want %d", what, right, got, want);
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    rma_init(&argc, &argv);
    MPI_Win_allocate(4, 4, MPI_INFO_NULL, MPI_COMM_WORLD, &w, &win);
    int right = (me + 1) % np, left = (me + np - 1) % np;
    if (me == 0)
        printf("rank 0 base %% 16 = %d\n", (int)((uintptr_t)w % 16));

    cur_mode = "put";
    set_own(-1);
    int v = 1000 + me;
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win);
    MPI_Put(&v, 1, MPI_INT, right, 0, 1, MPI_INT, win);
    MPI_Win_unlock(right, win);
    MPI_Barrier(MPI_COMM_WORLD);
    self_lock(win, MPI_LOCK_SHARED);
    CHECK(*w == 1000 + left, "put: rank %d holds %d, want %d", me, *w, 1000 + left);
    self_unlock(win);
    MPI_Barrier(MPI_COMM_WORLD);

    cur_mode = "accumulate";
    set_own(0);
    int add = me + 1;
    MPI_Win_lock_all(0, win);
    for (int t = 0; t < np; t++)
        MPI_Accumulate(&add, 1, MPI_INT, t, 0, 1, MPI_INT, MPI_SUM, win);
    MPI_Win_unlock_all(win);
    expect_all(np * (np + 1) / 2, "accumulate");

    cur_mode = "fetch_and_op";
    set_own(100);
    int one = 1, fetched[4];
    MPI_Win_lock_all(0, win);
    for (int t = 0; t < np; t++) {
        MPI_Fetch_and_op(&one, &fetched[t], MPI_INT, t, 0, MPI_SUM, win);
        MPI_Win_flush(t, win);
        CHECK(fetched[t] >= 100 && fetched[t] < 100 + np, "fetch_and_op from %d returned %d", t, fetched[t]);
    }
    MPI_Win_unlock_all(win);
    expect_all(100 + np, "fetch_and_op");

    cur_mode = "compare_and_swap";
    set_own(-5);
    int cmpv = -5, newv = me, old[4];
    MPI_Win_lock_all(0, win);
    for (int t = 0; t < np; t++)
        MPI_Compare_and_swap(&newv, &cmpv, &old[t], MPI_INT, t, 0, win);
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    int *all = malloc(sizeof(int) * np * np);
    MPI_Allgather(old, np, MPI_INT, all, np, MPI_INT, MPI_COMM_WORLD);
    int winners = 0, winner = -1;
    for (int o = 0; o < np; o++)
        if (all[o * np + me] == -5) {
            winners++;
            winner = o;
        }
    CHECK(winners == 1, "compare_and_swap on rank %d: %d winners", me, winners);
    self_lock(win, MPI_LOCK_SHARED);
    CHECK(*w == winner, "compare_and_swap: rank %d holds %d, winner %d", me, *w, winner);
    self_unlock(win);
    free(all);
    MPI_Barrier(MPI_COMM_WORLD);

    cur_mode = "get_accumulate";
    set_own(2000 + me);
    int nv = 3000 + me, prev = -1;
    MPI_Win_lock(MPI_LOCK_SHARED, left, 0, win);
    MPI_Get_accumulate(&nv, 1, MPI_INT, &prev, 1, MPI_INT, left, 0, 1, MPI_INT, MPI_REPLACE, win);
    MPI_Win_unlock(left, win);
    CHECK(prev == 2000 + left, "get_accumulate from %d returned %d", left, prev);
    MPI_Barrier(MPI_COMM_WORLD);
    self_lock(win, MPI_LOCK_SHARED);
    CHECK(*w == 3000 + right, "get_accumulate: rank %d holds %d", me, *w);
    self_unlock(win);

    MPI_Win_free(&win);
    return rma_finish();
}
