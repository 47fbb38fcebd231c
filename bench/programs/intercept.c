/*
 * intercept: what one MPI call costs, in ns, when the application goes
 * through Ghost's wrappers and when it does not.
 *
 * Every rank times tight loops of cheap MPI calls on MPI_COMM_WORLD. The
 * wrapped ones (MPI_Comm_rank, MPI_Comm_size) pay Ghost's COMM_WORLD swap;
 * the controls (MPI_Initialized, MPI_Wtime) are never wrapped, so any change
 * in them between configurations is noise from the machine, not Ghost.
 * MPI_Type_size is a local call that profiling leaves untimed, and
 * MPI_Win_flush_all/idle flushes a window of MPI_Win_allocate, under
 * lock_all, on which the rank issued nothing: Global Arrays' sync makes
 * such flushes by the hundred thousand, and profiling leaves them untimed
 * too (docs/design.md, "Profiling hooks").
 *
 * Usage: intercept [-t µs per repetition] [-r repetitions] [-w warm-up repetitions]
 *
 * Rank 0 prints one JSON object per line on stdout: a "meta" line, then one
 * "sample" line per (rank, repetition, metric). Nothing else goes to stdout.
 */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* A benchmark body runs one MPI call iters times. The calls are opaque to
 * the compiler (they live in another shared object), so it cannot hoist or
 * drop them; the volatile sink keeps their results observably used. */
static volatile int sink_int;
static volatile double sink_double;

static void loop_comm_rank(long iters)
{
    int v = 0;
    for (long i = 0; i < iters; i++)
        MPI_Comm_rank(MPI_COMM_WORLD, &v);
    sink_int = v;
}

static void loop_comm_size(long iters)
{
    int v = 0;
    for (long i = 0; i < iters; i++)
        MPI_Comm_size(MPI_COMM_WORLD, &v);
    sink_int = v;
}

static void loop_initialized(long iters)
{
    int v = 0;
    for (long i = 0; i < iters; i++)
        MPI_Initialized(&v);
    sink_int = v;
}

static void loop_wtime(long iters)
{
    double v = 0;
    for (long i = 0; i < iters; i++)
        v += MPI_Wtime();
    sink_double = v;
}

static void loop_type_size(long iters)
{
    int v = 0;
    for (long i = 0; i < iters; i++)
        MPI_Type_size(MPI_DOUBLE, &v);
    sink_int = v;
}

static MPI_Win idle_win = MPI_WIN_NULL; /* under lock_all, nothing issued */

static void loop_flush_all_idle(long iters)
{
    for (long i = 0; i < iters; i++)
        MPI_Win_flush_all(idle_win);
}

struct metric {
    const char *name;
    void (*loop)(long iters);
};

static const struct metric metrics[] = {
    {"MPI_Comm_rank", loop_comm_rank},
    {"MPI_Comm_size", loop_comm_size},
    {"MPI_Initialized", loop_initialized},
    {"MPI_Wtime", loop_wtime},
    {"MPI_Type_size", loop_type_size},
    {"MPI_Win_flush_all/idle", loop_flush_all_idle},
};
enum { NMETRICS = sizeof metrics / sizeof metrics[0] };

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static double ns_per_call(const struct metric *m, long iters)
{
    double t0 = now_ns();
    m->loop(iters);
    return (now_ns() - t0) / iters;
}

/* Every repetition lasts about target_ns whatever the call costs: short
 * enough that the scheduler rarely cuts into one (its time slices are a few
 * ms, and the box is shared), long enough that the two clock reads vanish. Warm-up
 * repetitions calibrate each metric's iteration count from its fastest
 * one, since a preempted one only looks slower. */
static long calibrate(const struct metric *m, double target_ns, int warmup)
{
    long iters = 1000;
    double best = ns_per_call(m, iters);
    for (int r = 0; r < warmup; r++) {
        double v = ns_per_call(m, (long)(target_ns / best) + 1);
        if (v < best)
            best = v;
    }
    iters = (long)(target_ns / best);
    return iters < 1000 ? 1000 : iters;
}

/* Repetitions interleave the metrics, so a burst of load on the shared box
 * hits every metric alike instead of one metric's whole series. */
static void measure(double *out, long *iters, double target_ns, int reps, int warmup)
{
    for (int k = 0; k < NMETRICS; k++)
        iters[k] = calibrate(&metrics[k], target_ns, warmup);
    for (int r = 0; r < reps; r++)
        for (int k = 0; k < NMETRICS; k++)
            out[r * NMETRICS + k] = ns_per_call(&metrics[k], iters[k]);
}

/* Prints s as the body of a JSON string: up to its first newline, with
 * quotes and backslashes dropped and other control characters (MPICH puts a
 * tab in its version line) turned into spaces. */
static void print_json_text(const char *s)
{
    for (; *s && *s != '\n'; s++) {
        if (*s == '"' || *s == '\\')
            continue;
        putchar((unsigned char)*s < 0x20 ? ' ' : *s);
    }
}

static void print_meta(int size, long target_us, int reps, int warmup)
{
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(lib, &len);
    printf("{\"type\":\"meta\",\"program\":\"intercept\",\"world_size\":%d,"
           "\"target_us\":%ld,\"reps\":%d,\"warmup\":%d,\"unit\":\"ns/call\",\"mpi\":\"",
           size, target_us, reps, warmup);
    print_json_text(lib);
    printf("\"}\n");
}

static void print_samples(const double *all, const long *iters, int size, int reps)
{
    for (int rank = 0; rank < size; rank++)
        for (int r = 0; r < reps; r++)
            for (int k = 0; k < NMETRICS; k++)
                printf("{\"type\":\"sample\",\"metric\":\"%s\",\"unit\":\"ns/call\","
                       "\"rank\":%d,\"rep\":%d,\"iters\":%ld,\"value\":%.4f}\n",
                       metrics[k].name, rank, r, iters[(size_t)rank * NMETRICS + k],
                       all[((size_t)rank * reps + r) * NMETRICS + k]);
}

static long parse_count(const char *s, const char *what, long min)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (*s == '\0' || *end != '\0' || v < min || v > 1000000000L) {
        fprintf(stderr, "intercept: %s must be an integer from %ld to 1e9, got %s\n", what, min, s);
        exit(2);
    }
    return v;
}

int main(int argc, char **argv)
{
    long target_us = 200;
    int reps = 100, warmup = 5;
    int opt;
    while ((opt = getopt(argc, argv, "t:r:w:")) != -1) {
        switch (opt) {
        case 't': target_us = parse_count(optarg, "-t", 1); break;
        case 'r': reps = (int)parse_count(optarg, "-r", 1); break;
        case 'w': warmup = (int)parse_count(optarg, "-w", 0); break;
        default:
            fprintf(stderr, "usage: intercept [-t us per repetition] [-r repetitions] [-w warm-up repetitions]\n");
            return 2;
        }
    }

    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    size_t n = (size_t)reps * NMETRICS;
    double *mine = malloc(n * sizeof *mine);
    double *all = rank == 0 ? malloc(n * size * sizeof *all) : NULL;
    long iters[NMETRICS];
    long *all_iters = rank == 0 ? malloc((size_t)size * sizeof iters) : NULL;
    if (!mine || (rank == 0 && (!all || !all_iters))) {
        fprintf(stderr, "intercept: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }

    void *base;
    MPI_Win_allocate(64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &idle_win);
    MPI_Win_lock_all(0, idle_win);

    /* Start together so that every rank measures while the others do. */
    MPI_Barrier(MPI_COMM_WORLD);
    measure(mine, iters, target_us * 1e3, reps, warmup);
    MPI_Win_unlock_all(idle_win);
    MPI_Win_free(&idle_win);
    MPI_Gather(mine, (int)n, MPI_DOUBLE, all, (int)n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    MPI_Gather(iters, NMETRICS, MPI_LONG, all_iters, NMETRICS, MPI_LONG, 0, MPI_COMM_WORLD);

    if (rank == 0) {
        print_meta(size, target_us, reps, warmup);
        print_samples(all, all_iters, size, reps);
        fflush(stdout);
    }
    free(all_iters);
    free(all);
    free(mine);
    MPI_Finalize();
    return 0;
}
