/* MPI_Get under every synchronization mode: each origin reads a block and a
 * single element from every target (itself included) and checks them; the
 * targets' windows must be left untouched. */
#include "rma.h"

#define K 8
#define WN (4 * K + 8)
static int gbuf[4][K + 1];
static int round_;

static int init_val(int target, int j, int r) { return r * 100000 + target * 1000 + j; }

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
    /* block at an origin-dependent offset, then one element at the end */
    MPI_Get(gbuf[t], K, MPI_INT, t, me * K + 3, K, MPI_INT, win);
    MPI_Get(&gbuf[t][K], 1, MPI_INT, t, WN - 1, 1, MPI_INT, win);
}

static void fetched(int t)
{
    int want[K + 1];
    for (int i = 0; i < K; i++)
        want[i] = init_val(t, me * K + 3 + i, round_);
    want[K] = init_val(t, WN - 1, round_);
    check_ints(gbuf[t], want, K + 1, "get from target");
}

static void verify(void)
{
    int want[WN];
    for (int j = 0; j < WN; j++)
        want[j] = init_val(me, j, round_);
    check_ints(wbase, want, WN, "window after gets");
}

int main(int argc, char **argv)
{
    rma_init(&argc, &argv);
    struct optest T = {.win_bytes = WN * sizeof(int), .win_disp = sizeof(int), .readonly = 1,
                       .reset = reset, .issue = issue, .fetched = fetched, .verify = verify};
    run_modes(&T, argc, argv);
    return rma_finish();
}
