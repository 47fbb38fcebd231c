/* Ghost-offloaded switching of PUT/GET (GP): see offload.c. */
#ifndef GHOST_OFFLOAD_H_INCLUDED
#define GHOST_OFFLOAD_H_INCLUDED

#include "ghost.h"

/* Votes in the tables: what a process last predicted for itself. */
enum { GHOST_VOTE_UNKNOWN = 0, GHOST_VOTE_OFF = 1, GHOST_VOTE_ON = 2 };

/* The node's L2 table lives in shared memory (see offload.c); every user
 * writes its own entry, the node's sync ghost the merged table of the job. */

extern int ghost_gp_enabled; /* GHOST_ASYNC=auto with GHOST_GSYNC_INT > 0 */

/* Collective over the node (users and ghosts) and, for the exchange, over
 * the sync ghosts of all nodes: world_dup is split here. */
int ghost_gp_setup(MPI_Comm node, int local_rank, MPI_Comm world_dup, int is_sync_ghost);
int ghost_gp_teardown(void);

/* User side. */
void ghost_gp_publish(int vote);     /* at the end of each profiling interval */
void ghost_gp_agreed(void);          /* at each window-wide agreement */
int ghost_gp_vote_of(int world_rank); /* the L1 copy, reloaded when L2 changed */

/* Sync ghost side: start an exchange if none is running; test it; returns
 * 1 when one completed and the node's table was updated. */
int ghost_gp_start(int64_t skip_if_agreed_within_ns);
int ghost_gp_test(void);

#endif
