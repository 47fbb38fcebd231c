/*
 * Switching a window outside collectives, at a quiescence point
 * (GHOST_ASYNC=auto; docs/design.md, "Switching where the program never
 * meets").
 *
 * Every other switch happens inside a collective that every rank of the
 * window attends (agree.c, fence.c, win_info.c). A program whose ranks
 * never meet between its allocations and its end, such as ARMCI-MPI's
 * NXTASK task loop, keeps the state of its last agreement for its whole
 * run. Here a process coordinates the switch itself, inside a flush,
 * when its own measurements since the last agreement point call for it
 * (the rules, below):
 *
 *  1. It takes the window's attempt word (rank 0's line), with MPI atomics
 *     through rank 0's bound ghost, which is always in MPI: one attempt at
 *     a time per window, numbered. It gives up if another attempt runs.
 *  2. It announces the attempt and the proposed state in every user's
 *     words: a store for the users of its node, an MPI accumulate through
 *     the user's bound ghost for the others, so that a user who computes
 *     outside MPI finds it when it next issues an operation.
 *  3. A user answers at the start of its next RMA operation on the window
 *     (ghost_quiesce_check: one load of its own words). If it is quiet,
 *     with every operation it issued on the window completed at its target
 *     by a remote flush and no epoch whose state names the path (a lock, a
 *     lock_all made of locks, a fence or PSCW epoch, a pending set_info),
 *     it acknowledges and waits for the decision, driving MPI's progress
 *     so that the operations of origins not yet quiet complete. A user that
 *     is not quiet declines: it goes on, on the old path, and the attempt
 *     fails at once. Nothing ever flushes for it: its operations may be
 *     waiting for a target that computes.
 *  4. The coordinator commits when every user acknowledged before a
 *     deadline, and aborts otherwise; it writes the decision into every
 *     user's words and releases the attempt word.
 *
 * At a commit every user is inside an RMA call with nothing in flight on
 * the window, so no operation on the old path can meet one on the new: all
 * accumulates to a target keep one path, which MPI's atomicity needs. No
 * user can be in one of the collectives where the state changes either, so
 * the two kinds of points never interleave. An abort leaves every state as
 * it was. A user's wait ends with the decision, which the coordinator
 * always writes, deadline or not; the coordinator's wait ends at the
 * deadline. Only processes below MPI_THREAD_MULTIPLE take part: another
 * thread could issue on the old path while one waits.
 *
 * The rules are the predictor's (adapt/predict.go), over the stretch since
 * the window last passed an agreement point, and each must hold for
 * ghost_quiesce_evidence_ticks at least, or for ghost_quiesce_glimpse_ticks
 * when the share it found already amounts to that share of a full stretch
 * (a strong signal needs less time to stand out of the noise), or, toward
 * the direct path, for ghost_quiesce_early_ticks once GHOST_BUSY_OPS
 * operations went through the ghosts in the stretch (the busy rule), and
 * for the cost rule GHOST_TRUSTED_OPS of them priced it (many operations
 * are a measurement where a short stretch's few could be one slow wake;
 * such an early attempt waits for the answers no longer than the stretch
 * lost, or spent in RMA calls):
 *  - stalls (the window runs direct): its completions waited for a target
 *    that computes outside MPI for ghost_quiesce_stall_permille of the
 *    stretch. Redirection would give them back. Not while the process
 *    spends more of the stretch in RMA calls than the busy rule allows:
 *    the paper's rule comes first, as in the predictor, and in a tight
 *    loop of operations completions that wait on a busy peer's progress
 *    read as stalls.
 *  - cost (the window runs redirected): the process's time in RMA calls
 *    exceeds what its redirected operations would have cost on the direct
 *    path, at the predictor's direct cost per operation, by that share of
 *    the stretch and by more than the stalls the direct path last showed.
 *    NWChem on 2 fake nodes switched on at a stretch of stalls (one rank
 *    waited 36 ms for a neighbour's serial step), and the next agreement
 *    point carried redirection on into a communication phase of 0.6 s
 *    without a barrier, at twice the direct path's cost per operation.
 *  - busy (the window runs redirected): the process spent more of the
 *    stretch in RMA calls than the predictor's high CR threshold, the
 *    paper's rule, which the predictor applies at every interval but which
 *    takes effect only at the next agreement point, maybe a phase away.
 *    It needs no price of the direct path: that price is learned where
 *    the window last ran direct, and the multiphase benchmark's
 *    computation phase, whose intervals of 1-3 operations and a fence
 *    priced an operation at 0.06-0.1 ms, hid the cost of its communication
 *    phase's entry through the ghosts of the other fake node, 0.08-0.33 ms
 *    an operation against a few microseconds direct; the floor of the
 *    cost rule, that phase's stalls, a third of its time, hid it too.
 *    Its weight is that share.
 * A switch back must also beat the weight of the evidence that made the
 * window's last switch here (q_weight, which the coordinator hands every
 * user with the commit), until the next agreement point: where one rank
 * stalls on a neighbour that computes and the neighbour pays for the
 * ghost path, each switch asks more of the next, instead of flipping at
 * every stretch. A stretch that called for nothing over twice the
 * evidence span starts afresh, and that weight halves (renew, below). One
 * process decides,
 * where a collective point weighs every rank's vote; that is why the
 * shares are twice the predictor's noise floor.
 */
#include "quiesce.h"
#include "counters.h"
#include "epoch.h"
#include "ghost.h"

#include <sched.h>
#include <stddef.h>
#include <stdlib.h>
#include <time.h>

uint64_t ghost_quiesce_flip_ticks = 0;

/* The policy's numbers, in ticks, from adapt.QuiescePolicy (shim/adapt.go):
 * how long a stretch without barriers the stalls must cover, the share of
 * it they must hold (per mille), and how long an attempt waits for the
 * acknowledgements. */
uint64_t ghost_quiesce_evidence_ticks = 0, ghost_quiesce_glimpse_ticks = 0, ghost_quiesce_early_ticks = 0,
         ghost_quiesce_deadline_ticks = 0, ghost_quiesce_backoff_max_ticks = 0;
int ghost_quiesce_stall_permille = 1000;

/* What the process's predictor has learned of the direct path
 * (adapt/predict.h): its communication time per operation (ticks; 0
 * before it was measured) and the share of recent direct intervals its
 * stalls took (per mille). Read as the predictor left them at the latest
 * interval's end. */
static uint64_t direct_op_ticks(void)
{
    return ghost_predictor ? (uint64_t)ghost_predictor->per_op[GHOST_PREDICT_DIRECT] : 0;
}
static uint64_t direct_stall_permille(void)
{
    return ghost_predictor ? (uint64_t)(ghost_predictor->stall_share * 1000 + 0.5) : 0;
}

/* The window is new (ghost_win_new zeroes it): nothing answered, nothing
 * pending, free to try at once. */
void ghost_quiesce_start(ghost_win_t *w)
{
    ghost_quiesce_restart(w);
    w->q_backoff = ghost_quiesce_flip_ticks ? ghost_quiesce_flip_ticks : ghost_quiesce_evidence_ticks;
}

void ghost_quiesce_restart(ghost_win_t *w)
{
    w->q_since = ghost_ticks();
    w->q_stall = 0;
    w->q_rma = ghost_prof_rma_so_far();
    w->q_ops = ghost_counters_path_ops(GHOST_PATH_GHOST);
    w->q_issued = 0;
    w->q_weight = 0;
}

/* No fence or PSCW epoch, whose state names the path, and no pending
 * set_info, which decides the next fence's state. */
static int no_active_epoch(const ghost_win_t *w)
{
    return !w->fence_open && !w->access_open && w->nexposure == 0 && w->pending < 0;
}

/* Whether nothing but this process's accumulates in flight (npending)
 * keeps w from quiet (step 3 above): no lock, and no other epoch. */
static int unlocked(const ghost_win_t *w)
{
    return __atomic_load_n(&w->nlocked, __ATOMIC_RELAXED) == 0 && w->lockall != GHOST_LOCKALL_LOCKS &&
           no_active_epoch(w);
}

/* Quiet: see step 3 above. */
static int quiet(const ghost_win_t *w) { return w->npending == 0 && unlocked(w); }

/* Quiet, or made so for a switch to the direct path: accumulates in flight
 * through the ghosts, which are always in MPI, complete at once, so the
 * process completes them itself (Global Arrays completes its accumulates
 * only at its next sync, so they would otherwise be in flight at every
 * operation of a phase of accumulates). Toward redirection they are left
 * alone: completing them there waits for the targets that compute. */
static int quiet_for(ghost_win_t *w, int want)
{
    if (!quiet(w) && !want && w->redirect && unlocked(w))
        ghost_flush_global(w, GHOST_REAL(MPI_Win_flush));
    return quiet(w);
}

/* Whether what keeps w from quiet is a lock on some targets
 * (MPI_Win_lock), whose unlock completes the operations issued under it:
 * a passive-target program's short epochs. */
static int held_briefly(const ghost_win_t *w)
{
    return __atomic_load_n(&w->nlocked, __ATOMIC_RELAXED) > 0 && !w->lockall && no_active_epoch(w);
}

/* One turn of a wait inside an RMA call: MPI's progress for the operations
 * aimed at this process, then the core to whoever needs it. After a few
 * turns the wait sleeps between polls instead of yielding: where cores are
 * shared, a yield hands the core to nobody (the scheduler picks the yielder
 * again), and every process that waits here would keep the ghosts that
 * carry the attempt's messages, and the users still to answer, off the
 * cores. A sleep delays the operations that other origins complete at this
 * process by that much at most. */
enum { WAIT_YIELDS = 16, WAIT_SLEEP_NS = 50000 };
static void wait_turn(int *turns)
{
    int flag;
    GHOST_REAL(MPI_Iprobe)(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    if ((*turns)++ < WAIT_YIELDS) {
        sched_yield();
    } else {
        struct timespec ts = {0, WAIT_SLEEP_NS};
        nanosleep(&ts, NULL);
    }
}

/* ---- the words of other users ------------------------------------------- */

/* One atomic on a word of t's line through t's bound ghost, completed
 * (ghost_atomic_completed). */
static int at_ghost(ghost_win_t *w, const ghost_target_t *t, size_t field, MPI_Datatype type, MPI_Op op,
                    const void *in, const void *cmp, void *result)
{
    int local = t->ghost_local[t->bound_idx];
    ghost_wake(t, t->bound_idx);
    return ghost_atomic_completed(w, t->bound, t->offset + t->lock_disp + GHOST_QLINE_OFFSET + (MPI_Aint)field,
                                  local >= 0 ? 1u << local : 0, type, op, in, cmp, result);
}

/* Writes a 32-bit word of user r's line: in place when r is on this node,
 * else through r's bound ghost. */
static int write_word(ghost_win_t *w, int r, size_t field, int32_t v)
{
    const ghost_target_t *t = &w->t[r];
    if (t->qline) {
        __atomic_store_n((int32_t *)((char *)t->qline + field), v, __ATOMIC_RELEASE);
        return MPI_SUCCESS;
    }
    return at_ghost(w, t, field, MPI_INT32_T, MPI_REPLACE, &v, NULL, NULL);
}

/* Reads one, the same way. */
static int read_word(ghost_win_t *w, int r, size_t field, int32_t *v)
{
    const ghost_target_t *t = &w->t[r];
    if (t->qline) {
        *v = __atomic_load_n((int32_t *)((char *)t->qline + field), __ATOMIC_ACQUIRE);
        return MPI_SUCCESS;
    }
    int32_t none = 0;
    return at_ghost(w, t, field, MPI_INT32_T, MPI_NO_OP, &none, NULL, v);
}

/* ---- the user's side ---------------------------------------------------- */

/* weight: what the evidence for the switch weighed, per mille of its
 * stretch, as its coordinator measured it. */
static void switched(ghost_win_t *w, int on, uint64_t weight)
{
    /* PUTs and GETs still in flight went the old way: the flushes that
     * complete them must look there too. */
    for (int r = 0; r < w->nusers; r++)
        if (w->t[r].ops_pending & OPS_MOVED) {
            w->t[r].ops_pending &= ~OPS_MOVED;
            w->t[r].stale = 1;
        }
    ghost_win_set_redirect(w, on, GHOST_POINT_QUIESCENCE);
    ghost_quiesce_restart(w);
    w->q_weight = weight;
}

/* count_wait: whether the wait for the decision is reported to the
 * profile here (not where the caller's whole call is a wait already). */
static void answer(ghost_win_t *w, int count_wait)
{
    ghost_qline_t *me = w->qline;
    int32_t ann = __atomic_load_n(&me->ann, __ATOMIC_ACQUIRE), k = ann >> 1;
    w->q_seen = ann;
    /* Decided already: aborted, since it could not commit without us. */
    if (__atomic_load_n(&me->dec, __ATOMIC_ACQUIRE) >= k)
        return;
    /* Not quiet: say so, and the coordinator gives up at once instead of
     * waiting out its deadline. Except under a lock on some targets with
     * nothing else in the way: its epoch is about to end, and the next
     * MPI_Win_lock call answers (ann stays unseen until then). */
    if (!quiet_for(w, ann & 1)) {
        if (held_briefly(w))
            w->q_seen = 0;
        else
            __atomic_store_n(&me->acked, -k, __ATOMIC_RELEASE);
        return;
    }
    __atomic_store_n(&me->acked, k, __ATOMIC_RELEASE);
    uint64_t t0 = ghost_ticks();
    int turns = 0;
    while (__atomic_load_n(&me->dec, __ATOMIC_ACQUIRE) < k)
        wait_turn(&turns);
    /* Waiting for the others is neither communication nor computation. */
    if (count_wait && GHOST_PROFILING())
        ghost_prof_wait(ghost_ticks() - t0);
    int32_t c = __atomic_load_n(&me->commit, __ATOMIC_ACQUIRE);
    if (c >> 1 == k)
        switched(w, c & 1, (uint64_t)__atomic_load_n(&me->weight, __ATOMIC_ACQUIRE));
}

void ghost_quiesce_answer(ghost_win_t *w) { answer(w, 1); }

/* Polls between yields in a barrier's wait: as MPICH's own blocking wait
 * does (ch3's nemesis yields every 1000 polls), so that a barrier is
 * neither slower nor more greedy for a shared core than MPICH's. */
enum { BARRIER_POLLS_PER_YIELD = 1000 };

int ghost_quiesce_wait(MPI_Request *req, ghost_win_t **wins, int n)
{
    int done = 0, rc, polls = 0;
    while ((rc = GHOST_REAL(MPI_Test)(req, &done, MPI_STATUS_IGNORE)) == MPI_SUCCESS && !done) {
        for (int i = 0; i < n; i++)
            if (ghost_quiesce_asked(wins[i]))
                answer(wins[i], 0);
        if (++polls == BARRIER_POLLS_PER_YIELD) {
            polls = 0;
            sched_yield();
        }
    }
    return rc;
}

/* ---- the coordinator's side --------------------------------------------- */

/* Takes the window's attempt word: *word is its value before, even (no
 * attempt running), and the new attempt's number is *word / 2 + 1. */
static int take_attempt(ghost_win_t *w, int64_t *word)
{
    const ghost_target_t *root = &w->t[0];
    int64_t none = 0, cur, next, old;
    if (at_ghost(w, root, offsetof(ghost_qline_t, attempt), MPI_INT64_T, MPI_NO_OP, &none, NULL, &cur) !=
            MPI_SUCCESS ||
        (cur & 1))
        return 0;
    next = cur + 1;
    if (at_ghost(w, root, offsetof(ghost_qline_t, attempt), MPI_INT64_T, MPI_NO_OP, &next, &cur, &old) !=
            MPI_SUCCESS ||
        old != cur)
        return 0;
    *word = cur;
    return 1;
}

static void release_attempt(ghost_win_t *w, int64_t word)
{
    int64_t next = word + 2;
    at_ghost(w, &w->t[0], offsetof(ghost_qline_t, attempt), MPI_INT64_T, MPI_REPLACE, &next, NULL, NULL);
}

/* Whether an attempt on another window, with a lower id, waits for this
 * process: two processes that coordinate at once, each waiting for the
 * other's answer, would both wait out their deadlines. The attempt on the
 * lower id goes on; the other gives way and tries again after it. */
static int outranked(const ghost_win_t *w)
{
    ghost_win_t *wins[64];
    int n = ghost_win_list(wins, 64);
    for (int i = 0; i < n; i++) {
        const ghost_win_t *v = wins[i];
        if (v == w || !v->quiesce || v->id > w->id)
            continue;
        int32_t ann = __atomic_load_n(&v->qline->ann, __ATOMIC_ACQUIRE);
        if (ann != v->q_seen && __atomic_load_n(&v->qline->dec, __ATOMIC_ACQUIRE) < ann >> 1)
            return 1;
    }
    return 0;
}

/* Waits until every user acknowledged attempt k, one declined it, the
 * deadline passed or an attempt on a window with a lower id waits for
 * this process (*gave_way); returns whether all acknowledged. */
static int collect(ghost_win_t *w, int32_t k, uint64_t wait, int *gave_way)
{
    char *acked = calloc((size_t)w->nusers, 1);
    if (!acked)
        return 0;
    acked[w->rank] = 1;
    int missing = w->nusers - 1, declined = 0, rc = MPI_SUCCESS, turns = 0;
    uint64_t deadline = ghost_ticks() + wait;
    for (;;) {
        for (int r = 0; r < w->nusers && rc == MPI_SUCCESS && !declined; r++) {
            int32_t a = 0;
            if (acked[r] || (rc = read_word(w, r, offsetof(ghost_qline_t, acked), &a)) != MPI_SUCCESS)
                continue;
            if (a == k) {
                acked[r] = 1;
                missing--;
            }
            declined = a == -k;
        }
        if (missing == 0 || declined || rc != MPI_SUCCESS || ghost_ticks() > deadline)
            break;
        if ((*gave_way = outranked(w)))
            break;
        wait_turn(&turns);
    }
    free(acked);
    return missing == 0 && rc == MPI_SUCCESS;
}

/* wait: how long the attempt waits for the users' answers at most. */
static void coordinate(ghost_win_t *w, int want, uint64_t weight, uint64_t wait)
{
    uint64_t t0 = ghost_ticks();
    int64_t word;
    if (!take_attempt(w, &word)) {
        w->q_next_try = ghost_ticks() + w->q_backoff;
        return;
    }
    int32_t k = (int32_t)(word / 2 + 1), ann = k * 2 + want;
    w->q_seen = ann;
    __atomic_store_n(&w->qline->acked, k, __ATOMIC_RELEASE);
    int rc = MPI_SUCCESS;
    for (int r = 0; r < w->nusers && rc == MPI_SUCCESS; r++)
        rc = write_word(w, r, offsetof(ghost_qline_t, ann), ann);
    int gave_way = 0;
    int commit = rc == MPI_SUCCESS && collect(w, k, wait, &gave_way);
    for (int r = 0; r < w->nusers && commit; r++)
        commit = write_word(w, r, offsetof(ghost_qline_t, weight), (int32_t)weight) == MPI_SUCCESS &&
                 write_word(w, r, offsetof(ghost_qline_t, commit), ann) == MPI_SUCCESS;
    /* Every user hears the decision, announced or not, or one that saw the
     * announcement would wait for ever. */
    for (int r = 0; r < w->nusers; r++)
        write_word(w, r, offsetof(ghost_qline_t, dec), k);
    release_attempt(w, word);
    if (GHOST_PROFILING())
        ghost_prof_wait(ghost_ticks() - t0);
    if (commit) {
        switched(w, want, weight);
        w->q_backoff = ghost_quiesce_evidence_ticks;
    } else if (!ghost_quiesce_flip_ticks && !gave_way && w->q_backoff < ghost_quiesce_backoff_max_ticks) {
        w->q_backoff *= 2;
    }
    if (ghost_quiesce_flip_ticks)
        w->q_backoff = ghost_quiesce_flip_ticks;
    /* Having given way, try again at the next flush after the other
     * attempt: the stalls that called for this one are still there. */
    w->q_next_try = gave_way ? 0 : ghost_ticks() + w->q_backoff;
}

/* The cost rule's evidence (see the top): what this process's ops
 * operations through a ghost since the window's last point cost over the
 * direct path, given its rma ticks in RMA calls since then, per mille of
 * the stretch span; 0 while the direct path was never measured, and for a
 * window that carried none of them. The cost is the process's, on every
 * window: Global Arrays spreads a phase's traffic over a dozen windows,
 * none of which carries enough of it alone, and each is switched by an
 * attempt of its own. */
static uint64_t extra_cost(const ghost_win_t *w, uint64_t span, uint64_t ops, uint64_t rma)
{
    uint64_t per_op = direct_op_ticks();
    if (!per_op || !w->q_issued)
        return 0;
    uint64_t direct = ops * per_op;
    return rma > direct ? (rma - direct) * 1000 / span : 0;
}

/* The predictor's high CR threshold (GHOST_CR_HIGH), per mille; never
 * reached without a predictor. */
static uint64_t busy_floor(void)
{
    return ghost_predictor ? (uint64_t)(ghost_predictor->high * 1000 + 0.5) : UINT64_MAX;
}

/* Whether the stretch calls for want by the rules (see the top), with what
 * weight, and how long an attempt may wait for the answers. */
static int called_for(const ghost_win_t *w, int want, uint64_t now, uint64_t *weight, uint64_t *wait)
{
    uint64_t span = now - w->q_since, floor = (uint64_t)ghost_quiesce_stall_permille;
    /* Toward the direct path, a stretch that GHOST_BUSY_OPS operations
     * through the ghosts measured speaks early. */
    uint64_t ops = want ? 0 : ghost_counters_path_ops(GHOST_PATH_GHOST) - w->q_ops;
    int early = ops >= GHOST_BUSY_OPS;
    if (!span || span < (early ? ghost_quiesce_early_ticks : ghost_quiesce_glimpse_ticks))
        return 0;
    /* The busy rule's evidence: the process's time in RMA calls over the
     * stretch, outside their waits, per mille of its span (its CR there). */
    uint64_t rma = ghost_prof_rma_so_far() - w->q_rma, busy = rma * 1000 / span;
    if (want) {
        /* The paper's rule first, as in the predictor: a process that spends
         * the stretch in RMA calls stays direct, whatever its stalls. */
        if (busy >= busy_floor())
            return 0;
        *weight = w->q_stall * 1000 / span;
    } else {
        if (!early || ops >= GHOST_TRUSTED_OPS) /* the cost rule: a price needs more operations */
            *weight = extra_cost(w, span, ops, rma);
        if (floor < direct_stall_permille())
            floor = direct_stall_permille();
        if (early && w->q_issued && busy >= busy_floor() && busy > *weight)
            *weight = busy;
    }
    if (*weight < floor || *weight <= w->q_weight)
        return 0;
    if (early && span < ghost_quiesce_evidence_ticks) {
        uint64_t lost = *weight * span / 1000;
        if (lost < *wait)
            *wait = lost; /* a failure costs the others no more than the stretch lost (spent, by the busy rule) */
    } else if (span < ghost_quiesce_evidence_ticks && *weight * span < floor * ghost_quiesce_evidence_ticks) {
        return 0; /* a short stretch that has not yet lost what a full one must */
    }
    return 1;
}

/* A stretch twice the evidence span long that called for nothing starts
 * afresh, so that the rules weigh the phase the program is in, not its
 * mean since the last agreement point, which a program that never meets
 * does not pass again: in test/programs/busy_phase.c, whose phases have no
 * collective between them, the stall rule switched to redirection 80 ms
 * into the communication phase, on the stalls of the computation phase
 * before over a stretch of 590 ms. The weight a switch back must beat
 * halves at each renewal: it keeps one rank's stalls and its neighbour's
 * cost from flipping the window at every stretch, and a phase later it
 * no longer holds the window in a state that the program left. */
static void renew(ghost_win_t *w)
{
    uint64_t weight = w->q_weight / 2;
    ghost_quiesce_restart(w);
    w->q_weight = weight;
}

void ghost_quiesce_consider(ghost_win_t *w)
{
    uint64_t now = ghost_ticks();
    if (now < w->q_next_try || w->nusers < 2)
        return;
    int want = !w->redirect;
    uint64_t weight = 0, wait = ghost_quiesce_deadline_ticks;
    if (!ghost_quiesce_flip_ticks && !called_for(w, want, now, &weight, &wait)) {
        if (now - w->q_since >= 2 * ghost_quiesce_evidence_ticks)
            renew(w);
        return;
    }
    if (quiet_for(w, want))
        coordinate(w, want, weight, wait);
}
