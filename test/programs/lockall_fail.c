/* MPI_Win_lock_all failing part way (run with GHOST_TEST_FAULT=
 * lock_all_word:K, which makes each process's first lock_all fail at target
 * K after it took the lock words of targets 0 to K-1). Under
 * MPI_ERRORS_RETURN on the window:
 *  1. every rank's lock_all returns an error, and the epoch is not open
 *     (a second lock_all is not refused as nested, an operation is refused);
 *  2. no lock word is left taken: every rank then takes an exclusive lock
 *     on every target in turn and adds 1 there, all at once; a word left
 *     with a reader would make that wait for ever, so SIGALRM ends a rank
 *     that waits 30 s;
 *  3. lock_all then works, and every target holds exactly one add from
 *     every rank. */
#include "check.h"

#include <unistd.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    int *base;
    MPI_Win win;
    MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    *base = 0;
    MPI_Barrier(MPI_COMM_WORLD);

    int rc = MPI_Win_lock_all(0, win), class = MPI_SUCCESS;
    MPI_Error_class(rc, &class);
    CHECK(class == MPI_ERR_OTHER, "the first lock_all returned class %d", class);
    const int one = 1;
    if (rc == MPI_SUCCESS) {
        MPI_Win_unlock_all(win);
    } else {
        rc = MPI_Put(&one, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
        MPI_Error_class(rc, &class);
        CHECK(class == MPI_ERR_RMA_SYNC, "a put after the failed lock_all returned class %d", class);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    alarm(30);
    for (int i = 0; i < n; i++) {
        int t = (me + i) % n;
        rc = MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win);
        CHECK(rc == MPI_SUCCESS, "exclusive lock on %d: %d", t, rc);
        MPI_Accumulate(&one, 1, MPI_INT, t, 0, 1, MPI_INT, MPI_SUM, win);
        MPI_Win_unlock(t, win);
    }
    alarm(0);
    MPI_Barrier(MPI_COMM_WORLD);

    rc = MPI_Win_lock_all(0, win);
    CHECK(rc == MPI_SUCCESS, "the second lock_all returned %d", rc);
    for (int t = 0; t < n && rc == MPI_SUCCESS; t++) {
        int got = -1;
        MPI_Get(&got, 1, MPI_INT, t, 0, 1, MPI_INT, win);
        MPI_Win_flush(t, win);
        CHECK(got == n, "target %d holds %d, want %d", t, got, n);
    }
    if (rc == MPI_SUCCESS)
        MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
    check_summary();
    MPI_Finalize();
    return 0;
}
