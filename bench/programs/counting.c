/*
 * counting: what Ghost's per-operation counting costs, in ns per operation.
 *
 * The counting on the RMA path (c/counters.h: ghost_count_op, with the
 * byte count of a builtin datatype decoded from its handle) is inlined into
 * the wrappers, so it cannot be switched off at run time to compare. This
 * program compiles the same header into three loops that differ only in
 * the counting, and times them interleaved:
 *
 *   off     the loop alone: pick op and path, compute nothing else;
 *   plain   + ghost_count_op into the thread's own slot (every process,
 *           and under MPI_THREAD_MULTIPLE every thread up to the seventh);
 *   shared  + ghost_count_op into the shared overflow slot, with relaxed
 *           atomic additions (an eighth thread and more).
 *
 * A compiler barrier per iteration stands for the opaque MPI call between
 * two operations: without it the additions of many iterations would be
 * merged. Metrics: count/plain and count/shared, the per-iteration time
 * minus that of off in the same repetition, and loop/off itself.
 *
 * Usage: counting [-t µs per repetition] [-r repetitions]
 * Only rank 0 measures; rank 0 prints the JSON lines of bench.h.
 */
#include "bench.h"

#include "../../c/counters.h"

/* The header's globals, defined here because this program is not linked
 * with libghost.so; it is run without it. The thread's slot is claimed as
 * in the library: on the first count, through the generation check. */
static ghost_counters_t block;
ghost_counters_t *ghost_counters_mine = &block;
int ghost_counters_atomic = 0;
__thread ghost_counter_thread_t ghost_counter_thread __attribute__((tls_model("initial-exec")));
unsigned ghost_counters_gen = 1;
static int shared_slot; /* mode 2: the overflow slot's atomic additions */
void ghost_counters_claim(ghost_counter_thread_t *t)
{
    t->slot = &block;
    t->shared = shared_slot;
    t->gen = ghost_counters_gen;
}
uint64_t ghost_type_bytes_derived(MPI_Count count, MPI_Datatype type)
{
    int size = 0;
    MPI_Type_size(type, &size);
    return (uint64_t)count * (uint64_t)size;
}

static const MPI_Datatype types[4] = {MPI_INT, MPI_DOUBLE, MPI_CHAR, MPI_INT64_T};
static volatile uint64_t sink;

#define BARRIER() __asm__ __volatile__("" ::: "memory")

static void loop_off(long iters)
{
    uint64_t acc = 0;
    for (long i = 0; i < iters; i++) {
        acc += (uint64_t)(i % GHOST_NOPS) + (uint64_t)(i & 1) + (uint64_t)types[i & 3];
        BARRIER();
    }
    sink = acc;
}

static void loop_count(long iters)
{
    for (long i = 0; i < iters; i++) {
        ghost_count_op((int)(i % GHOST_NOPS), (int)(i & 1), ghost_type_bytes(4, types[i & 3]));
        BARRIER();
    }
}

static double now_ns(void) { return bench_now_us() * 1e3; }

static double ns_per_iter(void (*loop)(long), long iters)
{
    double t0 = now_ns();
    loop(iters);
    return (now_ns() - t0) / iters;
}

static double time_mode(int mode, long iters)
{
    if (mode == 0)
        return ns_per_iter(loop_off, iters);
    if (shared_slot != (mode == 2)) {
        shared_slot = mode == 2;
        ghost_counters_gen++; /* the next count claims again */
    }
    return ns_per_iter(loop_count, iters);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double target_us = 2000;
    int reps = 50;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "-t") == 0)
            target_us = bench_parse_long("counting", argv[i + 1], "-t", 10, 1000000);
        else if (strcmp(argv[i], "-r") == 0)
            reps = (int)bench_parse_long("counting", argv[i + 1], "-r", 1, 100000);
    }
    if (rank == 0) {
        /* Iterations for about target_us per repetition, from the
         * slowest mode, after a warm-up of every mode. */
        long iters = 100000;
        double slowest = 0;
        for (int m = 0; m < 3; m++) {
            double v = time_mode(m, iters);
            slowest = v > slowest ? v : slowest;
        }
        iters = (long)(target_us * 1e3 / slowest);
        if (iters < 10000)
            iters = 10000;
        double *t = bench_malloc(sizeof(double) * 3 * reps);
        for (int r = 0; r < reps; r++)
            for (int m = 0; m < 3; m++)
                t[3 * r + m] = time_mode(m, iters);
        /* Every operation was counted into the block: check the sums. */
        uint64_t ops = 0;
        for (int op = 0; op < GHOST_NOPS; op++)
            ops += block.ops[op][0] + block.ops[op][1];
        long expected = 2L * reps * iters + 2 * 100000;
        bench_meta_begin("counting", size, ops == (uint64_t)expected ? 0 : 1);
        printf(",\"iters\":%ld", iters);
        bench_meta_end();
        for (int r = 0; r < reps; r++) {
            bench_sample("count/plain", "ns/op", 0, r, iters, t[3 * r + 1] - t[3 * r]);
            bench_sample("count/shared", "ns/op", 0, r, iters, t[3 * r + 2] - t[3 * r]);
            bench_sample("loop/off", "ns/op", 0, r, iters, t[3 * r]);
        }
        free(t);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
