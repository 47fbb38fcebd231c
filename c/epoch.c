/*
 * Synchronization on redirected windows. Every epoch's operations travel on
 * the global window, which stays under lock_all(NOCHECK) for the window's
 * whole life; what each epoch adds:
 *
 *  - lock(t): Ghost's own reader-writer lock word of t (below), taken with
 *    MPI atomics through t's agent. MPI_MODE_NOCHECK takes nothing.
 *  - lock_all: a shared lock on every target's word, so that it still
 *    excludes other origins' exclusive locks. With MPI_MODE_NOCHECK, or when
 *    epochs_used rules out "lock", nothing can conflict and nothing is taken.
 *  - fence: flush the global window, sync memory, barrier on a private
 *    communicator of the users; NOPRECEDE skips the flush, NOSUCCEED closes
 *    the access epoch.
 *  - PSCW: passive mode on the global window, with post and complete
 *    messages on a private communicator, never the application's, under a
 *    tag of this window's own.
 */
#include "agree.h"
#include "counters.h"
#include "local.h"
#include "win.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* PSCW messages on w->pscw, which all windows over one communicator may
 * share: the window's own pair of tags keeps their messages apart. */
#define TAG_POST(w) ((w)->tag)
#define TAG_COMPLETE(w) ((w)->tag + 1)

/* An internal point-to-point operation (lock, unlock, flush, a get, a post
 * or complete message) and an internal collective, counted for the call
 * being served (counters.h) before they are made. */
#define P2P(op) (ghost_count_internal(GHOST_INTERNAL_P2P, 1), (op))
#define COLLECTIVE(op) (ghost_count_internal(GHOST_INTERNAL_COLLECTIVE, 1), (op))

static int valid_target(ghost_win_t *w, int rank)
{
    return rank >= 0 && rank < w->nusers;
}

/* The ghosts of t that hold this origin's operations: all of them when
 * PUT/GET may be spread, else only the bound one. */
static inline int spreads(const ghost_target_t *t)
{
    return ghost_load_policy != GHOST_LOAD_STATIC && t->nghosts > 1;
}

/* Wakes every ghost that holds or will hold this origin's operations to t. */
static void wake_target(const ghost_win_t *w, const ghost_target_t *t)
{
    if (!w->redirect)
        return;
    if (spreads(t)) {
        for (int i = 0; i < t->nghosts; i++)
            ghost_wake(t, i);
    } else {
        ghost_wake(t, t->bound_idx);
    }
}

/* The ghosts of this node that hold this origin's operations to t, as a
 * ghost_waiting_on mask (doorbell.h). */
static unsigned local_ghosts_of(const ghost_win_t *w, const ghost_target_t *t)
{
    unsigned mask = 0;
    if (w->redirect)
        for (int i = 0; i < t->nghosts; i++)
            if (t->ghost_local[i] >= 0)
                mask |= 1u << t->ghost_local[i];
    return mask;
}

/* The targets a flush_all, fence or unlock_all must cover: the touched
 * ones when the window tracks them, else all. Returns how many, in *list
 * (NULL: 0 .. n-1). */
static int covered(const ghost_win_t *w, const int **list)
{
    *list = w->track_touched ? w->touched : NULL;
    return w->track_touched ? w->ntouched : w->nusers;
}
#define COVERED_RANK(list, i) ((list) ? (list)[i] : (i))

/* Starts a new touched list: after a complete flush of the old one. */
static void untouch_all(ghost_win_t *w)
{
    for (int i = 0; i < w->ntouched; i++)
        w->t[w->touched[i]].touched = 0;
    w->ntouched = 0;
}

/* Wakes the ghosts of every target. */
static void wake_all(ghost_win_t *w)
{
    for (int r = 0; r < w->nusers; r++)
        wake_target(w, &w->t[r]);
}

/* Wakes the ghosts of every target whose operations are to be completed. */
static void wake_covered(ghost_win_t *w)
{
    const int *list;
    int n = covered(w, &list);
    for (int i = 0; i < n; i++)
        wake_target(w, &w->t[COVERED_RANK(list, i)]);
}

/* Flushes this origin's operations to t on the global window, wherever
 * they went: t's agent, the node's other ghosts when PUT/GET spread, and the
 * other path of GP and of the hardware bypass (rma.c). */
static int flush_target(ghost_win_t *w, ghost_target_t *t, int (*flush)(int, MPI_Win))
{
    unsigned waiting = ghost_waiting_on;
    ghost_waiting_on |= local_ghosts_of(w, t);
    int main_rank = ghost_anchor(w, t);
    int rc = P2P(flush(main_rank, w->gwin));
    if (rc == MPI_SUCCESS && (ghost_gp_enabled || (ghost_hw_bypass && w->redirect)))
        rc = P2P(flush(main_rank == t->self ? t->bound : t->self, w->gwin));
    if (w->redirect && spreads(t))
        for (int i = 0; i < t->nghosts && rc == MPI_SUCCESS; i++)
            if (t->ghosts[i] != t->bound)
                rc = P2P(flush(t->ghosts[i], w->gwin));
    ghost_waiting_on = waiting;
    return rc;
}

/* Completes this origin's operations on the global window, target by
 * target. MPICH 4.0.2's MPI_Win_flush_all returned there before a large
 * MPI_Get that followed a large accumulate to a busy ghost had landed
 * (test/rma/large_xfer.c); flushing each rank does not. */
static int flush_global(ghost_win_t *w, int (*flush)(int, MPI_Win))
{
    int rc = MPI_SUCCESS;
    const int *list;
    int n = covered(w, &list);
    for (int i = 0; i < n && rc == MPI_SUCCESS; i++)
        rc = flush_target(w, &w->t[COVERED_RANK(list, i)], flush);
    return rc;
}

/* ---- lock words --------------------------------------------------------- */

/*
 * Each target of a redirected window has a lock word: 8 bytes in a cache
 * line of their own after its segment, in the memory its ghosts expose (the
 * node segment) and that it exposes itself. The word counts readers (bits
 * 0-31) and writers waiting (bits 32-61), and bit 62 says a writer holds it.
 *
 * It is only ever touched with MPI atomics on the global window, through one
 * agent per target: the rank ghost_anchor names (the bound ghost when the
 * window is redirected, the target itself when not; the state switches only
 * at points where no lock is held). MPICH applies an atomic inside the
 * agent's progress engine with plain loads and stores, so atomics through
 * two agents, or a CPU atomic beside an MPI one, would not exclude each
 * other; through one agent they are serialized, whichever node the origin
 * is on. That is why an origin on the target's node takes the same MPI path
 * as one on another node.
 *
 *  - shared: add a reader; if a writer holds the word or waits for it, take
 *    the reader back and try again later.
 *  - exclusive: announce a waiting writer (readers that hold nothing then
 *    stay away, so a writer cannot starve), then compare-and-swap "no
 *    readers, no writer" into "writer" (one waiter less).
 *
 * A reader that already holds a lock word defers to no waiting writer: a
 * lock_all holds several shared words, and two of them each waiting behind
 * a writer that waits for the other would deadlock. Readers give way only
 * while they hold nothing.
 *
 * Between tries the origin backs off (exponential, bounded) and drives
 * MPICH's progress, since it is inside an MPI call and its own exposure may
 * be what others wait on (redirection off: the target is its own agent).
 */
#define WORD_READER 1LL
#define WORD_WAITER (1LL << 32)
#define WORD_WRITER (1LL << 62)
#define WORD_READERS 0xffffffffLL

/* Lock words this process holds, on every window: see "defers" above. */
static int words_held;

/* One atomic on t's lock word through the agent, completed. cmp != NULL:
 * compare-and-swap with *add as the new value. */
static int word_atomic(ghost_win_t *w, const ghost_target_t *t, int64_t add, const int64_t *cmp,
                       int64_t *old, MPI_Op op)
{
    unsigned waiting = ghost_waiting_on;
    ghost_waiting_on |= local_ghosts_of(w, t);
    int rc = cmp ? P2P(GHOST_REAL(MPI_Compare_and_swap)(&add, cmp, old, MPI_INT64_T, t->locked_rank,
                                                        t->locked_word, w->gwin))
                 : P2P(GHOST_REAL(MPI_Fetch_and_op)(&add, old, MPI_INT64_T, t->locked_rank,
                                                    t->locked_word, op, w->gwin));
    if (rc == MPI_SUCCESS)
        rc = P2P(GHOST_REAL(MPI_Win_flush)(t->locked_rank, w->gwin));
    ghost_waiting_on = waiting;
    return rc;
}

static inline int word_add(ghost_win_t *w, const ghost_target_t *t, int64_t add, int64_t *old)
{
    return word_atomic(w, t, add, NULL, old, MPI_SUM);
}

/* Waits *delay_ns, driving progress, and doubles it up to a bound: short
 * enough that a released lock is seen soon, long enough that a contended
 * word does not flood its agent with atomics. Then makes sure the agent is
 * awake for the next try (the lock call woke it for the first). */
static void word_backoff(const ghost_win_t *w, const ghost_target_t *t, uint64_t *delay_ns)
{
    uint64_t until = ghost_now_ns() + *delay_ns;
    do {
        int flag;
        GHOST_REAL(MPI_Iprobe)(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        sched_yield();
    } while (ghost_now_ns() < until);
    if (*delay_ns < 256000)
        *delay_ns *= 2;
    if (w->redirect)
        ghost_wake(t, t->bound_idx);
}

/* Takes t's lock word through the agent the window's state names now; it
 * is released through the same one (word_release). */
static int word_acquire(ghost_win_t *w, ghost_target_t *t, int type)
{
    t->locked_rank = ghost_anchor(w, t);
    t->locked_word = ghost_anchor_base(w, t) + t->lock_disp;
    uint64_t delay = 1000;
    int64_t old, cur;
    int rc;
    if (type == MPI_LOCK_SHARED) {
        for (;;) {
            if ((rc = word_add(w, t, WORD_READER, &old)) != MPI_SUCCESS)
                return rc;
            if (!(old & WORD_WRITER) && (!(old & ~WORD_READERS) || __atomic_load_n(&words_held, __ATOMIC_RELAXED)))
                break;
            if ((rc = word_add(w, t, -WORD_READER, &old)) != MPI_SUCCESS)
                return rc;
            word_backoff(w, t, &delay);
        }
    } else {
        if ((rc = word_add(w, t, WORD_WAITER, &old)) != MPI_SUCCESS)
            return rc;
        cur = old + WORD_WAITER;
        for (;;) {
            if (!(cur & (WORD_WRITER | WORD_READERS))) {
                int64_t want = cur - WORD_WAITER + WORD_WRITER;
                if ((rc = word_atomic(w, t, want, &cur, &old, MPI_OP_NULL)) != MPI_SUCCESS)
                    return rc;
                if (old == cur)
                    break;
                cur = old;
                continue;
            }
            word_backoff(w, t, &delay);
            if ((rc = word_atomic(w, t, 0, NULL, &cur, MPI_NO_OP)) != MPI_SUCCESS)
                return rc;
        }
    }
    __atomic_add_fetch(&words_held, 1, __ATOMIC_RELAXED);
    /* Loads and stores of the origin's own segment follow the acquisition. */
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    return MPI_SUCCESS;
}

static int word_release(ghost_win_t *w, ghost_target_t *t, int type)
{
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    int64_t old;
    int rc = word_add(w, t, type == MPI_LOCK_SHARED ? -WORD_READER : -WORD_WRITER, &old);
    __atomic_sub_fetch(&words_held, 1, __ATOMIC_RELAXED);
    return rc;
}

/* Ends this origin's lock epoch on t: its operations complete wherever they
 * went, then the word is released, so the next holder sees them. */
static int unlock_target(ghost_win_t *w, ghost_target_t *t, int type)
{
    int rc = flush_target(w, t, GHOST_REAL(MPI_Win_flush));
    if (!t->nocheck) {
        int rc2 = word_release(w, t, type);
        if (rc == MPI_SUCCESS)
            rc = rc2;
    }
    t->nocheck = 0;
    return rc;
}

/* ---- passive target ----------------------------------------------------- */

/* MPI_Win_lock returns with the lock held (MPI lets a lock block), so a
 * process that locks itself may load and store its segment at once, and
 * PUT/GET to a same-node target may copy directly (rma.c). */
GHOST_DEFINE(MPI_Win_lock, (int lock_type, int rank, int assert, MPI_Win win), (lock_type, rank, assert, win), {
    ghost_win_t *w = ghost_redirected(win);
    if (!w)
        return GHOST_REAL(MPI_Win_lock)(lock_type, rank, assert, win);
    if (w->local)
        return ghost_win_error(w, ghost_local_lock(w, lock_type, rank, assert));
    if (rank == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (!valid_target(w, rank))
        return ghost_win_error(w, MPI_ERR_RANK);
    if (lock_type != MPI_LOCK_SHARED && lock_type != MPI_LOCK_EXCLUSIVE)
        return ghost_win_error(w, MPI_ERR_LOCKTYPE);
    ghost_target_t *t = &w->t[rank];
    if (t->lock_type || w->lockall)
        return ghost_win_error(w, MPI_ERR_RMA_SYNC);
    GHOST_SYNC_CALL(GHOST_CALL_LOCK);
    wake_target(w, t);
    int rc = MPI_SUCCESS;
    /* MPI_MODE_NOCHECK: no other origin holds or will ask for a
     * conflicting lock, so there is nothing to take. */
    t->nocheck = (assert & MPI_MODE_NOCHECK) != 0;
    if (!t->nocheck)
        rc = word_acquire(w, t, lock_type);
    if (rc == MPI_SUCCESS) {
        ghost_count_sync(GHOST_SYNC_LOCK);
        t->lock_type = lock_type;
        __atomic_add_fetch(&w->nlocked, 1, __ATOMIC_RELAXED);
    }
    return ghost_win_error(w, rc);
})

GHOST_DEFINE(MPI_Win_unlock, (int rank, MPI_Win win), (rank, win), {
    ghost_win_t *w = ghost_redirected(win);
    if (!w)
        return GHOST_REAL(MPI_Win_unlock)(rank, win);
    if (w->local)
        return ghost_win_error(w, ghost_local_unlock(w, rank));
    if (rank == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (!valid_target(w, rank))
        return ghost_win_error(w, MPI_ERR_RANK);
    ghost_target_t *t = &w->t[rank];
    if (!t->lock_type)
        return ghost_win_error(w, MPI_ERR_RMA_SYNC);
    GHOST_SYNC_CALL(GHOST_CALL_UNLOCK);
    wake_target(w, t);
    int rc = unlock_target(w, t, t->lock_type);
    t->lock_type = 0;
    if (__atomic_sub_fetch(&w->nlocked, 1, __ATOMIC_RELAXED) == 0 && rc == MPI_SUCCESS)
        ghost_last_unlock(w); /* agree.c */
    return ghost_win_error(w, rc);
})

GHOST_DEFINE(MPI_Win_lock_all, (int assert, MPI_Win win), (assert, win), {
    ghost_win_t *w = ghost_redirected(win);
    if (!w)
        return GHOST_REAL(MPI_Win_lock_all)(assert, win);
    if (w->local)
        return ghost_win_error(w, ghost_local_lock_all(w, assert));
    if (w->lockall || __atomic_load_n(&w->nlocked, __ATOMIC_RELAXED))
        return ghost_win_error(w, MPI_ERR_RMA_SYNC);
    ghost_count_sync(GHOST_SYNC_LOCK_ALL);
    GHOST_SYNC_CALL(GHOST_CALL_LOCK_ALL);
    /* Without "lock" in epochs_used nobody takes an exclusive lock. */
    if ((assert & MPI_MODE_NOCHECK) || !(w->epochs & GHOST_EPOCH_LOCK)) {
        w->lockall = GHOST_LOCKALL_NOCHECK;
        return MPI_SUCCESS;
    }
    int rc = MPI_SUCCESS, r;
    wake_all(w);
    for (r = 0; r < w->nusers && rc == MPI_SUCCESS; r++)
        rc = word_acquire(w, &w->t[r], MPI_LOCK_SHARED);
    if (rc != MPI_SUCCESS) {
        /* Give back what was taken: the epoch did not open. */
        for (int q = 0; q < r - 1; q++)
            word_release(w, &w->t[q], MPI_LOCK_SHARED);
        return ghost_win_error(w, rc);
    }
    w->lockall = GHOST_LOCKALL_LOCKS;
    return MPI_SUCCESS;
})

GHOST_DEFINE(MPI_Win_unlock_all, (MPI_Win win), (win), {
    ghost_win_t *w = ghost_redirected(win);
    if (!w)
        return GHOST_REAL(MPI_Win_unlock_all)(win);
    if (w->local)
        return ghost_win_error(w, ghost_local_unlock_all(w));
    if (!w->lockall)
        return ghost_win_error(w, MPI_ERR_RMA_SYNC);
    GHOST_SYNC_CALL(GHOST_CALL_UNLOCK_ALL);
    wake_covered(w);
    int rc = flush_global(w, GHOST_REAL(MPI_Win_flush));
    for (int r = 0; w->lockall == GHOST_LOCKALL_LOCKS && r < w->nusers; r++) {
        int rc2 = word_release(w, &w->t[r], MPI_LOCK_SHARED);
        if (rc == MPI_SUCCESS)
            rc = rc2;
    }
    w->lockall = GHOST_LOCKALL_NONE;
    if (rc == MPI_SUCCESS) {
        untouch_all(w);
        ghost_ops_complete(w); /* agree.c */
    }
    return ghost_win_error(w, rc);
})

typedef int (*flush_fn)(int, MPI_Win);
typedef int (*flush_all_fn)(MPI_Win);

static int flush_one(MPI_Win win, int rank, flush_fn real)
{
    ghost_win_t *w = ghost_redirected(win);
    if (!w)
        return real(rank, win);
    if (w->local)
        return ghost_win_error(w, ghost_local_flush(w, rank));
    if (rank == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (!valid_target(w, rank))
        return ghost_win_error(w, MPI_ERR_RANK);
    ghost_count_sync(GHOST_SYNC_FLUSH);
    GHOST_SYNC_CALL(GHOST_CALL_FLUSH);
    if (ghost_epoch_of(w, rank) == GHOST_EPOCH_NONE)
        return ghost_win_error(w, MPI_ERR_RMA_SYNC);
    wake_target(w, &w->t[rank]);
    return ghost_win_error(w, flush_target(w, &w->t[rank], real));
}

/* Flushes the global window rank by rank (see flush_global), when this
 * origin holds an epoch on the window. */
static int flush_every(MPI_Win win, flush_fn one, flush_all_fn all)
{
    ghost_win_t *w = ghost_redirected(win);
    if (!w)
        return all(win);
    if (w->local)
        return ghost_win_error(w, ghost_local_flush(w, -1));
    ghost_count_sync(GHOST_SYNC_FLUSH);
    GHOST_SYNC_CALL(GHOST_CALL_FLUSH_ALL);
    int rc = MPI_SUCCESS;
    wake_covered(w);
    if (w->lockall || w->fence_open || w->access_open || __atomic_load_n(&w->nlocked, __ATOMIC_RELAXED) > 0)
        rc = flush_global(w, one);
    /* Only a remote flush completes the operations at their targets. */
    if (rc == MPI_SUCCESS && one == GHOST_REAL(MPI_Win_flush)) {
        untouch_all(w);
        ghost_ops_complete(w); /* agree.c */
    }
    return ghost_win_error(w, rc);
}

GHOST_DEFINE(MPI_Win_flush, (int rank, MPI_Win win), (rank, win), {
    return flush_one(win, rank, GHOST_REAL(MPI_Win_flush));
})

GHOST_DEFINE(MPI_Win_flush_local, (int rank, MPI_Win win), (rank, win), {
    return flush_one(win, rank, GHOST_REAL(MPI_Win_flush_local));
})

GHOST_DEFINE(MPI_Win_flush_all, (MPI_Win win), (win), {
    return flush_every(win, GHOST_REAL(MPI_Win_flush), GHOST_REAL(MPI_Win_flush_all));
})

GHOST_DEFINE(MPI_Win_flush_local_all, (MPI_Win win), (win), {
    return flush_every(win, GHOST_REAL(MPI_Win_flush_local), GHOST_REAL(MPI_Win_flush_local_all));
})

/* The global window is always in a passive epoch, so syncing it is legal at
 * any time; it orders this process's load/stores with RMA on the segment. */
GHOST_DEFINE(MPI_Win_sync, (MPI_Win win), (win), {
    ghost_win_t *w = ghost_redirected(win);
    if (!w)
        return GHOST_REAL(MPI_Win_sync)(win);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (w->local)
        return MPI_SUCCESS;
    return ghost_win_error(w, GHOST_REAL(MPI_Win_sync)(w->gwin));
})

/* ---- active target: fence ----------------------------------------------- */

/* The barrier of a fence or of a symmetric MPI_Win_set_info. Under
 * GHOST_ASYNC=auto it is the ballot (agree.c), an allreduce that costs the
 * same, and *agreed gets the window-wide decision; otherwise -1. */
static int agreeing_barrier(ghost_win_t *w, int *agreed)
{
    *agreed = -1;
    if (!ghost_async_auto)
        return COLLECTIVE(GHOST_REAL(MPI_Barrier)(w->pscw));
    return ghost_ballot(w->pscw, w->nusers, &w->ballot, agreed);
}

GHOST_DEFINE(MPI_Win_fence, (int assert, MPI_Win win), (assert, win), {
    ghost_win_t *w = ghost_redirected(win);
    if (!w)
        return GHOST_REAL(MPI_Win_fence)(assert, win);
    if (w->local)
        return ghost_win_error(w, ghost_local_fence(w, assert));
    ghost_count_sync(GHOST_SYNC_FENCE);
    GHOST_SYNC_CALL(GHOST_CALL_FENCE);
    int rc = MPI_SUCCESS;
    wake_covered(w);
    /* Complete this origin's operations of the epoch that ends here. */
    if (!(assert & MPI_MODE_NOPRECEDE))
        rc = flush_global(w, GHOST_REAL(MPI_Win_flush));
    if (rc == MPI_SUCCESS)
        untouch_all(w);
    /* Publish local stores before others may read, then wait for everyone's
     * operations to be complete, then see what they wrote. */
    if (rc == MPI_SUCCESS)
        rc = GHOST_REAL(MPI_Win_sync)(w->gwin);
    int agreed = -1;
    if (rc == MPI_SUCCESS)
        rc = agreeing_barrier(w, &agreed);
    if (rc == MPI_SUCCESS)
        rc = GHOST_REAL(MPI_Win_sync)(w->gwin);
    /* Every origin's operations of the closed epoch are complete and every
     * rank is past the barrier: the point where a state that all ranks set
     * (MPI_Win_set_info is collective) or agreed can take effect everywhere.
     * What the application asked for wins over the profiling vote. */
    if (w->pending >= 0) {
        ghost_win_set_redirect(w, w->pending, GHOST_POINT_FENCE);
        w->pending = -1;
    } else if (agreed >= 0) {
        ghost_win_set_redirect(w, agreed, GHOST_POINT_FENCE);
    }
    if (agreed >= 0)
        ghost_gp_agreed();
    if (rc == MPI_SUCCESS)
        ghost_ops_complete(w); /* agree.c */
    w->fence_open = !(assert & MPI_MODE_NOSUCCEED);
    return ghost_win_error(w, rc);
})

/* ---- active target: PSCW ------------------------------------------------ */

/* Translates a group into ranks of the window's group. */
static int group_ranks(ghost_win_t *w, MPI_Group group, int *out, int *n)
{
    MPI_Group wgroup;
    int rc = PMPI_Win_get_group(w->user, &wgroup);
    if (rc != MPI_SUCCESS)
        return rc;
    PMPI_Group_size(group, n);
    int *in = malloc(sizeof(int) * (*n > 0 ? *n : 1));
    for (int i = 0; i < *n; i++)
        in[i] = i;
    rc = PMPI_Group_translate_ranks(group, *n, in, wgroup, out);
    free(in);
    PMPI_Group_free(&wgroup);
    for (int i = 0; rc == MPI_SUCCESS && i < *n; i++)
        if (out[i] == MPI_UNDEFINED)
            rc = MPI_ERR_GROUP;
    return rc;
}

GHOST_DEFINE(MPI_Win_post, (MPI_Group group, int assert, MPI_Win win), (group, assert, win), {
    ghost_win_t *w = ghost_redirected(win);
    if (!w)
        return GHOST_REAL(MPI_Win_post)(group, assert, win);
    if (w->nexposure > 0)
        return ghost_win_error(w, MPI_ERR_RMA_SYNC);
    int n;
    int rc = group_ranks(w, group, w->exposure, &n);
    if (rc != MPI_SUCCESS)
        return ghost_win_error(w, rc);
    if (w->local)
        return ghost_win_error(w, ghost_local_post(w, w->exposure, n, assert));
    GHOST_SYNC_CALL(GHOST_CALL_PSCW);
    /* Local stores before the post must be visible to the origins' gets. */
    rc = GHOST_REAL(MPI_Win_sync)(w->gwin);
    for (int i = 0; rc == MPI_SUCCESS && i < n; i++)
        if (!(assert & MPI_MODE_NOCHECK))
            rc = P2P(GHOST_REAL(MPI_Send)(NULL, 0, MPI_BYTE, w->exposure[i], TAG_POST(w), w->pscw));
    w->nexposure = n;
    if (rc == MPI_SUCCESS)
        ghost_count_sync(GHOST_SYNC_POST);
    return ghost_win_error(w, rc);
})

GHOST_DEFINE(MPI_Win_start, (MPI_Group group, int assert, MPI_Win win), (group, assert, win), {
    ghost_win_t *w = ghost_redirected(win);
    if (!w)
        return GHOST_REAL(MPI_Win_start)(group, assert, win);
    if (w->access_open)
        return ghost_win_error(w, MPI_ERR_RMA_SYNC);
    int n;
    int rc = group_ranks(w, group, w->access, &n);
    if (w->local)
        return ghost_win_error(w, rc != MPI_SUCCESS ? rc : ghost_local_start(w, w->access, n, assert));
    GHOST_SYNC_CALL(GHOST_CALL_PSCW);
    for (int i = 0; rc == MPI_SUCCESS && i < n; i++)
        wake_target(w, &w->t[w->access[i]]);
    for (int i = 0; rc == MPI_SUCCESS && i < n; i++)
        if (!(assert & MPI_MODE_NOCHECK))
            rc = GHOST_REAL(MPI_Recv)(NULL, 0, MPI_BYTE, w->access[i], TAG_POST(w), w->pscw,
                                      MPI_STATUS_IGNORE);
    w->naccess = rc == MPI_SUCCESS ? n : 0;
    w->access_open = rc == MPI_SUCCESS;
    if (rc == MPI_SUCCESS)
        ghost_count_sync(GHOST_SYNC_START);
    return ghost_win_error(w, rc);
})

GHOST_DEFINE(MPI_Win_complete, (MPI_Win win), (win), {
    ghost_win_t *w = ghost_redirected(win);
    if (!w)
        return GHOST_REAL(MPI_Win_complete)(win);
    if (w->local)
        return ghost_win_error(w, ghost_local_complete(w));
    if (!w->access_open)
        return ghost_win_error(w, MPI_ERR_RMA_SYNC);
    GHOST_SYNC_CALL(GHOST_CALL_PSCW);
    int rc = MPI_SUCCESS;
    for (int i = 0; i < w->naccess; i++)
        wake_target(w, &w->t[w->access[i]]);
    for (int i = 0; rc == MPI_SUCCESS && i < w->naccess; i++)
        rc = flush_target(w, &w->t[w->access[i]], GHOST_REAL(MPI_Win_flush));
    for (int i = 0; rc == MPI_SUCCESS && i < w->naccess; i++)
        rc = P2P(GHOST_REAL(MPI_Send)(NULL, 0, MPI_BYTE, w->access[i], TAG_COMPLETE(w), w->pscw));
    w->naccess = 0;
    w->access_open = 0;
    return ghost_win_error(w, rc);
})

/* Receives the complete messages that have arrived; with block, all of them. */
static int collect_completes(ghost_win_t *w, int block)
{
    int rc = MPI_SUCCESS;
    while (w->nexposure > 0 && rc == MPI_SUCCESS) {
        int origin = w->exposure[w->nexposure - 1];
        if (!block) {
            int arrived = 0;
            rc = GHOST_REAL(MPI_Iprobe)(origin, TAG_COMPLETE(w), w->pscw, &arrived, MPI_STATUS_IGNORE);
            if (rc != MPI_SUCCESS || !arrived)
                break;
        }
        rc = GHOST_REAL(MPI_Recv)(NULL, 0, MPI_BYTE, origin, TAG_COMPLETE(w), w->pscw,
                                  MPI_STATUS_IGNORE);
        if (rc == MPI_SUCCESS)
            w->nexposure--;
    }
    if (rc == MPI_SUCCESS && w->nexposure == 0)
        rc = GHOST_REAL(MPI_Win_sync)(w->gwin); /* see what the origins wrote */
    return rc;
}

GHOST_DEFINE(MPI_Win_wait, (MPI_Win win), (win), {
    ghost_win_t *w = ghost_redirected(win);
    if (!w)
        return GHOST_REAL(MPI_Win_wait)(win);
    int done;
    if (w->local)
        return ghost_win_error(w, ghost_local_wait(w, 1, &done));
    GHOST_SYNC_CALL(GHOST_CALL_PSCW);
    return ghost_win_error(w, collect_completes(w, 1));
})

GHOST_DEFINE(MPI_Win_test, (MPI_Win win, int *flag), (win, flag), {
    ghost_win_t *w = ghost_redirected(win);
    if (!w)
        return GHOST_REAL(MPI_Win_test)(win, flag);
    if (w->local)
        return ghost_win_error(w, ghost_local_wait(w, 0, flag));
    GHOST_SYNC_CALL(GHOST_CALL_PSCW);
    int rc = collect_completes(w, 0);
    *flag = (rc == MPI_SUCCESS && w->nexposure == 0);
    return ghost_win_error(w, rc);
})

/* ---- window objects ----------------------------------------------------- */

GHOST_DEFINE(MPI_Win_free, (MPI_Win *win), (win), {
    ghost_win_t *w = ghost_win_find(*win);
    if (!w)
        return GHOST_REAL(MPI_Win_free)(win);
    if (w->plain)
        return ghost_win_free_plain(w, win);
    if (w->local)
        return ghost_local_win_free(w, win);
    return ghostWinFree(win);
})

/* A node-local window's segments are all mapped here, in the node arena or
 * in a shared window (local.c): answer from Ghost's record, with the size
 * each owner asked for, not the one with its control block. Other windows
 * are MPICH's answer. */
static int shared_query(MPI_Win win, int rank, MPI_Aint *size, MPI_Aint *disp_unit, void *baseptr,
                        int (*real)(MPI_Win, int, MPI_Aint *, MPI_Aint *, void *))
{
    ghost_win_t *w = ghost_win_find(win);
    if (!w || !w->local)
        return real(win, rank, size, disp_unit, baseptr);
    if (rank == MPI_PROC_NULL) {
        rank = 0;
        while (rank < w->nusers - 1 && w->t[rank].size == 0)
            rank++;
    }
    if ((unsigned)rank >= (unsigned)w->nusers)
        return ghost_win_error(w, MPI_ERR_RANK);
    *size = w->t[rank].size;
    *disp_unit = w->t[rank].disp_unit;
    *(void **)baseptr = w->t[rank].addr;
    return MPI_SUCCESS;
}

static int real_shared_query(MPI_Win win, int rank, MPI_Aint *size, MPI_Aint *disp_unit, void *baseptr)
{
    int du;
    int rc = GHOST_REAL(MPI_Win_shared_query)(win, rank, size, &du, baseptr);
    *disp_unit = du;
    return rc;
}

GHOST_DEFINE(MPI_Win_shared_query, (MPI_Win win, int rank, MPI_Aint *size, int *disp_unit, void *baseptr),
             (win, rank, size, disp_unit, baseptr), {
                 MPI_Aint du = 0;
                 int rc = shared_query(win, rank, size, &du, baseptr, real_shared_query);
                 *disp_unit = (int)du;
                 return rc;
             })

GHOST_DEFINE(MPI_Win_shared_query_c, (MPI_Win win, int rank, MPI_Aint *size, MPI_Aint *disp_unit, void *baseptr),
             (win, rank, size, disp_unit, baseptr), {
                 return shared_query(win, rank, size, disp_unit, baseptr, GHOST_REAL(MPI_Win_shared_query_c));
             })

/* The flavor and the memory model are those of the window the application
 * asked for. A redirected or node-local window's handle may be a dynamic
 * window, whose base, size and disp_unit MPICH does not know, and a plain
 * window's size was rounded up for alignment: Ghost answers for the memory
 * the application asked for (ghost_win_attr). */
GHOST_DEFINE(MPI_Win_get_attr, (MPI_Win win, int keyval, void *attribute_val, int *flag), (win, keyval, attribute_val, flag), {
    ghost_win_t *w = ghost_win_find(win);
    if (w && ghost_win_attr(w, keyval, attribute_val, flag))
        return MPI_SUCCESS;
    return GHOST_REAL(MPI_Win_get_attr)(win, keyval, attribute_val, flag);
})

/* async_config switches redirection: at the next fence, or inside the call
 * with symmetric=true, where the application promises that all its
 * operations are complete and that every rank calls it. The barrier comes
 * before the switch, so no origin can use the new path while another may
 * still be using the old one: every accumulate to a target keeps one path. */
GHOST_DEFINE(MPI_Win_set_info, (MPI_Win win, MPI_Info info), (win, info), {
    int rc = GHOST_REAL(MPI_Win_set_info)(win, info);
    ghost_win_t *w = ghost_win_find(win);
    if (rc != MPI_SUCCESS || !w)
        return rc;
    char value[16], sym[8];
    int flag = 0, symmetric = 0;
    ghost_info_get(info, "async_config", value, sizeof value, &flag);
    ghost_info_get(info, "symmetric", sym, sizeof sym, &symmetric);
    symmetric = symmetric && strcmp(sym, "true") == 0;
    if (!flag) {
        /* symmetric=true alone is an agreement point for the profiling. */
        if (symmetric && ghost_async_auto && !w->plain && !w->local) {
            int agreed;
            rc = agreeing_barrier(w, &agreed);
            if (rc == MPI_SUCCESS) {
                ghost_win_set_redirect(w, agreed, GHOST_POINT_SET_INFO);
                ghost_gp_agreed();
            }
        }
        return ghost_win_error(w, rc);
    }
    int on = strcmp(value, "on") == 0, off = strcmp(value, "off") == 0;
    if (!on && !off) {
        static int told;
        if (!__atomic_exchange_n(&told, 1, __ATOMIC_RELAXED))
            fprintf(stderr, "ghost: warning: MPI_Win_set_info: async_config=\"%s\" is not valid: "
                            "accepted values are on or off; ignored\n", value);
        return rc;
    }
    if (w->local) /* served in shared memory: there is no redirection to switch */
        return rc;
    if (w->plain) {
        static int told_plain;
        if (on && !__atomic_exchange_n(&told_plain, 1, __ATOMIC_RELAXED))
            fprintf(stderr, "ghost: warning: MPI_Win_set_info: async_config=on on a window allocated "
                            "with redirection off has no effect; allocate it with async_config=on\n");
        return rc;
    }
    if (symmetric) {
        rc = GHOST_REAL(MPI_Barrier)(w->pscw);
        ghost_win_set_redirect(w, on, GHOST_POINT_SET_INFO);
        w->pending = -1;
    } else {
        w->pending = on;
    }
    return ghost_win_error(w, rc);
})

/* Adds Ghost's own hints to what MPICH reports. */
GHOST_DEFINE(MPI_Win_get_info, (MPI_Win win, MPI_Info *info_used), (win, info_used), {
    int rc = GHOST_REAL(MPI_Win_get_info)(win, info_used);
    ghost_win_t *w = ghost_win_find(win);
    if (rc != MPI_SUCCESS || !w)
        return rc;
    PMPI_Info_set(*info_used, "async_config", (!w->plain && w->redirect) ? "on" : "off");
    if (!w->plain) {
        static const char *names[] = {"lock", "lockall", "fence", "pscw"};
        char epochs[40] = "";
        for (int i = 0; i < 4; i++)
            if (w->epochs & (1 << i)) {
                if (epochs[0])
                    strcat(epochs, ",");
                strcat(epochs, names[i]);
            }
        PMPI_Info_set(*info_used, "epochs_used", epochs);
        PMPI_Info_set(*info_used, "no_local_load_store", w->no_local_load_store ? "true" : "false");
    }
    return rc;
})
