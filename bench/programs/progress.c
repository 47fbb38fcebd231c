/*
 * progress: asynchronous progress of RMA while the target computes.
 *
 * Rank 1 (the target) computes outside MPI for D ms, counting steps of a
 * small kernel. Meanwhile rank 0 (the origin) issues one 8-byte operation to
 * it (ACC, PUT, GET, FOP or CAS) and completes it, either in its own
 * lock/unlock epoch (shared lock) or with a flush inside a lock_all epoch
 * opened beforehand. The origin times the operation from before the lock
 * (or the operation) to after the unlock (or the flush). Without
 * asynchronous progress the operation finishes only when the target calls
 * MPI again, at the end of its D ms.
 *
 * Before the RMA phases of each D, the target computes alone: the origin
 * sleeps outside MPI, so the steps per ms measured then are what the target
 * gets when nobody talks to it. The rate during the RMA phases shows what
 * progress costs the target (a progress thread or a ghost competing for its
 * core).
 *
 * Every value is checked: the origin checks what GET, FOP and CAS return,
 * the target checks its window after each operation. The target also looks
 * at its window the moment its computation ends, before it calls MPI, and
 * records whether the value had already landed.
 *
 * Usage: progress [-c ms,ms,...] [-r reps] [-o ops] [-s syncs] [-O]
 *   -c  compute durations in ms (default 1,10,100)
 *   -r  repetitions of each (duration, sync, op) (default 5)
 *   -o  operations: any of acc,put,get,fop,cas (default all)
 *   -s  synchronizations: any of lock,lockall (default both)
 *   -O  create the window with async_config=off (Ghost's redirection off)
 *
 * Samples (rank 0 prints them all):
 *   <OP>/<sync>/<D>ms     us         completion time at the origin
 *   rate/alone/<D>ms      steps/ms   target compute rate, nobody talking to it
 *   rate/<sync>/<D>ms     steps/ms   target compute rate during the operations
 *   landed/<sync>/<D>ms   fraction   of the rep's ACC, PUT, FOP, CAS whose value
 *                                    was in the target's memory when it stopped
 *                                    computing
 */
#include "bench.h"

#include <unistd.h>

enum { OP_ACC, OP_PUT, OP_GET, OP_FOP, OP_CAS, NOPS };
static const char *const op_flags[NOPS] = {"acc", "put", "get", "fop", "cas"};
static const char *const op_names[NOPS] = {"ACC", "PUT", "GET", "FOP", "CAS"};

enum { SYNC_LOCK, SYNC_LOCKALL, NSYNCS };
static const char *const sync_names[NSYNCS] = {"lock", "lockall"};

enum { ORIGIN = 0, TARGET = 1, MAX_DURATIONS = 8 };
enum { WIN_LONGS = 8 }; /* 64 bytes per rank: one slot per operation */
static const long GET_VALUE = 0x5eed;

/* What the target's window holds, as both sides predict it: the origin to
 * build and check its operations, the target to check its memory. */
typedef struct {
    long step; /* operations so far; the value of the next one is step + 1 */
    long slot[NOPS];
} state_t;

static void apply(state_t *s, int op)
{
    long v = ++s->step;
    switch (op) {
    case OP_ACC: s->slot[OP_ACC] += v; break;
    case OP_PUT: s->slot[OP_PUT] = v; break;
    case OP_FOP: s->slot[OP_FOP] += 1; break;
    case OP_CAS: s->slot[OP_CAS] += 1; break;
    }
}

typedef struct {
    long durations_ms[MAX_DURATIONS];
    int ndurations;
    int reps;
    unsigned ops, syncs;
    int redirect_off;
} options_t;

static void usage(void)
{
    fprintf(stderr, "usage: progress [-c ms,ms,...] [-r reps] [-o acc,put,get,fop,cas] [-s lock,lockall] [-O]\n");
    exit(2);
}

static options_t parse_options(int argc, char **argv)
{
    options_t o = {.durations_ms = {1, 10, 100}, .ndurations = 3, .reps = 5,
                   .ops = (1u << NOPS) - 1, .syncs = (1u << NSYNCS) - 1};
    int opt;
    while ((opt = getopt(argc, argv, "c:r:o:s:O")) != -1) {
        switch (opt) {
        case 'c': o.ndurations = bench_parse_list("progress", optarg, "-c", o.durations_ms, MAX_DURATIONS); break;
        case 'r': o.reps = (int)bench_parse_long("progress", optarg, "-r", 1, 100000); break;
        case 'o': o.ops = bench_parse_names("progress", optarg, "operation", op_flags, NOPS); break;
        case 's': o.syncs = bench_parse_names("progress", optarg, "synchronization", sync_names, NSYNCS); break;
        case 'O': o.redirect_off = 1; break;
        default: usage();
        }
    }
    if (optind != argc)
        usage();
    return o;
}

typedef struct {
    MPI_Win win;
    long *mem;
    int rank;
    long wrong;
    bench_samples_t samples;
} bench_t;

/* The origin's side of one operation: returns the completion time in us
 * and checks any fetched value. */
static double origin_op(bench_t *b, int sync, int op, const state_t *s)
{
    long v = s->step + 1, result = -1, one = 1, expect = s->slot[op], next = expect + 1;
    double t0 = bench_now_us();
    if (sync == SYNC_LOCK)
        MPI_Win_lock(MPI_LOCK_SHARED, TARGET, 0, b->win);
    switch (op) {
    case OP_ACC: MPI_Accumulate(&v, 1, MPI_LONG, TARGET, OP_ACC, 1, MPI_LONG, MPI_SUM, b->win); break;
    case OP_PUT: MPI_Put(&v, 1, MPI_LONG, TARGET, OP_PUT, 1, MPI_LONG, b->win); break;
    case OP_GET: MPI_Get(&result, 1, MPI_LONG, TARGET, OP_GET, 1, MPI_LONG, b->win); expect = GET_VALUE; break;
    case OP_FOP: MPI_Fetch_and_op(&one, &result, MPI_LONG, TARGET, OP_FOP, MPI_SUM, b->win); break;
    case OP_CAS: MPI_Compare_and_swap(&next, &expect, &result, MPI_LONG, TARGET, OP_CAS, b->win); break;
    }
    if (sync == SYNC_LOCK)
        MPI_Win_unlock(TARGET, b->win);
    else
        MPI_Win_flush(TARGET, b->win);
    double us = bench_now_us() - t0;
    if ((op == OP_GET || op == OP_FOP || op == OP_CAS) && result != expect)
        b->wrong++;
    return us;
}

/* Reads the target's own window under a self lock, as the MPI memory model
 * asks for local loads of remotely updated memory. */
static void read_own_window(bench_t *b, long *out)
{
    MPI_Win_lock(MPI_LOCK_SHARED, b->rank, 0, b->win);
    for (int i = 0; i < NOPS; i++)
        out[i] = b->mem[i];
    MPI_Win_unlock(b->rank, b->win);
}

static void init_window(bench_t *b)
{
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, b->rank, 0, b->win);
    for (int i = 0; i < WIN_LONGS; i++)
        b->mem[i] = 0;
    b->mem[OP_GET] = GET_VALUE;
    MPI_Win_unlock(b->rank, b->win);
    MPI_Barrier(MPI_COMM_WORLD);
}

/* The origin waits this long after the barrier before it starts, so that the
 * target is computing when the operation reaches it. */
static double origin_delay_us(long ms)
{
    double us = ms * 1e3 * 0.05;
    return us < 500 ? us : 500;
}

static void metric_name(char *buf, size_t n, const char *what, const char *sync, long ms)
{
    snprintf(buf, n, "%s/%s/%ldms", what, sync, ms);
}

/* The target computes for ms while nobody talks to it. */
static void alone_phase(bench_t *b, const options_t *o, long ms)
{
    char metric[48];
    metric_name(metric, sizeof metric, "rate", "alone", ms);
    for (int rep = 0; rep < o->reps; rep++) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (b->rank == TARGET) {
            double t0 = bench_now_us();
            long steps = bench_compute_us(ms * 1e3);
            double elapsed_ms = (bench_now_us() - t0) / 1e3;
            bench_record(&b->samples, metric, "steps/ms", b->rank, rep, steps, steps / elapsed_ms);
        } else {
            bench_sleep_us(ms * 1e3 * 1.02 + 200);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
}

/* Whether the target's memory already shows op's effect, read with plain
 * loads while it is still outside MPI. */
static int landed(const bench_t *b, int op, const state_t *after)
{
    volatile long *mem = b->mem;
    return mem[op] == after->slot[op];
}

/* One repetition of op under sync: the target computes, the origin issues
 * the operation; both check. */
static void one_rep(bench_t *b, int sync, int op, long ms, int rep, state_t *s, double *landed_sum)
{
    state_t before = *s;
    apply(s, op);
    char metric[48];
    MPI_Barrier(MPI_COMM_WORLD);
    if (b->rank == ORIGIN) {
        bench_sleep_us(origin_delay_us(ms));
        double us = origin_op(b, sync, op, &before);
        metric_name(metric, sizeof metric, op_names[op], sync_names[sync], ms);
        bench_record(&b->samples, metric, "us", b->rank, rep, 1, us);
    } else if (b->rank == TARGET) {
        double t0 = bench_now_us();
        long steps = bench_compute_us(ms * 1e3);
        double elapsed_ms = (bench_now_us() - t0) / 1e3;
        if (op != OP_GET)
            *landed_sum += landed(b, op, s);
        metric_name(metric, sizeof metric, "rate", sync_names[sync], ms);
        bench_record(&b->samples, metric, "steps/ms", b->rank, rep, steps, steps / elapsed_ms);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (b->rank == TARGET) {
        long now[NOPS];
        read_own_window(b, now);
        for (int i = 0; i < NOPS; i++)
            if (now[i] != (i == OP_GET ? GET_VALUE : s->slot[i]))
                b->wrong++;
    }
}

static void sync_phase(bench_t *b, const options_t *o, int sync, long ms, state_t *s)
{
    if (sync == SYNC_LOCKALL && b->rank == ORIGIN)
        MPI_Win_lock_all(0, b->win);
    int checked = 0;
    for (int op = 0; op < NOPS; op++)
        checked += (o->ops >> op & 1) && op != OP_GET;
    for (int rep = 0; rep < o->reps; rep++) {
        double landed_sum = 0;
        for (int op = 0; op < NOPS; op++)
            if (o->ops >> op & 1)
                one_rep(b, sync, op, ms, rep, s, &landed_sum);
        if (b->rank == TARGET && checked > 0) {
            char metric[48];
            metric_name(metric, sizeof metric, "landed", sync_names[sync], ms);
            bench_record(&b->samples, metric, "fraction", b->rank, rep, checked, landed_sum / checked);
        }
    }
    if (sync == SYNC_LOCKALL && b->rank == ORIGIN)
        MPI_Win_unlock_all(b->win);
}

static void print_meta(const options_t *o, int size, long wrong)
{
    bench_meta_begin("progress", size, wrong);
    printf(",\"reps\":%d,\"redirect_off\":%d,\"compute_ms\":[", o->reps, o->redirect_off);
    for (int i = 0; i < o->ndurations; i++)
        printf("%s%ld", i ? "," : "", o->durations_ms[i]);
    printf("],\"lock_type\":\"shared\",\"bytes\":8");
    bench_meta_end();
}

int main(int argc, char **argv)
{
    options_t o = parse_options(argc, argv);
    MPI_Init(&argc, &argv);
    int size;
    bench_t b = {0};
    MPI_Comm_rank(MPI_COMM_WORLD, &b.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) {
        fprintf(stderr, "progress: needs at least 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Info info = bench_win_info(o.redirect_off);
    MPI_Win_allocate(bench_align64(WIN_LONGS * sizeof(long)), sizeof(long), info, MPI_COMM_WORLD, &b.mem, &b.win);
    bench_info_free(&info);
    init_window(&b);

    state_t s = {0};
    for (int d = 0; d < o.ndurations; d++) {
        alone_phase(&b, &o, o.durations_ms[d]);
        for (int sync = 0; sync < NSYNCS; sync++)
            if (o.syncs >> sync & 1)
                sync_phase(&b, &o, sync, o.durations_ms[d], &s);
    }

    long wrong = 0;
    MPI_Reduce(&b.wrong, &wrong, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (b.rank == 0)
        print_meta(&o, size, wrong);
    bench_print_samples(&b.samples, MPI_COMM_WORLD);
    MPI_Win_free(&b.win);
    MPI_Finalize();
    return 0;
}
