/*
 * Node-local windows (see local.h and docs/design.md, "The node-local
 * path").
 *
 * The window is one MPI_Win_allocate_shared over the application's
 * communicator. Rank r's part is its data, rounded up to a cache line, then
 * its control block. The shared window is the handle the application holds,
 * so group, name, info and errhandler are MPICH's; Ghost answers the
 * attributes that differ (flavor, size, model) and serves every RMA call.
 *
 * Guarantees, and what gives them:
 *  - Completion: every operation has moved its data when it returns, so
 *    flushes and request completion only order memory.
 *  - Accumulate atomicity per location, across all origins: every
 *    accumulate-type operation to rank r applies under r's accumulate
 *    mutex. Nothing else applies accumulates to this memory (no ghost and no
 *    MPICH progress engine is involved), so one mutex per target suffices.
 *    Ordering of one origin's accumulates follows: they apply in program
 *    order.
 *  - Passive-target locks: a reader-writer word per target; MPI_Win_lock
 *    returns with the lock held (MPI allows a lock to block), so a process
 *    that locks itself may use load/store at once.
 *  - Memory model (MPI_WIN_UNIFIED): lock acquisition is an acquire, unlock
 *    a release, and flush, Win_sync, fence and the PSCW calls are full
 *    fences.
 * While a call waits (for a lock, a barrier, a post or a complete), it
 * drives MPICH's progress now and then: the process is inside an MPI call,
 * and its other pending communication must keep moving.
 */
#define _GNU_SOURCE
#include "local.h"

#include "arena.h"
#include "counters.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LINE 64
#define ROUND_LINE(x) (((x) + LINE - 1) / LINE * LINE)

MPI_Aint ghost_local_ctl_bytes(int nranks)
{
    return ROUND_LINE((MPI_Aint)sizeof(ghost_local_ctl_t) + 2 * (MPI_Aint)nranks * sizeof(uint32_t));
}

/* ---- waiting ------------------------------------------------------------ */

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

/* One step of a polite wait: spin briefly (the holder is usually running on
 * another core), then give the core away, and now and then drive MPICH's
 * progress for this process's other communication. */
static void backoff(unsigned *spins)
{
    unsigned n = ++*spins;
    if (n < 128) {
        cpu_relax();
        return;
    }
    if ((n & 31) == 0) {
        int flag;
        GHOST_REAL(MPI_Iprobe)(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    }
    sched_yield();
}

/* ---- locks -------------------------------------------------------------- */

static inline int try_lock(uint32_t *word, int type)
{
    uint32_t v = __atomic_load_n(word, __ATOMIC_RELAXED);
    if (type == MPI_LOCK_EXCLUSIVE)
        return v == 0 && __atomic_compare_exchange_n(word, &v, GHOST_LOCAL_EXCL, 0, __ATOMIC_ACQUIRE,
                                                     __ATOMIC_RELAXED);
    return !(v & GHOST_LOCAL_EXCL) &&
           __atomic_compare_exchange_n(word, &v, v + 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

static void lock_word(uint32_t *word, int type)
{
    unsigned spins = 0;
    while (!try_lock(word, type))
        backoff(&spins);
}

static inline void unlock_word(uint32_t *word, int type)
{
    if (type == MPI_LOCK_EXCLUSIVE)
        __atomic_store_n(word, 0, __ATOMIC_RELEASE);
    else
        __atomic_sub_fetch(word, 1, __ATOMIC_RELEASE);
}

static inline void acc_lock(ghost_local_ctl_t *c)
{
    if (__builtin_expect(!__atomic_exchange_n(&c->acc, 1, __ATOMIC_ACQUIRE), 1))
        return;
    unsigned spins = 0;
    do {
        while (__atomic_load_n(&c->acc, __ATOMIC_RELAXED))
            backoff(&spins);
    } while (__atomic_exchange_n(&c->acc, 1, __ATOMIC_ACQUIRE));
}

static inline void acc_unlock(ghost_local_ctl_t *c) { __atomic_store_n(&c->acc, 0, __ATOMIC_RELEASE); }

/* A sense-reversing barrier over the window's processes, in rank 0's block. */
static void barrier(ghost_win_t *w)
{
    ghost_local_ctl_t *c = w->t[0].ctl;
    uint32_t sense = w->bar_sense ^ 1u;
    w->bar_sense = sense;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (__atomic_add_fetch(&c->bar_count, 1, __ATOMIC_ACQ_REL) == (uint32_t)w->nusers) {
        __atomic_store_n(&c->bar_count, 0, __ATOMIC_RELAXED);
        __atomic_store_n(&c->bar_sense, sense, __ATOMIC_RELEASE);
    } else {
        unsigned spins = 0;
        while (__atomic_load_n(&c->bar_sense, __ATOMIC_ACQUIRE) != sense)
            backoff(&spins);
    }
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

/* ---- datatypes ---------------------------------------------------------- */

/* Contiguous types whose size MPICH encodes in the handle: most operations
 * use one, and they need no datatype engine. */
static inline int simple(MPI_Datatype t)
{
    return GHOST_BUILTIN_TYPE(t) && GHOST_BUILTIN_TYPE_SIZE(t) > 0;
}

static int type_size(MPI_Datatype t, MPI_Count *size)
{
    if (simple(t)) {
        *size = GHOST_BUILTIN_TYPE_SIZE(t);
        return MPI_SUCCESS;
    }
    return GHOST_REAL(MPI_Type_size_c)(t, size);
}

/* Copies the data of (src, scount, stype) into the layout (dst, dcount,
 * dtype). The two carry the same type signature, as MPI requires of an
 * operation's origin and target. */
static int copy_typed(const void *src, MPI_Count scount, MPI_Datatype stype, void *dst, MPI_Count dcount,
                      MPI_Datatype dtype)
{
    MPI_Count size;
    int rc = type_size(stype, &size);
    if (rc != MPI_SUCCESS)
        return rc;
    MPI_Count bytes = size * scount, pos = 0;
    if (bytes == 0)
        return MPI_SUCCESS;
    if (simple(stype) && simple(dtype)) {
        memmove(dst, src, (size_t)bytes); /* a self operation may overlap */
        return MPI_SUCCESS;
    }
    if (simple(stype))
        return GHOST_REAL(MPI_Unpack_c)(src, bytes, &pos, dst, dcount, dtype, MPI_COMM_SELF);
    if (simple(dtype))
        return GHOST_REAL(MPI_Pack_c)(src, scount, stype, dst, bytes, &pos, MPI_COMM_SELF);
    char stack[1024];
    char *tmp = bytes <= (MPI_Count)sizeof stack ? stack : malloc((size_t)bytes);
    if (!tmp)
        return MPI_ERR_NO_MEM;
    rc = GHOST_REAL(MPI_Pack_c)(src, scount, stype, tmp, bytes, &pos, MPI_COMM_SELF);
    pos = 0;
    if (rc == MPI_SUCCESS)
        rc = GHOST_REAL(MPI_Unpack_c)(tmp, bytes, &pos, dst, dcount, dtype, MPI_COMM_SELF);
    if (tmp != stack)
        free(tmp);
    return rc;
}

static int is_named(MPI_Datatype t)
{
    int ni, na, nd, combiner;
    return simple(t) || (GHOST_REAL(MPI_Type_get_envelope)(t, &ni, &na, &nd, &combiner) == MPI_SUCCESS &&
                         combiner == MPI_COMBINER_NAMED);
}

/* The predefined type a derived accumulate type is built of (MPI requires
 * one). Walks the first type argument of each constructor, freeing the
 * copies MPI_Type_get_contents hands out. */
static int basic_of(MPI_Datatype type, MPI_Datatype *basic)
{
    MPI_Datatype t = type;
    for (;;) {
        int ni, na, nd, combiner;
        int rc = GHOST_REAL(MPI_Type_get_envelope)(t, &ni, &na, &nd, &combiner);
        if (rc != MPI_SUCCESS)
            return rc;
        if (combiner == MPI_COMBINER_NAMED) {
            *basic = t;
            return MPI_SUCCESS;
        }
        int *ints = malloc(sizeof(int) * (ni + 1));
        MPI_Aint *aints = malloc(sizeof(MPI_Aint) * (na + 1));
        MPI_Datatype *types = malloc(sizeof(MPI_Datatype) * (nd + 1));
        rc = GHOST_REAL(MPI_Type_get_contents)(t, ni, na, nd, ints, aints, types);
        MPI_Datatype next = types[0];
        for (int i = 1; rc == MPI_SUCCESS && i < nd; i++)
            if (!is_named(types[i]))
                GHOST_REAL(MPI_Type_free)(&types[i]);
        free(ints);
        free(aints);
        free(types);
        if (t != type)
            GHOST_REAL(MPI_Type_free)(&t);
        if (rc != MPI_SUCCESS)
            return rc;
        if (nd < 1)
            return MPI_ERR_TYPE;
        t = next;
    }
}

/* ---- targets ------------------------------------------------------------ */

static inline int in_epoch(const ghost_win_t *w, int r) { return ghost_epoch_of(w, r) != GHOST_EPOCH_NONE; }

/* The address of (disp, count, type) at target r, after the checks MPI
 * asks for: a rank in the window, an epoch, and (since Ghost knows every
 * segment's size) a range inside r's window. *addr is NULL for
 * MPI_PROC_NULL. */
static int target_addr(ghost_win_t *w, int r, MPI_Aint disp, MPI_Count count, MPI_Datatype type, char **addr)
{
    *addr = NULL;
    if (r == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if ((unsigned)r >= (unsigned)w->nusers)
        return MPI_ERR_RANK;
    if (!in_epoch(w, r))
        return MPI_ERR_RMA_SYNC;
    const ghost_target_t *t = &w->t[r];
    if (!ghost_in_range(t, disp, count, type))
        return MPI_ERR_RMA_RANGE;
    *addr = t->addr + (MPI_Aint)disp * t->disp_unit;
    return MPI_SUCCESS;
}

static void count_op(int op, MPI_Count count, MPI_Datatype type)
{
    ghost_count_op(op, GHOST_PATH_LOCAL, ghost_type_bytes(count, type));
}

/* ---- operations --------------------------------------------------------- */

/* A PUT (op GHOST_OP_PUT) copies origin into the target's memory, a GET
 * (GHOST_OP_GET) the other way; a PUT only reads origin. */
static int local_copy(ghost_win_t *w, int op, void *origin, MPI_Count ocount, MPI_Datatype otype, int target,
                      MPI_Aint disp, MPI_Count tcount, MPI_Datatype ttype)
{
    char *addr;
    int rc = target_addr(w, target, disp, tcount, ttype, &addr);
    if (rc != MPI_SUCCESS || !addr)
        return rc;
    rc = op == GHOST_OP_PUT ? copy_typed(origin, ocount, otype, addr, tcount, ttype)
                            : copy_typed(addr, tcount, ttype, origin, ocount, otype);
    if (rc == MPI_SUCCESS)
        count_op(op, tcount, ttype);
    return rc;
}

int ghost_local_put(ghost_win_t *w, const void *origin, MPI_Count ocount, MPI_Datatype otype, int target,
                    MPI_Aint disp, MPI_Count tcount, MPI_Datatype ttype)
{
    return local_copy(w, GHOST_OP_PUT, (void *)origin, ocount, otype, target, disp, tcount, ttype);
}

int ghost_local_get(ghost_win_t *w, void *origin, MPI_Count ocount, MPI_Datatype otype, int target,
                    MPI_Aint disp, MPI_Count tcount, MPI_Datatype ttype)
{
    return local_copy(w, GHOST_OP_GET, origin, ocount, otype, target, disp, tcount, ttype);
}

/* The commonest accumulates, without a call into MPICH's reduction. */
#define SUM_LOOP(ctype)                                                       \
    do {                                                                      \
        const ctype *in_ = in;                                                \
        ctype *io_ = inout;                                                   \
        for (MPI_Count i_ = 0; i_ < n; i_++)                                  \
            io_[i_] += in_[i_];                                               \
    } while (0)

static int fast_sum(const void *in, void *inout, MPI_Count n, MPI_Datatype type)
{
    if (type == MPI_DOUBLE)
        SUM_LOOP(double);
    else if (type == MPI_INT || type == MPI_INT32_T)
        SUM_LOOP(int32_t);
    else if (type == MPI_LONG || type == MPI_LONG_LONG || type == MPI_INT64_T)
        SUM_LOOP(int64_t);
    else if (type == MPI_UNSIGNED_LONG || type == MPI_UINT64_T)
        SUM_LOOP(uint64_t);
    else
        return 0;
    return 1;
}

/* Applies one accumulate-type operation at addr, under the target's
 * accumulate mutex. result, when not NULL, receives the data before. */
static int apply(const void *origin, MPI_Count ocount, MPI_Datatype otype, void *result, MPI_Count rcount,
                 MPI_Datatype rtype, char *addr, MPI_Count tcount, MPI_Datatype ttype, MPI_Op op)
{
    if (simple(ttype) && (op == MPI_NO_OP || simple(otype)) && (!result || simple(rtype))) {
        size_t bytes = (size_t)tcount * GHOST_BUILTIN_TYPE_SIZE(ttype);
        if (result)
            memmove(result, addr, bytes);
        if (op == MPI_NO_OP)
            return MPI_SUCCESS;
        if (op == MPI_REPLACE) {
            memmove(addr, origin, bytes);
            return MPI_SUCCESS;
        }
        if (op == MPI_SUM && fast_sum(origin, addr, tcount, ttype))
            return MPI_SUCCESS;
        return GHOST_REAL(MPI_Reduce_local_c)(origin, addr, tcount, ttype, op);
    }
    /* Derived or pair types: bring target (and origin) data into arrays of
     * the basic type, apply there, and write the target back. */
    MPI_Datatype basic;
    MPI_Count tsize, bsize, lb, bext;
    int rc = basic_of(ttype, &basic);
    if (rc == MPI_SUCCESS)
        rc = type_size(ttype, &tsize);
    if (rc == MPI_SUCCESS)
        rc = type_size(basic, &bsize);
    if (rc == MPI_SUCCESS)
        rc = GHOST_REAL(MPI_Type_get_extent_c)(basic, &lb, &bext);
    if (rc != MPI_SUCCESS || bsize == 0)
        return rc;
    MPI_Count n = tsize * tcount / bsize;
    char *cur = malloc((size_t)(n * bext) + 1), *in = NULL;
    if (!cur)
        return MPI_ERR_NO_MEM;
    rc = copy_typed(addr, tcount, ttype, cur, n, basic);
    if (rc == MPI_SUCCESS && result)
        rc = copy_typed(cur, n, basic, result, rcount, rtype);
    if (rc == MPI_SUCCESS && op != MPI_NO_OP) {
        if (op == MPI_REPLACE) {
            rc = copy_typed(origin, ocount, otype, cur, n, basic);
        } else {
            in = malloc((size_t)(n * bext) + 1);
            rc = in ? copy_typed(origin, ocount, otype, in, n, basic) : MPI_ERR_NO_MEM;
            if (rc == MPI_SUCCESS)
                rc = GHOST_REAL(MPI_Reduce_local_c)(in, cur, n, basic, op);
        }
        if (rc == MPI_SUCCESS)
            rc = copy_typed(cur, n, basic, addr, tcount, ttype);
    }
    free(in);
    free(cur);
    return rc;
}

int ghost_local_acc(ghost_win_t *w, int kind, const void *origin, MPI_Count ocount, MPI_Datatype otype,
                    void *result, MPI_Count rcount, MPI_Datatype rtype, int target, MPI_Aint disp,
                    MPI_Count tcount, MPI_Datatype ttype, MPI_Op op)
{
    char *addr;
    int rc = target_addr(w, target, disp, tcount, ttype, &addr);
    if (rc != MPI_SUCCESS || !addr)
        return rc;
    ghost_local_ctl_t *c = w->t[target].ctl;
    acc_lock(c);
    rc = apply(origin, ocount, otype, result, rcount, rtype, addr, tcount, ttype, op);
    acc_unlock(c);
    if (rc == MPI_SUCCESS)
        count_op(kind, tcount, ttype);
    return rc;
}

/* An atomic read (fetch-and-op or get-accumulate with MPI_NO_OP) of a
 * same-node target of a window that spans nodes, as loads from its segment
 * (rma.c, same_node_read, says when this may be). The target's agent applies
 * accumulates there with plain stores of whole elements, so one load of
 * each aligned element of at most 8 bytes sees it before or after any of
 * them, which is the atomicity MPI asks of a read: per element. */
int ghost_local_read(ghost_win_t *w, int kind, void *result, int target, MPI_Aint disp, MPI_Count count,
                     MPI_Datatype type)
{
    char *addr;
    int rc = target_addr(w, target, disp, count, type, &addr);
    if (rc != MPI_SUCCESS || !addr)
        return rc;
    switch (GHOST_BUILTIN_TYPE_SIZE(type)) {
#define READ_ELEMENTS(ctype)                                                  \
    for (MPI_Count i_ = 0; i_ < count; i_++)                                  \
        ((ctype *)result)[i_] = __atomic_load_n((ctype *)addr + i_, __ATOMIC_ACQUIRE); \
    break
    case 1:
        READ_ELEMENTS(uint8_t);
    case 2:
        READ_ELEMENTS(uint16_t);
    case 4:
        READ_ELEMENTS(uint32_t);
    case 8:
        READ_ELEMENTS(uint64_t);
#undef READ_ELEMENTS
    default:
        return MPI_ERR_TYPE; /* same_node_read lets no other size through */
    }
    count_op(kind, count, type);
    return MPI_SUCCESS;
}

int ghost_local_cas(ghost_win_t *w, const void *origin, const void *compare, void *result, MPI_Datatype type,
                    int target, MPI_Aint disp)
{
    char *addr;
    MPI_Count size;
    int rc = target_addr(w, target, disp, 1, type, &addr);
    if (rc == MPI_SUCCESS)
        rc = type_size(type, &size);
    if (rc != MPI_SUCCESS || !addr)
        return rc;
    ghost_local_ctl_t *c = w->t[target].ctl;
    acc_lock(c);
    memcpy(result, addr, (size_t)size);
    if (memcmp(addr, compare, (size_t)size) == 0)
        memcpy(addr, origin, (size_t)size);
    acc_unlock(c);
    count_op(GHOST_OP_CAS, 1, type);
    return MPI_SUCCESS;
}

int ghost_local_request(MPI_Request *req)
{
    /* A receive from MPI_PROC_NULL is complete at once, and waiting on it,
     * testing it or freeing it is what MPI says. */
    return GHOST_REAL(MPI_Irecv)(NULL, 0, MPI_BYTE, MPI_PROC_NULL, 0, MPI_COMM_SELF, req);
}

/* ---- passive target ----------------------------------------------------- */

int ghost_local_lock(ghost_win_t *w, int type, int target, int assert)
{
    if (target == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if ((unsigned)target >= (unsigned)w->nusers)
        return MPI_ERR_RANK;
    if (type != MPI_LOCK_EXCLUSIVE && type != MPI_LOCK_SHARED)
        return MPI_ERR_LOCKTYPE;
    ghost_target_t *t = &w->t[target];
    if (t->lock_type || w->lockall)
        return MPI_ERR_RMA_SYNC;
    ghost_passive_epoch_begins(w);
    /* NOCHECK promises that no other process holds or asks for a
     * conflicting lock: there is nothing to take. */
    t->nocheck = (assert & MPI_MODE_NOCHECK) != 0;
    if (!t->nocheck)
        lock_word(&t->ctl->lock, type);
    t->lock_type = type;
    __atomic_add_fetch(&w->nlocked, 1, __ATOMIC_RELAXED);
    ghost_count_sync(GHOST_SYNC_LOCK);
    return MPI_SUCCESS;
}

int ghost_local_unlock(ghost_win_t *w, int target)
{
    if (target == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if ((unsigned)target >= (unsigned)w->nusers)
        return MPI_ERR_RANK;
    ghost_target_t *t = &w->t[target];
    if (!t->lock_type)
        return MPI_ERR_RMA_SYNC;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (!t->nocheck)
        unlock_word(&t->ctl->lock, t->lock_type);
    t->lock_type = 0;
    t->nocheck = 0;
    __atomic_sub_fetch(&w->nlocked, 1, __ATOMIC_RELAXED);
    return MPI_SUCCESS;
}

/* lock_all takes a shared lock on every target, all or none: holding some
 * while waiting for another could deadlock against an origin that holds
 * exclusive locks on two targets. */
int ghost_local_lock_all(ghost_win_t *w, int assert)
{
    if (w->lockall || w->nlocked)
        return MPI_ERR_RMA_SYNC;
    ghost_passive_epoch_begins(w);
    ghost_count_sync(GHOST_SYNC_LOCK_ALL);
    if (assert & MPI_MODE_NOCHECK) {
        w->lockall = GHOST_LOCKALL_NOCHECK;
        return MPI_SUCCESS;
    }
    unsigned spins = 0;
    for (;;) {
        int r = 0;
        while (r < w->nusers && try_lock(&w->t[r].ctl->lock, MPI_LOCK_SHARED))
            r++;
        if (r == w->nusers)
            break;
        while (r-- > 0)
            unlock_word(&w->t[r].ctl->lock, MPI_LOCK_SHARED);
        backoff(&spins);
    }
    w->lockall = GHOST_LOCKALL_LOCKS;
    return MPI_SUCCESS;
}

int ghost_local_unlock_all(ghost_win_t *w)
{
    if (!w->lockall)
        return MPI_ERR_RMA_SYNC;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (w->lockall == GHOST_LOCKALL_LOCKS)
        for (int r = 0; r < w->nusers; r++)
            unlock_word(&w->t[r].ctl->lock, MPI_LOCK_SHARED);
    w->lockall = GHOST_LOCKALL_NONE;
    return MPI_SUCCESS;
}

int ghost_local_flush(ghost_win_t *w, int target)
{
    if (target == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (target >= 0) {
        if (target >= w->nusers)
            return MPI_ERR_RANK;
        if (!in_epoch(w, target))
            return MPI_ERR_RMA_SYNC;
    } else if (!w->lockall && !w->nlocked && !w->fence_open && !w->access_open) {
        return MPI_ERR_RMA_SYNC;
    }
    ghost_count_sync(GHOST_SYNC_FLUSH);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    return MPI_SUCCESS;
}

/* ---- active target ------------------------------------------------------ */

/* Every origin's operations of the epoch that ends are complete when they
 * return, so a fence is: order this process's memory, wait for everyone,
 * order again. NOPRECEDE and NOSUCCEED only say which epochs exist. */
int ghost_local_fence(ghost_win_t *w, int assert)
{
    ghost_count_sync(GHOST_SYNC_FENCE);
    barrier(w);
    w->fence_open = !(assert & MPI_MODE_NOSUCCEED);
    return MPI_SUCCESS;
}

int ghost_local_post(ghost_win_t *w, const int *ranks, int n, int assert)
{
    if (w->nexposure > 0)
        return MPI_ERR_RMA_SYNC;
    memcpy(w->exposure, ranks, sizeof(int) * n);
    w->nexposure = n;
    __atomic_thread_fence(__ATOMIC_SEQ_CST); /* local stores before the post */
    if (!(assert & MPI_MODE_NOCHECK))
        for (int i = 0; i < n; i++)
            __atomic_add_fetch(&w->t[ranks[i]].ctl->pscw[w->rank], 1, __ATOMIC_RELEASE);
    ghost_count_sync(GHOST_SYNC_POST);
    return MPI_SUCCESS;
}

/* Waits until counter has passed *seen, and consumes one. */
static void consume(uint32_t *counter, uint32_t *seen)
{
    unsigned spins = 0;
    while ((int32_t)(__atomic_load_n(counter, __ATOMIC_ACQUIRE) - *seen) <= 0)
        backoff(&spins);
    (*seen)++;
}

int ghost_local_start(ghost_win_t *w, const int *ranks, int n, int assert)
{
    if (w->access_open)
        return MPI_ERR_RMA_SYNC;
    ghost_local_ctl_t *mine = w->t[w->rank].ctl;
    if (!(assert & MPI_MODE_NOCHECK))
        for (int i = 0; i < n; i++)
            consume(&mine->pscw[ranks[i]], &w->seen[ranks[i]]);
    memcpy(w->access, ranks, sizeof(int) * n);
    w->naccess = n;
    w->access_open = 1;
    ghost_count_sync(GHOST_SYNC_START);
    return MPI_SUCCESS;
}

int ghost_local_complete(ghost_win_t *w)
{
    if (!w->access_open)
        return MPI_ERR_RMA_SYNC;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    for (int i = 0; i < w->naccess; i++)
        __atomic_add_fetch(&w->t[w->access[i]].ctl->pscw[w->nusers + w->rank], 1, __ATOMIC_RELEASE);
    w->naccess = 0;
    w->access_open = 0;
    return MPI_SUCCESS;
}

int ghost_local_wait(ghost_win_t *w, int block, int *done)
{
    ghost_local_ctl_t *mine = w->t[w->rank].ctl;
    while (w->nexposure > 0) {
        int o = w->exposure[w->nexposure - 1];
        uint32_t *counter = &mine->pscw[w->nusers + o], *seen = &w->seen[w->nusers + o];
        if (!block && (int32_t)(__atomic_load_n(counter, __ATOMIC_ACQUIRE) - *seen) <= 0)
            break;
        consume(counter, seen);
        w->nexposure--;
    }
    *done = w->nexposure == 0;
    if (*done)
        __atomic_thread_fence(__ATOMIC_SEQ_CST); /* see what the origins wrote */
    return MPI_SUCCESS;
}

/* ---- window objects ----------------------------------------------------- */

/* The record of a node-local window of n ranks under handle, registered;
 * NULL when this process cannot hold another window. */
static ghost_win_t *new_window(int n, int me, MPI_Win handle, void *base, MPI_Aint size, int disp_unit,
                               const ghost_hints_t *hints)
{
    ghost_win_t *w = ghost_win_new(n);
    if (!w)
        return NULL;
    if (!(w->seen = calloc(2 * (size_t)n, sizeof(uint32_t)))) {
        ghost_win_delete(w);
        return NULL;
    }
    w->local = 1;
    w->redirect = hints->async; /* only reported: every operation takes the local path */
    w->pending = -1;
    w->user = handle;
    w->rank = me;
    w->base = base;
    w->size = size;
    w->disp_unit = disp_unit;
    w->no_local_load_store = hints->no_local_load_store;
    w->epochs = hints->epochs; /* reported; every kind of epoch works here */
    /* Every user is on this node, so its slot there is its rank. Set before
     * the window is registered: registering counts it for the node's
     * metrics only on the process with slot 0, as unregistering does. */
    for (int r = 0; r < n; r++)
        w->t[r].slot = r;
    if (ghost_win_register(w) != 0) {
        ghost_win_delete(w);
        return NULL;
    }
    return w;
}

static void delete_window(ghost_win_t *w)
{
    if (w) {
        ghost_win_unregister(w);
        ghost_win_delete(w);
    }
}

/* Points target r at its segment: data at addr, its control block ctl_at
 * bytes further. The owner filled the block before the collective that
 * published it. */
static void set_target(ghost_win_t *w, int r, char *addr, MPI_Aint ctl_at)
{
    ghost_target_t *t = &w->t[r];
    t->ctl = (ghost_local_ctl_t *)(addr + ctl_at);
    t->addr = addr;
    t->size = t->ctl->size;
    t->disp_unit = (int)t->ctl->disp_unit;
    t->self = r;
}

static void init_ctl(char *segment, MPI_Aint data, MPI_Aint ctl, MPI_Aint size, int disp_unit)
{
    ghost_local_ctl_t *c = (ghost_local_ctl_t *)(segment + data);
    memset(c, 0, (size_t)ctl);
    c->size = size;
    c->disp_unit = disp_unit;
}

enum { ARENA_NO_ROOM = -1 };

/* The window in the node arena (arena.h): each rank carves its segment
 * from its part, and the handle is a window over no memory
 * (ghost_user_window); Ghost answers what would differ (base, size,
 * disp_unit, flavor, shared_query). One allgather publishes every segment
 * and tells every rank whether all found room; only then is the handle
 * made (MPICH 4.0.2 crashes in a failing MPI_Win_allocate_shared that
 * follows the free of such a handle, so the other path must not come after
 * one). Returns ARENA_NO_ROOM, having freed everything, when some rank's
 * part has no room: the caller takes the other path. */
static int arena_window(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, int n, int me,
                        const ghost_hints_t *hints, void *baseptr, MPI_Win *win)
{
    MPI_Aint data = ROUND_LINE(size), ctl = ghost_local_ctl_bytes(n);
    char *mine = ghost_arena_alloc(data + ctl);
    int64_t rec[2] = {ARENA_NO_ROOM, (int64_t)size};
    if (mine) {
        init_ctl(mine, data, ctl, size, disp_unit);
        rec[0] = ghost_arena_offset(mine);
    }
    /* Small groups, the usual case, need no allocation for the list. */
    int64_t small[2 * 64], *all = n <= 64 ? small : malloc(sizeof(int64_t) * 2 * (size_t)n);
    if (!all) {
        fprintf(stderr, "ghost: error: MPI_Win_allocate: no memory for a list of %d ranks\n", n);
        ghost_real_abort(1);
    }
    int rc = GHOST_REAL(MPI_Allgather)(rec, 2, MPI_INT64_T, all, 2, MPI_INT64_T, comm);
    /* Every rank reads the same list, so all decide alike. */
    int room = 1;
    for (int r = 0; rc == MPI_SUCCESS && r < n; r++)
        room = room && all[2 * r] != ARENA_NO_ROOM;
    MPI_Win handle = MPI_WIN_NULL;
    if (rc == MPI_SUCCESS && room)
        rc = ghost_user_window(info, comm, &handle); /* MPICH raises its own errors */
    if (rc != MPI_SUCCESS || !room) {
        ghost_arena_free(mine, data + ctl);
        if (all != small)
            free(all);
        return rc != MPI_SUCCESS ? rc : ARENA_NO_ROOM;
    }
    /* The table has twice the slots of MPICH's communicator contexts, one of
     * which every window holds: only a failed calloc can stop this here,
     * after the collective, where returning alone would leave the others
     * with a window this process lacks. */
    ghost_win_t *w = new_window(n, me, handle, mine, size, disp_unit, hints);
    if (!w) {
        fprintf(stderr, "ghost: error: MPI_Win_allocate: no memory for the window's record\n");
        ghost_real_abort(1);
    }
    for (int r = 0; r < n; r++)
        set_target(w, r, ghost_arena_base() + all[2 * r], ROUND_LINE((MPI_Aint)all[2 * r + 1]));
    if (all != small)
        free(all);
    ghost_count_shm((int64_t)(data + ctl));
    *(void **)baseptr = mine;
    *win = handle;
    return MPI_SUCCESS;
}

/* The window in a shared window of its own, which is also the handle. */
static int shm_window(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, int n, int me,
                      const ghost_hints_t *hints, void *baseptr, MPI_Win *win)
{
    MPI_Aint data = ROUND_LINE(size), ctl = ghost_local_ctl_bytes(n);
    char *base;
    MPI_Win shm;
    int rc = GHOST_REAL(MPI_Win_allocate_shared)(data + ctl, disp_unit, info, comm, &base, &shm);
    if (rc != MPI_SUCCESS)
        return rc;
    init_ctl(base, data, ctl, size, disp_unit);
    ghost_win_t *w = new_window(n, me, shm, base, size, disp_unit, hints);
    int failed = w ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    /* One collective both publishes every control block (each is set
     * before anyone reads one) and agrees on the outcome: a window that
     * failed on one process is freed by all, and the same error is
     * returned everywhere, instead of one process leaving a collective
     * the others are still in. */
    rc = GHOST_REAL(MPI_Allreduce)(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, comm);
    if (rc == MPI_SUCCESS)
        rc = failed;
    for (int r = 0; rc == MPI_SUCCESS && r < n; r++) {
        MPI_Aint qsize;
        int qunit;
        char *qbase;
        rc = GHOST_REAL(MPI_Win_shared_query)(shm, r, &qsize, &qunit, &qbase);
        if (rc == MPI_SUCCESS)
            set_target(w, r, qbase, qsize - ctl);
    }
    if (rc != MPI_SUCCESS) {
        delete_window(w);
        GHOST_REAL(MPI_Win_free)(&shm);
        if (rc == failed) /* Ghost's own error: MPICH raised the others */
            PMPI_Comm_call_errhandler(comm, rc);
        return rc;
    }
    ghost_count_shm((int64_t)(data + ctl));
    *(void **)baseptr = base;
    *win = shm;
    return MPI_SUCCESS;
}

int ghost_local_win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                             const ghost_hints_t *hints, void *baseptr, MPI_Win *win)
{
    int n, me;
    PMPI_Comm_size(comm, &n);
    PMPI_Comm_rank(comm, &me);
    /* Every process of a node has the arena or none has: all the window's
     * ranks take the same branch. */
    if (ghost_arena_ready()) {
        int rc = arena_window(size, disp_unit, info, comm, n, me, hints, baseptr, win);
        if (rc != ARENA_NO_ROOM)
            return rc;
    }
    return shm_window(size, disp_unit, info, comm, n, me, hints, baseptr, win);
}

int ghost_local_win_free(ghost_win_t *w, MPI_Win *win)
{
    if (w->lockall || w->nlocked || w->access_open || w->nexposure)
        return ghost_win_error(w, MPI_ERR_RMA_SYNC);
    /* No barrier of our own: every origin completed its epochs before it
     * called MPI_Win_free (MPI makes freeing a window with open epochs
     * erroneous), and each process maps the segments itself, so one that
     * leaves first unmaps nothing the others still use. */
    MPI_Aint bytes = ROUND_LINE(w->size) + ghost_local_ctl_bytes(w->nusers);
    void *arena_segment = ghost_arena_owns(w->base) ? w->base : NULL;
    ghost_win_unregister(w);
    ghost_count_shm(-(int64_t)bytes);
    ghost_win_delete(w);
    int rc = GHOST_REAL(MPI_Win_free)(win);
    /* MPICH's MPI_Win_free returns once every rank of the window has
     * called it, so no origin touches the segment any more. */
    ghost_arena_free(arena_segment, bytes);
    return rc;
}
