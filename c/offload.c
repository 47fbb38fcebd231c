/*
 * Ghost-offloaded switching of PUT/GET (GP).
 *
 * Collective agreement happens only where every rank is present (fences,
 * allocation, symmetric set_info), which some programs rarely reach. For
 * PUT/GET, which MPI does not order and whose atomicity does not depend on
 * a single path, each origin may decide per target instead: a target that
 * itself predicts redirection off is busy communicating and so makes
 * progress on its own, and one that predicts on is computing and needs its
 * ghost.
 *
 * Every user writes its latest prediction into its node's L2 table in
 * shared memory. Every GHOST_GSYNC_INT the node's sync ghost (its first
 * ghost) exchanges the node's entries with the other sync ghosts through
 * MPI_Iallgather, writes the merged table back and bumps the generation.
 * Users keep a private L1 copy and reload it when the generation moves: one
 * load of a shared word per PUT/GET.
 */
#include "agree.h"
#include "offload.h"

#include <stdlib.h>
#include <string.h>

int ghost_gp_enabled = 0;

static MPI_Win l2_win = MPI_WIN_NULL;
static struct {
    uint8_t *mine, *merged;       /* by world rank, in the shared block */
} l2;
static uint32_t *l2_generation;   /* in the shared block */
static int64_t *l2_last_agreement;
static int world_size, world_rank;

static uint8_t *l1;               /* user: private copy of merged */
static uint32_t l1_generation;

static MPI_Comm sync_comm = MPI_COMM_NULL;
/* The same processes, for agreeing at teardown while an exchange may still
 * be outstanding on sync_comm (collectives on one communicator must come in
 * the same order everywhere). */
static MPI_Comm sync_count_comm = MPI_COMM_NULL;
static MPI_Request sync_req = MPI_REQUEST_NULL;
static long sync_started; /* exchanges this sync ghost has started */
static uint8_t *sync_send, *sync_recv;
static int sync_nodes;

int ghost_gp_setup(MPI_Comm node, int local_rank, MPI_Comm world_dup, int is_sync_ghost)
{
    PMPI_Comm_size(world_dup, &world_size);
    PMPI_Comm_rank(world_dup, &world_rank);
    MPI_Aint header = 64;
    char *block;
    int rc = ghost_node_block(node, local_rank, header + 2 * (MPI_Aint)world_size, &l2_win, &block);
    if (rc != MPI_SUCCESS)
        return rc;
    l2_generation = (uint32_t *)block;
    l2_last_agreement = (int64_t *)(block + 8);
    l2.mine = (uint8_t *)block + header;
    l2.merged = l2.mine + world_size;
    if (local_rank == 0)
        memset(block, 0, header + 2 * (size_t)world_size);
    l1 = calloc(world_size, 1);
    l1_generation = 0;

    /* The sync ghosts' communicator; every process takes part in the split. */
    rc = PMPI_Comm_split(world_dup, is_sync_ghost ? 0 : MPI_UNDEFINED, world_rank, &sync_comm);
    if (rc == MPI_SUCCESS && is_sync_ghost) {
        rc = PMPI_Comm_dup(sync_comm, &sync_count_comm);
        PMPI_Comm_size(sync_comm, &sync_nodes);
        sync_send = malloc(world_size);
        sync_recv = malloc((size_t)world_size * sync_nodes);
    }
    if (rc == MPI_SUCCESS)
        rc = ghost_real_barrier(node);
    return rc;
}

static int post_exchange(void)
{
    int rc = GHOST_REAL(MPI_Iallgather)(sync_send, world_size, MPI_BYTE, sync_recv, world_size, MPI_BYTE,
                                        sync_comm, &sync_req);
    if (rc == MPI_SUCCESS)
        sync_started++;
    return rc == MPI_SUCCESS;
}

int ghost_gp_teardown(void)
{
    /* Each sync ghost starts exchanges on its own timer (and skips some), so
     * when their users are done one may have started an exchange that
     * another never will, and waiting for it would hang. A collective cannot
     * be cancelled: they agree on the most exchanges any of them started,
     * start the ones they lack, and then every one completes. */
    if (sync_count_comm != MPI_COMM_NULL) {
        long most = sync_started;
        GHOST_REAL(MPI_Allreduce)(&sync_started, &most, 1, MPI_LONG, MPI_MAX, sync_count_comm);
        while (sync_started < most) {
            if (sync_req != MPI_REQUEST_NULL)
                PMPI_Wait(&sync_req, MPI_STATUS_IGNORE);
            if (!post_exchange())
                break;
        }
        PMPI_Comm_free(&sync_count_comm);
    }
    if (sync_req != MPI_REQUEST_NULL)
        PMPI_Wait(&sync_req, MPI_STATUS_IGNORE);
    if (sync_comm != MPI_COMM_NULL)
        PMPI_Comm_free(&sync_comm);
    free(sync_send);
    free(sync_recv);
    free(l1);
    sync_send = sync_recv = l1 = NULL;
    return GHOST_REAL(MPI_Win_free)(&l2_win);
}

void ghost_gp_publish(int vote)
{
    if (l2.mine)
        __atomic_store_n(&l2.mine[world_rank], vote ? GHOST_VOTE_ON : GHOST_VOTE_OFF, __ATOMIC_RELAXED);
}

void ghost_gp_agreed(void)
{
    if (l2_last_agreement)
        __atomic_store_n(l2_last_agreement, (int64_t)ghost_now_ns(), __ATOMIC_RELAXED);
}

int ghost_gp_vote_of(int rank)
{
    uint32_t g = __atomic_load_n(l2_generation, __ATOMIC_ACQUIRE);
    if (g != __atomic_load_n(&l1_generation, __ATOMIC_RELAXED)) {
        for (int r = 0; r < world_size; r++)
            l1[r] = __atomic_load_n(&l2.merged[r], __ATOMIC_RELAXED);
        __atomic_store_n(&l1_generation, g, __ATOMIC_RELAXED);
    }
    return l1[rank];
}

int ghost_gp_start(int64_t skip_if_agreed_within_ns)
{
    if (sync_comm == MPI_COMM_NULL || sync_req != MPI_REQUEST_NULL)
        return 0;
    int64_t agreed = __atomic_load_n(l2_last_agreement, __ATOMIC_RELAXED);
    if (agreed && (int64_t)ghost_now_ns() - agreed < skip_if_agreed_within_ns)
        return 0;
    for (int r = 0; r < world_size; r++)
        sync_send[r] = __atomic_load_n(&l2.mine[r], __ATOMIC_RELAXED);
    return post_exchange();
}

int ghost_gp_test(void)
{
    if (sync_req == MPI_REQUEST_NULL)
        return 0;
    int done = 0;
    PMPI_Test(&sync_req, &done, MPI_STATUS_IGNORE);
    if (!done)
        return 0;
    /* Each rank's entry is set by its own node only: merge by taking it. */
    for (int r = 0; r < world_size; r++) {
        uint8_t v = GHOST_VOTE_UNKNOWN;
        for (int n = 0; n < sync_nodes; n++)
            if (sync_recv[(size_t)n * world_size + r] != GHOST_VOTE_UNKNOWN)
                v = sync_recv[(size_t)n * world_size + r];
        __atomic_store_n(&l2.merged[r], v, __ATOMIC_RELAXED);
    }
    __atomic_add_fetch(l2_generation, 1, __ATOMIC_RELEASE);
    return 1;
}
