/*
 * Passive target on redirected windows: Ghost's reader-writer lock words
 * and MPI_Win_lock, unlock, lock_all, unlock_all (epoch.c says how every
 * epoch is built).
 */
#include "epoch.h"
#include "quiesce.h"

#include <sched.h>

/* ---- lock words --------------------------------------------------------- */

/*
 * Each target of a redirected window has a lock word: 8 bytes in a cache
 * line of their own after its segment, in the memory its ghosts expose (the
 * node segment) and that it exposes itself. The word counts readers (bits
 * 0-31) and writers waiting (bits 32-61), and bit 62 says a writer holds it.
 *
 * It is only ever touched with MPI atomics on the global window, through one
 * agent per target: the rank word_at_ghost picks (the bound ghost when the
 * window is redirected, the target itself when not, except under Open MPI,
 * where it is always the bound ghost: GHOST_LOCK_WORDS_AT_GHOST in abi.h;
 * the state switches only at points where no lock is held). MPICH applies
 * an atomic inside the agent's progress engine with plain loads and
 * stores, so atomics through two agents, or a CPU atomic beside an MPI
 * one, would not exclude each other; through one agent they are
 * serialized, whichever node the origin is on. That is why an origin on the target's node takes the same MPI path
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

/* Whether t's lock word goes through its bound ghost (else the target). */
static inline int word_at_ghost(const ghost_win_t *w, const ghost_target_t *t)
{
    return w->redirect || (GHOST_LOCK_WORDS_AT_GHOST && t->nghosts > 0);
}

/* Wakes the ghost that carries t's word where the lock call did not: the
 * calls on a redirected window wake it already (ghost_wake_target). */
static void word_wake(const ghost_win_t *w, const ghost_target_t *t)
{
    if (!w->redirect && word_at_ghost(w, t))
        ghost_wake(t, t->bound_idx);
}

/* The ghosts of this node an atomic on t's word waits on (doorbell.h). */
static unsigned word_waiting_mask(const ghost_win_t *w, const ghost_target_t *t)
{
    if (w->redirect)
        return ghost_waiting_mask(w, t);
    int g = t->ghost_local[t->bound_idx];
    return word_at_ghost(w, t) && g >= 0 ? 1u << g : 0;
}

/* One atomic on t's lock word through the agent, completed. cmp != NULL:
 * compare-and-swap with *add as the new value. */
static int word_atomic(ghost_win_t *w, const ghost_target_t *t, int64_t add, const int64_t *cmp,
                       int64_t *old, MPI_Op op)
{
    return ghost_atomic_completed(w, t->locked_rank, t->locked_word, word_waiting_mask(w, t), MPI_INT64_T, op,
                                  &add, cmp, old);
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
    if (word_at_ghost(w, t))
        ghost_wake(t, t->bound_idx);
}

/* Takes t's lock word through the agent the window's state names now; it
 * is released through the same one (word_release). */
static int word_acquire(ghost_win_t *w, ghost_target_t *t, int type)
{
    int at_ghost = word_at_ghost(w, t);
    t->locked_rank = at_ghost ? t->bound : t->self;
    t->locked_word = (at_ghost ? t->offset : t->self_offset) + t->lock_disp;
    word_wake(w, t);
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
    word_wake(w, t);
    int64_t old;
    int rc = word_add(w, t, type == MPI_LOCK_SHARED ? -WORD_READER : -WORD_WRITER, &old);
    __atomic_sub_fetch(&words_held, 1, __ATOMIC_RELAXED);
    return rc;
}

/* Ends this origin's lock epoch on t: its operations complete wherever they
 * went, then the word is released, so the next holder sees them. */
static int unlock_target(ghost_win_t *w, ghost_target_t *t, int type)
{
    int rc = ghost_flush_target(w, t, GHOST_REAL(MPI_Win_flush));
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
GHOST_DEFINE_RMA(MPI_Win_lock, (int lock_type, int rank, int assert, MPI_Win win), (lock_type, rank, assert, win), {
    ghost_win_t *w = ghost_redirected(win);
    if (!w)
        return GHOST_REAL(MPI_Win_lock)(lock_type, rank, assert, win);
    if (w->local)
        return ghost_win_error(w, ghost_local_lock(w, lock_type, rank, assert));
    if (rank == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (!ghost_valid_target(w, rank))
        return ghost_win_error(w, MPI_ERR_RANK);
    if (lock_type != MPI_LOCK_SHARED && lock_type != MPI_LOCK_EXCLUSIVE)
        return ghost_win_error(w, MPI_ERR_LOCKTYPE);
    ghost_target_t *t = &w->t[rank];
    if (t->lock_type || w->lockall)
        return ghost_win_error(w, MPI_ERR_RMA_SYNC);
    ghost_passive_epoch_begins(w);
    ghost_quiesce_check(w); /* before the lock's word names a path */
    GHOST_SYNC_CALL(GHOST_CALL_LOCK);
    ghost_wake_target(w, t);
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

GHOST_DEFINE_RMA(MPI_Win_unlock, (int rank, MPI_Win win), (rank, win), {
    ghost_win_t *w = ghost_redirected(win);
    if (!w)
        return GHOST_REAL(MPI_Win_unlock)(rank, win);
    if (w->local)
        return ghost_win_error(w, ghost_local_unlock(w, rank));
    if (rank == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (!ghost_valid_target(w, rank))
        return ghost_win_error(w, MPI_ERR_RANK);
    ghost_target_t *t = &w->t[rank];
    if (!t->lock_type)
        return ghost_win_error(w, MPI_ERR_RMA_SYNC);
    GHOST_SYNC_CALL(GHOST_CALL_UNLOCK);
    ghost_wake_target(w, t);
    int rc = unlock_target(w, t, t->lock_type);
    t->lock_type = 0;
    if (__atomic_sub_fetch(&w->nlocked, 1, __ATOMIC_RELAXED) == 0 && rc == MPI_SUCCESS) {
        ghost_last_unlock(w); /* agree.c */
        if (w->quiesce)
            ghost_quiesce_consider(w);
    }
    return ghost_win_error(w, rc);
})

/* GHOST_TEST_FAULT=lock_all_word:K (internal/config), for Ghost's tests:
 * the next MPI_Win_lock_all that takes words fails at target K as if the
 * atomic on K's word had, once; -1: off. No erroneous program makes a word
 * atomic fail part way, and the path that gives the taken words back must
 * still be tested. */
int ghost_fault_lockall_word = -1;

static int acquire_for_lock_all(ghost_win_t *w, int r)
{
    if (__builtin_expect(r == ghost_fault_lockall_word, 0)) {
        ghost_fault_lockall_word = -1;
        return MPI_ERR_OTHER;
    }
    return word_acquire(w, &w->t[r], MPI_LOCK_SHARED);
}

GHOST_DEFINE_RMA(MPI_Win_lock_all, (int assert, MPI_Win win), (assert, win), {
    ghost_win_t *w = ghost_redirected(win);
    if (!w)
        return GHOST_REAL(MPI_Win_lock_all)(assert, win);
    if (w->local)
        return ghost_win_error(w, ghost_local_lock_all(w, assert));
    if (w->lockall || __atomic_load_n(&w->nlocked, __ATOMIC_RELAXED))
        return ghost_win_error(w, MPI_ERR_RMA_SYNC);
    ghost_passive_epoch_begins(w);
    ghost_quiesce_check(w); /* before the words name a path */
    ghost_count_sync(GHOST_SYNC_LOCK_ALL);
    GHOST_SYNC_CALL(GHOST_CALL_LOCK_ALL);
    /* Without "lock" in epochs_used nobody takes an exclusive lock. */
    if ((assert & MPI_MODE_NOCHECK) || !(w->epochs & GHOST_EPOCH_LOCK)) {
        w->lockall = GHOST_LOCKALL_NOCHECK;
        return MPI_SUCCESS;
    }
    int rc = MPI_SUCCESS, r;
    ghost_wake_all(w);
    for (r = 0; r < w->nusers && rc == MPI_SUCCESS; r++)
        rc = acquire_for_lock_all(w, r);
    if (rc != MPI_SUCCESS) {
        /* Give back what was taken: the epoch did not open. */
        for (int q = 0; q < r - 1; q++)
            word_release(w, &w->t[q], MPI_LOCK_SHARED);
        return ghost_win_error(w, rc);
    }
    w->lockall = GHOST_LOCKALL_LOCKS;
    return MPI_SUCCESS;
})

GHOST_DEFINE_RMA(MPI_Win_unlock_all, (MPI_Win win), (win), {
    ghost_win_t *w = ghost_redirected(win);
    if (!w)
        return GHOST_REAL(MPI_Win_unlock_all)(win);
    if (w->local)
        return ghost_win_error(w, ghost_local_unlock_all(w));
    if (!w->lockall)
        return ghost_win_error(w, MPI_ERR_RMA_SYNC);
    GHOST_SYNC_CALL(GHOST_CALL_UNLOCK_ALL);
    ghost_wake_covered(w);
    int rc = ghost_flush_global(w, GHOST_REAL(MPI_Win_flush));
    for (int r = 0; w->lockall == GHOST_LOCKALL_LOCKS && r < w->nusers; r++) {
        int rc2 = word_release(w, &w->t[r], MPI_LOCK_SHARED);
        if (rc == MPI_SUCCESS)
            rc = rc2;
    }
    w->lockall = GHOST_LOCKALL_NONE;
    if (rc == MPI_SUCCESS) {
        ghost_untouch_all(w);
        ghost_ops_complete(w); /* agree.c */
        if (w->quiesce)
            ghost_quiesce_consider(w);
    }
    return ghost_win_error(w, rc);
})
