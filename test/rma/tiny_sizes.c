/* Tiny windows of 1, 8 and 12 bytes on every rank, and mixed sizes (rank r
 * gets 4, 12, 1 or 8 bytes): packed side by side by MPI_Win_allocate their
 * bases are mostly not 16-byte aligned (the MPICH 4.0.2 bug tiny_win4.c
 * describes). Windows of 1 byte use MPI_UNSIGNED_CHAR, others MPI_INT, and
 * every element is hit: Put from the left neighbour, Accumulate SUM and
 * Fetch_and_op SUM from everyone, Compare_and_swap race on element 0, Get
 * of everything from everyone. argv: "1", "8", "12" or "mixed" (default:
 * all of them, one after another). */
#include "rma.h"

static int size_of(int r, int cfg) { return cfg >= 0 ? cfg : (int[]){4, 12, 1, 8}[r % 4]; }
static MPI_Datatype type_of(int bytes) { return bytes % 4 ? MPI_UNSIGNED_CHAR : MPI_INT; }
static int count_of(int bytes) { return bytes % 4 ? bytes : bytes / 4; }

static MPI_Win win;
static void *base;
static int cfg, mybytes;

static int load(int i) { return type_of(mybytes) == MPI_INT ? ((int *)base)[i] : ((unsigned char *)base)[i]; }
static void store_all(int v)
{
    self_lock(win, MPI_LOCK_EXCLUSIVE);
    for (int i = 0; i < count_of(mybytes); i++) {
        if (type_of(mybytes) == MPI_INT)
            ((int *)base)[i] = v;
        else
            ((unsigned char *)base)[i] = v;
    }
    self_unlock(win);
    MPI_Barrier(MPI_COMM_WORLD);
}
/* one element's worth of value v in target t's type */
static void *as(int t, int v, void *buf)
{
    if (type_of(size_of(t, cfg)) == MPI_INT)
        *(int *)buf = v;
    else
        *(unsigned char *)buf = v;
    return buf;
}
static int from(int t, void *buf) { return type_of(size_of(t, cfg)) == MPI_INT ? *(int *)buf : *(unsigned char *)buf; }

static void check_own(int want, const char *what)
{
    MPI_Barrier(MPI_COMM_WORLD);
    self_lock(win, MPI_LOCK_SHARED);
    for (int i = 0; i < count_of(mybytes); i++)
        CHECKM(load(i) == want, "%s: element %d of rank %d (%d bytes) holds %d, want %d", what, i, me, mybytes,
               load(i), want);
    self_unlock(win);
    MPI_Barrier(MPI_COMM_WORLD);
}

static void run(void)
{
    mybytes = size_of(me, cfg);
    MPI_Win_allocate(mybytes, type_of(mybytes) == MPI_INT ? 4 : 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    int right = (me + 1) % np, left = (me + np - 1) % np;
    char b1[8], b2[8], b3[8];

    store_all(0);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win);
    for (int i = 0; i < count_of(size_of(right, cfg)); i++)
        MPI_Put(as(right, 10 + me, b1), 1, type_of(size_of(right, cfg)), right, i, 1, type_of(size_of(right, cfg)), win);
    MPI_Win_unlock(right, win);
    check_own(10 + left, "put");

    store_all(0);
    MPI_Win_lock_all(0, win);
    for (int t = 0; t < np; t++) {
        MPI_Datatype dt = type_of(size_of(t, cfg));
        for (int i = 0; i < count_of(size_of(t, cfg)); i++)
            MPI_Accumulate(as(t, me + 1, b1), 1, dt, t, i, 1, dt, MPI_SUM, win);
        MPI_Win_flush(t, win); /* b1 is reused */
    }
    MPI_Win_unlock_all(win);
    check_own(np * (np + 1) / 2, "accumulate");

    store_all(100);
    MPI_Win_lock_all(0, win);
    for (int t = 0; t < np; t++) {
        MPI_Datatype dt = type_of(size_of(t, cfg));
        int n = count_of(size_of(t, cfg));
        char one[8], res[12][8];
        as(t, 1, one);
        for (int i = 0; i < n; i++)
            MPI_Fetch_and_op(one, res[i], dt, t, i, MPI_SUM, win);
        MPI_Win_flush(t, win);
        for (int i = 0; i < n; i++) {
            int f = from(t, res[i]);
            CHECKM(f >= 100 && f < 100 + np, "fetch_and_op on %d[%d] returned %d", t, i, f);
        }
    }
    MPI_Win_unlock_all(win);
    check_own(100 + np, "fetch_and_op");

    store_all(200);
    int old[4];
    MPI_Win_lock_all(0, win);
    for (int t = 0; t < np; t++) {
        MPI_Datatype dt = type_of(size_of(t, cfg));
        MPI_Compare_and_swap(as(t, me + 1, b1), as(t, 200, b2), b3, dt, t, 0, win);
        MPI_Win_flush(t, win);
        old[t] = from(t, b3);
    }
    MPI_Win_unlock_all(win);
    int *all = malloc(sizeof(int) * np * np), winners = 0, winner = -1;
    MPI_Allgather(old, np, MPI_INT, all, np, MPI_INT, MPI_COMM_WORLD);
    for (int o = 0; o < np; o++)
        if (all[o * np + me] == 200) {
            winners++;
            winner = o;
        }
    free(all);
    CHECKM(winners == 1, "compare_and_swap on rank %d: %d winners", me, winners);
    self_lock(win, MPI_LOCK_SHARED);
    CHECKM(load(0) == winner + 1, "compare_and_swap: rank %d element 0 holds %d, winner %d", me, load(0), winner);
    for (int i = 1; i < count_of(mybytes); i++)
        CHECKM(load(i) == 200, "compare_and_swap touched element %d: %d", i, load(i));
    self_unlock(win);
    MPI_Barrier(MPI_COMM_WORLD);

    store_all(50 + me);
    MPI_Win_lock_all(0, win);
    for (int t = 0; t < np; t++) {
        MPI_Datatype dt = type_of(size_of(t, cfg));
        int n = count_of(size_of(t, cfg));
        char got[16];
        memset(got, 0, sizeof(got));
        MPI_Get(got, n, dt, t, 0, n, dt, win);
        MPI_Win_flush(t, win);
        for (int i = 0; i < n; i++) {
            int g = dt == MPI_INT ? ((int *)got)[i] : ((unsigned char *)got)[i];
            CHECKM(g == 50 + t, "get of %d[%d] returned %d, want %d", t, i, g, 50 + t);
        }
    }
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
}

int main(int argc, char **argv)
{
    rma_init(&argc, &argv);
    const char *cfgs[] = {"1", "8", "12", "mixed"};
    for (int c = 0; c < 4; c++) {
        int wanted = argc < 2;
        for (int i = 1; i < argc; i++)
            wanted |= !strcmp(argv[i], cfgs[c]);
        if (!wanted)
            continue;
        cur_mode = cfgs[c];
        cfg = c < 3 ? atoi(cfgs[c]) : -1;
        run();
    }
    return rma_finish();
}
