/*
 * polling: loops of atomic reads, the pattern of issue 14's "polling
 * loops". In one lock_all epoch every rank loops over
 * MPI_Fetch_and_op(MPI_NO_OP) on rank 0's counter + MPI_Win_flush, then
 * MPI_Get_accumulate(MPI_NO_OP) on its right neighbour + MPI_Win_flush;
 * in one iteration out of 100 (a different one per rank) it first adds 1
 * to rank 0's counter with MPI_Accumulate.
 *
 * Metric poll/iter: microseconds per iteration of the slowest rank (its
 * loop, from a barrier to the end of its last flush), one sample per
 * repetition. wrong_values counts a final counter that is not the number
 * of adds.
 *
 * Usage: polling [-i iterations per repetition] [-r repetitions]
 * The suite "polling" runs it on 2 fake nodes (2 users and 1): go run
 * ./bench -suite polling -n 3.
 */
#include "bench.h"

#include <unistd.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long iters = 2000, reps = 10;
    int opt;
    while ((opt = getopt(argc, argv, "i:r:")) != -1) {
        if (opt == 'i')
            iters = bench_parse_long(argv[0], optarg, "-i (iterations)", 1, 100000000);
        else if (opt == 'r')
            reps = bench_parse_long(argv[0], optarg, "-r (repetitions)", 1, 100000);
        else {
            fprintf(stderr, "usage: %s [-i iterations] [-r repetitions]\n", argv[0]);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    int me, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    long *counter;
    MPI_Win win;
    MPI_Win_allocate(sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &counter, &win);
    *counter = 0;
    MPI_Barrier(MPI_COMM_WORLD);

    const long one = 1, none = 0;
    long adds = 0; /* by every rank, over every repetition */
    double *loop_us = bench_malloc(sizeof(double) * (size_t)reps);
    for (long rep = 0; rep < reps; rep++) {
        MPI_Win_lock_all(0, win);
        MPI_Barrier(MPI_COMM_WORLD);
        double start = bench_now_us();
        for (long i = 0; i < iters; i++) {
            long r;
            if (i % 100 == me % 100)
                MPI_Accumulate(&one, 1, MPI_LONG, 0, 0, 1, MPI_LONG, MPI_SUM, win);
            MPI_Fetch_and_op(&none, &r, MPI_LONG, 0, 0, MPI_NO_OP, win);
            MPI_Win_flush(0, win);
            MPI_Get_accumulate(&none, 1, MPI_LONG, &r, 1, MPI_LONG, (me + 1) % n, 0, 1, MPI_LONG, MPI_NO_OP, win);
            MPI_Win_flush((me + 1) % n, win);
        }
        double mine = (bench_now_us() - start) / (double)iters;
        MPI_Win_unlock_all(win);
        MPI_Reduce(&mine, &loop_us[rep], 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        for (int r = 0; r < n; r++)
            adds += iters > r % 100 ? (iters - r % 100 + 99) / 100 : 0;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    long final = 0;
    if (me == 0) {
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
        MPI_Win_sync(win);
        final = *counter;
        MPI_Win_unlock(0, win);
        bench_meta_begin("polling", n, final != adds);
        printf(",\"iters\":%ld,\"reps\":%ld,\"counter\":%ld,\"adds\":%ld", iters, reps, final, adds);
        bench_meta_end();
        for (long rep = 0; rep < reps; rep++)
            bench_sample("poll/iter", "us", 0, (int)rep, iters, loop_us[rep]);
    }
    free(loop_us);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
