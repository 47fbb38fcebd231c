/* Get-compute-update: the dynamic load-balancing pattern of NWChem's DFT
 * (Global Arrays' NXTVAL). Every rank claims tasks from a shared counter on
 * rank 0 with MPI_Fetch_and_op, gets the task's input block from the rank
 * that owns it, computes outside MPI, and accumulates the result into the
 * owner's output block.
 *
 * Without asynchronous progress, a claim or a get aimed at a rank that is
 * computing waits until that rank calls MPI again, so the ranks serialize.
 *
 * Usage: gcu [-j] [-a] [-O] [tasks] [compute_us] [block_doubles]
 *   -j  print JSON lines for the bench driver instead of the summary line
 *   -a  round each rank's window up to 64 bytes, so that MPICH 4.0.2's
 *       alignment bug (intranode RMA on Win_allocate windows whose per-rank
 *       base is not 16-byte aligned lands at the wrong address) cannot make
 *       plain MPICH's numbers wrong
 *   -O  create the window with async_config=off (Ghost's redirection off)
 * Flags may come anywhere. Without -j, rank 0 prints one line of results;
 * every output value is checked either way. */
#include "bench.h"

/* Burns compute_us of CPU, outside MPI, while transforming the block. */
static void compute(double *block, int n, double compute_us)
{
    double t0 = bench_now_us();
    do {
        for (int i = 0; i < n; i++)
            block[i] = block[i] * 1.0000001 + 0.0;
    } while (bench_now_us() - t0 < compute_us);
}

typedef struct {
    int tasks;
    double compute_us;
    int bs;
    int json, aligned, redirect_off;
} options_t;

static options_t parse_options(int argc, char **argv)
{
    options_t o = {.tasks = 200, .compute_us = 2000, .bs = 64};
    int pos = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (a[0] == '-' && a[1] != '\0' && a[2] == '\0' && (a[1] == 'j' || a[1] == 'a' || a[1] == 'O')) {
            o.json |= a[1] == 'j';
            o.aligned |= a[1] == 'a';
            o.redirect_off |= a[1] == 'O';
            continue;
        }
        switch (pos++) {
        case 0: o.tasks = atoi(a); break;
        case 1: o.compute_us = atof(a); break;
        case 2: o.bs = atoi(a); break;
        default:
            fprintf(stderr, "usage: gcu [-j] [-a] [-O] [tasks] [compute_us] [block_doubles]\n");
            exit(2);
        }
    }
    return o;
}

/* Time spent completing each kind of operation, per task. */
typedef struct {
    double claim, get, update;
} op_times_t;

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    options_t o = parse_options(argc, argv);
    int tasks = o.tasks, bs = o.bs;
    double compute_us = o.compute_us;
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    /* Task t lives on rank t % size, in block t / size of that rank. Each
     * rank's window: [counter][input blocks][output blocks]. */
    int mine = (tasks + size - 1) / size;
    MPI_Aint disp_in = 1, disp_out = 1 + (MPI_Aint)mine * bs;
    MPI_Aint bytes = (1 + 2 * (MPI_Aint)mine * bs) * sizeof(double);
    if (o.aligned)
        bytes = bench_align64(bytes);
    double *mem;
    MPI_Win win;
    MPI_Info info = bench_win_info(o.redirect_off);
    MPI_Win_allocate(bytes, sizeof(double), info, MPI_COMM_WORLD, &mem, &win);
    bench_info_free(&info);
    mem[0] = 0;
    for (int b = 0; b < mine; b++)
        for (int i = 0; i < bs; i++) {
            mem[disp_in + (MPI_Aint)b * bs + i] = rank * mine + b + 1; /* any value we can predict */
            mem[disp_out + (MPI_Aint)b * bs + i] = 0;
        }
    long *counter = (long *)mem; /* rank 0's slot 0 */
    *counter = 0;
    MPI_Barrier(MPI_COMM_WORLD);

    double *block = malloc(sizeof(double) * bs);
    long one = 1, t;
    int done = 0;
    op_times_t spent = {0};
    double t0 = bench_now_us();
    MPI_Win_lock_all(0, win);
    for (;;) {
        double c0 = bench_now_us();
        MPI_Fetch_and_op(&one, &t, MPI_LONG, 0, 0, MPI_SUM, win);
        MPI_Win_flush(0, win);
        spent.claim += bench_now_us() - c0;
        if (t >= tasks)
            break;
        int owner = t % size;
        MPI_Aint b = t / size;
        double g0 = bench_now_us();
        MPI_Get(block, bs, MPI_DOUBLE, owner, disp_in + b * bs, bs, MPI_DOUBLE, win);
        MPI_Win_flush(owner, win);
        spent.get += bench_now_us() - g0;
        compute(block, bs, compute_us);
        double u0 = bench_now_us();
        MPI_Accumulate(block, bs, MPI_DOUBLE, owner, disp_out + b * bs, bs, MPI_DOUBLE, MPI_SUM, win);
        MPI_Win_flush(owner, win);
        spent.update += bench_now_us() - u0;
        done++;
    }
    MPI_Win_unlock_all(win);
    double elapsed = (bench_now_us() - t0) / 1e6;
    MPI_Barrier(MPI_COMM_WORLD);

    /* Every output value is the input once transformed: positive, and no
     * block was done twice (which would double it) or missed (zero). */
    int bad = 0;
    for (int b = 0; b < mine; b++) {
        long task = (long)b * size + rank;
        if (task >= tasks)
            continue;
        double in = rank * mine + b + 1;
        for (int i = 0; i < bs; i++) {
            double out = mem[disp_out + (MPI_Aint)b * bs + i];
            if (!(out >= in && out < 1.5 * in))
                bad++;
        }
    }
    int total_bad = 0, total_done = 0;
    double slowest = 0;
    MPI_Reduce(&bad, &total_bad, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&done, &total_done, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&elapsed, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    int correct = total_bad == 0 && total_done == tasks;

    if (o.json) {
        /* Per rank: mean completion time of each kind of operation. */
        bench_samples_t samples = {0};
        int claims = done + 1;
        bench_record(&samples, "claim (FOP+flush)", "us", rank, 0, claims, spent.claim / claims);
        if (done > 0) {
            bench_record(&samples, "get (GET+flush)", "us", rank, 0, done, spent.get / done);
            bench_record(&samples, "update (ACC+flush)", "us", rank, 0, done, spent.update / done);
        }
        if (rank == 0) {
            bench_meta_begin("gcu", size, total_bad + (total_done != tasks));
            printf(",\"tasks\":%d,\"compute_us\":%.0f,\"block\":%d,\"window_bytes\":%ld,\"aligned\":%d,"
                   "\"redirect_off\":%d,\"tasks_done\":%d,\"bad_values\":%d",
                   tasks, compute_us, bs, (long)bytes, o.aligned, o.redirect_off, total_done, total_bad);
            bench_meta_end();
            bench_sample("time", "s", 0, 0, tasks, slowest);
        }
        bench_print_samples(&samples, MPI_COMM_WORLD);
        free(samples.v);
    } else if (rank == 0) {
        printf("gcu: ranks=%d tasks=%d compute_us=%.0f block=%d time_s=%.4f tasks_done=%d bad_values=%d result=%s\n",
               size, tasks, compute_us, bs, slowest, total_done, total_bad, correct ? "correct" : "WRONG");
    }
    free(block);
    MPI_Win_free(&win);
    MPI_Finalize();
    /* With -j the meta line carries the verdict; the summary line's exit
     * status is kept for make demo. */
    return !o.json && total_bad != 0;
}
