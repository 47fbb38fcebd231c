/*
 * wincost: what the collective window calls cost, measured on every rank.
 *
 *   Win_allocate/<bytes>B, Win_free/<bytes>B, Win_allocate+free/<bytes>B
 *       one MPI_Win_allocate of that many bytes per rank, and its
 *       MPI_Win_free, each started together after a barrier;
 *   Win_fence
 *       an MPI_Win_fence with no operations in between;
 *   Win_set_info
 *       MPI_Win_set_info with async_config, alternately on and off;
 *   Win_set_info+fence
 *       the same followed by a fence, where a change of async_config takes
 *       effect.
 *
 *   MPI_Init
 *       the program's own MPI_Init, once per run (what Ghost adds to
 *       starting a job: its library, the split, its setup collectives).
 *
 * A sample is the slowest rank's time, since a collective is as slow as its
 * last member, in us per call. Under Ghost the window is redirected unless
 * -O asks for async_config=off at allocation.
 *
 * Usage: wincost [-b bytes,...] [-a reps] [-f calls] [-r reps] [-T seconds] [-O]
 *   -b  window sizes per rank for allocate/free (default 4096,1048576)
 *   -a  allocate/free repetitions per size (default 50)
 *   -f  fence and set_info calls timed together (default 100)
 *   -r  repetitions of those loops (default 20)
 *   -T  time limit of each series in seconds: a series stops early, with
 *       fewer samples, when collective calls are slow (default 30)
 *   -O  create the windows with async_config=off (Ghost's redirection off)
 */
#include "bench.h"

#include <unistd.h>

enum { MAX_SIZES = 8 };

typedef struct {
    long sizes[MAX_SIZES];
    int nsizes;
    int alloc_reps;
    int calls;
    int reps;
    double limit_us;
    int redirect_off;
} options_t;

static void usage(void)
{
    fprintf(stderr, "usage: wincost [-b bytes,...] [-a reps] [-f calls] [-r reps] [-T seconds] [-O]\n");
    exit(2);
}

static options_t parse_options(int argc, char **argv)
{
    options_t o = {.sizes = {4096, 1048576}, .nsizes = 2, .alloc_reps = 50, .calls = 100, .reps = 20, .limit_us = 30e6};
    int opt;
    while ((opt = getopt(argc, argv, "b:a:f:r:T:O")) != -1) {
        switch (opt) {
        case 'b': o.nsizes = bench_parse_list("wincost", optarg, "-b", o.sizes, MAX_SIZES); break;
        case 'a': o.alloc_reps = (int)bench_parse_long("wincost", optarg, "-a", 1, 1000000); break;
        case 'f': o.calls = (int)bench_parse_long("wincost", optarg, "-f", 1, 1000000); break;
        case 'r': o.reps = (int)bench_parse_long("wincost", optarg, "-r", 1, 1000000); break;
        case 'T': o.limit_us = 1e6 * bench_parse_long("wincost", optarg, "-T", 1, 86400); break;
        case 'O': o.redirect_off = 1; break;
        default: usage();
        }
    }
    if (optind != argc)
        usage();
    return o;
}

typedef struct {
    options_t o;
    MPI_Info info; /* allocation info: async_config=off with -O */
    int rank;
    long wrong;
    bench_samples_t samples;
} bench_t;

/* Records the slowest rank's value of a collective measurement. */
static void record_max(bench_t *b, const char *metric, int rep, long iters, double us)
{
    double slowest = 0;
    MPI_Reduce(&us, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (b->rank == 0)
        bench_record(&b->samples, metric, "us", -1, rep, iters, slowest);
}

/* Whether a series that started at t0 has used up its time on any rank;
 * collective, so that every rank stops after the same repetition. */
static int out_of_time(const bench_t *b, double t0)
{
    int mine = bench_now_us() - t0 > b->o.limit_us, any = 0;
    MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    return any;
}

/* A window is usable: each rank puts its rank into the next one's memory. */
static void check_window(bench_t *b, MPI_Win win, long *mem)
{
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long me = b->rank;
    MPI_Win_fence(0, win);
    MPI_Put(&me, 1, MPI_LONG, (b->rank + 1) % size, 0, 1, MPI_LONG, win);
    MPI_Win_fence(0, win);
    if (mem[0] != (b->rank + size - 1) % size)
        b->wrong++;
}

static void allocate_free(bench_t *b, long bytes)
{
    char m_alloc[48], m_free[48], m_both[48];
    snprintf(m_alloc, sizeof m_alloc, "Win_allocate/%ldB", bytes);
    snprintf(m_free, sizeof m_free, "Win_free/%ldB", bytes);
    snprintf(m_both, sizeof m_both, "Win_allocate+free/%ldB", bytes);
    double start = bench_now_us();
    for (int rep = 0; rep < b->o.alloc_reps && !out_of_time(b, start); rep++) {
        long *mem;
        MPI_Win win;
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = bench_now_us();
        MPI_Win_allocate(bench_align64(bytes), sizeof(long), b->info, MPI_COMM_WORLD, &mem, &win);
        double alloc_us = bench_now_us() - t0;
        if (rep == 0)
            check_window(b, win, mem);
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = bench_now_us();
        MPI_Win_free(&win);
        double free_us = bench_now_us() - t0;
        record_max(b, m_alloc, rep, 1, alloc_us);
        record_max(b, m_free, rep, 1, free_us);
        record_max(b, m_both, rep, 1, alloc_us + free_us);
    }
}

static void set_async_config(MPI_Win win, int call)
{
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "async_config", call % 2 ? "on" : "off");
    MPI_Win_set_info(win, info);
    MPI_Info_free(&info);
}

/* Times b->o.calls calls of one kind and records the slowest rank's time per
 * call. kind: 0 fence, 1 set_info, 2 set_info+fence. */
static void loop_calls(bench_t *b, MPI_Win win, const char *metric, int kind)
{
    double start = bench_now_us();
    for (int rep = 0; rep < b->o.reps && !out_of_time(b, start); rep++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = bench_now_us();
        for (int i = 0; i < b->o.calls; i++) {
            if (kind != 0)
                set_async_config(win, i);
            if (kind != 1)
                MPI_Win_fence(0, win);
        }
        record_max(b, metric, rep, b->o.calls, (bench_now_us() - t0) / b->o.calls);
    }
}

static void epoch_calls(bench_t *b)
{
    long *mem;
    MPI_Win win;
    MPI_Win_allocate(bench_align64(sizeof(long)), sizeof(long), b->info, MPI_COMM_WORLD, &mem, &win);
    check_window(b, win, mem);
    loop_calls(b, win, "Win_fence", 0);
    loop_calls(b, win, "Win_set_info", 1);
    loop_calls(b, win, "Win_set_info+fence", 2);
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    MPI_Win_free(&win);
}

static void print_meta(const bench_t *b, int size, long wrong)
{
    bench_meta_begin("wincost", size, wrong);
    printf(",\"limit_s\":%.0f,\"redirect_off\":%d,\"alloc_reps\":%d,\"calls\":%d,\"reps\":%d,\"per\":\"slowest rank\"",
           b->o.limit_us / 1e6, b->o.redirect_off, b->o.alloc_reps, b->o.calls, b->o.reps);
    bench_meta_end();
}

int main(int argc, char **argv)
{
    bench_t b = {.o = parse_options(argc, argv)};
    double t0 = bench_now_us();
    MPI_Init(&argc, &argv);
    double init_us = bench_now_us() - t0, slowest_init;
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &b.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Allreduce(&init_us, &slowest_init, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    bench_record(&b.samples, "MPI_Init", "us", -1, 0, 1, slowest_init);
    b.info = bench_win_info(b.o.redirect_off);

    for (int s = 0; s < b.o.nsizes; s++)
        allocate_free(&b, b.o.sizes[s]);
    epoch_calls(&b);

    long wrong = 0;
    MPI_Reduce(&b.wrong, &wrong, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (b.rank == 0)
        print_meta(&b, size, wrong);
    bench_print_samples(&b.samples, MPI_COMM_WORLD);
    bench_info_free(&b.info);
    MPI_Finalize();
    return 0;
}
