/*
 * Helpers shared by the benchmark programs: clocks, a compute kernel that
 * stays outside MPI, the window info that turns Ghost's redirection off,
 * argument parsing, and the JSON lines the driver reads.
 *
 * Output protocol (bench/README.md): rank 0 prints, on stdout and nothing
 * else, one "meta" object and any number of "sample" objects, one per line.
 * Every program puts "wrong_values" in its meta line: the number of values
 * it checked and found wrong, so that a fast but wrong configuration shows.
 */
#ifndef GHOST_BENCH_H_INCLUDED
#define GHOST_BENCH_H_INCLUDED

#include <mpi.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static inline double bench_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec * 1e-3;
}

/* Busy-waits, outside MPI, for us microseconds. */
static inline void bench_spin_us(double us)
{
    double end = bench_now_us() + us;
    while (bench_now_us() < end)
        ;
}

/* Sleeps, outside MPI, for us microseconds. */
static inline void bench_sleep_us(double us)
{
    struct timespec ts = {.tv_sec = (time_t)(us / 1e6), .tv_nsec = (long)((us - (time_t)(us / 1e6) * 1e6) * 1e3)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

/* One unit of the compute kernel: a dependent chain of floating-point work
 * on a small array that stays in L1, about a microsecond on this machine. */
enum { BENCH_KERNEL_LEN = 256 };
static double bench_kernel_data[BENCH_KERNEL_LEN];

static inline void bench_kernel_step(void)
{
    for (int i = 0; i < BENCH_KERNEL_LEN; i++)
        bench_kernel_data[i] = bench_kernel_data[i] * 0.999999 + 1e-6;
    __asm__ __volatile__("" ::: "memory"); /* the loop is not optimized away */
}

/* Computes for about us microseconds without calling MPI and returns the
 * kernel steps done: the compute rate is steps per ms of wall time. */
static inline long bench_compute_us(double us)
{
    double end = bench_now_us() + us;
    long steps = 0;
    do {
        bench_kernel_step();
        steps++;
    } while (bench_now_us() < end);
    return steps;
}

/* The info for MPI_Win_allocate: async_config=off makes the window a plain
 * MPICH window under Ghost (no redirection); MPICH ignores the key. */
static inline MPI_Info bench_win_info(int redirect_off)
{
    if (!redirect_off)
        return MPI_INFO_NULL;
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "async_config", "off");
    return info;
}

static inline void bench_info_free(MPI_Info *info)
{
    if (*info != MPI_INFO_NULL)
        MPI_Info_free(info);
}

/* Rounds a per-rank window size up to 64 bytes. MPICH 4.0.2 misplaces
 * intranode RMA on MPI_Win_allocate windows whose per-rank base is not
 * 16-byte aligned, and packs segments back to back, so every size the
 * programs allocate is a multiple of 64: plain numbers stay valid. */
static inline MPI_Aint bench_align64(MPI_Aint bytes)
{
    return (bytes + 63) / 64 * 64;
}

static inline long bench_parse_long(const char *prog, const char *s, const char *what, long min, long max)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (*s == '\0' || *end != '\0' || errno != 0 || v < min || v > max) {
        fprintf(stderr, "%s: %s must be an integer from %ld to %ld, got %s\n", prog, what, min, max, s);
        exit(2);
    }
    return v;
}

/* Parses a comma-separated list of positive integers (at most max of them)
 * into out and returns how many there were. */
static inline int bench_parse_list(const char *prog, const char *s, const char *what, long *out, int max)
{
    char buf[256];
    if (strlen(s) >= sizeof buf) {
        fprintf(stderr, "%s: %s list too long\n", prog, what);
        exit(2);
    }
    strcpy(buf, s);
    int n = 0;
    for (char *save, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (n == max) {
            fprintf(stderr, "%s: at most %d values for %s\n", prog, max, what);
            exit(2);
        }
        out[n++] = bench_parse_long(prog, tok, what, 1, 1L << 30);
    }
    if (n == 0) {
        fprintf(stderr, "%s: empty list for %s\n", prog, what);
        exit(2);
    }
    return n;
}

/* Index of name in the names[n], or -1. */
static inline int bench_lookup(const char *name, const char *const *names, int n)
{
    for (int i = 0; i < n; i++)
        if (strcmp(name, names[i]) == 0)
            return i;
    return -1;
}

/* Parses a comma-separated list of names from names[n] into a bit set. */
static inline unsigned bench_parse_names(const char *prog, const char *s, const char *what,
                                         const char *const *names, int n)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", s);
    unsigned set = 0;
    for (char *save, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int i = bench_lookup(tok, names, n);
        if (i < 0) {
            fprintf(stderr, "%s: unknown %s %s\n", prog, what, tok);
            exit(2);
        }
        set |= 1u << i;
    }
    if (!set) {
        fprintf(stderr, "%s: empty list for %s\n", prog, what);
        exit(2);
    }
    return set;
}

/* Prints s as the body of a JSON string: up to its first newline, with
 * quotes and backslashes dropped and control characters (MPICH puts a tab in
 * its version line) turned into spaces. */
static inline void bench_json_text(const char *s)
{
    for (; *s && *s != '\n'; s++) {
        if (*s == '"' || *s == '\\')
            continue;
        putchar((unsigned char)*s < 0x20 ? ' ' : *s);
    }
}

/* Opens the meta line; the caller adds ,"key":value pairs with printf and
 * closes it with bench_meta_end. */
static inline void bench_meta_begin(const char *program, int world_size, long wrong_values)
{
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(lib, &len);
    printf("{\"type\":\"meta\",\"program\":\"%s\",\"world_size\":%d,\"wrong_values\":%ld,\"mpi\":\"",
           program, world_size, wrong_values);
    bench_json_text(lib);
    printf("\"");
}

static inline void bench_meta_end(void)
{
    printf("}\n");
}

static inline void bench_sample(const char *metric, const char *unit, int rank, int rep, long iters,
                                double value)
{
    printf("{\"type\":\"sample\",\"metric\":\"%s\",\"unit\":\"%s\",\"rank\":%d,\"rep\":%d,"
           "\"iters\":%ld,\"value\":%.6g}\n",
           metric, unit, rank, rep, iters, value);
}

static inline void *bench_malloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "bench: out of memory (%zu bytes)\n", bytes);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return p;
}

/* Samples recorded on any rank and printed by rank 0 at the end, so that
 * nothing is printed while something is being timed. */
typedef struct {
    char metric[48];
    char unit[16];
    int rank, rep;
    long iters;
    double value;
} bench_sample_t;

typedef struct {
    bench_sample_t *v;
    int n, cap;
} bench_samples_t;

static inline void bench_record(bench_samples_t *s, const char *metric, const char *unit, int rank,
                                int rep, long iters, double value)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 256;
        s->v = realloc(s->v, (size_t)s->cap * sizeof *s->v);
        if (!s->v) {
            fprintf(stderr, "bench: out of memory\n");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    bench_sample_t *x = &s->v[s->n++];
    snprintf(x->metric, sizeof x->metric, "%s", metric);
    snprintf(x->unit, sizeof x->unit, "%s", unit);
    x->rank = rank;
    x->rep = rep;
    x->iters = iters;
    x->value = value;
}

/* Collective over comm: rank 0 prints its samples, then every other rank's,
 * in rank order. */
static inline void bench_print_samples(bench_samples_t *s, MPI_Comm comm)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    if (rank != 0) {
        MPI_Send(&s->n, 1, MPI_INT, 0, 0, comm);
        MPI_Send(s->v, s->n * (int)sizeof *s->v, MPI_BYTE, 0, 1, comm);
        return;
    }
    for (int r = 0; r < size; r++) {
        bench_samples_t in = {0};
        bench_samples_t *from = s;
        if (r != 0) {
            MPI_Recv(&in.n, 1, MPI_INT, r, 0, comm, MPI_STATUS_IGNORE);
            in.v = bench_malloc((size_t)in.n * sizeof *in.v);
            MPI_Recv(in.v, in.n * (int)sizeof *in.v, MPI_BYTE, r, 1, comm, MPI_STATUS_IGNORE);
            from = &in;
        }
        for (int i = 0; i < from->n; i++) {
            const bench_sample_t *x = &from->v[i];
            bench_sample(x->metric, x->unit, x->rank, x->rep, x->iters, x->value);
        }
        free(in.v);
    }
    fflush(stdout);
}

#endif
