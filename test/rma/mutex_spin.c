/* A spin lock built from MPI_Compare_and_swap on a lock word on rank 0,
 * inside one lock_all epoch: acquire by swapping 0 -> me+1 (retrying),
 * release by swapping me+1 -> 0. The critical section does Get/flush/Put on
 * a counter on the last rank; the total must be exact, and a release must
 * always find the lock word still holding the caller's id.
 * argv[1]: critical sections per rank (default 12). */
#include "rma.h"

int main(int argc, char **argv)
{
    rma_init(&argc, &argv);
    int iters = argc > 1 ? atoi(argv[1]) : 12;
    MPI_Win win;
    int *w = alloc_win(2 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    self_lock(win, MPI_LOCK_EXCLUSIVE);
    w[0] = w[1] = 0;
    self_unlock(win);
    MPI_Barrier(MPI_COMM_WORLD);

    int last = np - 1, id = me + 1, zero = 0;
    MPI_Win_lock_all(0, win);
    for (int i = 0; i < iters; i++) {
        cur_mode = "acquire";
        int old = -1;
        do {
            MPI_Compare_and_swap(&id, &zero, &old, MPI_INT, 0, 0, win);
            MPI_Win_flush(0, win);
        } while (old != 0);
        cur_mode = "critical section";
        int c;
        MPI_Get(&c, 1, MPI_INT, last, 1, 1, MPI_INT, win);
        MPI_Win_flush(last, win);
        c++;
        MPI_Put(&c, 1, MPI_INT, last, 1, 1, MPI_INT, win);
        MPI_Win_flush(last, win);
        cur_mode = "release";
        MPI_Compare_and_swap(&zero, &id, &old, MPI_INT, 0, 0, win);
        MPI_Win_flush(0, win);
        CHECK(old == id, "release found %d in the lock word, not %d", old, id);
    }
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    cur_mode = "check";
    if (me == last) {
        self_lock(win, MPI_LOCK_SHARED);
        CHECK(w[1] == iters * np, "counter %d want %d", w[1], iters * np);
        self_unlock(win);
    }
    if (me == 0) {
        self_lock(win, MPI_LOCK_SHARED);
        CHECK(w[0] == 0, "lock word %d at the end", w[0]);
        self_unlock(win);
    }
    MPI_Win_free(&win);
    return rma_finish();
}
