/*
 * The command channel between user processes and the ghosts of their node:
 * a command (window allocate or free, a user's finalize) and its payload,
 * on a private node communicator, with a doorbell ring for a sleeping
 * ghost; and the ghost's pass over all of its channels (ghost_poll_pass).
 */
#include "doorbell.h"
#include "counters.h"
#include "ghost.h"
#include "offload.h"

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

/* One call from Go per pass of the ghost's loop, not one per channel: an
 * empty pass is most of what a spinning ghost does, and each cgo call
 * costs about as much as a channel's poll (docs/design.md, "The ghost's
 * poll pass"). The channels are read in the order the loop needs: a node
 * whose users are gone ends the ghost before anything else. */
int ghost_poll_pass(int gsync, int64_t gp_start_ns, ghost_cmd_t *cmd, int *from)
{
    if (ghost_life_gone())
        return GHOST_PASS_GONE;
    int got = 0;
    if (gsync) {
        if (ghost_gp_test())
            got |= GHOST_PASS_EXCHANGED;
        if (gp_start_ns >= 0)
            ghost_gp_start(gp_start_ns);
    }
    if (ghost_wake_poll())
        got |= GHOST_PASS_WOKEN;
    if (ghost_ctl_poll(cmd, from))
        got |= GHOST_PASS_COMMAND;
    if (ghost_progressed())
        got |= GHOST_PASS_PROGRESSED;
    return got;
}
