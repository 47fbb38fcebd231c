/* MPI_Put under every synchronization mode: each origin writes its own
 * slot in every target (itself included) with two puts, and each target
 * checks every slot. flush_local modes also overwrite the origin buffer
 * once locally complete: the target must still see the original data. */
#include "rma.h"

#define K 8
static int obuf[4][K];
static int round_;

static int val(int origin, int target, int i, int r) { return r * 100000 + origin * 1000 + target * 100 + i; }

static void reset(int r)
{
    round_ = r;
    for (int i = 0; i < np * K; i++)
        ((int *)wbase)[i] = -1;
    for (int t = 0; t < np; t++)
        for (int i = 0; i < K; i++)
            obuf[t][i] = val(me, t, i, r);
}

static void issue(int t)
{
    MPI_Put(obuf[t], K / 2, MPI_INT, t, me * K, K / 2, MPI_INT, win);
    MPI_Put(obuf[t] + K / 2, K / 2, MPI_INT, t, me * K + K / 2, K / 2, MPI_INT, win);
}

static void scribble(int t)
{
    for (int i = 0; i < K; i++)
        obuf[t][i] = -99;
}

static void verify(void)
{
    int want[K];
    for (int o = 0; o < np; o++) {
        for (int i = 0; i < K; i++)
            want[i] = val(o, me, i, round_);
        check_ints(((int *)wbase) + o * K, want, K, "put slot");
    }
}

int main(int argc, char **argv)
{
    rma_init(&argc, &argv);
    struct optest T = {.win_bytes = np * K * sizeof(int), .win_disp = sizeof(int), .reset = reset, .issue = issue, .scribble = scribble, .verify = verify};
    run_modes(&T, argc, argv);
    return rma_finish();
}
