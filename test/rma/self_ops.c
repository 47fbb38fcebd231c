/* Operations a rank aims at itself, with origin and result buffers inside
 * its own window memory: Put from one part of the window to another, Get
 * back, Accumulate, Get_accumulate, Fetch_and_op and Compare_and_swap, under
 * an exclusive self-lock, a shared self-lock with flush, lock_all with
 * flush_local, and fence. Local loads check every step. */
#include "rma.h"

#define K 8
enum { SRC = 0, DST = K, ACC = 2 * K, RES = 3 * K, CNT = 4 * K, WN = 4 * K + 4 };

int main(int argc, char **argv)
{
    rma_init(&argc, &argv);
    MPI_Win win;
    int *w = alloc_win(WN * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    const char *names[4] = {"lock_excl self", "lock_shared self + flush", "lockall + flush_local", "fence"};
    for (int m = 0; m < 4; m++) {
        cur_mode = names[m];
        self_lock(win, MPI_LOCK_EXCLUSIVE);
        for (int i = 0; i < WN; i++)
            w[i] = 0;
        for (int i = 0; i < K; i++) {
            w[SRC + i] = 100 * m + 10 * me + i;
            w[ACC + i] = i;
        }
        self_unlock(win);
        MPI_Barrier(MPI_COMM_WORLD);

        int one = 1, old = -1, cmpv = 0, newv = 42, swapped = -1;
        if (m == 0)
            MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, win);
        else if (m == 1)
            MPI_Win_lock(MPI_LOCK_SHARED, me, 0, win);
        else if (m == 2)
            MPI_Win_lock_all(0, win);
        else
            MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
        MPI_Put(w + SRC, K, MPI_INT, me, DST, K, MPI_INT, win);
        MPI_Accumulate(w + SRC, K, MPI_INT, me, ACC, K, MPI_INT, MPI_SUM, win);
        MPI_Fetch_and_op(&one, &old, MPI_INT, me, CNT, MPI_SUM, win);
        MPI_Compare_and_swap(&newv, &cmpv, &swapped, MPI_INT, me, CNT + 1, win);
        if (m == 0) {
            MPI_Win_unlock(me, win);
            MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, win);
        } else if (m == 1) {
            MPI_Win_flush(me, win);
        } else if (m == 2) {
            MPI_Win_flush_local(me, win); /* fetched values are local results */
            CHECKM(old == 0 && swapped == 0, "fetched %d, swapped-out %d", old, swapped);
            MPI_Win_flush(me, win);
        } else {
            MPI_Win_fence(0, win);
        }
        /* second round reads what the first wrote, into the window itself */
        MPI_Get(w + RES, K - 1, MPI_INT, me, DST, K - 1, MPI_INT, win);
        MPI_Get_accumulate(&one, 1, MPI_INT, w + RES + K - 1, 1, MPI_INT, me, CNT, 1, MPI_INT, MPI_SUM, win);
        if (m == 0 || m == 1)
            MPI_Win_unlock(me, win);
        else if (m == 2)
            MPI_Win_unlock_all(win);
        else
            MPI_Win_fence(MPI_MODE_NOSUCCEED, win);

        self_lock(win, MPI_LOCK_SHARED);
        int want[K];
        for (int i = 0; i < K; i++)
            want[i] = 100 * m + 10 * me + i;
        check_ints(w + DST, want, K, "self put");
        want[K - 1] = 1; /* overwritten by get_accumulate's result */
        check_ints(w + RES, want, K, "self get + get_acc result");
        for (int i = 0; i < K; i++)
            want[i] = i + 100 * m + 10 * me + i;
        check_ints(w + ACC, want, K, "self accumulate");
        CHECKM(w[CNT] == 2 && w[CNT + 1] == 42, "counter %d, swapped %d", w[CNT], w[CNT + 1]);
        CHECKM(old == 0 && swapped == 0, "fetched %d, swapped-out %d", old, swapped);
        self_unlock(win);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Win_free(&win);
    return rma_finish();
}
