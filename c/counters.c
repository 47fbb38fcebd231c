/*
 * The node's counter blocks (counters.h): GHOST_COUNTER_SLOTS
 * ghost_counters_t per process of the node, in a shared-memory block that
 * node rank 0 owns. Each slot has one writer (or, the last one, atomic
 * writers); the node's first ghost reads them all for the metrics exporter.
 * No MPI call happens here after setup except the free.
 */
#include "agree.h"
#include "counters.h"
#include "ghost.h"

#include <string.h>
#include <x86intrin.h>

/* Where a process counts before the node block exists, under GHOST_NG=0,
 * and after finalize. */
static ghost_counters_t private_slots[GHOST_COUNTER_SLOTS];
static ghost_counters_t *slots = private_slots; /* this process's slots */
ghost_counters_t *ghost_counters_mine = private_slots;
int ghost_counters_atomic = 0;

__thread ghost_counter_thread_t ghost_counter_thread;
/* Starts at 1: a thread's zeroed TLS never matches, so its first count
 * claims a slot. */
unsigned ghost_counters_gen = 1;
static int slots_claimed; /* in this generation */

static MPI_Win node_win = MPI_WIN_NULL;
static ghost_counters_t *node_blocks;
static int node_nprocs;

void ghost_counters_claim(ghost_counter_thread_t *t)
{
    int k = __atomic_fetch_add(&slots_claimed, 1, __ATOMIC_RELAXED);
    /* Slots 0..SLOTS-2 are private to one thread; the last is shared. */
    t->shared = k >= GHOST_COUNTER_SLOTS - 1;
    t->slot = &slots[t->shared ? GHOST_COUNTER_SLOTS - 1 : k];
    t->gen = __atomic_load_n(&ghost_counters_gen, __ATOMIC_RELAXED);
}

/* Points every thread at slots: only where no other thread may count (in
 * MPI_Init and MPI_Finalize), so that a thread still holding the old slot
 * pointer cannot be counting through it. */
static void move_slots(ghost_counters_t *to)
{
    if (to != slots)
        memcpy(to, slots, sizeof(ghost_counters_t) * GHOST_COUNTER_SLOTS);
    slots = to;
    __atomic_store_n(&ghost_counters_mine, &to[0], __ATOMIC_RELEASE);
    __atomic_store_n(&slots_claimed, 0, __ATOMIC_RELAXED);
    __atomic_add_fetch(&ghost_counters_gen, 1, __ATOMIC_RELEASE);
}

ghost_counters_t *ghost_counters_self(void) { return ghost_counters_mine; }

/* Adds the words of GHOST_COUNTER_SLOTS slots, read with relaxed loads. */
static void sum_slots(const ghost_counters_t *from, ghost_counters_t *out)
{
    uint64_t *dst = (uint64_t *)out;
    memset(out, 0, sizeof *out);
    for (int k = 0; k < GHOST_COUNTER_SLOTS; k++) {
        const uint64_t *src = (const uint64_t *)&from[k];
        for (size_t w = 0; w < sizeof *out / sizeof *dst; w++)
            dst[w] += __atomic_load_n(&src[w], __ATOMIC_RELAXED);
    }
}


uint64_t ghost_counters_path_ops(int path)
{
    uint64_t n = 0;
    for (int k = 0; k < GHOST_COUNTER_SLOTS; k++)
        for (int op = 0; op < GHOST_NOPS; op++)
            n += __atomic_load_n(&slots[k].ops[op][path], __ATOMIC_RELAXED);
    return n;
}

uint64_t ghost_type_bytes_derived(MPI_Count count, MPI_Datatype type)
{
    MPI_Count size = 0;
    if (GHOST_REAL(MPI_Type_size_c)(type, &size) != MPI_SUCCESS || size < 0)
        return 0;
    return (uint64_t)count * (uint64_t)size;
}

int ghost_counters_setup(MPI_Comm node, int local_rank, int role, int index, int thread_multiple)
{
    int n;
    int rc = PMPI_Comm_size(node, &n);
    if (rc != MPI_SUCCESS)
        return rc;
    ghost_counters_t *blocks;
    rc = ghost_node_block(node, local_rank,
                          (MPI_Aint)n * GHOST_COUNTER_SLOTS * (MPI_Aint)sizeof(ghost_counters_t), &node_win,
                          &blocks);
    if (rc != MPI_SUCCESS)
        return rc;
    /* Each process moves its slots in, with what they counted so far (the
     * node block itself, allocated just above, among it). */
    move_slots(&blocks[local_rank * GHOST_COUNTER_SLOTS]);
    ghost_counters_mine->role = (uint64_t)role;
    ghost_counters_mine->index = (uint64_t)index;
    ghost_counters_mine->start_ticks = __rdtsc();
    ghost_counters_atomic = thread_multiple;
    node_blocks = blocks;
    __atomic_store_n(&node_nprocs, n, __ATOMIC_RELEASE);
    /* Every block is initialized before the exporter reads any. */
    return ghost_real_barrier(node);
}

int ghost_counters_teardown(void)
{
    if (node_win == MPI_WIN_NULL)
        return MPI_SUCCESS;
    __atomic_store_n(&node_nprocs, 0, __ATOMIC_RELEASE);
    move_slots(private_slots);
    node_blocks = NULL;
    return GHOST_REAL(MPI_Win_free)(&node_win);
}

int ghost_counters_count(void) { return __atomic_load_n(&node_nprocs, __ATOMIC_ACQUIRE); }

int ghost_counters_read(int i, ghost_counters_t *out)
{
    if (i < 0 || i >= ghost_counters_count())
        return 0;
    sum_slots(&node_blocks[i * GHOST_COUNTER_SLOTS], out);
    return 1;
}

void ghost_counters_finish(void) { __atomic_store_n(&ghost_counters_mine->end_ticks, __rdtsc(), __ATOMIC_RELAXED); }

void ghost_count_shm(int64_t bytes) { GHOST_COUNT_ADD(ghost_counters_mine->shm_bytes, bytes); }
