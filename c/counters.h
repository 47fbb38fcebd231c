/*
 * Per-process counters for the metrics exporter and the adaptation trace.
 *
 * Every process of a node owns GHOST_COUNTER_SLOTS ghost_counters_t in a
 * node shared-memory block (counters.c); the node's first ghost reads them
 * all and exports the sums (internal/metrics). Slot 0 is the process's own:
 * its identity, its gauges (windows, shared memory), its ghost loop. The
 * per-operation counts go to the counting thread's slot: each thread that
 * counts claims one on its first count, so every slot has one writer and
 * every addition is a plain one, under MPI_THREAD_MULTIPLE too. Threads
 * beyond the slots share the last one with relaxed atomics. The thread's
 * slot is found through initial-exec TLS (one %fs-relative load) and
 * checked against a generation number, which moves when the node block is
 * set up and torn down (in MPI_Init and MPI_Finalize, when no other thread
 * may count). Before setup, under GHOST_NG=0 and after finalize the slots
 * are process-local. Nothing here calls MPI or Go.
 *
 * Every field is a 64-bit word, so a reader on another process copies a
 * block word by word with relaxed loads and never sees a torn value, and
 * the slots of a process add up word by word (identity fields are set in
 * slot 0 only). internal/metrics mirrors this layout (shim/metrics.go copies
 * it field by field); change both together.
 */
#ifndef GHOST_COUNTERS_H_INCLUDED
#define GHOST_COUNTERS_H_INCLUDED

#include <mpi.h>
#include <stdint.h>

/* The counter enums (GHOST_OP_*, GHOST_PATH_*, GHOST_SYNC_*, GHOST_CALL_*,
 * GHOST_INTERNAL_*, GHOST_TO_*, GHOST_POINT_*, GHOST_ROLE_*) are generated
 * with the metric labels that name their members
 * (internal/metrics/zlabels.go) from one definition: c/internal/constgen. */
#include "zconst.h"

typedef struct {
    uint64_t role;        /* GHOST_ROLE_*: NONE for a block nobody owns */
    uint64_t index;       /* node-local rank; for a ghost, its ghost index */
    uint64_t start_ticks; /* TSC when the block was set up */
    uint64_t end_ticks;   /* TSC at MPI_Finalize, 0 before */
    uint64_t ops[GHOST_NOPS][GHOST_NPATHS];
    uint64_t bytes[GHOST_NOPS][GHOST_NPATHS]; /* bytes of target memory accessed */
    uint64_t syncs[GHOST_NSYNCS];
    uint64_t transitions[GHOST_NPOINTS][GHOST_NDIRECTIONS];
    /* Windows this process leads on its node (it is the window's lowest
     * user there), so each window counts once per node. */
    int64_t windows;
    int64_t windows_redirected;
    int64_t shm_bytes;    /* node shared memory this process contributed */
    uint64_t mpi_calls;   /* timed MPI calls (profiling on) */
    uint64_t mpi_ticks;   /* TSC ticks inside them */
    /* Ghosts only: server loop passes, and its time not spent yielding or
     * sleeping (busy) and spent so (idle). */
    uint64_t polls;
    uint64_t busy_ns;
    uint64_t idle_ns;
    /* Synchronization calls by GHOST_CALL_*, and the internal operations
     * made on their behalf. */
    uint64_t sync_calls[GHOST_NCALLS];
    uint64_t internal_ops[GHOST_NCALLS][GHOST_NINTERNAL];
} __attribute__((aligned(64))) ghost_counters_t;

/* Slots per process: a thread per slot, the last shared by any more. */
enum { GHOST_COUNTER_SLOTS = 8 };

/* This process's slot 0: never NULL. */
extern ghost_counters_t *ghost_counters_mine;
/* Nonzero under MPI_THREAD_MULTIPLE: additions to slot 0's process-wide
 * fields (windows, shared memory, transitions) are atomic. */
extern int ghost_counters_atomic;

/* Additions to this process's slot 0. */
#define GHOST_COUNT_ADD(field, n)                                               \
    do {                                                                        \
        if (__builtin_expect(ghost_counters_atomic, 0))                         \
            __atomic_add_fetch(&(field), (n), __ATOMIC_RELAXED);                \
        else                                                                    \
            (field) += (n);                                                     \
    } while (0)

/* The calling thread's slot. */
typedef struct {
    ghost_counters_t *slot;
    unsigned gen;   /* ghost_counters_gen when the slot was claimed */
    int shared;     /* the overflow slot: additions are atomic */
    /* The synchronization call this thread is in (GHOST_CALL_* + 1), 0
     * outside one: internal operations count only inside a call, so the
     * helpers that also serve setup and finalize need not know who called. */
    int call;
} ghost_counter_thread_t;
extern __thread ghost_counter_thread_t ghost_counter_thread;
extern unsigned ghost_counters_gen;
/* Claims a slot for the calling thread in the current generation. */
void ghost_counters_claim(ghost_counter_thread_t *t);

static inline ghost_counter_thread_t *ghost_counter_here(void)
{
    ghost_counter_thread_t *t = &ghost_counter_thread;
    if (__builtin_expect(t->gen != __atomic_load_n(&ghost_counters_gen, __ATOMIC_RELAXED), 0))
        ghost_counters_claim(t);
    return t;
}

/* Adds n to *a, a field of t's slot. */
static inline void ghost_counter_add(const ghost_counter_thread_t *t, uint64_t *a, uint64_t n)
{
    if (__builtin_expect(t->shared, 0))
        __atomic_add_fetch(a, n, __ATOMIC_RELAXED);
    else
        *a += n;
}

/* Adds n to a field of the calling thread's slot. */
#define GHOST_COUNT_THREAD_ADD(field, n)                                        \
    do {                                                                        \
        ghost_counter_thread_t *t_ = ghost_counter_here();                      \
        ghost_counter_add(t_, &t_->slot->field, (n));                           \
    } while (0)

/* Adds na to *a and nb to *b, two fields of t's slot, after one lookup:
 * the per-operation path counts in pairs. */
static inline void ghost_counter_add2(const ghost_counter_thread_t *t, uint64_t *a, uint64_t na, uint64_t *b,
                                      uint64_t nb)
{
    if (__builtin_expect(t->shared, 0)) {
        __atomic_add_fetch(a, na, __ATOMIC_RELAXED);
        __atomic_add_fetch(b, nb, __ATOMIC_RELAXED);
    } else {
        *a += na;
        *b += nb;
    }
}

/* Counts one operation of bytes to path. */
static inline void ghost_count_op(int op, int path, uint64_t bytes)
{
    ghost_counter_thread_t *t = ghost_counter_here();
    ghost_counter_add2(t, &t->slot->ops[op][path], 1, &t->slot->bytes[op][path], bytes);
}

/* Counts one timed MPI call of ticks (profiling on). */
static inline void ghost_count_mpi_call(uint64_t ticks)
{
    ghost_counter_thread_t *t = ghost_counter_here();
    ghost_counter_add2(t, &t->slot->mpi_calls, 1, &t->slot->mpi_ticks, ticks);
}

static inline void ghost_count_sync(int type) { GHOST_COUNT_THREAD_ADD(syncs[type], 1); }

/* Enters synchronization call `call` on a window that spans nodes: counts
 * it, and attributes the internal operations counted until the matching
 * ghost_sync_leave to it. Returns the call it interrupts (0: none), which
 * leave restores. */
static inline int ghost_sync_enter(int call)
{
    ghost_counter_thread_t *t = ghost_counter_here();
    int prev = t->call;
    t->call = call + 1;
    ghost_counter_add(t, &t->slot->sync_calls[call], 1);
    return prev;
}

static inline void ghost_sync_leave(int prev) { ghost_counter_thread.call = prev; }

static inline void ghost_sync_leave_scope(const int *prev) { ghost_sync_leave(*prev); }

/* Declares that the rest of the enclosing block serves `call`: it is left
 * at every return. */
#define GHOST_SYNC_CALL(call)                                                   \
    int ghost_sync_prev_ __attribute__((cleanup(ghost_sync_leave_scope), unused)) = ghost_sync_enter(call)

/* Counts n internal operations of kind (GHOST_INTERNAL_*) for the call the
 * thread is in; nothing outside a call. */
static inline void ghost_count_internal(int kind, int n)
{
    ghost_counter_thread_t *t = ghost_counter_here();
    if (t->call)
        ghost_counter_add(t, &t->slot->internal_ops[t->call - 1][kind], (uint64_t)n);
}

/* GHOST_BUILTIN_TYPE and GHOST_BUILTIN_TYPE_SIZE (c/abi.h) tell the
 * predefined contiguous types and their size without a call. */
#include "abi.h"

/* Size in bytes of count elements of type: builtin types from their handle,
 * which spares a call on the per-operation path; derived types ask MPICH. */
uint64_t ghost_type_bytes_derived(MPI_Count count, MPI_Datatype type);
static inline uint64_t ghost_type_bytes(MPI_Count count, MPI_Datatype type)
{
    if (GHOST_BUILTIN_TYPE(type))
        return (uint64_t)count * GHOST_BUILTIN_TYPE_SIZE(type);
    return ghost_type_bytes_derived(count, type);
}

/* This process's slot 0, for its single-threaded writers (a ghost's loop). */
ghost_counters_t *ghost_counters_self(void);
/* The RMA operations this process issued on path (GHOST_PATH_*), over its
 * slots (the adaptation trace and the agreement points read them). */
uint64_t ghost_counters_path_ops(int path);

/* Collective over node (every process of it, users and ghosts): allocates
 * the node's block of nprocs * GHOST_COUNTER_SLOTS counter blocks and moves
 * this process's slots there, with what they counted so far. */
int ghost_counters_setup(MPI_Comm node, int local_rank, int role, int index, int thread_multiple);
/* Collective over node: moves this process's slots back to private memory
 * (what it counts from here on is not exported) and frees the node block. */
int ghost_counters_teardown(void);
/* Reader side (the exporter): the number of processes on this node, 0
 * before setup; sums process i's slots word by word with relaxed loads. */
int ghost_counters_count(void);
int ghost_counters_read(int i, ghost_counters_t *out);
/* Marks the end of this process's run (for the communication ratio). */
void ghost_counters_finish(void);
/* Adds this process's share of node shared memory (negative when freed). */
void ghost_count_shm(int64_t bytes);

/* Window life and adaptation (state.c): register/unregister of a
 * redirected window, and every change of its agreed state, at an agreement
 * point (GHOST_POINT_*). ghost_count_switch records a switch whose state is
 * already set (at allocation: from on, the default, to what was agreed):
 * the transition counter and, with GHOST_TRACE, the trace. */
struct ghost_win;
void ghost_count_window(const struct ghost_win *w, int delta);
void ghost_win_set_redirect(struct ghost_win *w, int on, int point);
void ghost_count_switch(const struct ghost_win *w, int on, int point);
/* Nonzero when GHOST_TRACE records switches (Go's ghostSwitched). */
extern int ghost_trace_switches;

#endif
