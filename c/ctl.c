/*
 * The command channel between user processes and the ghosts of their node,
 * and the primitives the ghost's wait policy uses to idle.
 */
#include "doorbell.h"
#include "counters.h"
#include "ghost.h"

#include <sched.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>

#define GHOST_CMD_TAG 1
#define GHOST_PAYLOAD_TAG 2

static MPI_Comm ctl_comm = MPI_COMM_NULL;
static MPI_Request ctl_req = MPI_REQUEST_NULL;
static ghost_cmd_t ctl_buf;

void ghost_ctl_setup(MPI_Comm ctl) { ctl_comm = ctl; }

int ghost_ctl_send(int ghost_local, const ghost_cmd_t *cmd)
{
    ghost_count_internal(GHOST_INTERNAL_P2P, 1);
    int rc = PMPI_Send(cmd, GHOST_CMD_WORDS, MPI_INT64_T, ghost_local, GHOST_CMD_TAG, ctl_comm);
    /* Ghosts are the lowest local ranks, so the local rank is the index of
     * the ghost's doorbell. */
    if (ghost_node_ctl)
        ghost_ring(ghost_local);
    return rc;
}

int ghost_ctl_send_ints(int dest, const int *v, int n)
{
    ghost_count_internal(GHOST_INTERNAL_P2P, 1);
    return PMPI_Send(v, n, MPI_INT, dest, GHOST_PAYLOAD_TAG, ctl_comm);
}

int ghost_ctl_recv_ints(int src, int *v, int n)
{
    return PMPI_Recv(v, n, MPI_INT, src, GHOST_PAYLOAD_TAG, ctl_comm, MPI_STATUS_IGNORE);
}

int ghost_ctl_poll(ghost_cmd_t *cmd, int *from)
{
    if (ctl_req == MPI_REQUEST_NULL)
        PMPI_Irecv(&ctl_buf, GHOST_CMD_WORDS, MPI_INT64_T, MPI_ANY_SOURCE, GHOST_CMD_TAG,
                   ctl_comm, &ctl_req);
    int done = 0;
    MPI_Status st;
    PMPI_Test(&ctl_req, &done, &st);
    if (!done)
        return 0;
    *cmd = ctl_buf;
    *from = st.MPI_SOURCE;
    return 1;
}

void ghost_ctl_teardown(void)
{
    if (ctl_req != MPI_REQUEST_NULL) {
        PMPI_Cancel(&ctl_req);
        PMPI_Request_free(&ctl_req);
    }
}

void ghost_yield(void) { sched_yield(); }

int ghost_runnable(void)
{
    /* The fourth field of /proc/loadavg is "running/total": the tasks
     * runnable right now, the caller included. One pread on a descriptor
     * kept open, about 2 us. */
    static int fd = -2;
    if (fd == -2)
        fd = open("/proc/loadavg", O_RDONLY | O_CLOEXEC);
    char buf[128];
    ssize_t n = fd >= 0 ? pread(fd, buf, sizeof buf - 1, 0) : -1;
    if (n <= 0)
        return -1;
    buf[n] = 0;
    double a, b, c;
    int running = -1;
    if (sscanf(buf, "%lf %lf %lf %d/", &a, &b, &c, &running) != 4)
        return -1;
    return running;
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

int ghost_node_block(MPI_Comm node, int local_rank, MPI_Aint bytes, MPI_Win *win, void *block)
{
    void *mine;
    int rc = GHOST_REAL(MPI_Win_allocate_shared)(local_rank == 0 ? bytes : 0, 1, MPI_INFO_NULL, node,
                                                 &mine, win);
    if (rc != MPI_SUCCESS)
        return rc;
    if (local_rank == 0) /* the block's owner: its node shared memory */
        ghost_count_shm((int64_t)bytes);
    MPI_Aint size;
    int unit;
    return PMPI_Win_shared_query(*win, 0, &size, &unit, block);
}
