/* MPI_Compare_and_swap under every synchronization mode: a successful swap
 * on a per-origin element (old value exact), a failing one (no change),
 * and a race on one shared element where exactly one origin per target
 * wins and every loser sees the winner's value. */
#include "rma.h"

enum { MINE = 0, MISS = 4, RACE = 8, WN = 9 };
static int round_;
static int o_new[4], cmp[4], r_mine[4], o_miss[4], cmp_miss[4], r_miss[4], o_race[4], cmp_race[4], r_race[4];

static int init_val(int j) { return 300 + j; }

static void reset(int r)
{
    round_ = r;
    int *w = wbase;
    for (int j = 0; j < WN; j++)
        w[j] = init_val(j);
    w[RACE] = 0;
    for (int t = 0; t < np; t++) {
        o_new[t] = r * 1000 + me * 10 + t;
        cmp[t] = init_val(MINE + me);
        o_miss[t] = 99;
        cmp_miss[t] = init_val(MISS + me) + 1; /* never matches */
        o_race[t] = me + 1;
        cmp_race[t] = 0;
        r_mine[t] = r_miss[t] = r_race[t] = -1;
    }
}

static void issue(int t)
{
    MPI_Compare_and_swap(&o_new[t], &cmp[t], &r_mine[t], MPI_INT, t, MINE + me, win);
    MPI_Compare_and_swap(&o_miss[t], &cmp_miss[t], &r_miss[t], MPI_INT, t, MISS + me, win);
    MPI_Compare_and_swap(&o_race[t], &cmp_race[t], &r_race[t], MPI_INT, t, RACE, win);
}

static void fetched(int t)
{
    CHECKM(r_mine[t] == init_val(MINE + me), "cas fetched %d from %d", r_mine[t], t);
    CHECKM(r_miss[t] == init_val(MISS + me), "failed cas fetched %d from %d", r_miss[t], t);
    CHECKM(r_race[t] >= 0 && r_race[t] <= np && r_race[t] != me + 1, "race fetched %d from %d", r_race[t], t);
}

static void scribble(int t) { o_new[t] = cmp[t] = o_miss[t] = cmp_miss[t] = o_race[t] = cmp_race[t] = -8; }

static void verify(void)
{
    int *w = wbase;
    for (int o = 0; o < np; o++) {
        CHECKM(w[MINE + o] == round_ * 1000 + o * 10 + me, "swapped by %d = %d", o, w[MINE + o]);
        CHECKM(w[MISS + o] == init_val(MISS + o), "failed swap changed %d", w[MISS + o]);
    }
}

/* everyone learns what everyone fetched in the race: per target, exactly
 * one origin saw 0, and the target holds that origin's value; the others
 * saw it too */
static void post(void)
{
    int *all = malloc(sizeof(int) * np * np), w_race = ((int *)wbase)[RACE], *wall = malloc(sizeof(int) * np);
    MPI_Allgather(r_race, np, MPI_INT, all, np, MPI_INT, MPI_COMM_WORLD);
    MPI_Allgather(&w_race, 1, MPI_INT, wall, 1, MPI_INT, MPI_COMM_WORLD);
    for (int t = 0; t < np; t++) {
        int winners = 0, winner = -1;
        for (int o = 0; o < np; o++)
            if (all[o * np + t] == 0) {
                winners++;
                winner = o;
            }
        CHECKM(winners == 1, "target %d: %d winners", t, winners);
        CHECKM(wall[t] == winner + 1, "target %d holds %d, winner %d", t, wall[t], winner);
        for (int o = 0; o < np; o++)
            if (o != winner)
                CHECKM(all[o * np + t] == winner + 1, "origin %d saw %d at %d", o, all[o * np + t], t);
    }
    free(all);
    free(wall);
}

int main(int argc, char **argv)
{
    rma_init(&argc, &argv);
    struct optest T = {.win_bytes = WN * sizeof(int), .win_disp = sizeof(int), .reset = reset, .issue = issue,
                       .fetched = fetched, .scribble = scribble, .verify = verify, .post = post};
    run_modes(&T, argc, argv);
    return rma_finish();
}
