/* MPI_Raccumulate in every passive synchronization mode: SUM from every
 * origin into a shared block, REPLACE into per-origin elements, MAX into a
 * shared element. Origin buffers are overwritten as soon as the requests
 * complete; targets check the exact results. */
#include "rma.h"

#define K 4
enum { SUMB = 0, REPL = K, MAXE = K + 4, WN = K + 5 };
static int o_sum[4][K], o_rep[4], o_max[4];
static int round_;
static MPI_Request reqs[16];
static int nreq, pend[4], npend;

static void reset(int r)
{
    round_ = r;
    int *w = wbase;
    for (int j = 0; j < WN; j++)
        w[j] = r;
    w[MAXE] = -1000;
    for (int t = 0; t < np; t++) {
        for (int i = 0; i < K; i++)
            o_sum[t][i] = (me + 1) * 100 + i;
        o_rep[t] = r * 1000 + me * 10 + t;
        o_max[t] = me * 3 + t;
    }
}

static void issue(int t)
{
    MPI_Raccumulate(o_sum[t], K, MPI_INT, t, SUMB, K, MPI_INT, MPI_SUM, win, &reqs[nreq++]);
    MPI_Raccumulate(&o_rep[t], 1, MPI_INT, t, REPL + me, 1, MPI_INT, MPI_REPLACE, win, &reqs[nreq++]);
    MPI_Raccumulate(&o_max[t], 1, MPI_INT, t, MAXE, 1, MPI_INT, MPI_MAX, win, &reqs[nreq++]);
    pend[npend++] = t;
}

static void settle(void)
{
    complete_reqs(reqs, nreq);
    for (int p = 0; p < npend; p++) {
        int t = pend[p];
        for (int i = 0; i < K; i++)
            o_sum[t][i] = 1 << 20;
        o_rep[t] = o_max[t] = 1 << 20;
    }
    nreq = npend = 0;
}

static void verify(void)
{
    int *w = wbase, want[K];
    for (int i = 0; i < K; i++) {
        want[i] = round_;
        for (int o = 0; o < np; o++)
            want[i] += (o + 1) * 100 + i;
    }
    check_ints(w + SUMB, want, K, "raccumulate sum");
    for (int o = 0; o < np; o++)
        CHECKM(w[REPL + o] == round_ * 1000 + o * 10 + me, "replace by %d = %d", o, w[REPL + o]);
    CHECKM(w[MAXE] == (np - 1) * 3 + me, "max = %d", w[MAXE]);
}

int main(int argc, char **argv)
{
    rma_init(&argc, &argv);
    struct optest T = {.win_bytes = WN * sizeof(int), .win_disp = sizeof(int), .passive_only = 1,
                       .reset = reset, .issue = issue, .settle = settle, .verify = verify};
    run_modes(&T, argc, argv);
    return rma_finish();
}
