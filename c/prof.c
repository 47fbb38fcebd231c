/*
 * Profiling hooks of the wrappers. They are compiled into every wrapper but
 * run only when ghost_prof_enabled is set (GHOST_PROFILE=1, and later the
 * adaptive policy). CLOCK_MONOTONIC is served by the vDSO: no system call.
 */
#include "ghost.h"

#include <time.h>

int ghost_prof_enabled = 0;

/* Counters are per thread so that MPI_THREAD_MULTIPLE callers never share a
 * cache line on the call path; ghost_prof_read sums the calling thread only,
 * which is the thread that drives the control plane. */
static __thread ghost_prof_counters_t prof;

uint64_t ghost_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t ghost_prof_enter(void) { return ghost_now_ns(); }

void ghost_prof_exit(uint64_t t0)
{
    prof.calls++;
    prof.mpi_ns += ghost_now_ns() - t0;
}

void ghost_prof_read(ghost_prof_counters_t *out) { *out = prof; }
