/*
 * Window records through allocate/free cycles (test/registry_test.go).
 * Ghost keeps one registry of windows, the C window table; Go's record of
 * a redirected window hangs off its table entry. This program makes the
 * handles and the table churn and checks that every window keeps reaching
 * its own memory and that every free succeeds:
 *
 *  - argv[1] cycles (default 12); in each, windows over MPI_COMM_WORLD and
 *    over the rank's parity half are allocated interleaved, of sizes that
 *    differ per window, cycle and rank; every third cycle one window is
 *    larger than a user's part of the node arena (argv[2] MiB, default
 *    1100), so that it gets internal objects of its own beside pooled ones;
 *  - one world window of each cycle stays alive into the next, so freed
 *    handles are reused while older windows still live in the table;
 *  - each rank puts a value that names the window, cycle and rank into its
 *    right neighbour on every window (lock_all on world windows, fence on
 *    half windows) and checks what its left neighbour put;
 *  - the two halves free their half windows in opposite orders, the even
 *    half before the world windows and the odd half after them, and the
 *    world windows go in an order that changes per cycle.
 */
#include "check.h"

#include <stdlib.h>

enum { PER = 4 }; /* windows per communicator and cycle */

static int me, np;

static long tag_of(int cycle, int kind, int i, int rank) { return 100000L * cycle + 1000L * kind + 10L * i + rank; }

/* Puts tag_of(.., me) into word 1 of the right neighbour in comm, and checks
 * word 1 of its own segment: the left neighbour's tag. kind 0 uses a
 * lock_all epoch, kind 1 fences. */
static void exercise(MPI_Win win, long *base, MPI_Comm comm, int cycle, int kind, int i)
{
    int r, n;
    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &n);
    int right = (r + 1) % n, left = (r + n - 1) % n;
    long put = tag_of(cycle, kind, i, r);
    int rc;
    if (kind == 0) {
        MPI_Win_lock_all(0, win);
        rc = MPI_Put(&put, 1, MPI_LONG, right, 1, 1, MPI_LONG, win);
        MPI_Win_unlock_all(win);
        MPI_Barrier(comm);
        MPI_Win_lock(MPI_LOCK_SHARED, r, 0, win);
    } else {
        MPI_Win_fence(0, win);
        rc = MPI_Put(&put, 1, MPI_LONG, right, 1, 1, MPI_LONG, win);
        MPI_Win_fence(0, win);
    }
    CHECK(rc == MPI_SUCCESS, "cycle %d kind %d window %d: put: error %d", cycle, kind, i, rc);
    long got = base[1], own = base[0];
    if (kind == 0)
        MPI_Win_unlock(r, win);
    CHECK(got == tag_of(cycle, kind, i, left), "cycle %d kind %d window %d: word 1 is %ld, want %ld", cycle, kind,
          i, got, tag_of(cycle, kind, i, left));
    CHECK(own == tag_of(cycle, kind, i, r) + 7, "cycle %d kind %d window %d: own word 0 is %ld, want %ld", cycle,
          kind, i, own, tag_of(cycle, kind, i, r) + 7);
}

static void free_checked(MPI_Win *win, int cycle, int kind, int i)
{
    int rc = MPI_Win_free(win);
    CHECK(rc == MPI_SUCCESS, "cycle %d kind %d window %d: MPI_Win_free: error %d", cycle, kind, i, rc);
    CHECK(*win == MPI_WIN_NULL, "cycle %d kind %d window %d: MPI_Win_free left a handle", cycle, kind, i);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int cycles = argc > 1 ? atoi(argv[1]) : 12;
    MPI_Aint big = (MPI_Aint)(argc > 2 ? atoi(argv[2]) : 1100) << 20;
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &half);
    int hr;
    MPI_Comm_rank(half, &hr);

    MPI_Win kept = MPI_WIN_NULL; /* a world window of the last cycle */
    long *kept_base = NULL;
    int kept_cycle = -1;
    for (int c = 0; c < cycles; c++) {
        MPI_Win win[2][PER];
        long *base[2][PER];
        MPI_Comm comm[2] = {MPI_COMM_WORLD, half};
        int rank[2] = {me, hr};
        for (int i = 0; i < PER; i++)
            for (int k = 0; k < 2; k++) {
                MPI_Aint size = 64 + 8 * ((c * 5 + i * 3 + k + me) % 16);
                if (k == 0 && i == 1 && c % 3 == 2)
                    size = big;
                int rc = MPI_Win_allocate(size, sizeof(long), MPI_INFO_NULL, comm[k], &base[k][i], &win[k][i]);
                CHECK(rc == MPI_SUCCESS, "cycle %d kind %d window %d of %ld bytes: error %d", c, k, i, (long)size, rc);
                if (rc != MPI_SUCCESS)
                    MPI_Abort(MPI_COMM_WORLD, 1);
                MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank[k], 0, win[k][i]);
                base[k][i][0] = tag_of(c, k, i, rank[k]) + 7;
                base[k][i][1] = -1;
                MPI_Win_unlock(rank[k], win[k][i]);
            }
        MPI_Barrier(MPI_COMM_WORLD);
        for (int i = 0; i < PER; i++)
            for (int k = 0; k < 2; k++)
                exercise(win[k][i], base[k][i], comm[k], c, k, i);
        /* The window kept from the last cycle still reaches its memory. */
        if (kept != MPI_WIN_NULL) {
            exercise(kept, kept_base, MPI_COMM_WORLD, kept_cycle, 0, PER - 1);
            free_checked(&kept, kept_cycle, 0, PER - 1);
        }

        if (me % 2 == 0)
            for (int i = 0; i < PER; i++)
                free_checked(&win[1][i], c, 1, i);
        /* World windows: a rotation that changes per cycle; the last
         * window in creation order stays for the next cycle. */
        for (int j = 0; j < PER - 1; j++) {
            int i = (j + c) % (PER - 1);
            free_checked(&win[0][i], c, 0, i);
        }
        if (me % 2 == 1)
            for (int i = PER - 1; i >= 0; i--)
                free_checked(&win[1][i], c, 1, i);
        kept = win[0][PER - 1];
        kept_base = base[0][PER - 1];
        kept_cycle = c;
        /* The kept window's own word 1 is rewritten in the next cycle. */
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, kept);
        kept_base[1] = -1;
        MPI_Win_unlock(me, kept);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    if (kept != MPI_WIN_NULL)
        free_checked(&kept, kept_cycle, 0, PER - 1);
    MPI_Comm_free(&half);
    check_summary();
    MPI_Finalize();
    return 0;
}
