/* MPI_Fetch_and_op on 64-bit integers under every synchronization mode:
 * SUM into a shared counter (each origin adds its bit), REPLACE, MIN and
 * BXOR into per-origin elements (exact old values), and MPI_NO_OP reads. */
#include "rma.h"

enum { CNT = 0, REPL = 1, MINS = 5, XORS = 9, NOOP = 13, WN = 14 };
static int round_;
static long long o_bit[4], r_bit[4], o_rep[4], r_rep[4], o_min[4], r_min[4], o_xor[4], r_xor[4], r_noop[4];

static long long init_val(int j) { return 1000000000000LL + 1000 * j; }

static void reset(int r)
{
    round_ = r;
    long long *w = wbase;
    for (int j = 0; j < WN; j++)
        w[j] = init_val(j);
    w[CNT] = 0;
    for (int t = 0; t < np; t++) {
        o_bit[t] = 1LL << (40 + me);
        o_rep[t] = -(long long)(r * 1000 + me * 10 + t);
        o_min[t] = 10 + me + t;
        o_xor[t] = 0xff00ff00ff00LL + t;
        r_bit[t] = r_rep[t] = r_min[t] = r_xor[t] = r_noop[t] = -1;
    }
}

static void issue(int t)
{
    MPI_Fetch_and_op(&o_bit[t], &r_bit[t], MPI_LONG_LONG, t, CNT, MPI_SUM, win);
    MPI_Fetch_and_op(&o_rep[t], &r_rep[t], MPI_LONG_LONG, t, REPL + me, MPI_REPLACE, win);
    MPI_Fetch_and_op(&o_min[t], &r_min[t], MPI_INT64_T, t, MINS + me, MPI_MIN, win);
    MPI_Fetch_and_op(&o_xor[t], &r_xor[t], MPI_LONG_LONG, t, XORS + me, MPI_BXOR, win);
    MPI_Fetch_and_op(NULL, &r_noop[t], MPI_LONG_LONG, t, NOOP, MPI_NO_OP, win);
}

static void fetched(int t)
{
    long long all = ((1LL << np) - 1) << 40;
    CHECKM((r_bit[t] & ~all) == 0 && (r_bit[t] & (1LL << (40 + me))) == 0, "sum fetched %#llx from %d", r_bit[t], t);
    CHECKM(r_rep[t] == init_val(REPL + me), "replace fetched %lld from %d", r_rep[t], t);
    CHECKM(r_min[t] == init_val(MINS + me), "min fetched %lld from %d", r_min[t], t);
    CHECKM(r_xor[t] == init_val(XORS + me), "bxor fetched %lld from %d", r_xor[t], t);
    CHECKM(r_noop[t] == init_val(NOOP), "no_op fetched %lld from %d", r_noop[t], t);
}

static void scribble(int t) { o_bit[t] = o_rep[t] = o_min[t] = o_xor[t] = 0; }

static void verify(void)
{
    long long *w = wbase;
    CHECKM(w[CNT] == ((1LL << np) - 1) << 40, "counter %#llx", w[CNT]);
    for (int o = 0; o < np; o++) {
        CHECKM(w[REPL + o] == -(long long)(round_ * 1000 + o * 10 + me), "replace by %d = %lld", o, w[REPL + o]);
        CHECKM(w[MINS + o] == 10 + o + me, "min by %d = %lld", o, w[MINS + o]);
        CHECKM(w[XORS + o] == (init_val(XORS + o) ^ (0xff00ff00ff00LL + me)), "bxor by %d = %lld", o, w[XORS + o]);
    }
    CHECKM(w[NOOP] == init_val(NOOP), "no_op element %lld", w[NOOP]);
}

int main(int argc, char **argv)
{
    rma_init(&argc, &argv);
    struct optest T = {.win_bytes = WN * sizeof(long long), .win_disp = sizeof(long long), .reset = reset,
                       .issue = issue, .fetched = fetched, .scribble = scribble, .verify = verify};
    run_modes(&T, argc, argv);
    return rma_finish();
}
