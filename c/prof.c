/*
 * Profiling: every wrapper times its call when ghost_prof_enabled is set
 * (GHOST_PROFILE=1, or GHOST_ASYNC=auto, whose predictions need it).
 *
 * The clock is the TSC: about 8 ns a read here, against 20 ns for the vDSO's
 * clock_gettime, and CR = T_mpi / T_total is a ratio, so ticks need no
 * conversion. Counters are per thread, so MPI_THREAD_MULTIPLE callers never
 * share a cache line on the call path.
 *
 * Every GHOST_PREDICT_INT, the call that ends an interval hands its MPI time
 * and its length to the Go predictor (adapt/): one Go call per interval, never
 * one per MPI call.
 *
 * Time spent waiting for other ranks in MPI_Barrier (agree.c reports it,
 * ghost_prof_wait) is neither communication nor computation: it is taken
 * out of both the MPI time and the interval, so that CR is the share of
 * communication in the time the rank did not wait. Otherwise a rank that
 * waits at barriers for neighbours that compute votes as if it
 * communicated, and the vote feeds itself (issue 13).
 */
#include "counters.h"
#include "ghost.h"
#include "offload.h"

#include <time.h>
#include <x86intrin.h>

int ghost_prof_enabled = 0;
uint64_t ghost_predict_ticks = 0; /* 0: no prediction */
int ghost_vote = 1;               /* this process's latest prediction */
static int last_cr = 0;           /* and its interval's CR, 1/GHOST_CR_SCALE */
int ghost_async_auto = 0;

static __thread struct {
    uint64_t calls;
    uint64_t mpi_ticks;
    uint64_t interval_start;
    uint64_t interval_mpi;
    uint64_t interval_wait; /* of interval_mpi, waiting in barriers */
    int depth; /* wrapped calls in progress: Ghost's own calls nest */
} prof;

uint64_t ghost_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t ghost_ticks(void) { return __rdtsc(); }

/* The TSC rate is measured once, against the clock, over the stretch from
 * ghost_tsc_hz_start (early in MPI_Init) to the first ghost_tsc_hz, which
 * sleeps only for what is left of TSC_SPAN: MPI_Init's own work then pays
 * for the measurement, which a short job would otherwise feel. */
enum { TSC_SPAN_NS = 5000000 };
static uint64_t tsc_n0, tsc_t0;
static double tsc_hz;

void ghost_tsc_hz_start(void)
{
    if (!tsc_n0) {
        tsc_n0 = ghost_now_ns();
        tsc_t0 = __rdtsc();
    }
}

double ghost_tsc_hz(void)
{
    if (tsc_hz > 0)
        return tsc_hz;
    ghost_tsc_hz_start();
    uint64_t elapsed = ghost_now_ns() - tsc_n0;
    if (elapsed < TSC_SPAN_NS) {
        struct timespec pause = {0, (long)(TSC_SPAN_NS - elapsed)};
        nanosleep(&pause, NULL);
    }
    uint64_t n1 = ghost_now_ns(), t1 = __rdtsc();
    tsc_hz = (double)(t1 - tsc_t0) * 1e9 / (double)(n1 - tsc_n0);
    return tsc_hz;
}

static void close_interval(uint64_t now)
{
    if (prof.interval_start) {
        uint64_t wait = prof.interval_wait < prof.interval_mpi ? prof.interval_wait : prof.interval_mpi;
        uint64_t comm = prof.interval_mpi - wait, span = now - prof.interval_start - wait;
        int cr = span ? (int)((double)comm * GHOST_CR_SCALE / (double)span) : 0;
        __atomic_store_n(&last_cr, cr, __ATOMIC_RELAXED);
        int vote = ghostPredict(comm, span, wait);
        __atomic_store_n(&ghost_vote, vote, __ATOMIC_RELAXED);
        ghost_gp_publish(vote);
    }
    prof.interval_start = now;
    prof.interval_mpi = 0;
    prof.interval_wait = 0;
}

void ghost_prof_wait(uint64_t ticks)
{
    /* Only the part since the interval began, as for the MPI time. */
    uint64_t since_start = ghost_ticks() - prof.interval_start;
    prof.interval_wait += ticks < since_start ? ticks : since_start;
}

/* Only the outermost wrapped call is timed: Ghost's control plane calls
 * MPI through the same wrappers (it defines the PMPI_ names), and counting
 * those again would count one stretch of time twice. */
uint64_t ghost_prof_enter(void)
{
    prof.depth++;
    return __rdtsc();
}

void ghost_prof_exit(uint64_t t0)
{
    if (--prof.depth > 0)
        return;
    uint64_t now = __rdtsc();
    prof.calls++;
    prof.mpi_ticks += now - t0;
    /* The process-wide totals the metrics export (counters.h). */
    ghost_count_mpi_call(now - t0);
    /* A call can outlive the interval it began in (ghost_prof_vote closes
     * intervals from inside fences): only its part since the interval's
     * start belongs to this interval, which keeps CR <= 1. */
    uint64_t since_start = now - prof.interval_start;
    prof.interval_mpi += now - t0 < since_start ? now - t0 : since_start;
    if (ghost_predict_ticks && now - prof.interval_start >= ghost_predict_ticks)
        close_interval(now);
}

int ghost_prof_vote(void)
{
    uint64_t now = __rdtsc();
    /* A long computation ends an interval too, even without an MPI call. */
    if (ghost_predict_ticks && prof.interval_start && now - prof.interval_start >= ghost_predict_ticks)
        close_interval(now);
    return __atomic_load_n(&ghost_vote, __ATOMIC_RELAXED);
}

void ghost_prof_flush(void)
{
    if (ghost_predict_ticks && prof.interval_start)
        close_interval(__rdtsc());
}

int ghost_prof_cr(void) { return __atomic_load_n(&last_cr, __ATOMIC_RELAXED); }

void ghost_prof_read(ghost_prof_counters_t *out)
{
    out->calls = prof.calls;
    out->mpi_ticks = prof.mpi_ticks;
}
