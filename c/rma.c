/*
 * RMA operations on redirected windows. Each operation to user rank t of a
 * window goes to the ghost bound to t on t's node, on the internal window the
 * current epoch calls for, at t's segment offset in the node segment plus
 * the displacement scaled by t's own disp_unit. Every accumulate-type
 * operation to t therefore takes one path, which keeps MPI's atomicity and
 * ordering guarantees.
 *
 * With redirection off (agreed window-wide, see state.c and agree.c) the same internal
 * windows carry each operation straight to the target, which exposes its
 * own segment in them.
 *
 * Windows Ghost did not create (Win_create, dynamic, shared, or plain
 * allocations) are forwarded untouched after one table lookup.
 */
#include "counters.h"
#include "local.h"
#include "quiesce.h"
#include "win.h"

#include <stdlib.h>
#include <unistd.h>
#include <x86intrin.h>

/* Translates (target rank, displacement) into (ghost, byte displacement,
 * internal window). Every epoch's operations travel on the global window,
 * which is always locked (epoch.c). MPI_PROC_NULL stays MPI_PROC_NULL there,
 * so MPICH itself completes it as a no-op (request operations get a
 * completed request). */
static inline int translate(ghost_win_t *w, int *rank, MPI_Aint *disp, MPI_Win *iw, MPI_Count count,
                            MPI_Datatype type)
{
    if (*rank == MPI_PROC_NULL) {
        *iw = w->gwin;
        return MPI_SUCCESS;
    }
    if ((unsigned)*rank >= (unsigned)w->nusers)
        return MPI_ERR_RANK;
    if (!ghost_in_range(&w->t[*rank], *disp, count, type))
        return MPI_ERR_RMA_RANGE;
    if (ghost_epoch_of(w, *rank) == GHOST_EPOCH_NONE)
        return MPI_ERR_RMA_SYNC;
    *iw = w->gwin;
    const ghost_target_t *t = &w->t[*rank];
    *disp = ghost_anchor_base(w, t) + *disp * t->disp_unit;
    *rank = ghost_anchor(w, t);
    if (w->redirect && t->ghost_local[t->bound_idx] >= 0)
        ghost_ring(t->ghost_local[t->bound_idx]);
    return MPI_SUCCESS;
}

int ghost_load_policy = GHOST_LOAD_STATIC;

/* Whether PUT/GET to t may go to any ghost of its node: when the policy
 * says so. Every ghost is under this origin's lock_all(NOCHECK) on the
 * global window, and a lock epoch's exclusion is the lock word's, held
 * before MPI_Win_lock returned. Accumulates never spread. */
static inline int may_spread(ghost_win_t *w, const ghost_target_t *t)
{
    return ghost_load_policy != GHOST_LOAD_STATIC && t->nghosts >= 2 && w->redirect;
}

/* Returns the index, in t->ghosts, of the ghost for one PUT/GET. */
static inline int pick_ghost(ghost_target_t *t, MPI_Aint bytes)
{
    static __thread unsigned seed; /* 0: not drawn yet */
    int i = 0;
    switch (ghost_load_policy) {
    case GHOST_LOAD_RANDOM:
        /* A seed of its own per process and thread: with one constant seed
         * every origin would pick the same ghost sequence. */
        if (__builtin_expect(seed == 0, 0))
            seed = ((unsigned)getpid() * 2654435761u) ^ (unsigned)__rdtsc() ^ (unsigned)(uintptr_t)&seed;
        i = rand_r(&seed) % t->nghosts;
        break;
    case GHOST_LOAD_OP:
        i = __atomic_fetch_add(&t->next, 1, __ATOMIC_RELAXED) % t->nghosts;
        break;
    case GHOST_LOAD_BYTE:
        for (int g = 1; g < t->nghosts; g++)
            if (t->bytes[g] < t->bytes[i])
                i = g;
        __atomic_add_fetch(&t->bytes[i], (uint64_t)bytes, __ATOMIC_RELAXED);
        break;
    }
    return i;
}

/* GP: whether this PUT/GET to t should take the path the window's state
 * does not: straight to a target that predicts redirection off (it is
 * communicating, so it progresses by itself), or through the ghost of one
 * that predicts on (it computes). Both are ranks of the global window, on
 * which every epoch travels; a lock epoch's exclusion is its lock word's,
 * whichever rank carries the data. */
static inline int gp_other_path(ghost_win_t *w, const ghost_target_t *t)
{
    if (!ghost_gp_enabled || w->pinned) /* a pinned window's path is the application's */
        return 0;
    return ghost_gp_vote_of(t->world) == (w->redirect ? GHOST_VOTE_OFF : GHOST_VOTE_ON);
}

/* GHOST_HW_BYPASS, agreed job-wide at MPI_Init (shim/hw.go). */
int ghost_hw_bypass = 0;


/* Hardware bypass: a PUT/GET of predefined, contiguous datatypes on both
 * sides goes straight to the target, whose NIC completes it without the
 * target's CPU, instead of through its ghost, in any epoch (the target is
 * a rank of the global window too). Derived types stay on the ghosts:
 * MPICH unpacks them in software at the target. Accumulate-type operations
 * never come here. */
static inline int hw_direct(ghost_win_t *w, int target, MPI_Datatype otype, MPI_Datatype ttype)
{
    if (__builtin_expect(!ghost_hw_bypass, 1) || !w->redirect || !GHOST_BUILTIN_TYPE(otype) ||
        !GHOST_BUILTIN_TYPE(ttype) || (unsigned)target >= (unsigned)w->nusers)
        return 0;
    return ghost_epoch_of(w, target) != GHOST_EPOCH_NONE;
}

/* Whether a PUT/GET to target r of a window that spans nodes may be a copy
 * into (or out of) r's segment in the node segment this process maps, as
 * on a node-local window: r lies on this node (t->addr, unless
 * GHOST_NODE_LOCAL=off), and nobody else can hold an exclusive lock on r
 * meanwhile. In a lock epoch (a lock on r, or a lock_all made of shared
 * locks) this origin's lock word is held from MPI_Win_lock on. Under
 * lock_all(NOCHECK), or in a fence epoch, the application promised no
 * conflicting lock. A PSCW access epoch keeps the ghost path. Accumulates
 * never come here: their atomicity is the bound ghost's. */
static inline int same_node_direct(const ghost_win_t *w, int r)
{
    if ((unsigned)r >= (unsigned)w->nusers || !w->t[r].addr)
        return 0;
    return ghost_in_lock_epoch(w, &w->t[r]) || w->lockall == GHOST_LOCKALL_NOCHECK || w->fence_open;
}

/* Whether an atomic read of target r (fetch-and-op or get-accumulate with
 * MPI_NO_OP) may be loads from r's segment in the node segment this process
 * maps, instead of a round trip through r's agent: in the epochs where
 * PUT/GET may copy (same_node_direct), for aligned elements of a
 * predefined type of 1, 2, 4 or 8 bytes, the same type on both sides
 * (ghost_local_read), and only while this origin has no accumulate-type
 * operation to r in flight: MPI orders one origin's accumulates to a
 * location (read after write included), and such a read must see it. A
 * loop of such reads is how applications poll a flag or counter. */
static inline int same_node_read(const ghost_win_t *w, MPI_Op op, int r, MPI_Aint disp, MPI_Count tcount,
                                 MPI_Datatype ttype, MPI_Count rcount, MPI_Datatype rtype)
{
    if (op != MPI_NO_OP || !same_node_direct(w, r) || w->t[r].acc_pending || rtype != ttype ||
        rcount != tcount || !GHOST_BUILTIN_TYPE(ttype))
        return 0;
    unsigned size = GHOST_BUILTIN_TYPE_SIZE(ttype);
    if (size != 1 && size != 2 && size != 4 && size != 8)
        return 0;
    const ghost_target_t *t = &w->t[r];
    return ((uintptr_t)t->addr + (uintptr_t)disp * (uintptr_t)t->disp_unit) % size == 0;
}

/* translate for PUT and GET, which may bypass the ghosts (GHOST_HW_BYPASS),
 * take the other path (GP) or be balanced over the node's ghosts. */
static inline int translate_spread(ghost_win_t *w, int *rank, MPI_Aint *disp, MPI_Win *iw,
                                   MPI_Aint count, MPI_Datatype type, MPI_Count target_count,
                                   MPI_Datatype target_type)
{
    int target = *rank;
    MPI_Aint target_disp = *disp;
    if (hw_direct(w, target, type, target_type)) {
        if (!ghost_in_range(&w->t[target], target_disp, target_count, target_type))
            return MPI_ERR_RMA_RANGE;
        const ghost_target_t *t = &w->t[target];
        *iw = w->gwin;
        *rank = t->self;
        *disp = t->self_offset + target_disp * t->disp_unit;
        return MPI_SUCCESS;
    }
    int rc = translate(w, rank, disp, iw, target_count, target_type);
    if (rc != MPI_SUCCESS || target == MPI_PROC_NULL)
        return rc;
    ghost_target_t *t = &w->t[target];
    if (gp_other_path(w, t)) {
        if (w->redirect) {
            *rank = t->self;
            *disp = t->self_offset + target_disp * t->disp_unit;
        } else {
            *rank = t->bound;
            *disp = t->offset + target_disp * t->disp_unit;
            if (t->ghost_local[t->bound_idx] >= 0)
                ghost_ring(t->ghost_local[t->bound_idx]);
        }
        return MPI_SUCCESS;
    }
    if (!may_spread(w, t))
        return rc;
    MPI_Aint bytes = 0;
    if (ghost_load_policy == GHOST_LOAD_BYTE) {
        int size;
        GHOST_REAL(MPI_Type_size)(type, &size);
        bytes = count * size;
    }
    int i = pick_ghost(t, bytes);
    *rank = t->ghosts[i];
    if (t->ghost_local[i] >= 0)
        ghost_ring(t->ghost_local[i]);
    return MPI_SUCCESS;
}

/* Counts an operation MPICH accepted (counters.h), and records its target
 * for the next flush_all or fence (ghost_touch): it took the direct path
 * when it went to the target itself (redirection off, GP's other path, a
 * hardware bypass), the ghost path otherwise; and whether that path is not
 * the window's state (crossed), for the next flushes of the target.
 * MPI_PROC_NULL moves nothing and is not counted. */
#define COUNT_OP(op, target, rank, bytes)                                     \
    do {                                                                     \
        if ((target) != MPI_PROC_NULL) {                                     \
            w_->issued = 1; /* until the next completion (agree.c) */        \
            ghost_count_op(op, (rank) == w_->t[target].self ? GHOST_PATH_DIRECT \
                                                            : GHOST_PATH_GHOST, \
                           bytes);                                           \
            ghost_touch(w_, target);                                         \
            if (((rank) == w_->t[target].self) == (w_->redirect != 0))       \
                __atomic_store_n(&w_->t[target].crossed, 1, __ATOMIC_RELEASE); \
            if ((op) != GHOST_OP_PUT && (op) != GHOST_OP_GET)                \
                w_->t[target].acc_pending = 1;                               \
            if (w_->quiesce) {                                               \
                ghost_target_t *t_ = &w_->t[target];                         \
                int kind_ = (op) == GHOST_OP_PUT || (op) == GHOST_OP_GET ? OPS_MOVED \
                            : (op) == GHOST_OP_ACC ? OPS_ACCUMULATED : OPS_FETCHED; \
                w_->q_issued += (rank) != t_->self;                          \
                w_->npending += (kind_ & OPS_BLOCKING) && !(t_->ops_pending & OPS_BLOCKING); \
                t_->ops_pending |= kind_;                                    \
            }                                                                \
            ring_issued(&w_->t[target], rank);                               \
        }                                                                    \
    } while (0)

/* After an operation went to ghost rank of t's node: if that ghost is on
 * this node, look at its sleeping flag once more (doorbell.h). */
static inline void ring_issued(const ghost_target_t *t, int rank)
{
    if (rank == t->self)
        return;
    for (int i = 0; i < t->nghosts; i++)
        if (t->ghosts[i] == rank && t->ghost_local[i] >= 0)
            ghost_ring_issued(t->ghost_local[i]);
}

/* The shape shared by every operation: look the window up, forward if it is
 * not ours, hand a node-local window to local.c (local), else translate,
 * call MPICH on the internal window, count, and raise errors on the
 * application's window. rank is the variable the translation rewrites;
 * bytes is evaluated only for an operation that is counted. */
#define REDIRECT(local_call, op, bytes, fn, win, rank, disp, count, type, ...) REDIRECT_WITH(w_->local, local_call, translate(w_, &rank, &disp, &iw_, count, type), op, rank, bytes, fn, win, __VA_ARGS__)
#define REDIRECT_WITH(in_memory, local_call, translation, op, rank, bytes, fn, win, ...) \
    do {                                                                     \
        ghost_win_t *w_ = ghost_redirected(win);                               \
        if (!w_)                                                             \
            return GHOST_REAL(fn)(__VA_ARGS__, win);                         \
        ghost_quiesce_check(w_);                                             \
        if (in_memory)                                                       \
            return ghost_win_error(w_, local_call);                               \
        MPI_Win iw_;                                                         \
        const int target_ = rank;                                            \
        int rc_ = translation;                                               \
        if (rc_ == MPI_SUCCESS)                                              \
            rc_ = GHOST_REAL(fn)(__VA_ARGS__, iw_);                          \
        if (rc_ == MPI_SUCCESS)                                              \
            COUNT_OP(op, target_, rank, bytes);                              \
        return ghost_win_error(w_, rc_);                                     \
    } while (0)

/* A node-local operation followed by its (already complete) request. */
#define LOCAL_REQ(call, req) ((rc_local_ = (call)) == MPI_SUCCESS ? ghost_local_request(req) : rc_local_)

#define REDIRECT_REQ(local_call, op, bytes, fn, win, req, rank, disp, count, type, ...) REDIRECT_REQ_WITH(w_->local, local_call, translate(w_, &rank, &disp, &iw_, count, type), op, rank, bytes, fn, win, req, __VA_ARGS__)
#define REDIRECT_REQ_WITH(in_memory, local_call, translation, op, rank, bytes, fn, win, req, ...) \
    do {                                                                     \
        ghost_win_t *w_ = ghost_redirected(win);                               \
        if (!w_)                                                             \
            return GHOST_REAL(fn)(__VA_ARGS__, win, req);                    \
        ghost_quiesce_check(w_);                                             \
        if (in_memory) {                                                     \
            int rc_local_;                                                   \
            return ghost_win_error(w_, LOCAL_REQ(local_call, req));               \
        }                                                                    \
        MPI_Win iw_;                                                         \
        const int target_ = rank;                                            \
        int rc_ = translation;                                               \
        if (rc_ == MPI_SUCCESS)                                              \
            rc_ = GHOST_REAL(fn)(__VA_ARGS__, iw_, req);                     \
        if (rc_ == MPI_SUCCESS)                                              \
            COUNT_OP(op, target_, rank, bytes);                              \
        return ghost_win_error(w_, rc_);                                     \
    } while (0)

#define PUT_LIKE(name, op, local_fn, addr_t, count_t)                                            \
    GHOST_DEFINE_RMA(name,                                                                       \
                 (addr_t origin_addr, count_t origin_count, MPI_Datatype origin_datatype,    \
                  int target_rank, MPI_Aint target_disp, count_t target_count,               \
                  MPI_Datatype target_datatype, MPI_Win win),                                \
                 (origin_addr, origin_count, origin_datatype, target_rank, target_disp,      \
                  target_count, target_datatype, win),                                       \
                 {                                                                           \
                     REDIRECT_WITH(w_->local || same_node_direct(w_, target_rank),          \
                                   local_fn(w_, origin_addr, origin_count, origin_datatype,    \
                                         target_rank, target_disp, target_count, target_datatype), \
                                   translate_spread(w_, &target_rank, &target_disp, &iw_,   \
                                                    origin_count, origin_datatype,           \
                                                    target_count, target_datatype),          \
                                   op, target_rank, ghost_type_bytes(target_count, target_datatype), \
                                   name, win, origin_addr, origin_count, origin_datatype,     \
                                   target_rank, target_disp, target_count, target_datatype);  \
                 })

#define RPUT_LIKE(name, op, local_fn, addr_t, count_t)                                            \
    GHOST_DEFINE_RMA(name,                                                                       \
                 (addr_t origin_addr, count_t origin_count, MPI_Datatype origin_datatype,    \
                  int target_rank, MPI_Aint target_disp, count_t target_count,               \
                  MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request),          \
                 (origin_addr, origin_count, origin_datatype, target_rank, target_disp,      \
                  target_count, target_datatype, win, request),                              \
                 {                                                                           \
                     REDIRECT_REQ_WITH(w_->local || same_node_direct(w_, target_rank),      \
                                       local_fn(w_, origin_addr, origin_count, origin_datatype, \
                                             target_rank, target_disp, target_count,          \
                                             target_datatype),                                \
                                       translate_spread(w_, &target_rank, &target_disp,     \
                                                        &iw_, origin_count, origin_datatype,  \
                                                        target_count, target_datatype),       \
                                       op, target_rank, ghost_type_bytes(target_count, target_datatype), \
                                       name, win, request, origin_addr, origin_count,         \
                                       origin_datatype, target_rank, target_disp,             \
                                       target_count, target_datatype);                        \
                 })

#define ACC_LIKE(name, count_t)                                                              \
    GHOST_DEFINE_RMA(name,                                                                       \
                 (const void *origin_addr, count_t origin_count, MPI_Datatype origin_datatype, \
                  int target_rank, MPI_Aint target_disp, count_t target_count,               \
                  MPI_Datatype target_datatype, MPI_Op op, MPI_Win win),                     \
                 (origin_addr, origin_count, origin_datatype, target_rank, target_disp,      \
                  target_count, target_datatype, op, win),                                   \
                 {                                                                           \
                     REDIRECT(ghost_local_acc(w_, GHOST_OP_ACC, origin_addr, origin_count,  \
                                              origin_datatype, NULL, 0, MPI_DATATYPE_NULL,    \
                                              target_rank, target_disp, target_count,         \
                                              target_datatype, op),                           \
                              GHOST_OP_ACC, ghost_type_bytes(target_count, target_datatype), \
                              name, win, target_rank, target_disp, target_count, target_datatype, origin_addr, origin_count, \
                              origin_datatype, target_rank, target_disp, target_count,       \
                              target_datatype, op);                                          \
                 })

#define RACC_LIKE(name, count_t)                                                             \
    GHOST_DEFINE_RMA(name,                                                                       \
                 (const void *origin_addr, count_t origin_count, MPI_Datatype origin_datatype, \
                  int target_rank, MPI_Aint target_disp, count_t target_count,               \
                  MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,                      \
                  MPI_Request *request),                                                     \
                 (origin_addr, origin_count, origin_datatype, target_rank, target_disp,      \
                  target_count, target_datatype, op, win, request),                          \
                 {                                                                           \
                     REDIRECT_REQ(ghost_local_acc(w_, GHOST_OP_ACC, origin_addr, origin_count, \
                                                  origin_datatype, NULL, 0, MPI_DATATYPE_NULL, \
                                                  target_rank, target_disp, target_count,      \
                                                  target_datatype, op),                        \
                                  GHOST_OP_ACC, ghost_type_bytes(target_count, target_datatype), \
                                  name, win, request, target_rank, target_disp, target_count, target_datatype, origin_addr, \
                                  origin_count, origin_datatype, target_rank, target_disp,   \
                                  target_count, target_datatype, op);                        \
                 })

/* Get-accumulate and fetch-and-op: node-local windows apply them in
 * memory (local_call); atomic reads of a same-node target of a window that
 * spans nodes are loads (same_node_read); the rest go to the agent. */
#define READ_IN_MEMORY(op, rank, disp, tcount, ttype, rcount, rtype)         \
    (w_->local || same_node_read(w_, op, rank, disp, tcount, ttype, rcount, rtype))
#define READ_CALL(local_call, kind, result, rank, disp, count, type)         \
    (w_->local ? (local_call) : ghost_local_read(w_, kind, result, rank, disp, count, type))

#define GACC_LIKE(name, count_t)                                                             \
    GHOST_DEFINE_RMA(name,                                                                       \
                 (const void *origin_addr, count_t origin_count, MPI_Datatype origin_datatype, \
                  void *result_addr, count_t result_count, MPI_Datatype result_datatype,     \
                  int target_rank, MPI_Aint target_disp, count_t target_count,               \
                  MPI_Datatype target_datatype, MPI_Op op, MPI_Win win),                     \
                 (origin_addr, origin_count, origin_datatype, result_addr, result_count,     \
                  result_datatype, target_rank, target_disp, target_count, target_datatype,  \
                  op, win),                                                                  \
                 {                                                                           \
                     REDIRECT_WITH(READ_IN_MEMORY(op, target_rank, target_disp, target_count,  \
                                                  target_datatype, result_count, result_datatype), \
                              READ_CALL(ghost_local_acc(w_, GHOST_OP_GET_ACC, origin_addr, origin_count, \
                                              origin_datatype, result_addr, result_count,     \
                                              result_datatype, target_rank, target_disp,      \
                                              target_count, target_datatype, op),             \
                                        GHOST_OP_GET_ACC, result_addr, target_rank, target_disp, \
                                        target_count, target_datatype),                      \
                              translate(w_, &target_rank, &target_disp, &iw_, target_count, target_datatype), \
                              GHOST_OP_GET_ACC, target_rank, ghost_type_bytes(target_count, target_datatype), \
                              name, win, origin_addr, origin_count, \
                              origin_datatype, result_addr, result_count, result_datatype,   \
                              target_rank, target_disp, target_count, target_datatype, op);  \
                 })

#define RGACC_LIKE(name, count_t)                                                            \
    GHOST_DEFINE_RMA(name,                                                                       \
                 (const void *origin_addr, count_t origin_count, MPI_Datatype origin_datatype, \
                  void *result_addr, count_t result_count, MPI_Datatype result_datatype,     \
                  int target_rank, MPI_Aint target_disp, count_t target_count,               \
                  MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,                      \
                  MPI_Request *request),                                                     \
                 (origin_addr, origin_count, origin_datatype, result_addr, result_count,     \
                  result_datatype, target_rank, target_disp, target_count, target_datatype,  \
                  op, win, request),                                                         \
                 {                                                                           \
                     REDIRECT_REQ_WITH(READ_IN_MEMORY(op, target_rank, target_disp, target_count, \
                                                      target_datatype, result_count, result_datatype), \
                                  READ_CALL(ghost_local_acc(w_, GHOST_OP_GET_ACC, origin_addr,         \
                                                  origin_count, origin_datatype, result_addr,  \
                                                  result_count, result_datatype, target_rank,  \
                                                  target_disp, target_count, target_datatype, op), \
                                            GHOST_OP_GET_ACC, result_addr, target_rank, target_disp, \
                                            target_count, target_datatype),                  \
                                  translate(w_, &target_rank, &target_disp, &iw_, target_count, target_datatype), \
                                  GHOST_OP_GET_ACC, target_rank, ghost_type_bytes(target_count, target_datatype), \
                                  name, win, request, origin_addr, \
                                  origin_count, origin_datatype, result_addr, result_count,  \
                                  result_datatype, target_rank, target_disp, target_count,   \
                                  target_datatype, op);                                      \
                 })

PUT_LIKE(MPI_Put, GHOST_OP_PUT, ghost_local_put, const void *, int)
#ifdef GHOST_HAVE_LARGE_COUNT
PUT_LIKE(MPI_Put_c, GHOST_OP_PUT, ghost_local_put, const void *, MPI_Count)
#endif
PUT_LIKE(MPI_Get, GHOST_OP_GET, ghost_local_get, void *, int)
#ifdef GHOST_HAVE_LARGE_COUNT
PUT_LIKE(MPI_Get_c, GHOST_OP_GET, ghost_local_get, void *, MPI_Count)
#endif
RPUT_LIKE(MPI_Rput, GHOST_OP_PUT, ghost_local_put, const void *, int)
#ifdef GHOST_HAVE_LARGE_COUNT
RPUT_LIKE(MPI_Rput_c, GHOST_OP_PUT, ghost_local_put, const void *, MPI_Count)
#endif
RPUT_LIKE(MPI_Rget, GHOST_OP_GET, ghost_local_get, void *, int)
#ifdef GHOST_HAVE_LARGE_COUNT
RPUT_LIKE(MPI_Rget_c, GHOST_OP_GET, ghost_local_get, void *, MPI_Count)
#endif
ACC_LIKE(MPI_Accumulate, int)
#ifdef GHOST_HAVE_LARGE_COUNT
ACC_LIKE(MPI_Accumulate_c, MPI_Count)
#endif
RACC_LIKE(MPI_Raccumulate, int)
#ifdef GHOST_HAVE_LARGE_COUNT
RACC_LIKE(MPI_Raccumulate_c, MPI_Count)
#endif
GACC_LIKE(MPI_Get_accumulate, int)
#ifdef GHOST_HAVE_LARGE_COUNT
GACC_LIKE(MPI_Get_accumulate_c, MPI_Count)
#endif
RGACC_LIKE(MPI_Rget_accumulate, int)
#ifdef GHOST_HAVE_LARGE_COUNT
RGACC_LIKE(MPI_Rget_accumulate_c, MPI_Count)
#endif

GHOST_DEFINE_RMA(MPI_Fetch_and_op,
             (const void *origin_addr, void *result_addr, MPI_Datatype datatype, int target_rank,
              MPI_Aint target_disp, MPI_Op op, MPI_Win win),
             (origin_addr, result_addr, datatype, target_rank, target_disp, op, win),
             {
                 REDIRECT_WITH(READ_IN_MEMORY(op, target_rank, target_disp, 1, datatype, 1, datatype),
                               READ_CALL(ghost_local_acc(w_, GHOST_OP_FOP, origin_addr, 1, datatype, result_addr, 1,
                                                         datatype, target_rank, target_disp, 1, datatype, op),
                                         GHOST_OP_FOP, result_addr, target_rank, target_disp, 1, datatype),
                               translate(w_, &target_rank, &target_disp, &iw_, 1, datatype),
                               GHOST_OP_FOP, target_rank, ghost_type_bytes(1, datatype), MPI_Fetch_and_op, win, origin_addr,
                               result_addr, datatype, target_rank, target_disp, op);
             })

GHOST_DEFINE_RMA(MPI_Compare_and_swap,
             (const void *origin_addr, const void *compare_addr, void *result_addr,
              MPI_Datatype datatype, int target_rank, MPI_Aint target_disp, MPI_Win win),
             (origin_addr, compare_addr, result_addr, datatype, target_rank, target_disp, win),
             {
                 REDIRECT(ghost_local_cas(w_, origin_addr, compare_addr, result_addr, datatype,
                                          target_rank, target_disp),
                          GHOST_OP_CAS, ghost_type_bytes(1, datatype), MPI_Compare_and_swap, win, target_rank, target_disp, 1, datatype, origin_addr,
                          compare_addr, result_addr, datatype, target_rank, target_disp);
             })
