/*
 * What the ghost's wait policy and its logs read about the machine and
 * this process: the tasks runnable now (/proc/loadavg), the CPUs this
 * process may use, CPU time and resident memory.
 */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include "ghost.h"

#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>
#include <x86intrin.h>

int ghost_runnable(void)
{
    /* The fourth field of /proc/loadavg is "running/total": the tasks
     * runnable right now, the caller included. One pread on a descriptor
     * kept open, about 2 us. */
    static int fd = -2;
    int mine = __atomic_load_n(&fd, __ATOMIC_ACQUIRE);
    if (mine == -2) { /* users' threads may get here at once (politeness.c): one keeps its descriptor */
        int opened = open("/proc/loadavg", O_RDONLY | O_CLOEXEC), none = -2;
        if (__atomic_compare_exchange_n(&fd, &none, opened, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
            mine = opened;
        } else {
            if (opened >= 0)
                close(opened);
            mine = none;
        }
    }
    char buf[128];
    ssize_t n = mine >= 0 ? pread(mine, buf, sizeof buf - 1, 0) : -1;
    if (n <= 0)
        return -1;
    buf[n] = 0;
    double a, b, c;
    int running = -1;
    if (sscanf(buf, "%lf %lf %lf %d/", &a, &b, &c, &running) != 4)
        return -1;
    return running;
}

int ghost_runnable_recent(void)
{
    enum { FRESH_TICKS = 2000000 }; /* about 1 ms */
    static uint64_t read_at;
    static int runnable;
    uint64_t now = __rdtsc();
    if (now - __atomic_load_n(&read_at, __ATOMIC_RELAXED) > FRESH_TICKS) {
        /* Threads that race here both read: harmless. */
        __atomic_store_n(&read_at, now, __ATOMIC_RELAXED);
        __atomic_store_n(&runnable, ghost_runnable(), __ATOMIC_RELAXED);
    }
    return __atomic_load_n(&runnable, __ATOMIC_RELAXED);
}

int ghost_cores(void)
{
    static int cores;
    if (!cores) {
        cpu_set_t set;
        cores = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
    }
    return cores;
}

int64_t ghost_cpu_ns(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (int64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000 +
           (int64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000;
}

int64_t ghost_rss_kb(void)
{
    long pages = 0, resident = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        if (fscanf(f, "%ld %ld", &pages, &resident) != 2)
            resident = 0;
        fclose(f);
    }
    return (int64_t)resident * (sysconf(_SC_PAGESIZE) / 1024);
}
