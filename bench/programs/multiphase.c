/* The adaptive Casper paper's multiphase pattern, scaled to a small
 * machine: COMP COMP COMM COMM COMP COMP COMM COMM.
 *
 *  - COMP: each rank computes outside MPI, work * chunk_us in all, and
 *    between chunks accumulates into its right neighbour and flushes. Odd
 *    ranks compute in chunks twice as long (and half as many), as ranks of
 *    an application rarely compute in step: an even rank's flush then
 *    completes at once only if someone makes progress for its busy odd
 *    neighbour: the ghost (redirection on), or nobody until the neighbour
 *    calls MPI again at the end of its chunk (redirection off), which
 *    doubles the even rank's time.
 *  - COMM: every rank accumulates into every rank in a tight loop, work*100
 *    rounds with a flush_all each. Nothing waits for computation, and
 *    routing every target of a node through its ghost only adds a hop.
 *
 * Every phase is STEPS steps, each closed by a synchronization of every
 * rank: an agreement point of GHOST_ASYNC=auto, so a phase can switch after
 * its first steps, as in an application that synchronizes within its
 * phases. With argv[4] = "fence" (the default) each step is a lock_all
 * epoch closed by unlock_all and MPI_Win_fence. With "passive" the window
 * stays in one lock_all(MPI_MODE_NOCHECK) epoch for the whole run and each
 * step ends with flush_all and MPI_Barrier, as Global Arrays' sync does:
 * the program never fences, and auto can switch only at implicit points.
 * With argv[1] = "user" the program switches redirection itself before each
 * phase, on for COMP and off for COMM, with MPI_Win_set_info(async_config,
 * symmetric=true): the user-guided strategy.
 *
 * Usage: multiphase [static|user] [work per phase, default 40] [chunk_us, default 1000]
 *                   [fence|passive]
 * Rank 0 prints "ranks N" (the size of MPI_COMM_WORLD), then
 * "phase I KIND seconds STATE" per phase and "total seconds correct|WRONG";
 * the accumulated value is checked exactly. bench/multiphase.go reads it.
 * With MULTIPHASE_STEPS set in its environment, rank 0 also prints
 * "step I J ms" to stderr for step J of phase I, its own time from the
 * step's start to the end of its synchronization (bench/multiphase-steps.sh). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void spin_us(double us)
{
    double t0 = now();
    volatile double x = 0;
    while ((now() - t0) * 1e6 < us)
        for (int i = 0; i < 1000; i++)
            x += i;
}

static int state_on(MPI_Win win)
{
    MPI_Info info;
    char v[16] = "";
    int flag = 0, len = sizeof v;
    MPI_Win_get_info(win, &info);
    MPI_Info_get_string(info, "async_config", &len, v, &flag);
    MPI_Info_free(&info);
    return flag && strcmp(v, "on") == 0;
}

static void set_state(MPI_Win win, int on)
{
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "async_config", on ? "on" : "off");
    MPI_Info_set(info, "symmetric", "true");
    MPI_Win_set_info(win, info);
    MPI_Info_free(&info);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int user = argc > 1 && strcmp(argv[1], "user") == 0;
    int work = argc > 2 ? atoi(argv[2]) : 40;
    double chunk_us = argc > 3 ? atof(argv[3]) : 1000;
    const char *sync = argc > 4 ? argv[4] : "fence";
    int passive = strcmp(sync, "passive") == 0;
    int print_steps = getenv("MULTIPHASE_STEPS") != NULL;
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (!passive && strcmp(sync, "fence") != 0) {
        if (rank == 0)
            fprintf(stderr, "multiphase: synchronization \"%s\" is not valid: accepted values are fence or passive\n",
                    sync);
        MPI_Finalize();
        return 2;
    }
    if (rank == 0)
        printf("ranks %d\n", size);
    long *mem;
    MPI_Win win;
    MPI_Win_allocate(64, sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    *mem = 0;
    MPI_Win_fence(0, win);
    static const int comm_phase[8] = {0, 0, 1, 1, 0, 0, 1, 1};
    enum { STEPS = 16 };
    /* COMP chunks: odd ranks compute twice as long per chunk, half as often. */
    int stretch = rank % 2 ? 2 : 1;
    long one = 1, sent = 0;
    double total = 0;
    if (passive)
        MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
    for (int p = 0; p < 8; p++) {
        int comm = comm_phase[p];
        if (user)
            set_state(win, !comm);
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = now();
        for (int step = 0; step < STEPS; step++) {
            double step_t0 = now();
            if (!passive)
                MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
            if (comm) {
                for (int i = 0; i < work * 100 / STEPS; i++) { /* rounded down */
                    for (int t = 0; t < size; t++)
                        MPI_Accumulate(&one, 1, MPI_LONG, t, 0, 1, MPI_LONG, MPI_SUM, win);
                    MPI_Win_flush_all(win);
                    sent += size;
                }
            } else {
                int right = (rank + 1) % size;
                /* This rank's work / stretch chunks, spread over the steps. */
                int chunks = work / stretch;
                int mine = (step + 1) * chunks / STEPS - step * chunks / STEPS;
                for (int i = 0; i < mine; i++) {
                    spin_us(chunk_us * stretch);
                    MPI_Accumulate(&one, 1, MPI_LONG, right, 0, 1, MPI_LONG, MPI_SUM, win);
                    MPI_Win_flush(right, win);
                    sent++;
                }
            }
            if (passive) {
                MPI_Win_flush_all(win);
                MPI_Barrier(MPI_COMM_WORLD);
            } else {
                MPI_Win_unlock_all(win);
                MPI_Win_fence(0, win);
            }
            if (print_steps && rank == 0)
                fprintf(stderr, "step %d %d %.3f\n", p, step, (now() - step_t0) * 1e3);
        }
        double mine = now() - t0, slowest;
        MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        int on = state_on(win);
        if (rank == 0) {
            total += slowest;
            printf("phase %d %s %.4f %s\n", p, comm ? "COMM" : "COMP", slowest, on ? "ON" : "OFF");
            fflush(stdout);
        }
    }
    /* Every accumulate is complete and visible before the values are read. */
    if (passive) {
        MPI_Win_unlock_all(win);
        MPI_Win_fence(0, win);
    }
    long all = 0, landed = 0;
    MPI_Allreduce(&sent, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(mem, &landed, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("total %.4f %s\n", total, landed == all ? "correct" : "WRONG");
    MPI_Win_free(&win);
    MPI_Finalize();
    return landed != all;
}
