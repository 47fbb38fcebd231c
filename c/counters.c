/*
 * The node's counter blocks (counters.h): one ghost_counters_t per process
 * of the node, in a shared-memory block that node rank 0 owns. Each process
 * writes only its own; the node's first ghost reads them all for the
 * metrics exporter. No MPI call happens here after setup except the free.
 */
#include "counters.h"
#include "win.h"

#include <x86intrin.h>

/* Where a process counts before the node block exists, under GHOST_NG=0,
 * and after finalize. */
static ghost_counters_t private_block;
ghost_counters_t *ghost_counters_mine = &private_block;
int ghost_counters_atomic = 0;

static MPI_Win node_win = MPI_WIN_NULL;
static ghost_counters_t *node_blocks;
static int node_nprocs;

ghost_counters_t *ghost_counters_self(void) { return ghost_counters_mine; }

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
    rc = ghost_node_block(node, local_rank, (MPI_Aint)n * (MPI_Aint)sizeof(ghost_counters_t), &node_win,
                          &blocks);
    if (rc != MPI_SUCCESS)
        return rc;
    /* Each process initializes its own block, with what it counted so far
     * (the node block itself, allocated just above, among it). */
    ghost_counters_t *mine = &blocks[local_rank];
    *mine = *ghost_counters_mine;
    mine->role = (uint64_t)role;
    mine->index = (uint64_t)index;
    mine->start_ticks = __rdtsc();
    ghost_counters_atomic = thread_multiple;
    node_blocks = blocks;
    __atomic_store_n(&node_nprocs, n, __ATOMIC_RELEASE);
    __atomic_store_n(&ghost_counters_mine, mine, __ATOMIC_RELEASE);
    /* Every block is initialized before the exporter reads any. */
    return PMPI_Barrier(node);
}

int ghost_counters_teardown(void)
{
    if (node_win == MPI_WIN_NULL)
        return MPI_SUCCESS;
    private_block = *ghost_counters_mine;
    __atomic_store_n(&ghost_counters_mine, &private_block, __ATOMIC_RELEASE);
    __atomic_store_n(&node_nprocs, 0, __ATOMIC_RELEASE);
    node_blocks = NULL;
    return GHOST_REAL(MPI_Win_free)(&node_win);
}

int ghost_counters_count(void) { return __atomic_load_n(&node_nprocs, __ATOMIC_ACQUIRE); }

int ghost_counters_read(int i, ghost_counters_t *out)
{
    if (i < 0 || i >= ghost_counters_count())
        return 0;
    const uint64_t *src = (const uint64_t *)&node_blocks[i];
    uint64_t *dst = (uint64_t *)out;
    for (size_t k = 0; k < sizeof *out / sizeof *dst; k++)
        dst[k] = __atomic_load_n(&src[k], __ATOMIC_RELAXED);
    return 1;
}

void ghost_counters_finish(void) { __atomic_store_n(&ghost_counters_mine->end_ticks, __rdtsc(), __ATOMIC_RELAXED); }

void ghost_count_shm(int64_t bytes) { GHOST_COUNT_ADD(ghost_counters_mine->shm_bytes, bytes); }

/* Whether this process speaks for w on its node: the window's lowest user
 * there (slot 0), so that each window counts once per node. */
static int leads(const ghost_win_t *w) { return !w->plain && w->t && w->t[w->rank].slot == 0; }

void ghost_count_window(const ghost_win_t *w, int delta)
{
    if (!leads(w))
        return;
    GHOST_COUNT_ADD(ghost_counters_mine->windows, delta);
    if (w->redirect)
        GHOST_COUNT_ADD(ghost_counters_mine->windows_redirected, delta);
}

void ghost_win_set_redirect(ghost_win_t *w, int on)
{
    on = on != 0;
    if (__atomic_load_n(&w->redirect, __ATOMIC_RELAXED) == on)
        return;
    __atomic_store_n(&w->redirect, on, __ATOMIC_RELAXED);
    if (!leads(w))
        return;
    GHOST_COUNT_ADD(ghost_counters_mine->transitions[on ? GHOST_TO_GHOST : GHOST_TO_DIRECT], 1);
    GHOST_COUNT_ADD(ghost_counters_mine->windows_redirected, on ? 1 : -1);
}
