/* Get-compute-update: the dynamic load-balancing pattern of NWChem's DFT
 * (Global Arrays' NXTVAL). Every rank claims tasks from a shared counter on
 * rank 0 with MPI_Fetch_and_op, gets the task's input block from the rank
 * that owns it, computes outside MPI, and accumulates the result into the
 * owner's output block.
 *
 * Without asynchronous progress, a claim or a get aimed at a rank that is
 * computing waits until that rank calls MPI again, so the ranks serialize.
 *
 * Usage: gcu [tasks] [compute_us] [block_doubles]
 * Prints one line of results from rank 0 and checks every output value. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Burns compute_us of CPU, outside MPI, while transforming the block. */
static void compute(double *block, int n, double compute_us)
{
    double t0 = now();
    do {
        for (int i = 0; i < n; i++)
            block[i] = block[i] * 1.0000001 + 0.0;
    } while ((now() - t0) * 1e6 < compute_us);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int tasks = argc > 1 ? atoi(argv[1]) : 200;
    double compute_us = argc > 2 ? atof(argv[2]) : 2000;
    int bs = argc > 3 ? atoi(argv[3]) : 64;
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    /* Task t lives on rank t % size, in block t / size of that rank. Each
     * rank's window: [counter][input blocks][output blocks]. */
    int mine = (tasks + size - 1) / size;
    MPI_Aint disp_in = 1, disp_out = 1 + (MPI_Aint)mine * bs;
    double *mem;
    MPI_Win win;
    MPI_Win_allocate((1 + 2 * (MPI_Aint)mine * bs) * sizeof(double), sizeof(double), MPI_INFO_NULL,
                     MPI_COMM_WORLD, &mem, &win);
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
    double t0 = now();
    MPI_Win_lock_all(0, win);
    for (;;) {
        MPI_Fetch_and_op(&one, &t, MPI_LONG, 0, 0, MPI_SUM, win);
        MPI_Win_flush(0, win);
        if (t >= tasks)
            break;
        int owner = t % size;
        MPI_Aint b = t / size;
        MPI_Get(block, bs, MPI_DOUBLE, owner, disp_in + b * bs, bs, MPI_DOUBLE, win);
        MPI_Win_flush(owner, win);
        compute(block, bs, compute_us);
        MPI_Accumulate(block, bs, MPI_DOUBLE, owner, disp_out + b * bs, bs, MPI_DOUBLE, MPI_SUM, win);
        MPI_Win_flush(owner, win);
        done++;
    }
    MPI_Win_unlock_all(win);
    double elapsed = now() - t0;
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
    if (rank == 0)
        printf("gcu: ranks=%d tasks=%d compute_us=%.0f block=%d time_s=%.4f tasks_done=%d bad_values=%d result=%s\n",
               size, tasks, compute_us, bs, slowest, total_done, total_bad,
               (total_bad == 0 && total_done == tasks) ? "correct" : "WRONG");
    free(block);
    MPI_Win_free(&win);
    MPI_Finalize();
    return total_bad != 0;
}
