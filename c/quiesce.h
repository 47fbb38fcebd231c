/*
 * Switching a window outside collectives (GHOST_ASYNC=auto): quiesce.c says
 * how, docs/design.md ("Switching where the program never meets") why.
 */
#ifndef GHOST_QUIESCE_H_INCLUDED
#define GHOST_QUIESCE_H_INCLUDED

#include "win.h"

/* A user's quiescence words, in the cache line of its lock word (lock.c),
 * GHOST_QLINE_OFFSET bytes after the word: node shared memory that its
 * ghosts expose too, cleared before the window exists. The coordinator of
 * an attempt alone writes ann, dec and commit, the user alone acked;
 * attempt is used in window rank 0's line only, and only with MPI atomics
 * through rank 0's bound ghost, so that they exclude each other. */
typedef struct ghost_qline {
    int32_t ann;     /* the latest attempt announced: (attempt << 1) | proposed state */
    int32_t dec;     /* the latest attempt decided */
    int32_t acked;   /* the latest attempt this user is quiet for and waits on, or minus the latest it declined */
    int32_t commit;  /* the latest attempt committed: (attempt << 1) | its state */
    int64_t attempt; /* rank 0's: 2 * attempts begun, + 1 while one runs */
    int32_t weight;  /* what the evidence for the latest commit weighed, per mille; written before commit */
    int32_t unused;
} ghost_qline_t;
enum { GHOST_QLINE_OFFSET = 32 };
_Static_assert(GHOST_QLINE_OFFSET + sizeof(ghost_qline_t) <= SEGMENT_ALIGN,
               "the quiescence words share the lock word's line");

/* GHOST_TEST_FAULT=quiesce_flip:D, for Ghost's tests: every process
 * coordinates a switch to the other state at most every D (ticks) after
 * its flushes, whatever its stalls; 0 off. */
extern uint64_t ghost_quiesce_flip_ticks;
/* adapt.QuiescePolicy in ticks (set at MPI_Init, shim/adapt.go). */
extern uint64_t ghost_quiesce_evidence_ticks, ghost_quiesce_glimpse_ticks, ghost_quiesce_early_ticks,
    ghost_quiesce_deadline_ticks, ghost_quiesce_backoff_max_ticks;
extern int ghost_quiesce_stall_permille;

/* At MPI_Win_allocate (shim/win.go), once the window's fields are set. */
void ghost_quiesce_start(ghost_win_t *w);

/* Answers an announced attempt: called at the start of every RMA operation
 * on a window that takes part, when its ann moved since the last answer.
 * A quiet process acknowledges and waits for the decision. */
void ghost_quiesce_answer(ghost_win_t *w);
static inline int ghost_quiesce_asked(const ghost_win_t *w)
{
    return __builtin_expect(w->quiesce, 0) && __atomic_load_n(&w->qline->ann, __ATOMIC_ACQUIRE) != w->q_seen;
}
static inline void ghost_quiesce_check(ghost_win_t *w)
{
    if (ghost_quiesce_asked(w))
        ghost_quiesce_answer(w);
}

/* Waits for req, the collective of an MPI_Barrier (agree.c), answering
 * announcements on the n windows of wins meanwhile. A process waiting at a
 * barrier issues nothing: where it has nothing in flight on a window it is
 * as quiet as inside an RMA call, and a neighbour that keeps issuing
 * through the ghost before it reaches the barrier could otherwise never
 * switch. The barrier's agreement (agree.c) cannot interleave: it needs
 * every rank of a concerned window inside the barrier, and a coordinator
 * coordinates before it enters. */
int ghost_quiesce_wait(MPI_Request *req, ghost_win_t **wins, int n);

/* After a flush on a window that takes part: coordinates a switch when
 * this process's stalls on the direct path call for redirection, or what
 * its redirected operations cost over the direct path calls for that. */
void ghost_quiesce_consider(ghost_win_t *w);

/* The window passed an agreement point: the stall evidence starts over. */
void ghost_quiesce_restart(ghost_win_t *w);

#endif
