/*
 * Waking sleeping ghosts.
 *
 * An idle ghost under GHOST_WAIT=adaptive sleeps, and RMA traffic aimed at
 * it is not a command it could see. So every ghost publishes, in a control
 * block in its node's shared memory, whether it sleeps, and sleeps on a
 * futex there:
 *  - an origin on the same node checks the flag on each redirected operation
 *    (one load of a line that rarely changes) and rings only when it is set;
 *  - an origin on another node cannot reach that memory; it sends a 0-byte
 *    message on a private communicator from its epoch calls (lock, flush,
 *    fence, start, ...), at most once per WAKE_INTERVAL_NS per ghost. Over
 *    UCX, that message and the operations themselves end the doze
 *    (ucxwake.c); elsewhere the ghost finds them at its next timed wake.
 */
#include "agree.h"
#include "doorbell.h"
#include "counters.h"

#include <linux/futex.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define TAG_WAKE 3
#define WAKE_INTERVAL_NS 200000 /* 0.2 ms: well under the ghost's spin phase */

ghost_node_ctl_t *ghost_node_ctl;
__thread unsigned ghost_waiting_on;
static MPI_Win ctl_win = MPI_WIN_NULL;
static MPI_Comm wake_comm = MPI_COMM_NULL;
static MPI_Request wake_req = MPI_REQUEST_NULL;
static uint64_t *last_wake; /* by world rank */

long ghost_futex(uint32_t *addr, int op, uint32_t val, const struct timespec *timeout)
{
    return syscall(SYS_futex, addr, op, val, timeout, NULL, 0);
}

int ghost_doorbell_setup(MPI_Comm node, int local_rank, MPI_Comm world_dup)
{
    int rc = ghost_node_block(node, local_rank, sizeof(ghost_node_ctl_t), &ctl_win, &ghost_node_ctl);
    if (rc != MPI_SUCCESS)
        return rc;
    if (local_rank == 0)
        for (int i = 0; i < GHOST_MAX_NG; i++)
            ghost_node_ctl->ghost[i].sleeping = ghost_node_ctl->ghost[i].doorbell = 0;
    wake_comm = world_dup;
    int n;
    PMPI_Comm_size(world_dup, &n);
    last_wake = calloc(n, sizeof *last_wake);
    return ghost_real_barrier(node); /* the block is initialized before anyone reads it */
}

int ghost_node_ghosts;

int ghost_node_ghost_awake(void)
{
    ghost_node_ctl_t *ctl = ghost_node_ctl;
    for (int i = 0; ctl && i < ghost_node_ghosts; i++)
        if (!__atomic_load_n(&ctl->ghost[i].sleeping, __ATOMIC_RELAXED))
            return 1;
    return 0;
}

int ghost_doorbell_teardown(void)
{
    if (wake_req != MPI_REQUEST_NULL) {
        PMPI_Cancel(&wake_req);
        PMPI_Request_free(&wake_req);
    }
    free(last_wake);
    last_wake = NULL;
    ghost_node_ctl = NULL;
    return GHOST_REAL(MPI_Win_free)(&ctl_win);
}

void ghost_ring_slow(int local_ghost)
{
    uint32_t *bell = &ghost_node_ctl->ghost[local_ghost].doorbell;
    __atomic_add_fetch(bell, 1, __ATOMIC_SEQ_CST);
    ghost_futex(bell, FUTEX_WAKE, 1, NULL);
}

void ghost_wake_remote(int world_rank)
{
    uint64_t now = ghost_now_ns();
    if (now - last_wake[world_rank] < WAKE_INTERVAL_NS)
        return;
    last_wake[world_rank] = now;
    ghost_count_internal(GHOST_INTERNAL_WAKE, 1);
    MPI_Request req;
    if (GHOST_REAL(MPI_Isend)(NULL, 0, MPI_BYTE, world_rank, TAG_WAKE, wake_comm, &req) == MPI_SUCCESS)
        PMPI_Request_free(&req);
}

uint32_t *ghost_doze_begin(int local_ghost, uint32_t *seen, int remote)
{
    uint32_t *bell = &ghost_node_ctl->ghost[local_ghost].doorbell;
    *seen = __atomic_load_n(bell, __ATOMIC_ACQUIRE);
    __atomic_store_n(&ghost_node_ctl->ghost[local_ghost].sleeping, 1, __ATOMIC_SEQ_CST);
    /* One more look at MPI after publishing the flag: an origin that saw
     * the flag clear had issued its operation before it looked
     * (ghost_ring_issued), so this poll finds it. */
    if (ghost_wake_poll() || (remote && !ghost_ucx_wake_arm()) ||
        __atomic_load_n(bell, __ATOMIC_SEQ_CST) != *seen) {
        __atomic_store_n(&ghost_node_ctl->ghost[local_ghost].sleeping, 0, __ATOMIC_RELAXED);
        return NULL;
    }
    return bell;
}

int ghost_doze_end(int local_ghost, uint32_t seen)
{
    __atomic_store_n(&ghost_node_ctl->ghost[local_ghost].sleeping, 0, __ATOMIC_RELAXED);
    return __atomic_load_n(&ghost_node_ctl->ghost[local_ghost].doorbell, __ATOMIC_ACQUIRE) != seen;
}

int ghost_wake_poll(void)
{
    if (wake_req == MPI_REQUEST_NULL)
        GHOST_REAL(MPI_Irecv)(NULL, 0, MPI_BYTE, MPI_ANY_SOURCE, TAG_WAKE, wake_comm, &wake_req);
    int done = 0;
    PMPI_Test(&wake_req, &done, MPI_STATUS_IGNORE);
    return done;
}
