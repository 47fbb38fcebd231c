/* Tiny self-checking helpers for the integration test programs. Each failed
 * check prints one "FAIL" line; the program ends with a summary line that
 * the Go test parses: "rank R of S: N checks, F failed". */
#ifndef CHECK_H
#define CHECK_H
#include <mpi.h>
#include <stdio.h>

static int checks_run, checks_failed;

/* The line is formatted first and written at once: MPICH's ranks write
 * stdout unbuffered, and several printf calls per line let the lines of
 * ranks that fail together interleave. */
#define CHECK(cond, ...)                                                   \
    do {                                                                   \
        checks_run++;                                                      \
        if (!(cond)) {                                                     \
            checks_failed++;                                               \
            int r_, n_;                                                    \
            char l_[1024];                                                 \
            MPI_Comm_rank(MPI_COMM_WORLD, &r_);                            \
            n_ = snprintf(l_, sizeof(l_), "FAIL rank %d %s:%d: %s: ", r_, __FILE__, __LINE__, #cond); \
            if (n_ < 0 || n_ >= (int)sizeof(l_))                           \
                n_ = 0;                                                    \
            snprintf(l_ + n_, sizeof(l_) - n_, __VA_ARGS__);               \
            fprintf(stdout, "%s\n", l_);                                   \
            fflush(stdout);                                                \
        }                                                                  \
    } while (0)

/* Computes outside MPI until MPI_Wtime() reaches end: a rank that its
 * origins find busy, which only a ghost's progress can serve. */
static inline void compute_until(double end)
{
    volatile double x = 0;
    while (MPI_Wtime() < end)
        for (int i = 0; i < 1000; i++)
            x += i;
}

static void check_summary(void)
{
    int r, s;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &s);
    printf("rank %d of %d: %d checks, %d failed\n", r, s, checks_run, checks_failed);
    fflush(stdout);
}
#endif
