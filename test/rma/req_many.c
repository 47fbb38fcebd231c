/* Many request-based operations in flight at once inside one lock_all
 * epoch: every rank issues Rput, Rget, Raccumulate and Rget_accumulate to
 * every target (several each, over distinct slots), completes them all
 * with one MPI_Waitall, then checks; a second batch is polled with
 * MPI_Testany/MPI_Testsome; then flush_all makes everything remote. */
#include "rma.h"

#define R 4 /* requests of each kind per target */
enum { PUTS = 0, ACCS = 4 * R, CONST = ACCS + R, WN = CONST + R };

int main(int argc, char **argv)
{
    rma_init(&argc, &argv);
    MPI_Win win;
    int *w = alloc_win(WN * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    self_lock(win, MPI_LOCK_EXCLUSIVE);
    for (int j = 0; j < WN; j++)
        w[j] = j < CONST ? 0 : 4000 + me * 10 + j;
    self_unlock(win);
    MPI_Barrier(MPI_COMM_WORLD);

    int nreq = 4 * R * np;
    MPI_Request *reqs = malloc(sizeof(MPI_Request) * nreq);
    int (*obuf)[R] = malloc(sizeof(int) * R * np), (*gets)[R] = malloc(sizeof(int) * R * np);
    int (*fetch)[R] = malloc(sizeof(int) * R * np), one = 1;
    MPI_Status *st = malloc(sizeof(MPI_Status) * nreq);
    int *idx = malloc(sizeof(int) * nreq);

    for (int batch = 0; batch < 2; batch++) {
        cur_mode = batch ? "testany/testsome" : "waitall";
        MPI_Win_lock_all(0, win);
        int n = 0;
        for (int t = 0; t < np; t++)
            for (int k = 0; k < R; k++) {
                obuf[t][k] = batch * 1000 + me * 100 + t * 10 + k;
                gets[t][k] = fetch[t][k] = -1;
                MPI_Rput(&obuf[t][k], 1, MPI_INT, t, PUTS + me * R + k, 1, MPI_INT, win, &reqs[n++]);
                MPI_Rget(&gets[t][k], 1, MPI_INT, t, CONST + k, 1, MPI_INT, win, &reqs[n++]);
                MPI_Raccumulate(&one, 1, MPI_INT, t, ACCS + k, 1, MPI_INT, MPI_SUM, win, &reqs[n++]);
                MPI_Rget_accumulate(NULL, 0, MPI_INT, &fetch[t][k], 1, MPI_INT, t, CONST + k, 1, MPI_INT,
                                    MPI_NO_OP, win, &reqs[n++]);
            }
        if (batch == 0) {
            MPI_Waitall(n, reqs, st);
        } else {
            int left = n, flag = 0, which, outc;
            while (left > 0) {
                MPI_Testany(n, reqs, &which, &flag, st);
                if (flag && which != MPI_UNDEFINED)
                    left--;
                MPI_Testsome(n, reqs, &outc, idx, st);
                if (outc != MPI_UNDEFINED)
                    left -= outc;
            }
        }
        for (int i = 0; i < n; i++)
            CHECKM(reqs[i] == MPI_REQUEST_NULL, "request %d still active", i);
        for (int t = 0; t < np; t++)
            for (int k = 0; k < R; k++) {
                CHECKM(gets[t][k] == 4000 + t * 10 + CONST + k, "rget %d/%d = %d", t, k, gets[t][k]);
                CHECKM(fetch[t][k] == 4000 + t * 10 + CONST + k, "rget_acc %d/%d = %d", t, k, fetch[t][k]);
            }
        MPI_Win_flush_all(win);
        MPI_Win_unlock_all(win);
        MPI_Barrier(MPI_COMM_WORLD);
        self_lock(win, MPI_LOCK_SHARED);
        for (int o = 0; o < np; o++)
            for (int k = 0; k < R; k++)
                CHECKM(w[PUTS + o * R + k] == batch * 1000 + o * 100 + me * 10 + k, "rput from %d/%d = %d", o, k,
                       w[PUTS + o * R + k]);
        for (int k = 0; k < R; k++)
            CHECKM(w[ACCS + k] == (batch + 1) * np, "raccumulate counter %d = %d", k, w[ACCS + k]);
        self_unlock(win);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    free(reqs); free(obuf); free(gets); free(fetch); free(st); free(idx);
    MPI_Win_free(&win);
    return rma_finish();
}
