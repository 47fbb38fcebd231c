/* The measuring half of `ghost calibrate` (cmd/ghost/calibrate.go builds it
 * with mpicc at run time and starts it under `ghost run`).
 *
 * Every user rank runs a loop of iterations: compute for COMPUTE_US outside
 * MPI, then one batch of RMA operations to the pattern's targets, completed
 * with a flush per operation or one flush per batch. The time inside the
 * batch is the rank's communication time; CR = sum of communication time /
 * sum of loop time over the ranks, which is what Ghost's profiler measures
 * for such a process. Redirection on or off is chosen by the caller
 * (GHOST_ASYNC), so the same probes run once each way.
 *
 * Usage: calibrate SECONDS PROBE...
 *   SECONDS  measuring time per probe (after a short warm-up)
 *   PROBE    op:datatype:blocking:target:compute_us, with
 *            op        put, get, acc, get_acc, fop, cas
 *            datatype  contig (64 doubles) or subarray (a 4x4x4 block of
 *                      an 8x8x8 array of doubles); fop and cas take one
 *                      element and accept only contig
 *            blocking  per-op (MPI_Win_flush after every operation) or
 *                      per-batch (one MPI_Win_flush_all per batch)
 *            target    all-to-all (every other rank in turn) or
 *                      all-to-one-node (the ranks on rank 0's node)
 *
 * Each probe warms up for a tenth of SECONDS, then every rank iterates for
 * SECONDS by its own clock.
 *
 * Rank 0 prints "users N nodes M", "library TEXT", then per probe
 * "probe I cr CR iter_us MICROSECONDS iters K targets T", where iter_us is
 * the slowest rank's mean time per iteration and iters rank 0's count. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { BATCH = 8, EDGE = 8, BLOCK = 4, ELEMS = BLOCK * BLOCK * BLOCK, WARMUP = 3 };
/* The window: an EDGE^3 array of doubles, then one double for fetch-and-op
 * and one long for compare-and-swap (both 8 bytes: disp_unit 8). */
enum { FOP_DISP = EDGE * EDGE * EDGE, CAS_DISP = FOP_DISP + 1, WIN_ELEMS = CAS_DISP + 1 };

typedef enum { PUT, GET, ACC, GET_ACC, FOP, CAS } op_t;
static const char *op_names[] = {"put", "get", "acc", "get_acc", "fop", "cas"};

typedef struct {
    op_t op;
    int strided;
    int per_op;
    int one_node;
    double compute_us;
} probe_t;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void spin_us(double us)
{
    if (us <= 0)
        return;
    double t0 = now();
    volatile double x = 0;
    while ((now() - t0) * 1e6 < us)
        for (int i = 0; i < 200; i++)
            x += i;
}

static int lookup(const char *s, const char **names, int n)
{
    for (int i = 0; i < n; i++)
        if (strcmp(s, names[i]) == 0)
            return i;
    return -1;
}

/* parse reads op:datatype:blocking:target:compute_us. */
static int parse(char *arg, probe_t *p)
{
    static const char *dts[] = {"contig", "subarray"}, *blks[] = {"per-op", "per-batch"},
                      *tgts[] = {"all-to-all", "all-to-one-node"};
    char *f[5];
    for (int i = 0; i < 5; i++) {
        f[i] = strsep(&arg, ":");
        if (!f[i])
            return -1;
    }
    int op = lookup(f[0], op_names, 6), dt = lookup(f[1], dts, 2), blk = lookup(f[2], blks, 2),
        tgt = lookup(f[3], tgts, 2);
    char *end;
    double us = strtod(f[4], &end);
    if (op < 0 || dt < 0 || blk < 0 || tgt < 0 || *end || us < 0 || arg)
        return -1;
    if ((op == FOP || op == CAS) && dt == 1)
        return -1;
    *p = (probe_t){op, dt == 1, blk == 0, tgt == 1, us};
    return 0;
}

static MPI_Datatype block_type;
static double origin[ELEMS], result[ELEMS];

static void issue(const probe_t *p, int target, MPI_Win win)
{
    int count = p->strided ? 1 : ELEMS;
    MPI_Datatype ttype = p->strided ? block_type : MPI_DOUBLE;
    double one = 1, fetched;
    long compare = 0, swap = 1, old;
    switch (p->op) {
    case PUT:
        MPI_Put(origin, ELEMS, MPI_DOUBLE, target, 0, count, ttype, win);
        break;
    case GET:
        MPI_Get(result, ELEMS, MPI_DOUBLE, target, 0, count, ttype, win);
        break;
    case ACC:
        MPI_Accumulate(origin, ELEMS, MPI_DOUBLE, target, 0, count, ttype, MPI_SUM, win);
        break;
    case GET_ACC:
        MPI_Get_accumulate(origin, ELEMS, MPI_DOUBLE, result, ELEMS, MPI_DOUBLE, target, 0, count, ttype,
                           MPI_SUM, win);
        break;
    case FOP:
        MPI_Fetch_and_op(&one, &fetched, MPI_DOUBLE, target, FOP_DISP, MPI_SUM, win);
        break;
    case CAS:
        MPI_Compare_and_swap(&swap, &compare, &old, MPI_LONG, target, CAS_DISP, win);
        break;
    }
}

/* iterate runs one iteration, continuing the round robin over the targets
 * at *next, and returns the time spent in its batch. */
static double iterate(const probe_t *p, const int *targets, int ntargets, int *next, MPI_Win win)
{
    spin_us(p->compute_us);
    double t0 = now();
    for (int i = 0; i < BATCH; i++) {
        int t = targets[*next];
        *next = (*next + 1) % ntargets;
        issue(p, t, win);
        if (p->per_op)
            MPI_Win_flush(t, win);
    }
    if (!p->per_op)
        MPI_Win_flush_all(win);
    return now() - t0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double seconds = argc > 1 ? atof(argv[1]) : 0;
    int nprobes = argc - 2;
    probe_t *probes = calloc(nprobes > 0 ? nprobes : 1, sizeof *probes);
    int bad = !(seconds > 0) || nprobes < 1;
    for (int i = 0; !bad && i < nprobes; i++)
        if (parse(argv[i + 2], &probes[i]) != 0) {
            if (rank == 0)
                fprintf(stderr, "calibrate: bad probe %s\n", argv[i + 2]);
            bad = 1;
        }
    if (bad) {
        if (rank == 0)
            fprintf(stderr, "usage: calibrate SECONDS op:datatype:blocking:target:compute_us...\n");
        MPI_Finalize();
        return 2;
    }

    /* Nodes: every rank learns the lowest world rank of its node. */
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    int leader = rank, nodes = 0;
    MPI_Bcast(&leader, 1, MPI_INT, 0, node);
    int *leaders = malloc(size * sizeof *leaders);
    MPI_Allgather(&leader, 1, MPI_INT, leaders, 1, MPI_INT, MPI_COMM_WORLD);
    for (int r = 0; r < size; r++)
        nodes += leaders[r] == r;
    int *all = malloc(size * sizeof *all), *first_node = malloc(size * sizeof *first_node);
    int nall = 0, nfirst = 0;
    for (int k = 1; k < size; k++) { /* every other rank, starting after this one */
        int r = (rank + k) % size;
        all[nall++] = r;
        if (leaders[r] == leaders[0])
            first_node[nfirst++] = r;
    }
    if (nall == 0)
        all[nall++] = rank;
    if (nfirst == 0) /* alone on rank 0's node: target itself */
        first_node[nfirst++] = rank;

    if (rank == 0) {
        char lib[MPI_MAX_LIBRARY_VERSION_STRING];
        int len;
        MPI_Get_library_version(lib, &len);
        lib[strcspn(lib, "\n")] = 0;
        printf("users %d nodes %d\nlibrary %s\n", size, nodes, lib);
        fflush(stdout);
    }

    int sizes[3] = {EDGE, EDGE, EDGE}, sub[3] = {BLOCK, BLOCK, BLOCK}, starts[3] = {2, 2, 2};
    MPI_Type_create_subarray(3, sizes, sub, starts, MPI_ORDER_C, MPI_DOUBLE, &block_type);
    MPI_Type_commit(&block_type);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "epochs_used", "lockall");
    double *mem;
    MPI_Win win;
    MPI_Win_allocate(WIN_ELEMS * sizeof(double), sizeof(double), info, MPI_COMM_WORLD, &mem, &win);
    MPI_Info_free(&info);
    memset(mem, 0, WIN_ELEMS * sizeof(double));
    for (int i = 0; i < ELEMS; i++)
        origin[i] = 1;
    MPI_Barrier(MPI_COMM_WORLD);

    for (int i = 0; i < nprobes; i++) {
        const probe_t *p = &probes[i];
        const int *targets = p->one_node ? first_node : all;
        int ntargets = p->one_node ? nfirst : nall, next = 0;
        MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
        /* Warm up for a tenth of the time (at least WARMUP iterations),
         * then measure for SECONDS. Ranks stop on their own clocks, within
         * one iteration of each other. */
        double t0 = now();
        for (long warm = 0; warm < WARMUP || now() - t0 < seconds / 10; warm++)
            iterate(p, targets, ntargets, &next, win);
        MPI_Barrier(MPI_COMM_WORLD);
        double mine[2] = {0, 0}, sum[2], slowest;
        long iters = 0;
        t0 = now();
        while (iters < WARMUP || now() - t0 < seconds) {
            mine[0] += iterate(p, targets, ntargets, &next, win);
            iters++;
        }
        mine[1] = now() - t0;
        double per_iter = mine[1] / iters;
        MPI_Win_unlock_all(win);
        MPI_Reduce(mine, sum, 2, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
        MPI_Reduce(&per_iter, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        if (rank == 0) {
            printf("probe %d cr %.4f iter_us %.3f iters %ld targets %d\n", i, sum[1] > 0 ? sum[0] / sum[1] : 0,
                   slowest * 1e6, iters, ntargets);
            fflush(stdout);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }

    MPI_Win_free(&win);
    MPI_Type_free(&block_type);
    MPI_Comm_free(&node);
    free(leaders);
    free(all);
    free(first_node);
    free(probes);
    MPI_Finalize();
    return 0;
}
