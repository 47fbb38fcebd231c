/* MPI_Rget in every passive synchronization mode: the data must be in the
 * origin buffer as soon as the request completes, before any flush or
 * unlock. Requests are completed with a different MPI call each time. */
#include "rma.h"

#define K 12
#define WN (4 * K + 4)
static int gbuf[4][K + 1];
static int round_;
static MPI_Request reqs[16];
static int nreq, pend[4], npend;

static int init_val(int t, int j, int r) { return r * 100000 + t * 1000 + j; }

static void reset(int r)
{
    round_ = r;
    int *w = wbase;
    for (int j = 0; j < WN; j++)
        w[j] = init_val(me, j, r);
    memset(gbuf, 0xff, sizeof(gbuf));
}

static void issue(int t)
{
    MPI_Rget(gbuf[t], K, MPI_INT, t, me * K + 2, K, MPI_INT, win, &reqs[nreq++]);
    MPI_Rget(&gbuf[t][K], 1, MPI_INT, t, 0, 1, MPI_INT, win, &reqs[nreq++]);
    pend[npend++] = t;
}

static void settle(void)
{
    complete_reqs(reqs, nreq);
    for (int p = 0; p < npend; p++) {
        int t = pend[p], want[K + 1];
        for (int i = 0; i < K; i++)
            want[i] = init_val(t, me * K + 2 + i, round_);
        want[K] = init_val(t, 0, round_);
        check_ints(gbuf[t], want, K + 1, "rget data at request completion");
    }
    nreq = npend = 0;
}

static void verify(void)
{
    int want[WN];
    for (int j = 0; j < WN; j++)
        want[j] = init_val(me, j, round_);
    check_ints(wbase, want, WN, "window after rgets");
}

int main(int argc, char **argv)
{
    rma_init(&argc, &argv);
    struct optest T = {.win_bytes = WN * sizeof(int), .win_disp = sizeof(int), .readonly = 1, .passive_only = 1,
                       .reset = reset, .issue = issue, .settle = settle, .verify = verify};
    run_modes(&T, argc, argv);
    return rma_finish();
}
