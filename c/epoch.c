/*
 * Synchronization on redirected windows, translated onto the internal ones:
 *
 *  - lock(t): a lock on t's bound ghost in lock window slot(t). All targets
 *    of a node share their ghosts, and MPI allows one lock per origin per
 *    rank and window, so each local user gets its own lock window.
 *  - lock_all: a shared lock per target on those same windows, so that it
 *    still excludes other origins' exclusive locks. With MPI_MODE_NOCHECK,
 *    or when epochs_used rules out "lock", nothing can conflict and the
 *    global window, locked for the window's whole life, is used instead.
 *  - fence: flush the global window, sync memory, barrier on a private
 *    communicator of the users; NOPRECEDE skips the flush, NOSUCCEED closes
 *    the access epoch.
 *  - PSCW: passive mode on the global window, with post and complete
 *    messages on a private communicator, never the application's.
 */
#include "agree.h"
#include "counters.h"
#include "local.h"
#include "win.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { TAG_POST = 1, TAG_COMPLETE = 2 };

/* An internal point-to-point operation (lock, unlock, flush, a get, a post
 * or complete message) and an internal collective, counted for the call
 * being served (counters.h) before they are made. */
#define P2P(op) (ghost_count_internal(GHOST_INTERNAL_P2P, 1), (op))
#define COLLECTIVE(op) (ghost_count_internal(GHOST_INTERNAL_COLLECTIVE, 1), (op))

/* Lock windows exist only when epochs_used includes "lock". */
static int require_lock_windows(ghost_win_t *w, const char *call)
{
    if (w->lwin)
        return MPI_SUCCESS;
    static int told;
    if (!__atomic_exchange_n(&told, 1, __ATOMIC_RELAXED))
        fprintf(stderr, "ghost: error: %s on a window whose epochs_used info hint excludes "
                        "\"lock\"; add lock to epochs_used or leave the hint unset\n", call);
    return MPI_ERR_RMA_SYNC;
}

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

/* Takes the extra locks that let PUT/GET spread over t's node: shared and
 * NOCHECK on the other ghosts, because the bound ghost's lock, granted
 * first, already gives the exclusion. */
static int lock_others(ghost_win_t *w, ghost_target_t *t, MPI_Win iw)
{
    int rc = MPI_SUCCESS;
    t->spread_locked = w->redirect && spreads(t);
    if (t->spread_locked)
        for (int i = 0; i < t->nghosts && rc == MPI_SUCCESS; i++)
            if (t->ghosts[i] != t->bound)
                rc = P2P(GHOST_REAL(MPI_Win_lock)(MPI_LOCK_SHARED, t->ghosts[i], MPI_MODE_NOCHECK, iw));
    return rc;
}

/* Takes t's main lock on the rank the current state says, and the extra
 * ones that let PUT/GET spread. */
static int lock_target(ghost_win_t *w, ghost_target_t *t, int lock_type, int assert, MPI_Win iw)
{
    t->locked_rank = ghost_anchor(w, t);
    int rc = P2P(GHOST_REAL(MPI_Win_lock)(lock_type, t->locked_rank, assert, iw));
    if (rc == MPI_SUCCESS)
        rc = lock_others(w, t, iw);
    return rc;
}

/* Releases t's locks. The operations spread to the other ghosts complete
 * first: only then may the bound ghost's lock, which is what excludes other
 * origins, be released. */
static int unlock_target(ghost_win_t *w, ghost_target_t *t, MPI_Win iw)
{
    unsigned waiting = ghost_waiting_on;
    ghost_waiting_on |= local_ghosts_of(w, t);
    int rc = MPI_SUCCESS;
    if (t->spread_locked)
        for (int i = 0; i < t->nghosts; i++)
            if (t->ghosts[i] != t->bound) {
                int rc2 = P2P(GHOST_REAL(MPI_Win_unlock)(t->ghosts[i], iw));
                if (rc == MPI_SUCCESS)
                    rc = rc2;
            }
    int rc2 = P2P(GHOST_REAL(MPI_Win_unlock)(t->locked_rank, iw));
    t->spread_locked = 0;
    ghost_waiting_on = waiting;
    return rc == MPI_SUCCESS ? rc2 : rc;
}

/* Flushes t's operations on iw, wherever they went. A completed remote
 * flush also proves t's main lock granted; a local one does not (MPICH may
 * hold the operations until the lock comes, and complete them locally
 * before). */
static int flush_target(ghost_win_t *w, ghost_target_t *t, MPI_Win iw, int (*flush)(int, MPI_Win))
{
    unsigned waiting = ghost_waiting_on;
    ghost_waiting_on |= local_ghosts_of(w, t);
    int locked = ghost_in_lock_epoch(w, t);
    int main_rank = locked ? t->locked_rank : ghost_anchor(w, t);
    int rc = P2P(flush(main_rank, iw));
    /* GP's other path and the hardware bypass exist in the global window
     * only (see rma.c). */
    if (rc == MPI_SUCCESS && !locked && (ghost_gp_enabled || (ghost_hw_bypass && w->redirect)))
        rc = P2P(flush(main_rank == t->self ? t->bound : t->self, iw));
    int spread = locked ? t->spread_locked : (w->redirect && spreads(t));
    if (spread)
        for (int i = 0; i < t->nghosts && rc == MPI_SUCCESS; i++)
            if (t->ghosts[i] != t->bound)
                rc = P2P(flush(t->ghosts[i], iw));
    if (rc == MPI_SUCCESS && flush == GHOST_REAL(MPI_Win_flush))
        __atomic_store_n(&t->granted, 1, __ATOMIC_RELEASE);
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
        rc = flush_target(w, &w->t[COVERED_RANK(list, i)], w->gwin, flush);
    return rc;
}

/* After locking itself, a process may load and store its own segment, so
 * the lock must really be held when MPI_Win_lock returns; MPICH may take
 * locks lazily, at the first operation. A 1-byte get flushed at once forces
 * it. */
static int force_self_lock(ghost_win_t *w, ghost_target_t *t, MPI_Win iw)
{
    if (w->no_local_load_store || t->size == 0)
        return MPI_SUCCESS;
    char scratch;
    int rc = P2P(GHOST_REAL(MPI_Get)(&scratch, 1, MPI_BYTE, t->locked_rank, ghost_anchor_base(w, t), 1,
                                     MPI_BYTE, iw));
    if (rc == MPI_SUCCESS)
        rc = flush_target(w, t, iw, GHOST_REAL(MPI_Win_flush));
    return rc;
}

/* ---- passive target ----------------------------------------------------- */

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
    int rc = require_lock_windows(w, "MPI_Win_lock");
    if (rc != MPI_SUCCESS)
        return ghost_win_error(w, rc);
    GHOST_SYNC_CALL(GHOST_CALL_LOCK);
    ghost_target_t *t = &w->t[rank];
    MPI_Win iw = w->lwin[t->slot];
    wake_target(w, t);
    /* MPI_MODE_NOCHECK is only a hint, and MPICH 4.0.2 hangs a later
     * exclusive lock on a rank that has seen a NOCHECK lock and an ordinary
     * one from the same origin: the internal lock window always gets a real
     * lock. */
    rc = lock_target(w, t, lock_type, assert & ~MPI_MODE_NOCHECK, iw);
    if (rc == MPI_SUCCESS) {
        ghost_count_sync(GHOST_SYNC_LOCK);
        t->granted = (assert & MPI_MODE_NOCHECK) != 0;
        t->lock_type = lock_type;
        __atomic_add_fetch(&w->nlocked, 1, __ATOMIC_RELAXED);
        if (rank == w->rank)
            rc = force_self_lock(w, t, iw);
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
    if (!t->lock_type || !w->lwin)
        return ghost_win_error(w, MPI_ERR_RMA_SYNC);
    GHOST_SYNC_CALL(GHOST_CALL_UNLOCK);
    wake_target(w, t);
    int rc = unlock_target(w, t, w->lwin[t->slot]);
    t->lock_type = 0;
    t->granted = 0;
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
    if (w->lockall)
        return ghost_win_error(w, MPI_ERR_RMA_SYNC);
    ghost_count_sync(GHOST_SYNC_LOCK_ALL);
    GHOST_SYNC_CALL(GHOST_CALL_LOCK_ALL);
    if ((assert & MPI_MODE_NOCHECK) || !w->lwin) {
        w->lockall = GHOST_LOCKALL_NOCHECK;
        return MPI_SUCCESS;
    }
    int rc = MPI_SUCCESS;
    wake_all(w);
    for (int r = 0; r < w->nusers && rc == MPI_SUCCESS; r++) {
        ghost_target_t *t = &w->t[r];
        rc = lock_target(w, t, MPI_LOCK_SHARED, 0, w->lwin[t->slot]);
        t->granted = 0;
    }
    w->lockall = GHOST_LOCKALL_LOCKS;
    return ghost_win_error(w, rc);
})

GHOST_DEFINE(MPI_Win_unlock_all, (MPI_Win win), (win), {
    ghost_win_t *w = ghost_redirected(win);
    if (!w)
        return GHOST_REAL(MPI_Win_unlock_all)(win);
    if (w->local)
        return ghost_win_error(w, ghost_local_unlock_all(w));
    GHOST_SYNC_CALL(GHOST_CALL_UNLOCK_ALL);
    int rc = MPI_SUCCESS;
    switch (w->lockall) {
    case GHOST_LOCKALL_LOCKS:
        wake_all(w);
        for (int r = 0; r < w->nusers; r++) {
            int rc2 = unlock_target(w, &w->t[r], w->lwin[w->t[r].slot]);
            w->t[r].granted = 0;
            if (rc == MPI_SUCCESS)
                rc = rc2;
        }
        break;
    case GHOST_LOCKALL_NOCHECK:
        wake_covered(w);
        rc = flush_global(w, GHOST_REAL(MPI_Win_flush));
        break;
    default:
        rc = MPI_ERR_RMA_SYNC;
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
    MPI_Win iw;
    int rc = ghost_epoch_window(w, rank, &iw);
    wake_target(w, &w->t[rank]);
    if (rc == MPI_SUCCESS)
        rc = flush_target(w, &w->t[rank], iw, real);
    return ghost_win_error(w, rc);
}

/* Flushes every internal window this origin holds an epoch on, rank by
 * rank (see flush_global): the lock windows of locked targets, and the
 * global window. */
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
    const int *list;
    int n = covered(w, &list);
    int locks = w->lockall == GHOST_LOCKALL_LOCKS || __atomic_load_n(&w->nlocked, __ATOMIC_RELAXED) > 0;
    for (int i = 0; locks && i < n && rc == MPI_SUCCESS; i++) {
        ghost_target_t *t = &w->t[COVERED_RANK(list, i)];
        if (ghost_in_lock_epoch(w, t))
            rc = flush_target(w, t, w->lwin[t->slot], one);
    }
    if (rc == MPI_SUCCESS && (w->lockall == GHOST_LOCKALL_NOCHECK || w->fence_open || w->access_open))
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
            rc = P2P(GHOST_REAL(MPI_Send)(NULL, 0, MPI_BYTE, w->exposure[i], TAG_POST, w->pscw));
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
            rc = GHOST_REAL(MPI_Recv)(NULL, 0, MPI_BYTE, w->access[i], TAG_POST, w->pscw,
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
        rc = flush_target(w, &w->t[w->access[i]], w->gwin, GHOST_REAL(MPI_Win_flush));
    for (int i = 0; rc == MPI_SUCCESS && i < w->naccess; i++)
        rc = P2P(GHOST_REAL(MPI_Send)(NULL, 0, MPI_BYTE, w->access[i], TAG_COMPLETE, w->pscw));
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
            rc = GHOST_REAL(MPI_Iprobe)(origin, TAG_COMPLETE, w->pscw, &arrived, MPI_STATUS_IGNORE);
            if (rc != MPI_SUCCESS || !arrived)
                break;
        }
        rc = GHOST_REAL(MPI_Recv)(NULL, 0, MPI_BYTE, origin, TAG_COMPLETE, w->pscw,
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
 * asked for. A redirected window's handle is a window created over the
 * process's own segment, so its base, size and disp_unit come from MPICH. A
 * plain window's size was rounded up for alignment: report the size asked
 * for. A node-local window answers all three itself. */
GHOST_DEFINE(MPI_Win_get_attr, (MPI_Win win, int keyval, void *attribute_val, int *flag), (win, keyval, attribute_val, flag), {
    static int flavor_allocate = MPI_WIN_FLAVOR_ALLOCATE;
    static int model_unified = MPI_WIN_UNIFIED;
    ghost_win_t *w = ghost_win_find(win);
    if (!w)
        return GHOST_REAL(MPI_Win_get_attr)(win, keyval, attribute_val, flag);
    /* A node-local window's handle may be a dynamic window (local.c), whose
     * base, size and disp_unit MPICH does not know. */
    int own_geometry = w->plain || w->local;
    *flag = 1;
    if (keyval == MPI_WIN_CREATE_FLAVOR)
        *(int **)attribute_val = &flavor_allocate;
    else if (keyval == MPI_WIN_MODEL)
        *(int **)attribute_val = &model_unified;
    else if (keyval == MPI_WIN_SIZE && own_geometry)
        *(MPI_Aint **)attribute_val = &w->size;
    else if (keyval == MPI_WIN_BASE && w->local)
        *(void **)attribute_val = w->base;
    else if (keyval == MPI_WIN_DISP_UNIT && w->local)
        *(int **)attribute_val = &w->disp_unit;
    else
        return GHOST_REAL(MPI_Win_get_attr)(win, keyval, attribute_val, flag);
    return MPI_SUCCESS;
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
