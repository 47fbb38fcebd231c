/* MPI_Get_accumulate under every synchronization mode: SUM into one shared
 * counter (each origin adds its own bit, so every fetched value is a set of
 * other origins' bits), REPLACE and MAX into per-origin elements (exact old
 * values), MPI_NO_OP reads of a constant block, and a multi-element SUM. */
#include "rma.h"

#define K 5
enum { CNT = 0, REPL = 1, MAXS = 5, NOOP = 9, ARR = 16, WN = ARR + 4 * K };
static int round_;
static int o_bit[4], r_bit[4], o_rep[4], r_rep[4], o_max[4], r_max[4], r_noop[4][K];
static int o_arr[4][K], r_arr[4][K];

static int init_val(int j) { return j < NOOP ? 50 + j : 7000 + j; }

static void reset(int r)
{
    round_ = r;
    int *w = wbase;
    for (int j = 0; j < WN; j++)
        w[j] = init_val(j) + (j >= ARR ? r : 0);
    w[CNT] = 0;
    memset(r_bit, 0xff, sizeof(r_bit));
    memset(r_rep, 0xff, sizeof(r_rep));
    memset(r_max, 0xff, sizeof(r_max));
    memset(r_noop, 0xff, sizeof(r_noop));
    memset(r_arr, 0xff, sizeof(r_arr));
    for (int t = 0; t < np; t++) {
        o_bit[t] = 1 << me;
        o_rep[t] = r * 1000 + me * 10 + t;
        o_max[t] = 100 + me + t;
        for (int i = 0; i < K; i++)
            o_arr[t][i] = (me + 1) * (i + 1);
    }
}

static void issue(int t)
{
    MPI_Get_accumulate(&o_bit[t], 1, MPI_INT, &r_bit[t], 1, MPI_INT, t, CNT, 1, MPI_INT, MPI_SUM, win);
    MPI_Get_accumulate(&o_rep[t], 1, MPI_INT, &r_rep[t], 1, MPI_INT, t, REPL + me, 1, MPI_INT, MPI_REPLACE, win);
    MPI_Get_accumulate(&o_max[t], 1, MPI_INT, &r_max[t], 1, MPI_INT, t, MAXS + me, 1, MPI_INT, MPI_MAX, win);
    MPI_Get_accumulate(NULL, 0, MPI_INT, r_noop[t], K, MPI_INT, t, NOOP, K, MPI_INT, MPI_NO_OP, win);
    MPI_Get_accumulate(o_arr[t], K, MPI_INT, r_arr[t], K, MPI_INT, t, ARR + me * K, K, MPI_INT, MPI_SUM, win);
}

static void fetched(int t)
{
    int all = (1 << np) - 1;
    CHECKM((r_bit[t] & ~all) == 0 && (r_bit[t] & (1 << me)) == 0, "sum fetched %#x from %d", r_bit[t], t);
    CHECKM(r_rep[t] == init_val(REPL + me), "replace fetched %d from %d", r_rep[t], t);
    CHECKM(r_max[t] == init_val(MAXS + me), "max fetched %d from %d", r_max[t], t);
    int want[K];
    for (int i = 0; i < K; i++)
        want[i] = init_val(NOOP + i);
    check_ints(r_noop[t], want, K, "no_op fetch");
    for (int i = 0; i < K; i++)
        want[i] = init_val(ARR + me * K + i) + round_;
    check_ints(r_arr[t], want, K, "array sum fetch");
}

static void scribble(int t)
{
    o_bit[t] = o_rep[t] = o_max[t] = -3;
    for (int i = 0; i < K; i++)
        o_arr[t][i] = -3;
}

static void verify(void)
{
    int *w = wbase;
    CHECKM(w[CNT] == (1 << np) - 1, "counter %#x", w[CNT]);
    for (int o = 0; o < np; o++) {
        CHECKM(w[REPL + o] == round_ * 1000 + o * 10 + me, "replace by %d = %d", o, w[REPL + o]);
        CHECKM(w[MAXS + o] == 100 + o + me, "max by %d = %d", o, w[MAXS + o]);
        int want[K];
        for (int i = 0; i < K; i++)
            want[i] = init_val(ARR + o * K + i) + round_ + (o + 1) * (i + 1);
        check_ints(w + ARR + o * K, want, K, "array sum");
    }
    int want[K];
    for (int i = 0; i < K; i++)
        want[i] = init_val(NOOP + i);
    check_ints(w + NOOP, want, K, "no_op block unchanged");
}

int main(int argc, char **argv)
{
    rma_init(&argc, &argv);
    struct optest T = {.win_bytes = WN * sizeof(int), .win_disp = sizeof(int), .reset = reset,
                       .issue = issue, .fetched = fetched, .scribble = scribble, .verify = verify};
    run_modes(&T, argc, argv);
    return rma_finish();
}
