/* MPI_Rget_accumulate in every passive synchronization mode: SUM of a bit
 * per origin into one shared element, REPLACE on per-origin elements (old
 * value exact), and MPI_NO_OP reads of a constant block. Fetched values
 * are checked as soon as each request completes. */
#include "rma.h"

#define K 6
enum { CNT = 0, REPL = 1, NOOP = 5, WN = NOOP + K };
static int o_bit[4], r_bit[4], o_rep[4], r_rep[4], r_noop[4][K];
static int round_;
static MPI_Request reqs[16];
static int nreq, pend[4], npend;

static int init_val(int j) { return 900 + j; }

static void reset(int r)
{
    round_ = r;
    int *w = wbase;
    for (int j = 0; j < WN; j++)
        w[j] = init_val(j);
    w[CNT] = 0;
    for (int t = 0; t < np; t++) {
        o_bit[t] = 1 << me;
        o_rep[t] = r * 1000 + me * 10 + t;
        r_bit[t] = r_rep[t] = -1;
    }
    memset(r_noop, 0xff, sizeof(r_noop));
}

static void issue(int t)
{
    MPI_Rget_accumulate(&o_bit[t], 1, MPI_INT, &r_bit[t], 1, MPI_INT, t, CNT, 1, MPI_INT, MPI_SUM, win, &reqs[nreq++]);
    MPI_Rget_accumulate(&o_rep[t], 1, MPI_INT, &r_rep[t], 1, MPI_INT, t, REPL + me, 1, MPI_INT, MPI_REPLACE, win, &reqs[nreq++]);
    MPI_Rget_accumulate(NULL, 0, MPI_INT, r_noop[t], K, MPI_INT, t, NOOP, K, MPI_INT, MPI_NO_OP, win, &reqs[nreq++]);
    pend[npend++] = t;
}

static void settle(void)
{
    complete_reqs(reqs, nreq);
    int all = (1 << np) - 1, want[K];
    for (int i = 0; i < K; i++)
        want[i] = init_val(NOOP + i);
    for (int p = 0; p < npend; p++) {
        int t = pend[p];
        CHECKM((r_bit[t] & ~all) == 0 && (r_bit[t] & (1 << me)) == 0, "sum fetched %#x from %d", r_bit[t], t);
        CHECKM(r_rep[t] == init_val(REPL + me), "replace fetched %d from %d", r_rep[t], t);
        check_ints(r_noop[t], want, K, "no_op fetched");
        o_bit[t] = o_rep[t] = 1 << 24;
    }
    nreq = npend = 0;
}

static void verify(void)
{
    int *w = wbase;
    CHECKM(w[CNT] == (1 << np) - 1, "counter %#x", w[CNT]);
    for (int o = 0; o < np; o++)
        CHECKM(w[REPL + o] == round_ * 1000 + o * 10 + me, "replace by %d = %d", o, w[REPL + o]);
    int want[K];
    for (int i = 0; i < K; i++)
        want[i] = init_val(NOOP + i);
    check_ints(w + NOOP, want, K, "no_op block unchanged");
}

int main(int argc, char **argv)
{
    rma_init(&argc, &argv);
    struct optest T = {.win_bytes = WN * sizeof(int), .win_disp = sizeof(int), .passive_only = 1,
                       .reset = reset, .issue = issue, .settle = settle, .verify = verify};
    run_modes(&T, argc, argv);
    return rma_finish();
}
