/* Self-checking helpers for the ARMCI programs. Same output contract as
 * test/programs/check.h: each failed check prints one "FAIL" line, and the
 * program ends with "rank R of S: N checks, F failed", which the Go harness
 * (expectChecks) parses. Ranks are ARMCI's, which are MPI_COMM_WORLD's. */
#ifndef ARMCI_CHECK_H
#define ARMCI_CHECK_H
#include <mpi.h>
#include <armci.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static int checks_run, checks_failed, me, nproc;

#define CHECK(cond, ...)                                                      \
    do {                                                                      \
        checks_run++;                                                         \
        if (!(cond)) {                                                        \
            checks_failed++;                                                  \
            if (checks_failed <= 20) {                                        \
                printf("FAIL rank %d %s:%d: %s: ", me, __FILE__, __LINE__,    \
                       #cond);                                                \
                printf(__VA_ARGS__);                                          \
                printf("\n");                                                 \
                fflush(stdout);                                               \
            }                                                                 \
        }                                                                     \
    } while (0)

static void start(int *argc, char ***argv)
{
    MPI_Init(argc, argv);
    ARMCI_Init();
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &nproc);
}

static int finish(void)
{
    ARMCI_Barrier();
    printf("rank %d of %d: %d checks, %d failed\n", me, nproc, checks_run, checks_failed);
    fflush(stdout);
    ARMCI_Finalize();
    MPI_Finalize();
    return checks_failed != 0;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* Busy work outside MPI and ARMCI for about sec seconds. */
static inline double compute(double sec)
{
    volatile double x = 1.0;
    double end = now() + sec;
    while (now() < end)
        for (int i = 0; i < 1000; i++)
            x = x * 1.0000001 + 1e-9;
    return x;
}
#endif
