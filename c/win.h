/*
 * Redirected windows: what the per-operation path needs to know about a
 * window created by MPI_Win_allocate under Ghost. Go (shim/win.go) builds the
 * internal windows and fills these structs once per window; the C wrappers
 * in rma.c and the epoch calls (epoch.c) only read the translation and update epoch state.
 */
#ifndef GHOST_WIN_H_INCLUDED
#define GHOST_WIN_H_INCLUDED

#include "counters.h"
#include "doorbell.h"
#include "ghost.h"
#include "offload.h"

#include <stddef.h>

/* Defines PMPI_name with the given body, timed like the generated
 * wrappers when profiling is on, and MPI_name as its alias. args repeats
 * the parameter names. */
#define GHOST_DEFINE(name, params, args, ...) GHOST_DEFINE_TIMED(ghost_prof_exit, 0, name, params, args, __VA_ARGS__)
/* The same for an RMA operation or one of its synchronization calls. */
#define GHOST_DEFINE_RMA(name, params, args, ...) GHOST_DEFINE_TIMED(ghost_prof_exit_rma, 0, name, params, args, __VA_ARGS__)
/* An RMA synchronization call that profiling leaves untimed when
 * idle(args...) holds: a call that has nothing to wait for (flush.c). */
#define GHOST_DEFINE_RMA_UNLESS(idle, name, params, args, ...)                \
    GHOST_DEFINE_TIMED(ghost_prof_exit_rma, idle args, name, params, args, __VA_ARGS__)
/* A local bookkeeping call (c/internal/wrapgen's Local), never timed. */
#define GHOST_DEFINE_LOCAL(name, params, args, ...) GHOST_DEFINE_TIMED(ghost_prof_exit, 1, name, params, args, __VA_ARGS__)
#define GHOST_DEFINE_TIMED(exit_fn, untimed, name, params, args, ...)        \
    static inline int ghost_body_##name params __VA_ARGS__                   \
    int P##name params                                                       \
    {                                                                        \
        GHOST_CALL_BEGINS();                                                 \
        if (GHOST_PROFILING() && !(untimed)) {                               \
            uint64_t t0 = ghost_prof_enter();                                \
            int rc = ghost_body_##name args;                                 \
            exit_fn(t0);                                                     \
            return rc;                                                       \
        }                                                                    \
        return ghost_body_##name args;                                       \
    }                                                                        \
    int name params __attribute__((alias("P" #name)));

/* Epoch kinds of the epochs_used hint (same bits as redirect.Epochs). */
enum {
    GHOST_EPOCH_LOCK = 1,
    GHOST_EPOCH_LOCKALL = 2,
    GHOST_EPOCH_FENCE = 4,
    GHOST_EPOCH_PSCW = 8,
};

/* How a lock_all epoch of this origin is implemented. */
enum {
    GHOST_LOCKALL_NONE = 0,
    GHOST_LOCKALL_LOCKS,   /* a shared lock on every target's lock word */
    GHOST_LOCKALL_NOCHECK, /* nothing to take: nobody can conflict */
};

/* One target of the window, as seen from this origin. Ranks are ranks of
 * the internal communicator (users plus their nodes' ghosts). */
typedef struct {
    int bound;                 /* ghost serving every accumulate-type operation to it */
    int bound_idx;             /* its index in ghosts[] */
    int nghosts;               /* all ghosts of its node, bound included */
    int ghosts[GHOST_MAX_NG];
    int ghost_local[GHOST_MAX_NG]; /* index of that ghost on this node, -1 if on another */
    int ghost_world[GHOST_MAX_NG]; /* its world rank, for wake messages */
    int self;                  /* the target itself: where operations go with redirection off */
    int world;                 /* its world rank: its entry in the GP tables */
    int slot;                  /* index among the window's users on its node */
    MPI_Aint offset;           /* its segment at its ghosts: in its node's shared segment or arena */
    MPI_Aint self_offset;      /* its segment in what the target itself exposes (0 but in the arena) */
    MPI_Aint size;
    int disp_unit;
    /* Its lock word (lock.c), from the start of its segment: in the
     * memory that both its ghosts and the target itself expose. */
    MPI_Aint lock_disp;
    int lock_type;             /* this origin's lock on it: 0 or MPI_LOCK_* */
    int locked_rank;           /* the agent that lock was taken through */
    MPI_Aint locked_word;      /* the lock word's displacement there */
    unsigned next;             /* GHOST_LOAD=op: round-robin position */
    uint64_t bytes[GHOST_MAX_NG]; /* GHOST_LOAD=byte: bytes sent to each ghost */
    /* Its segment, mapped in this process: on node-local windows, and on
     * windows that span nodes for a target on this node (rma.c,
     * same_node_direct); NULL otherwise. */
    char *addr;
    /* Node-local windows (local.c) only. */
    struct ghost_local_ctl *ctl; /* its control block */
    int nocheck;               /* this origin's lock on it was MPI_MODE_NOCHECK: nothing held (both paths) */
    int touched;               /* in the window's touched list (ghost_touch) */
    /* The fastest recent completion of this origin's operations straight to
     * it, in TSC ticks (prof.c: ghost_prof_direct_completion); 0: none yet. */
    uint64_t fastest;
    /* This origin issued an accumulate-type operation to it through MPI
     * that no flush, unlock or fence has completed at the target since:
     * until then its atomic reads take the same path (rma.c,
     * same_node_read), so that they see that operation. */
    int acc_pending;
    /* What this origin issued to it that no flush has completed, by kind
     * (OPS_*: rma.c sets the bits, ghost_flush_target clears them). Only
     * accumulates keep a switch at a quiescence point away: the window's
     * npending counts the targets with OPS_BLOCKING bits. A fetching
     * accumulate is complete at the target once it completed locally
     * (MPI_Win_flush_local), since its result was read there; the others
     * need a remote flush. */
    int ops_pending;
    /* PUTs and GETs to it that no remote flush has completed went the
     * other way before a switch at a quiescence point (quiesce.c): every
     * flush until the next remote one covers the target itself and every
     * ghost of its node. */
    int stale;
    /* An operation to it took the path that the window's state does not
     * (GP's other path, the hardware bypass) since this origin's last
     * remote flush of it: until the next one, flushes cover that path too
     * (ghost_flush_target). Set after MPICH accepted the operation, and
     * cleared before the flush that completes it, so that a thread's
     * operation is never left out of both. */
    int crossed;
    /* Its quiescence words (quiesce.h) in the memory this process maps:
     * for a target on this node, whatever its size; NULL otherwise. */
    struct ghost_qline *qline;
} ghost_target_t;
enum {
    OPS_MOVED = 1,       /* PUT, GET: MPI orders them with nothing, so they may cross a switch */
    OPS_FETCHED = 2,     /* GET_ACC, FOP, CAS */
    OPS_ACCUMULATED = 4, /* ACC */
    OPS_BLOCKING = OPS_FETCHED | OPS_ACCUMULATED
};

/* GHOST_LOAD: how PUT/GET spread over a node's ghosts, GHOST_LOAD_* of
 * c/zconst.h (generated from config.LoadPolicies). */
extern int ghost_load_policy;
/* GHOST_TEST_FAULT=lock_all_word:K: K, once; -1 off (lock.c). */
extern int ghost_fault_lockall_word;

typedef struct ghost_win {
    MPI_Win user;      /* the handle the application holds */
    int plain;         /* async_config=off: MPICH's own window, only realigned */
    int local;         /* the group lies on one node: served in shared memory (local.c) */
    int64_t id;        /* job-wide window id, known to the ghosts */
    int nusers, rank;  /* size of and rank in the window's communicator */
    void *base;        /* this process's segment */
    MPI_Aint size;
    int disp_unit;
    int epochs;        /* GHOST_EPOCH_* bits */
    int redirect;      /* agreed window-wide: operations go through the ghosts */
    int pending;       /* from MPI_Win_set_info: state for the next fence, or -1 */
    int pinned;        /* allocated with async_config=on: only MPI_Win_set_info switches it */
    int no_local_load_store;

    MPI_Comm pscw;     /* private duplicate of the user communicator (shared, see commcache.go) */
    int tag;           /* PSCW messages of this window on pscw: tag (post) and tag + 1 (complete) */
    void *pscw_ref;    /* pscw's cache entry (win.c); NULL when pscw is this window's own */
    MPI_Win shm;       /* the node segment */
    MPI_Win gwin;      /* global window, under lock_all(NOCHECK) for life: carries every epoch */
    ghost_target_t *t; /* by rank in the window's communicator */

    /* Epoch state of this process as an origin and as a PSCW target. */
    int lockall;
    int fence_open;
    int nlocked;
    int access_open;   /* PSCW: between start and complete */
    int *access;       /* PSCW: ranks of the start group */
    int naccess;
    int *exposure;     /* PSCW: ranks of the post group still to complete */
    int nexposure;
    /* The targets this origin sent operations to since its last flush_all,
     * fence or unlock_all, when track_touched: those calls then flush and
     * wake only them, so their cost follows the targets the origin really
     * uses, not the window's size. Off under MPI_THREAD_MULTIPLE, where
     * another thread may add to the list while one empties it: then every
     * target is flushed. */
    int track_touched;
    int *touched;
    int ntouched;
    /* Node-local windows: the PSCW posts and completes this process has
     * consumed, by rank (2 * nusers), and its barrier sense. */
    uint32_t *seen;
    uint32_t bar_sense;
    /* Implicit agreement points (agree.c). issued: this origin issued an
     * operation on the window since all of its operations were last
     * complete (one plain store per operation; cleared by
     * ghost_ops_complete). ballot: the ballot this process cast for the
     * window at its last agreement (ghost_vote: > 0 for on). */
    int issued;
    int ballot;
    /* Switches outside collectives (quiesce.c). quiesce: this window takes
     * part (GHOST_ASYNC=auto, spans nodes, not pinned, this process is not
     * MPI_THREAD_MULTIPLE, GHOST_QUIESCE not off). qline: this process's own
     * quiescence words. q_seen: the last announcement it answered.
     * npending: targets with ops_pending. q_since, q_stall: when (ticks)
     * the window last passed an agreement point, and the stalls of this
     * origin's completions on it since; q_issued: the operations this
     * process issued on it since through a ghost; q_rma, q_ops: the
     * process's RMA time (ticks, ghost_prof_rma_so_far) and operations
     * through a ghost (on every window) then. q_weight: what the evidence
     * of the window's last switch here weighed, per mille of its stretch
     * (a switch back must weigh more). q_next_try, q_backoff: when this
     * process may coordinate a switch next, and the wait after a failed
     * attempt (ticks). */
    int quiesce;
    struct ghost_qline *qline;
    int32_t q_seen;
    int npending;
    uint64_t q_since, q_stall, q_rma, q_ops, q_next_try, q_backoff;
    uint64_t q_weight, q_issued;
    /* The control plane's own record of a redirected window (shim/win.go:
     * its internal objects or arena segment), as a Go cgo.Handle; 0 for
     * windows Go does not hold. The window table is the one registry of
     * windows: Go reaches its record only through this entry, so the two
     * cannot disagree about which windows are alive. */
    uintptr_t go_state;
} ghost_win_t;

/* Every operation this origin issued on w is complete: called at the end of
 * a successful flush_all, unlock_all and fence. */
static inline void ghost_ops_complete(ghost_win_t *w) { w->issued = 0; }

/* The unlock of this origin's last lock on w completed the operations of
 * its lock epochs; those issued in a fence or PSCW access epoch that is
 * still open (a program that mixes them) are not covered. */
static inline void ghost_last_unlock(ghost_win_t *w)
{
    if (!w->fence_open && !w->access_open)
        ghost_ops_complete(w);
}

/* MPI_Win_lock or MPI_Win_lock_all opens a passive-target epoch. A fence
 * opens an epoch only if RMA calls follow it before the next fence, and an
 * active-target epoch cannot overlap a passive one (MPI 4.0, 12.5), so a
 * lock that follows a fence with nothing issued since means that the
 * fence's epoch never began: the window is in no fence epoch any more.
 * Programs commonly publish a window's first contents with a fence and
 * then stay in passive epochs; an epoch left open would keep the window
 * from ever looking quiet (quiesce.c) and keep unlocks from completing its
 * operations (ghost_last_unlock). */
static inline void ghost_passive_epoch_begins(ghost_win_t *w)
{
    if (!w->issued)
        w->fence_open = 0;
}

/* The rank that carries this origin's operations to t in the window's
 * current state, and the displacement there of byte 0 of t's segment. */
static inline int ghost_anchor(const ghost_win_t *w, const ghost_target_t *t)
{
    return w->redirect ? t->bound : t->self;
}
static inline MPI_Aint ghost_anchor_base(const ghost_win_t *w, const ghost_target_t *t)
{
    return w->redirect ? t->offset : t->self_offset;
}

/* The one place that says which epoch covers this origin's operations to
 * target r: a lock epoch (a lock on r, or a lock_all made of shared locks on
 * every target's lock word), one that needs no lock (lock_all(NOCHECK), an
 * open fence epoch or a PSCW access epoch), or none. Every epoch's
 * operations travel on the global window, which is always locked; the lock
 * words (lock.c) give passive-target exclusion. */
enum { GHOST_EPOCH_NONE = 0, GHOST_EPOCH_IN_LOCK, GHOST_EPOCH_IN_GLOBAL };
static inline int ghost_in_lock_epoch(const ghost_win_t *w, const ghost_target_t *t)
{
    return t->lock_type || w->lockall == GHOST_LOCKALL_LOCKS;
}
static inline int ghost_epoch_of(const ghost_win_t *w, int r)
{
    if (ghost_in_lock_epoch(w, &w->t[r]))
        return GHOST_EPOCH_IN_LOCK;
    if (w->lockall == GHOST_LOCKALL_NOCHECK || w->fence_open || w->access_open)
        return GHOST_EPOCH_IN_GLOBAL;
    return GHOST_EPOCH_NONE;
}

/* Whether an access of count elements of type at displacement disp of
 * target t lies inside t's window (MPI_ERR_RMA_RANGE otherwise). Ghost knows
 * every target's size, where MPICH 4.0.2 checks nothing and lands such an
 * access in a neighbour's memory. An access of no bytes is always in. The
 * predefined types cost a multiplication; others ask MPICH for their
 * extents (win.c). */
int ghost_in_range_derived(const ghost_target_t *t, MPI_Aint disp, MPI_Count count, MPI_Datatype type);
static inline int ghost_in_range(const ghost_target_t *t, MPI_Aint disp, MPI_Count count, MPI_Datatype type)
{
    if (count <= 0)
        return 1;
    if (__builtin_expect(GHOST_BUILTIN_TYPE(type), 1)) {
        MPI_Count lo = (MPI_Count)disp * t->disp_unit, bytes = count * GHOST_BUILTIN_TYPE_SIZE(type);
        return bytes == 0 || (lo >= 0 && lo + bytes <= t->size);
    }
    return ghost_in_range_derived(t, disp, count, type);
}

/* Records that this origin sent an operation to target r. */
static inline void ghost_touch(ghost_win_t *w, int r)
{
    if (w->track_touched && !w->t[r].touched) {
        w->t[r].touched = 1;
        w->touched[w->ntouched++] = r;
    }
}

/* Makes sure the ghost at index i of t's node is awake: a doorbell for a
 * ghost of this node, a rate-limited message for one of another node. */
static inline void ghost_wake(const ghost_target_t *t, int i)
{
    if (t->ghost_local[i] >= 0)
        ghost_ring(t->ghost_local[i]);
    else
        ghost_wake_remote(t->ghost_world[i]);
}

/* Allocation and registration (win.c). The table holds windows of every
 * kind alive in this process: a power of two, well above what MPICH's
 * context ids allow (about 2,040 windows). */
enum { GHOST_WIN_TABLE_SLOTS = 8192 };
ghost_win_t *ghost_win_new(int nusers);
void ghost_win_delete(ghost_win_t *w);
int ghost_win_register(ghost_win_t *w);
void ghost_win_unregister(ghost_win_t *w);
ghost_win_t *ghost_win_find(MPI_Win handle);
/* The windows alive in this process, for the trace: their ids and states
 * (1 redirected, 0 direct, GHOST_STATE_PLAIN for async_config=off
 * windows, GHOST_STATE_LOCAL for node-local ones). Returns how many were written, at most max. */
enum { GHOST_STATE_PLAIN = 2, GHOST_STATE_LOCAL = 3 };
int ghost_win_states(int64_t *ids, int *states, int max);
/* The windows alive in this process (at most max), for implicit points:
 * only the thread that may free them may use the pointers. */
int ghost_win_list(ghost_win_t **out, int max);

/* The redirected window behind handle, or NULL for any window whose
 * operations go straight to MPICH (not Ghost's, or async_config=off). */
static inline ghost_win_t *ghost_redirected(MPI_Win handle)
{
    ghost_win_t *w = ghost_win_find(handle);
    return (w && !w->plain) ? w : NULL;
}
int ghost_win_error(ghost_win_t *w, int code);
/* Answers MPI_Win_get_attr for the predefined keyvals of the memory a
 * window of Ghost's stands for (base, size, disp_unit, flavor allocate,
 * model unified), which its handle underneath does not describe. Returns
 * 0 for other keyvals. */
int ghost_win_attr(ghost_win_t *w, int keyval, void *attribute_val, int *flag);

/* Collective building blocks the Go side calls (win.c). */
/* node: the window's processes on this node (users and ghosts). */
int ghost_segment_alloc(MPI_Comm node, MPI_Aint bytes, MPI_Win *shm, void **base,
                        void **node_base, MPI_Aint *node_bytes);
int ghost_internal_win(void *base, MPI_Aint bytes, MPI_Comm wincomm, MPI_Win *out);
int ghost_info_get(MPI_Info info, const char *key, char *value, int len, int *flag);
/* async_config=off: MPICH's Win_allocate with every segment cache-line
 * aligned (MPICH 4.0.2 misplaces intranode RMA on unaligned bases). */
int ghost_win_allocate_plain(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                             void *baseptr, MPI_Win *win);
/* Frees a window and its record after it left the table. */
int ghost_win_free_plain(ghost_win_t *w, MPI_Win *win);

/* The private duplicate of comm (a user communicator) on which Ghost's own
 * messages and collectives for a window over comm travel, and the window's
 * PSCW tags there: one duplicate per application communicator, cached on it
 * as an attribute, freed when the last of the communicator and its windows
 * is gone. own != 0 (MPI_THREAD_MULTIPLE, where two threads may fence two
 * windows of one communicator at once and their collectives would cross):
 * a duplicate for this window alone. Collective over comm. */
int ghost_comm_private(MPI_Comm comm, int own, ghost_win_t *w);
/* Gives the window's duplicate and tags back (collective when own). */
int ghost_comm_private_release(ghost_win_t *w);

/* Small calls for the Go side, which must reach MPICH through the real
 * pointers (cgo cannot call through a function pointer). */
int ghost_user_window(MPI_Info info, MPI_Comm comm, MPI_Win *win);
int ghost_free_user_window(MPI_Win *win);
int ghost_free_internal_win(MPI_Win *win);
int ghost_lock(int type, int rank, MPI_Win win);
int ghost_unlock(int rank, MPI_Win win);
int ghost_lock_all_nocheck(MPI_Win win);
int ghost_unlock_all(MPI_Win win);

/* Nonzero once MPI_Win_allocate goes through Ghost (ghostWinAllocate): after
 * the split, and under GHOST_NG=0 for the node-local path. Set by Go at
 * MPI_Init. */
extern int ghost_windows_managed;

/* What MPI_Win_allocate's info asks of Ghost, resolved against the job's
 * settings (GHOST_ASYNC): the epoch kinds the window uses (GHOST_EPOCH_*
 * bits), whether it starts redirected, and no_local_load_store. */
typedef struct {
    int epochs;
    int async;
    int pinned; /* async_config=on given: GHOST_ASYNC=auto's votes leave the window alone */
    int no_local_load_store;
} ghost_hints_t;

/* The hints of MPI_INFO_NULL, which Go works out once at MPI_Init, so that
 * a window allocated without info needs no call into Go. */
extern ghost_hints_t ghost_default_hints;

/* Names one of Ghost's info keys (redirect.HintKeys); Go calls it at
 * MPI_Init. Only an info object holding one of them is handed to Go. */
int ghost_hint_key_add(const char *key);

/* Nonzero unless GHOST_NODE_LOCAL=off: a window whose group lies on one node
 * takes the node-local path (local.c). Set by Go at MPI_Init. */
extern int ghost_node_local;

/* The node of every process of the real world (ghosts included), so that
 * whether a communicator lies on one node is answered without communication.
 * Called by Go at MPI_Init when the job spans several nodes; until then
 * every communicator counts as lying on one node. */
int ghost_nodes_setup(int nworld, const int *node_of);

/* Entry points into Go. */
extern void ghostWinHints(MPI_Info info, MPI_Comm comm, ghost_hints_t *hints);
extern int ghostWinAllocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                            ghost_hints_t *hints, void *baseptr, MPI_Win *win);
extern int ghostWinFree(ghost_win_t *w, MPI_Win *win);

#endif
