/*
 * Agreement points of GHOST_ASYNC=auto: where the ranks of a window's group
 * cast their profiling votes and switch the window together.
 *
 *  - ghost_ballot: the one ballot, an allreduce of every rank's weighted
 *    vote (ghost_vote) that ghost_agree or ghost_decide (adapt/predict.c)
 *    turns into the window-wide decision. It
 *    serves allocation (shim/adapt.go), fences and MPI_Win_set_info with
 *    symmetric=true (fence.c, win_info.c).
 *  - MPI_Barrier: an implicit point for programs that never fence, such as
 *    Global Arrays, whose sync is a flush_all on every window and then a
 *    barrier. The conditions, and why each one is needed, are in
 *    docs/design.md ("Implicit agreement points").
 */
#include "agree.h"
#include "counters.h"
#include "quiesce.h"
#include "win.h"

#include <stdlib.h>

/* An internal collective, counted for the call being served (counters.h). */
#define COLLECTIVE(op) (ghost_count_internal(GHOST_INTERNAL_COLLECTIVE, 1), (op))

/* The window-wide decision from the ballots' sum, for a window whose state
 * is current (-1: none yet). */
static int decision(int sum, int current) { return current < 0 ? ghost_agree(sum) : ghost_decide(sum, current); }

/* Casts this process's ballot over comm into *sum, answering switches
 * outside collectives on w while it waits, when w is not NULL. */
static int cast(MPI_Comm comm, ghost_win_t *w, int *vote, int *sum)
{
    int ballot = ghost_prof_vote();
    *vote = ballot;
    *sum = 0;
    /* Like a barrier, the allreduce is mostly waiting for the other ranks:
     * not communication (ghost_prof_wait). */
    uint64_t t0 = ghost_ticks();
    MPI_Request req;
    int rc = COLLECTIVE(GHOST_REAL(MPI_Iallreduce)(&ballot, sum, 1, MPI_INT, MPI_SUM, comm, &req));
    if (rc == MPI_SUCCESS)
        rc = w ? ghost_quiesce_wait(&req, &w, 1) : GHOST_REAL(MPI_Wait)(&req, MPI_STATUS_IGNORE);
    ghost_prof_wait(ghost_ticks() - t0);
    return rc;
}

int ghost_ballot(MPI_Comm comm, int current, int *vote, int *agreed)
{
    int sum;
    int rc = cast(comm, NULL, vote, &sum);
    *agreed = rc == MPI_SUCCESS ? decision(sum, current) : -1;
    return rc;
}

int ghost_window_ballot(ghost_win_t *w, int *agreed)
{
    int sum;
    int rc = cast(w->pscw, w->quiesce ? w : NULL, &w->ballot, &sum);
    /* Read after the ballot: an answer inside it may have switched the
     * window, and once every rank is here every attempt that could have
     * is decided, so every rank reads the same state. */
    *agreed = rc == MPI_SUCCESS ? decision(sum, w->redirect) : -1;
    /* The program met here: a switch outside collectives needs a stretch
     * without such points (quiesce.c). */
    if (w->quiesce)
        ghost_quiesce_restart(w);
    return rc;
}

int ghost_real_barrier(MPI_Comm comm) { return GHOST_REAL(MPI_Barrier)(comm); }

/* ---- implicit points at MPI_Barrier -------------------------------------- */

int ghost_implicit_points = 0;

/* Whether implicit points may ever switch w: a window that spans nodes (a
 * node-local one has nothing to switch, a plain one is MPICH's) and whose
 * state the application did not choose at allocation (pinned). The same
 * on every rank of the window. */
static int switchable(const ghost_win_t *w) { return !w->plain && !w->local && !w->pinned; }

/* Whether this rank is at a safe point for w: every operation it issued on
 * w is complete (issued is cleared by flush_all, unlock, unlock_all and
 * fence), it holds no epoch whose internal lock names the current path (a
 * lock, or a lock_all made of per-target locks, is taken on the rank that
 * carries the operations: switching under it would leave the lock behind),
 * no PSCW epoch is open, and the application asked for no state of its own
 * for the next fence (MPI_Win_set_info without symmetric), which wins. */
static int ready(const ghost_win_t *w)
{
    return !w->issued && w->nlocked == 0 && w->lockall != GHOST_LOCKALL_LOCKS && !w->access_open &&
           w->nexposure == 0 && w->pending < 0;
}

/* Whether comm's group contains w's group: only then is every rank of the
 * window inside this barrier. The same answer on every rank of w. With
 * ranks, it also gives the rank in comm of each rank of w. */
static int concerned(const ghost_win_t *w, MPI_Comm comm, int *ranks)
{
    int cmp = MPI_UNEQUAL;
    if (GHOST_REAL(MPI_Comm_compare)(comm, w->pscw, &cmp) != MPI_SUCCESS)
        return 0;
    if (cmp == MPI_IDENT || cmp == MPI_CONGRUENT) { /* the same ranks */
        for (int i = 0; ranks && i < w->nusers; i++)
            ranks[i] = i;
        return 1;
    }
    MPI_Group wg = MPI_GROUP_NULL, cg = MPI_GROUP_NULL;
    int *in = malloc(sizeof(int) * 2 * (size_t)w->nusers), *out = in ? in + w->nusers : NULL;
    int inside = in && GHOST_REAL(MPI_Comm_group)(w->pscw, &wg) == MPI_SUCCESS &&
                 GHOST_REAL(MPI_Comm_group)(comm, &cg) == MPI_SUCCESS;
    for (int i = 0; inside && i < w->nusers; i++)
        in[i] = i;
    if (inside)
        inside = GHOST_REAL(MPI_Group_translate_ranks)(wg, w->nusers, in, cg, out) == MPI_SUCCESS;
    for (int i = 0; inside && i < w->nusers; i++) {
        inside = out[i] != MPI_UNDEFINED;
        if (ranks)
            ranks[i] = out[i];
    }
    if (wg != MPI_GROUP_NULL)
        GHOST_REAL(MPI_Group_free)(&wg);
    if (cg != MPI_GROUP_NULL)
        GHOST_REAL(MPI_Group_free)(&cg);
    free(in);
    return inside;
}

/* Windows live in this process, looked at per barrier; more than this many
 * at once are left out of implicit points (they still switch at fences). */
enum { MAX_WINDOWS = 256 };

/* Each rank's entry in the agreement: its ballot (ghost_vote), and
 * whether it is ready for every window that it holds and comm covers. */
enum { VOTE, READY, FIELDS };

/* The second collective, held only when some rank's vote differs from the
 * one it cast for a window it is ready to switch and comm covers: one
 * allgather over comm of every rank's entry, from which each rank of a
 * concerned window sums its members' ballots, the same sum on all of
 * them. The vote is per process, not per window, so one entry per
 * rank serves every window; readiness is folded over the rank's windows,
 * which may keep a window from switching because its rank has an operation
 * in flight on another one (safe: it switches at a later point). A window
 * switches when every member is ready. */
static int agree_at(MPI_Comm comm, ghost_win_t **wins, int n, int vote)
{
    int size;
    int rc = PMPI_Comm_size(comm, &size);
    if (rc != MPI_SUCCESS)
        return rc;
    int **ranks = calloc(n > 0 ? n : 1, sizeof *ranks);
    int *all = malloc(sizeof(int) * FIELDS * (size_t)size);
    int mine[FIELDS] = {vote, 1};
    for (int i = 0; ranks && i < n; i++) {
        ghost_win_t *w = wins[i];
        ranks[i] = switchable(w) ? malloc(sizeof(int) * (size_t)w->nusers) : NULL;
        if (ranks[i] && concerned(w, comm, ranks[i])) {
            mine[READY] &= ready(w);
        } else {
            free(ranks[i]);
            ranks[i] = NULL;
        }
    }
    if (!ranks || !all) /* a rank without memory is never ready: nothing switches */
        mine[READY] = 0;
    rc = COLLECTIVE(GHOST_REAL(MPI_Allgather)(mine, FIELDS, MPI_INT, all ? all : mine, all ? FIELDS : 0,
                                              MPI_INT, comm));
    int agreed_any = 0;
    for (int i = 0; rc == MPI_SUCCESS && all && ranks && i < n; i++) {
        ghost_win_t *w = wins[i];
        if (!ranks[i])
            continue;
        int votes = 0, ready_all = 1;
        for (int m = 0; m < w->nusers; m++) {
            const int *e = &all[FIELDS * ranks[i][m]];
            votes += e[VOTE];
            ready_all &= e[READY];
        }
        if (!ready_all)
            continue;
        ghost_win_set_redirect(w, ghost_decide(votes, w->redirect), GHOST_POINT_IMPLICIT);
        w->ballot = vote;
        agreed_any = 1;
    }
    if (agreed_any)
        ghost_gp_agreed();
    for (int i = 0; ranks && i < n; i++)
        free(ranks[i]);
    free(ranks);
    free(all);
    return rc;
}

/* Whether this rank's vote is news for w's agreement: it changed sides
 * since the ballot it last cast for w, or it stands against w's state and
 * grew by the switching margin since then. A window leaves its state only
 * when the ballots against it win by that margin (adapt.Decide), so the
 * ranks' standing votes can keep a state that a later, heavier vote on the
 * same side would end; without the second case no rank would raise the
 * flag for it. Each rank raises it at most once per margin of growth. */
static int news(const ghost_win_t *w, int vote)
{
    if ((w->ballot > 0) != (vote > 0))
        return 1;
    return (vote > 0) != (w->redirect != 0) && abs(vote) >= abs(w->ballot) + GHOST_SWITCH_MARGIN;
}

/* Under GHOST_ASYNC=auto every barrier over an intracommunicator is an
 * allreduce of one flag: whether this rank's vote is news (above) for a
 * window that it is ready to switch and that comm covers.
 * Like the barrier, it returns on no rank before every rank has entered, and
 * it costs one collective of the same size. Only when some rank raised the
 * flag does a second collective agree. Every rank of comm takes the same
 * branch: GHOST_ASYNC and the ghost count are job-wide, and whether comm is
 * an intercommunicator is the same on all its ranks. Ghost's own barriers
 * call MPICH directly (ghost_real_barrier). */
static int barrier(MPI_Comm comm)
{
    int inter = 0;
    if (!ghost_async_auto || ghost_total_ghosts == 0 || comm == MPI_COMM_NULL ||
        GHOST_REAL(MPI_Comm_test_inter)(comm, &inter) != MPI_SUCCESS || inter)
        return GHOST_REAL(MPI_Barrier)(comm); /* and its error, if comm is not valid */
    GHOST_SYNC_CALL(GHOST_CALL_BARRIER);
    int vote = ghost_prof_vote();
    ghost_win_t *wins[MAX_WINDOWS];
    int n = ghost_implicit_points ? ghost_win_list(wins, MAX_WINDOWS) : 0;
    /* The program meets here: a switch outside collectives needs stalls
     * over a stretch without barriers (quiesce.c). */
    int quiescing = 0;
    for (int i = 0; i < n; i++)
        if (wins[i]->quiesce) {
            ghost_quiesce_restart(wins[i]);
            quiescing = 1;
        }
    int changed = 0;
    for (int i = 0; i < n && !changed; i++)
        changed = switchable(wins[i]) && ready(wins[i]) && news(wins[i], vote) && concerned(wins[i], comm, NULL);
    /* Nonblocking on every rank: a rank with a quiescing window answers
     * switches outside collectives while it waits, whether a rank has one
     * depends on its windows rather than on comm, and a blocking
     * collective never matches a nonblocking one (MPI 4.0 6.12). */
    int any = 0;
    MPI_Request req;
    int rc = GHOST_REAL(MPI_Iallreduce)(&changed, &any, 1, MPI_INT, MPI_MAX, comm, &req);
    if (rc == MPI_SUCCESS)
        rc = quiescing ? ghost_quiesce_wait(&req, wins, n) : GHOST_REAL(MPI_Wait)(&req, MPI_STATUS_IGNORE);
    if (rc == MPI_SUCCESS && any)
        rc = agree_at(comm, wins, n, vote);
    return rc;
}

/* The whole barrier is time spent waiting for the other ranks, which the
 * profile keeps out of CR (ghost_prof_wait). */
GHOST_DEFINE(MPI_Barrier, (MPI_Comm comm), (comm), {
    if (!GHOST_PROFILING())
        return barrier(GHOST_USER_COMM(comm));
    uint64_t t0 = ghost_ticks();
    int rc = barrier(GHOST_USER_COMM(comm));
    ghost_prof_wait(ghost_ticks() - t0);
    return rc;
})
