/*
 * oplat: OSU-style latency of one RMA operation with an idle target.
 *
 * Rank 0 (the origin) opens a lock_all epoch and, for each size and
 * operation, times loops of "operation to rank 1, MPI_Win_flush(1)". Each
 * repetition runs enough iterations to last about -t us, and its sample is
 * the time per operation. Rank 1 (the target) is idle in one of two ways:
 *
 *   barrier  it waits in MPI_Barrier until the origin is done: it is inside
 *            MPI, which makes progress for plain MPICH, and it busy-polls, so
 *            it keeps a core.
 *   sleep    it sleeps outside MPI (nanosleep, 100 us at a time) until the
 *            origin puts a flag into its window. Only a configuration with
 *            asynchronous progress can finish this way; under plain MPICH the
 *            first flush never returns. The point is to leave the core free,
 *            as a ghost on a dedicated core would find it.
 *
 * Data are MPI_LONG. PUT writes a known value, GET reads a known pattern
 * (checked at the origin), ACC adds 1 (the target checks the sums at the
 * end), so wrong_values counts any misplaced data.
 *
 * Usage: oplat [-s bytes,...] [-o put,get,acc] [-t us] [-r reps] [-T ms] [-i barrier|sleep] [-O]
 *   -s  message sizes in bytes, multiples of 8 (default 8,64,512,4096,32768,262144,1048576)
 *   -o  operations (default put,get,acc)
 *   -t  target duration of one repetition in us (default 2000)
 *   -r  repetitions per (size, operation) (default 20)
 *   -T  time limit of one (size, operation) series in ms: when operations
 *       are slow (a busy machine, a target that must be scheduled), the
 *       series stops after this long, with at least 3 repetitions
 *       (default: twice the series' nominal time, 2 * reps * us)
 *   -i  how the target idles (default barrier)
 *   -O  create the window with async_config=off (Ghost's redirection off)
 *
 * Samples: <OP>/<bytes>B in us per operation, from rank 0.
 */
#include "bench.h"

#include <unistd.h>

enum { OP_PUT, OP_GET, OP_ACC, NOPS };
static const char *const op_flags[NOPS] = {"put", "get", "acc"};
static const char *const op_names[NOPS] = {"PUT", "GET", "ACC"};

enum { IDLE_BARRIER, IDLE_SLEEP, NIDLE };
static const char *const idle_names[NIDLE] = {"barrier", "sleep"};

enum { ORIGIN = 0, TARGET = 1, MAX_SIZES = 24 };
static const long PUT_BASE = 1000;

typedef struct {
    long sizes[MAX_SIZES];
    int nsizes;
    unsigned ops;
    double rep_us;
    int reps;
    double limit_us;
    int idle;
    int redirect_off;
} options_t;

static void usage(void)
{
    fprintf(stderr, "usage: oplat [-s bytes,...] [-o put,get,acc] [-t us] [-r reps] [-T ms] [-i barrier|sleep] [-O]\n");
    exit(2);
}

static options_t parse_options(int argc, char **argv)
{
    options_t o = {.sizes = {8, 64, 512, 4096, 32768, 262144, 1048576}, .nsizes = 7,
                   .ops = (1u << NOPS) - 1, .rep_us = 2000, .reps = 20};
    int opt;
    while ((opt = getopt(argc, argv, "s:o:t:r:T:i:O")) != -1) {
        switch (opt) {
        case 's': o.nsizes = bench_parse_list("oplat", optarg, "-s", o.sizes, MAX_SIZES); break;
        case 'o': o.ops = bench_parse_names("oplat", optarg, "operation", op_flags, NOPS); break;
        case 't': o.rep_us = bench_parse_long("oplat", optarg, "-t", 1, 10000000); break;
        case 'r': o.reps = (int)bench_parse_long("oplat", optarg, "-r", 1, 1000000); break;
        case 'T': o.limit_us = 1e3 * bench_parse_long("oplat", optarg, "-T", 1, 86400000); break;
        case 'i': {
            int i = bench_lookup(optarg, idle_names, NIDLE);
            if (i < 0)
                usage();
            o.idle = i;
            break;
        }
        case 'O': o.redirect_off = 1; break;
        default: usage();
        }
    }
    if (optind != argc)
        usage();
    if (o.limit_us == 0)
        o.limit_us = 2 * o.reps * o.rep_us;
    for (int i = 0; i < o.nsizes; i++)
        if (o.sizes[i] % sizeof(long) != 0) {
            fprintf(stderr, "oplat: size %ld is not a multiple of %zu\n", o.sizes[i], sizeof(long));
            exit(2);
        }
    return o;
}

/* The target's window: one region per operation, each as large as the
 * largest message, then the flag that ends a sleeping target's wait. */
typedef struct {
    MPI_Aint region_longs;
    MPI_Aint flag; /* displacement of the flag, in longs */
} layout_t;

static layout_t layout_of(const options_t *o)
{
    long max = 0;
    for (int i = 0; i < o->nsizes; i++)
        if (o->sizes[i] > max)
            max = o->sizes[i];
    layout_t l = {.region_longs = max / (long)sizeof(long)};
    l.flag = NOPS * l.region_longs;
    return l;
}

static MPI_Aint region(const layout_t *l, int op) { return op * l->region_longs; }

static long get_pattern(MPI_Aint i) { return i ^ 0x5eed; }

typedef struct {
    options_t o;
    layout_t l;
    MPI_Win win;
    long *mem;
    long *buf; /* origin buffer, one region */
    int rank;
    long wrong;
    long put_value; /* last value PUT wrote into every element it covered */
    long acc_count; /* ACC operations, each adding 1 to element 0 */
    bench_samples_t samples;
} bench_t;

static void op_once(bench_t *b, int op, int count)
{
    MPI_Aint disp = region(&b->l, op);
    switch (op) {
    case OP_PUT: MPI_Put(b->buf, count, MPI_LONG, TARGET, disp, count, MPI_LONG, b->win); break;
    case OP_GET: MPI_Get(b->buf, count, MPI_LONG, TARGET, disp, count, MPI_LONG, b->win); break;
    case OP_ACC: MPI_Accumulate(b->buf, count, MPI_LONG, TARGET, disp, count, MPI_LONG, MPI_SUM, b->win); break;
    }
    MPI_Win_flush(TARGET, b->win);
}

/* Runs iters operations and returns the time per operation in us. */
static double timed_loop(bench_t *b, int op, int count, long iters)
{
    double t0 = bench_now_us();
    for (long i = 0; i < iters; i++)
        op_once(b, op, count);
    if (op == OP_ACC)
        b->acc_count += iters;
    return (bench_now_us() - t0) / iters;
}

/* Iterations that make one repetition last about rep_us, from the fastest of
 * a few short probes (a preempted probe only looks slower). */
static long calibrate(bench_t *b, int op, int count)
{
    double best = timed_loop(b, op, count, 1);
    for (int i = 0; i < 3; i++) {
        double t = timed_loop(b, op, count, 1 + (long)(b->o.rep_us / 10 / best));
        if (t < best)
            best = t;
    }
    long iters = (long)(b->o.rep_us / best);
    return iters < 1 ? 1 : iters > 10000000 ? 10000000 : iters;
}

static void prepare_buffer(bench_t *b, int op, int count, int rep)
{
    switch (op) {
    case OP_PUT:
        b->put_value = PUT_BASE + rep;
        for (int i = 0; i < count; i++)
            b->buf[i] = b->put_value;
        break;
    case OP_GET:
        for (int i = 0; i < count; i++)
            b->buf[i] = -1;
        break;
    case OP_ACC:
        for (int i = 0; i < count; i++)
            b->buf[i] = 1;
        break;
    }
}

static void check_get(bench_t *b, int count)
{
    if (b->buf[0] != get_pattern(0) || b->buf[count - 1] != get_pattern(count - 1))
        b->wrong++;
}

static void measure(bench_t *b, int op, long bytes)
{
    int count = (int)(bytes / sizeof(long));
    char metric[48];
    snprintf(metric, sizeof metric, "%s/%ldB", op_names[op], bytes);
    prepare_buffer(b, op, count, 0);
    double start = bench_now_us();
    long iters = calibrate(b, op, count);
    for (int rep = 0; rep < b->o.reps; rep++) {
        if (rep >= 3 && bench_now_us() - start > b->o.limit_us)
            break;
        prepare_buffer(b, op, count, rep);
        double us = timed_loop(b, op, count, iters);
        if (op == OP_GET)
            check_get(b, count);
        bench_record(&b->samples, metric, "us", b->rank, rep, iters, us);
    }
}

static void origin(bench_t *b)
{
    MPI_Win_lock_all(0, b->win);
    for (int s = 0; s < b->o.nsizes; s++)
        for (int op = 0; op < NOPS; op++)
            if (b->o.ops >> op & 1)
                measure(b, op, b->o.sizes[s]);
    long one = 1;
    MPI_Put(&one, 1, MPI_LONG, TARGET, b->l.flag, 1, MPI_LONG, b->win);
    MPI_Win_flush(TARGET, b->win);
    MPI_Win_unlock_all(b->win);
}

static void target_idle(bench_t *b)
{
    if (b->o.idle == IDLE_SLEEP) {
        volatile long *flag = &b->mem[b->l.flag];
        while (*flag == 0)
            bench_sleep_us(100);
    }
}

/* After the run: the target checks what PUT and ACC left in its window. */
static void check_target(bench_t *b)
{
    long expect[2] = {b->put_value, b->acc_count};
    MPI_Bcast(expect, 2, MPI_LONG, ORIGIN, MPI_COMM_WORLD);
    if (b->rank != TARGET)
        return;
    MPI_Win_lock(MPI_LOCK_SHARED, b->rank, 0, b->win);
    if ((b->o.ops >> OP_PUT & 1) && b->mem[region(&b->l, OP_PUT)] != expect[0])
        b->wrong++;
    if ((b->o.ops >> OP_ACC & 1) && b->mem[region(&b->l, OP_ACC)] != expect[1])
        b->wrong++;
    MPI_Win_unlock(b->rank, b->win);
}

static void init_window(bench_t *b)
{
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, b->rank, 0, b->win);
    for (MPI_Aint i = 0; i < b->l.flag + 1; i++)
        b->mem[i] = 0;
    for (MPI_Aint i = 0; i < b->l.region_longs; i++)
        b->mem[region(&b->l, OP_GET) + i] = get_pattern(i);
    MPI_Win_unlock(b->rank, b->win);
    MPI_Barrier(MPI_COMM_WORLD);
}

static void print_meta(const bench_t *b, int size, long wrong)
{
    bench_meta_begin("oplat", size, wrong);
    printf(",\"idle\":\"%s\",\"redirect_off\":%d,\"rep_us\":%.0f,\"reps\":%d,\"limit_ms\":%.0f,"
           "\"sync\":\"lock_all+flush\"",
           idle_names[b->o.idle], b->o.redirect_off, b->o.rep_us, b->o.reps, b->o.limit_us / 1e3);
    bench_meta_end();
}

int main(int argc, char **argv)
{
    bench_t b = {.o = parse_options(argc, argv)};
    b.l = layout_of(&b.o);
    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &b.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) {
        fprintf(stderr, "oplat: needs at least 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Info info = bench_win_info(b.o.redirect_off);
    MPI_Win_allocate(bench_align64((b.l.flag + 1) * sizeof(long)), sizeof(long), info, MPI_COMM_WORLD,
                     &b.mem, &b.win);
    bench_info_free(&info);
    b.buf = bench_malloc(b.l.region_longs * sizeof(long));
    init_window(&b);

    if (b.rank == ORIGIN)
        origin(&b);
    else if (b.rank == TARGET)
        target_idle(&b);
    MPI_Barrier(MPI_COMM_WORLD);
    check_target(&b);

    long wrong = 0;
    MPI_Reduce(&b.wrong, &wrong, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (b.rank == 0)
        print_meta(&b, size, wrong);
    bench_print_samples(&b.samples, MPI_COMM_WORLD);
    free(b.buf);
    MPI_Win_free(&b.win);
    MPI_Finalize();
    return 0;
}
