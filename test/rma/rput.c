/* MPI_Rput in every passive synchronization mode. Requests are completed
 * with Wait, Waitall, Test, Testall, Waitany or Waitsome in turn; as soon as
 * a request completes (local completion) the origin buffer is overwritten,
 * before the flush or unlock: targets must still see the original data. */
#include "rma.h"

#define K 16
static int obuf[4][K];
static int round_;
static MPI_Request reqs[16];
static int nreq, pend[4], npend;

static int val(int o, int t, int i, int r) { return r * 100000 + o * 1000 + t * 100 + i; }

static void reset(int r)
{
    round_ = r;
    int *w = wbase;
    for (int i = 0; i < np * K; i++)
        w[i] = -1;
    for (int t = 0; t < np; t++)
        for (int i = 0; i < K; i++)
            obuf[t][i] = val(me, t, i, r);
}

static void issue(int t)
{
    /* three requests per target: 1, K/2-1 and K/2 elements */
    MPI_Rput(obuf[t], 1, MPI_INT, t, me * K, 1, MPI_INT, win, &reqs[nreq++]);
    MPI_Rput(obuf[t] + 1, K / 2 - 1, MPI_INT, t, me * K + 1, K / 2 - 1, MPI_INT, win, &reqs[nreq++]);
    MPI_Rput(obuf[t] + K / 2, K / 2, MPI_INT, t, me * K + K / 2, K / 2, MPI_INT, win, &reqs[nreq++]);
    pend[npend++] = t;
}

static void settle(void)
{
    complete_reqs(reqs, nreq);
    for (int p = 0; p < npend; p++)
        for (int i = 0; i < K; i++)
            obuf[pend[p]][i] = -42;
    nreq = npend = 0;
}

static void verify(void)
{
    int want[K];
    for (int o = 0; o < np; o++) {
        for (int i = 0; i < K; i++)
            want[i] = val(o, me, i, round_);
        check_ints((int *)wbase + o * K, want, K, "rput slot");
    }
}

int main(int argc, char **argv)
{
    rma_init(&argc, &argv);
    struct optest T = {.win_bytes = np * K * sizeof(int), .win_disp = sizeof(int), .passive_only = 1,
                       .reset = reset, .issue = issue, .settle = settle, .verify = verify};
    run_modes(&T, argc, argv);
    return rma_finish();
}
