/* Waking sleeping ghosts: see doorbell.c. */
#ifndef GHOST_DOORBELL_H_INCLUDED
#define GHOST_DOORBELL_H_INCLUDED

#include "ghost.h" /* GHOST_MAX_NG, from c/zconst.h */

#include <time.h>

/* One per node, in shared memory. Each ghost's words sit on their own cache
 * line so that origins reading one ghost's flag never share a line with
 * another ghost's futex traffic. */
typedef struct {
    struct {
        int sleeping;
        uint32_t doorbell;
        char pad[56];
    } ghost[GHOST_MAX_NG];
} ghost_node_ctl_t;

extern ghost_node_ctl_t *ghost_node_ctl; /* NULL before setup and with GHOST_NG=0 */
extern int ghost_node_ghosts;            /* this node's ghosts: the entries of ghost_node_ctl in use */

/* Whether some ghost of this node is awake: serving, or polling before it
 * sleeps. 0 before setup and with GHOST_NG=0. */
int ghost_node_ghost_awake(void);

/* Collective over the node's processes (users and ghosts). */
int ghost_doorbell_setup(MPI_Comm node, int local_rank, MPI_Comm world_dup);
int ghost_doorbell_teardown(void);

void ghost_ring_slow(int local_ghost);
/* The futex system call, for words in node shared memory (life.c too). */
long ghost_futex(uint32_t *addr, int op, uint32_t val, const struct timespec *timeout);

/* Origin side, on every redirected operation to a ghost of this node:
 * before the operation is issued, so that a sleeping ghost wakes while the
 * operation travels. That look alone can miss a ghost that falls asleep
 * between it and the operation's arrival; ghost_ring_issued closes that. */
static inline void ghost_ring(int local_ghost)
{
    if (__builtin_expect(__atomic_load_n(&ghost_node_ctl->ghost[local_ghost].sleeping, __ATOMIC_RELAXED), 0))
        ghost_ring_slow(local_ghost);
}

/* Origin side, once an operation to a ghost of this node has been issued.
 * The ghost publishes its flag (sequentially consistent) and then polls
 * MPI once more before it sleeps; the origin issues, then looks at the
 * flag after a full fence. One of the two sees the other: either the
 * ghost's last poll finds the operation, or the origin rings. */
static inline void ghost_ring_issued(int local_ghost)
{
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    ghost_ring(local_ghost);
}

/* The ghosts of this node that this thread waits on inside a blocking MPI
 * call (bit i: local ghost i), set by the epoch calls around their flushes
 * and unlocks. While it is non-zero, every pass of MPICH's progress loop
 * (c/politeness.c) rings those of them that sleep: an operation or a lock
 * that needs several exchanges with the ghost must not wait for the
 * ghost's next timed wake at each step. */
extern __thread unsigned ghost_waiting_on;
static inline void ghost_ring_waited(void)
{
    for (unsigned m = ghost_waiting_on; m; m &= m - 1)
        ghost_ring(__builtin_ctz(m));
}

/* Origin side, from epoch calls, for a ghost on another node. */
void ghost_wake_remote(int world_rank);

/* Ghost side, a doze in three steps (shim/ghost.go): ghost_doze_begin
 * publishes the sleeping flag and polls MPI once more; with remote, it asks
 * that traffic from another node ring the doorbell too (ucxwake.c). It
 * returns the doorbell to wait on with FUTEX_WAIT against *seen, or NULL
 * when an origin, a wake message or other traffic came already (then there
 * is nothing to wait for). ghost_doze_end clears the flag and says whether
 * the doorbell rang. */
uint32_t *ghost_doze_begin(int local_ghost, uint32_t *seen, int remote);
int ghost_doze_end(int local_ghost, uint32_t seen);
/* Ghost side: 1 when a wake message from another node arrived. */
int ghost_wake_poll(void);

/* Ghost side, MPICH over UCX (ucxwake.c): traffic from another node ends a
 * doze as a local origin's ring does. ghost_ucx_wake_setup starts the
 * thread that rings local ghost local_ghost's doorbell when UCX signals
 * traffic, and says whether it could (0: no UCX, or UCX without events;
 * then such traffic waits for the ghost's timed wake). ghost_doze_begin
 * arms UCX through ghost_ucx_wake_arm, which returns 0 when traffic is
 * already pending (no doze then), and 1 without setup. */
int ghost_ucx_wake_setup(int local_ghost);
int ghost_ucx_wake_arm(void);
unsigned long ghost_ucx_wake_rings(void); /* the rings so far */
void ghost_ucx_wake_teardown(void);

#endif
