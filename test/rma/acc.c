/* MPI_Accumulate under every synchronization mode, with SUM, PROD, MAX, MIN,
 * BAND, BOR, BXOR (every origin into one shared element per op) and
 * REPLACE (one element per origin), plus a multi-element SUM. Each target
 * checks the exact combined result. */
#include "rma.h"

#define K 6
enum { S_SUM, S_PROD, S_MAX, S_MIN, S_BAND, S_BOR, S_BXOR, NSH };
#define REP 8          /* REPLACE slots, one per origin */
#define ARR (REP + 4)  /* K-element SUM array */
#define WN (ARR + K)
static const MPI_Op ops[NSH] = {MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN, MPI_BAND, MPI_BOR, MPI_BXOR};
static const int init[NSH] = {0, 1, -100, 100, 0x7fff, 0, 0x5a};
static int round_;
static int contrib[4][NSH], rep[4], arr[4][K];

static int contribution(int op, int o, int t)
{
    switch (op) {
    case S_SUM: return (o + 1) * 10 + t;
    case S_PROD: return o + 2;
    case S_MAX: return o * 7 - t;
    case S_MIN: return -o * 3 + t;
    case S_BAND: return ~(1 << o);
    case S_BOR: return 1 << (o + 4);
    default: return (o + 1) * 0x11 + t;
    }
}
static int combine(int op, int a, int b)
{
    switch (op) {
    case S_SUM: return a + b;
    case S_PROD: return a * b;
    case S_MAX: return a > b ? a : b;
    case S_MIN: return a < b ? a : b;
    case S_BAND: return a & b;
    case S_BOR: return a | b;
    default: return a ^ b;
    }
}

static void reset(int r)
{
    round_ = r;
    int *w = wbase;
    for (int j = 0; j < WN; j++)
        w[j] = -1;
    for (int op = 0; op < NSH; op++)
        w[op] = init[op];
    for (int i = 0; i < K; i++)
        w[ARR + i] = 1000 * r;
    for (int t = 0; t < np; t++) {
        for (int op = 0; op < NSH; op++)
            contrib[t][op] = contribution(op, me, t);
        rep[t] = r * 1000 + me * 10 + t;
        for (int i = 0; i < K; i++)
            arr[t][i] = me * 100 + i + t;
    }
}

static void issue(int t)
{
    for (int op = 0; op < NSH; op++)
        MPI_Accumulate(&contrib[t][op], 1, MPI_INT, t, op, 1, MPI_INT, ops[op], win);
    MPI_Accumulate(&rep[t], 1, MPI_INT, t, REP + me, 1, MPI_INT, MPI_REPLACE, win);
    MPI_Accumulate(arr[t], K, MPI_INT, t, ARR, K, MPI_INT, MPI_SUM, win);
}

static void scribble(int t)
{
    for (int op = 0; op < NSH; op++)
        contrib[t][op] = 0x3333;
    rep[t] = -5;
    for (int i = 0; i < K; i++)
        arr[t][i] = 77777;
}

static void verify(void)
{
    int *w = wbase;
    static const char *names[NSH] = {"SUM", "PROD", "MAX", "MIN", "BAND", "BOR", "BXOR"};
    for (int op = 0; op < NSH; op++) {
        int want = init[op];
        for (int o = 0; o < np; o++)
            want = combine(op, want, contribution(op, o, me));
        CHECKM(w[op] == want, "acc %s = %d want %d", names[op], w[op], want);
    }
    int want[K];
    for (int o = 0; o < np; o++)
        CHECKM(w[REP + o] == round_ * 1000 + o * 10 + me, "replace from %d = %d", o, w[REP + o]);
    for (int i = 0; i < K; i++) {
        want[i] = 1000 * round_;
        for (int o = 0; o < np; o++)
            want[i] += o * 100 + i + me;
    }
    check_ints(w + ARR, want, K, "sum array");
}

int main(int argc, char **argv)
{
    rma_init(&argc, &argv);
    struct optest T = {.win_bytes = WN * sizeof(int), .win_disp = sizeof(int), .reset = reset,
                       .issue = issue, .scribble = scribble, .verify = verify};
    run_modes(&T, argc, argv);
    return rma_finish();
}
