/*
 * The table of redirected windows, the collective building blocks that
 * the Go control plane uses to set them up, and MPI_Win_allocate and
 * MPI_Win_free, which choose between the plain, node-local and redirected
 * kinds of window.
 *
 * Lookup is on every RMA call, so it is an open-addressing hash keyed by the
 * MPI_Win handle, read without a lock: an entry is complete before its
 * handle is returned to the application, and the application cannot use a
 * handle it does not have yet.
 */
#include "counters.h"
#include "local.h"
#include "win.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define TABLE_SLOTS GHOST_WIN_TABLE_SLOTS
#define TOMBSTONE ((MPI_Win)-1)

static struct {
    MPI_Win handle; /* MPI_WIN_NULL: never used */
    ghost_win_t *w;
} table[TABLE_SLOTS];
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static int table_initialized;
/* The windows alive, packed, under table_lock: walked at every barrier
 * under GHOST_ASYNC=auto (agree.c), which must not scan the whole table. */
static ghost_win_t *live[TABLE_SLOTS];
static int nlive;

static inline unsigned slot_of(MPI_Win h)
{
    uint32_t x = GHOST_HANDLE_BITS(h);
    x ^= x >> 16;
    x *= 0x45d9f3bu;
    x ^= x >> 16;
    return x & (TABLE_SLOTS - 1);
}

static void table_init(void)
{
    for (int i = 0; i < TABLE_SLOTS; i++)
        table[i].handle = MPI_WIN_NULL;
    table_initialized = 1;
}

ghost_win_t *ghost_win_find(MPI_Win h)
{
    if (!__atomic_load_n(&table_initialized, __ATOMIC_ACQUIRE))
        return NULL;
    for (unsigned i = slot_of(h), n = 0; n < TABLE_SLOTS; i = (i + 1) & (TABLE_SLOTS - 1), n++) {
        MPI_Win e = __atomic_load_n(&table[i].handle, __ATOMIC_ACQUIRE);
        if (e == h)
            return table[i].w;
        if (e == MPI_WIN_NULL)
            return NULL;
    }
    return NULL;
}

int ghost_win_register(ghost_win_t *w)
{
    pthread_mutex_lock(&table_lock);
    if (!table_initialized)
        table_init();
    int rc = -1;
    for (unsigned i = slot_of(w->user), n = 0; n < TABLE_SLOTS; i = (i + 1) & (TABLE_SLOTS - 1), n++) {
        if (table[i].handle == MPI_WIN_NULL || table[i].handle == TOMBSTONE) {
            table[i].w = w;
            __atomic_store_n(&table[i].handle, w->user, __ATOMIC_RELEASE);
            live[nlive++] = w;
            rc = 0;
            break;
        }
    }
    __atomic_store_n(&table_initialized, 1, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&table_lock);
    if (rc == 0)
        ghost_count_window(w, 1);
    return rc;
}

void ghost_win_unregister(ghost_win_t *w)
{
    ghost_count_window(w, -1);
    pthread_mutex_lock(&table_lock);
    for (int i = 0; i < nlive; i++)
        if (live[i] == w) {
            live[i] = live[--nlive];
            break;
        }
    for (unsigned i = slot_of(w->user), n = 0; n < TABLE_SLOTS; i = (i + 1) & (TABLE_SLOTS - 1), n++) {
        if (table[i].handle == w->user) {
            __atomic_store_n(&table[i].handle, TOMBSTONE, __ATOMIC_RELEASE);
            table[i].w = NULL;
            break;
        }
        if (table[i].handle == MPI_WIN_NULL)
            break;
    }
    pthread_mutex_unlock(&table_lock);
}

/* Calls fn on each window alive, at most max of them, under the table's
 * lock, so that no other thread frees one meanwhile. Returns how many. */
static int each_window(int max, void (*fn)(ghost_win_t *w, int i, void *arg), void *arg)
{
    pthread_mutex_lock(&table_lock);
    int n = nlive < max ? nlive : max;
    for (int i = 0; i < n; i++)
        fn(live[i], i, arg);
    pthread_mutex_unlock(&table_lock);
    return n;
}

static void list_one(ghost_win_t *w, int i, void *out) { ((ghost_win_t **)out)[i] = w; }

int ghost_win_list(ghost_win_t **out, int max) { return each_window(max, list_one, out); }

struct states_out {
    int64_t *ids;
    int *states;
};

static void state_of(ghost_win_t *w, int i, void *arg)
{
    struct states_out *o = arg;
    o->ids[i] = w->id;
    o->states[i] = w->plain ? GHOST_STATE_PLAIN
                   : w->local ? GHOST_STATE_LOCAL
                              : __atomic_load_n(&w->redirect, __ATOMIC_RELAXED);
}

int ghost_win_states(int64_t *ids, int *states, int max)
{
    struct states_out o = {ids, states};
    return each_window(max, state_of, &o);
}

ghost_win_t *ghost_win_new(int nusers)
{
    ghost_win_t *w = calloc(1, sizeof *w);
    w->nusers = nusers;
    w->t = calloc(nusers > 0 ? nusers : 1, sizeof *w->t);
    w->access = calloc(nusers > 0 ? nusers : 1, sizeof(int));
    w->exposure = calloc(nusers > 0 ? nusers : 1, sizeof(int));
    w->touched = calloc(nusers > 0 ? nusers : 1, sizeof(int));
    w->user = w->gwin = w->shm = MPI_WIN_NULL;
    w->pscw = MPI_COMM_NULL;
    return w;
}

void ghost_win_delete(ghost_win_t *w)
{
    free(w->t);
    free(w->access);
    free(w->exposure);
    free(w->touched);
    free(w->seen);
    free(w);
}

int ghost_in_range_derived(const ghost_target_t *t, MPI_Aint disp, MPI_Count count, MPI_Datatype type)
{
    MPI_Count lb, extent, tlb, textent;
    if (GHOST_REAL(MPI_Type_get_extent_c)(type, &lb, &extent) != MPI_SUCCESS ||
        GHOST_REAL(MPI_Type_get_true_extent_c)(type, &tlb, &textent) != MPI_SUCCESS)
        return 1; /* MPICH reports a bad datatype itself */
    if (textent == 0)
        return 1;
    MPI_Count start = (MPI_Count)disp * t->disp_unit, span = (count - 1) * extent;
    MPI_Count lo = start + tlb + (span < 0 ? span : 0);
    MPI_Count hi = start + tlb + textent + (span > 0 ? span : 0);
    return lo >= 0 && hi <= t->size;
}

/* Errors on internal windows are raised on the application's window, with
 * the errhandler the application chose for it. */
int ghost_win_error(ghost_win_t *w, int code)
{
    if (code == MPI_SUCCESS)
        return code;
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    if (GHOST_REAL(MPI_Win_get_errhandler)(w->user, &eh) == MPI_SUCCESS && eh == MPI_ERRORS_ARE_FATAL)
        ghost_fatal_error(code); /* does not return */
    if (eh != MPI_ERRHANDLER_NULL && eh != MPI_ERRORS_ARE_FATAL && eh != MPI_ERRORS_RETURN)
        GHOST_REAL(MPI_Errhandler_free)(&eh); /* the reference get handed out */
    PMPI_Win_call_errhandler(w->user, code);
    return code;
}

int ghost_win_attr(ghost_win_t *w, int keyval, void *attribute_val, int *flag)
{
    static int flavor_allocate = MPI_WIN_FLAVOR_ALLOCATE;
    static int model_unified = MPI_WIN_UNIFIED;
    if (keyval == MPI_WIN_BASE)
        *(void **)attribute_val = w->base;
    else if (keyval == MPI_WIN_SIZE)
        *(MPI_Aint **)attribute_val = &w->size;
    else if (keyval == MPI_WIN_DISP_UNIT)
        *(int **)attribute_val = &w->disp_unit;
    else if (keyval == MPI_WIN_CREATE_FLAVOR)
        *(int **)attribute_val = &flavor_allocate;
    else if (keyval == MPI_WIN_MODEL)
        *(int **)attribute_val = &model_unified;
    else
        return 0;
    *flag = 1;
    return 1;
}

/* ---- building blocks ---------------------------------------------------- */

/* Allocates this process's part of its node's shared segment. Segments are
 * contiguous in rank order, so a ghost (bytes == 0) can expose the whole
 * node segment as one region. */
int ghost_segment_alloc(MPI_Comm node, MPI_Aint bytes, MPI_Win *shm, void **base,
                        void **node_base, MPI_Aint *node_bytes)
{
    /* MPICH 4.0.2 fails an assertion (and aborts) inside
     * MPI_Win_allocate_shared when no context id is left, where
     * MPI_Comm_dup returns an error that every member of node sees: ask
     * the cheap way first, so that the limit comes back as an error. */
    MPI_Comm probe;
    ghost_count_internal(GHOST_INTERNAL_COLLECTIVE, 1);
    int rc = GHOST_REAL(MPI_Comm_dup)(node, &probe);
    if (rc != MPI_SUCCESS)
        return rc;
    GHOST_REAL(MPI_Comm_free)(&probe);
    MPI_Info info;
    GHOST_REAL(MPI_Info_create)(&info);
    GHOST_REAL(MPI_Info_set)(info, "alloc_shared_noncontig", "false");
    /* The shared allocation and the allreduce below (counters.h). */
    ghost_count_internal(GHOST_INTERNAL_COLLECTIVE, 2);
    rc = GHOST_REAL(MPI_Win_allocate_shared)(bytes, 1, info, node, base, shm);
    GHOST_REAL(MPI_Info_free)(&info);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Allreduce(&bytes, node_bytes, 1, MPI_AINT, MPI_SUM, node);
    if (rc != MPI_SUCCESS)
        return rc;
    *node_base = NULL;
    if (*node_bytes > 0) {
        MPI_Aint qsize;
        int qunit;
        /* MPI_PROC_NULL: the segment of the lowest rank with memory, which is
         * where the contiguous node segment starts. */
        rc = PMPI_Win_shared_query(*shm, MPI_PROC_NULL, &qsize, &qunit, node_base);
    }
    return rc;
}

/* The building blocks below each make one internal operation, counted
 * for the call being served (none at setup and finalize). */
int ghost_internal_win(void *base, MPI_Aint bytes, MPI_Comm wincomm, MPI_Win *out)
{
    ghost_count_internal(GHOST_INTERNAL_COLLECTIVE, 1);
    int rc = GHOST_REAL(MPI_Win_create)(bytes > 0 ? base : NULL, bytes, 1, MPI_INFO_NULL, wincomm, out);
    if (rc == MPI_SUCCESS)
        GHOST_REAL(MPI_Win_set_errhandler)(*out, MPI_ERRORS_RETURN);
    return rc;
}

int ghost_info_get(MPI_Info info, const char *key, char *value, int len, int *flag)
{
    *flag = 0;
    if (info == MPI_INFO_NULL)
        return MPI_SUCCESS;
    int buflen = len;
    return GHOST_REAL(MPI_Info_get_string)(info, key, &buflen, value, flag);
}

/* A window over no memory: one context id, no memory registration, and no
 * RMA ever goes to it. Not MPI_Win_create_dynamic, which costs about half
 * as much to make: past MPICH 4.0.2's last context id it still returns
 * MPI_SUCCESS, with a window whose MPI_Win_free then crashes, where
 * MPI_Win_create returns an error (bench/results/2026-11-25-manywin.md). */
int ghost_user_window(MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
    ghost_count_internal(GHOST_INTERNAL_COLLECTIVE, 1);
#ifdef GHOST_ABI_OPENMPI
    /* Open MPI 4.1 with Debian's components (osc/rdma, osc/sm) has none
     * that makes MPI_Win_create on a communicator of one process
     * (MPI_ERR_WIN), where MPI_Win_allocate of no bytes works on any. */
    void *base;
    return GHOST_REAL(MPI_Win_allocate)(0, 1, info, comm, &base, win);
#else
    return GHOST_REAL(MPI_Win_create)(NULL, 0, 1, info, comm, win);
#endif
}

int ghost_free_user_window(MPI_Win *win)
{
    ghost_count_internal(GHOST_INTERNAL_COLLECTIVE, 1);
    return GHOST_REAL(MPI_Win_free)(win);
}
int ghost_free_internal_win(MPI_Win *win)
{
    ghost_count_internal(GHOST_INTERNAL_COLLECTIVE, 1);
    return GHOST_REAL(MPI_Win_free)(win);
}
int ghost_lock(int type, int rank, MPI_Win win)
{
    ghost_count_internal(GHOST_INTERNAL_P2P, 1);
    return GHOST_REAL(MPI_Win_lock)(type, rank, 0, win);
}
int ghost_unlock(int rank, MPI_Win win)
{
    ghost_count_internal(GHOST_INTERNAL_P2P, 1);
    return GHOST_REAL(MPI_Win_unlock)(rank, win);
}
/* Sends nothing in MPICH: no count. */
int ghost_lock_all_nocheck(MPI_Win win) { return GHOST_REAL(MPI_Win_lock_all)(MPI_MODE_NOCHECK, win); }
/* One unlock_all: at least the flush of every target that holds this
 * process's operations, counted as one operation. */
int ghost_unlock_all(MPI_Win win)
{
    ghost_count_internal(GHOST_INTERNAL_P2P, 1);
    return GHOST_REAL(MPI_Win_unlock_all)(win);
}

/* ---- private communicators --------------------------------------------- */

/* One cached duplicate: held by its communicator's attribute and by each
 * window over it. Windows take the lowest free pair of tags; every member
 * of the communicator allocates and frees its windows in the same order
 * (both are collective, and MPI_Win_free passes a barrier before it gives
 * the tags back), so every member picks the same pair. */
typedef struct {
    MPI_Comm dup;
    int refs;
    int nslots;
    unsigned char *used; /* by slot: its tags are TAG_FIRST + 2 * slot and the next */
} comm_private_t;

enum { TAG_FIRST = 1 };
static int private_keyval = MPI_KEYVAL_INVALID;
static pthread_mutex_t private_lock = PTHREAD_MUTEX_INITIALIZER;

static int private_unref(comm_private_t *p)
{
    if (--p->refs > 0)
        return MPI_SUCCESS;
    int rc = GHOST_REAL(MPI_Comm_free)(&p->dup);
    free(p->used);
    free(p);
    return rc;
}

/* The communicator is being freed (or its attribute deleted): windows over
 * it may still be alive, and keep the duplicate until they are freed. */
static int private_delete(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)comm, (void)keyval, (void)extra;
    return private_unref(value);
}

int ghost_comm_private(MPI_Comm comm, int own, ghost_win_t *w)
{
    w->pscw_ref = NULL;
    w->tag = TAG_FIRST;
    if (own) {
        ghost_count_internal(GHOST_INTERNAL_COLLECTIVE, 1);
        return GHOST_REAL(MPI_Comm_dup)(comm, &w->pscw);
    }
    int rc = MPI_SUCCESS;
    pthread_mutex_lock(&private_lock);
    if (private_keyval == MPI_KEYVAL_INVALID)
        rc = GHOST_REAL(MPI_Comm_create_keyval)(MPI_COMM_NULL_COPY_FN, private_delete, &private_keyval, NULL);
    pthread_mutex_unlock(&private_lock);
    comm_private_t *p = NULL;
    int found = 0;
    if (rc == MPI_SUCCESS)
        rc = GHOST_REAL(MPI_Comm_get_attr)(comm, private_keyval, &p, &found);
    if (rc == MPI_SUCCESS && !found) {
        /* Every member misses together: the attribute is set by the
         * collective that creates the first window over comm. */
        p = calloc(1, sizeof *p);
        if (!p)
            return MPI_ERR_NO_MEM;
        ghost_count_internal(GHOST_INTERNAL_COLLECTIVE, 1);
        rc = GHOST_REAL(MPI_Comm_dup)(comm, &p->dup);
        if (rc == MPI_SUCCESS) {
            p->refs = 1;
            rc = GHOST_REAL(MPI_Comm_set_attr)(comm, private_keyval, p);
            if (rc != MPI_SUCCESS)
                private_unref(p);
        } else {
            free(p);
        }
    }
    if (rc != MPI_SUCCESS)
        return rc;
    int slot = 0;
    while (slot < p->nslots && p->used[slot])
        slot++;
    int *ub, flag = 0;
    GHOST_REAL(MPI_Comm_get_attr)(p->dup, MPI_TAG_UB, &ub, &flag);
    if (flag && TAG_FIRST + 2 * (long)slot + 1 > *ub)
        return MPI_ERR_NO_MEM; /* more live windows over comm than tags: the same on every member */
    if (slot == p->nslots) {
        int n = p->nslots ? 2 * p->nslots : 64;
        unsigned char *used = realloc(p->used, (size_t)n);
        if (!used)
            return MPI_ERR_NO_MEM;
        memset(used + p->nslots, 0, (size_t)(n - p->nslots));
        p->used = used;
        p->nslots = n;
    }
    p->used[slot] = 1;
    p->refs++;
    w->pscw = p->dup;
    w->tag = TAG_FIRST + 2 * slot;
    w->pscw_ref = p;
    return MPI_SUCCESS;
}

int ghost_comm_private_release(ghost_win_t *w)
{
    comm_private_t *p = w->pscw_ref;
    if (!p) {
        ghost_count_internal(GHOST_INTERNAL_COLLECTIVE, 1);
        return w->pscw == MPI_COMM_NULL ? MPI_SUCCESS : GHOST_REAL(MPI_Comm_free)(&w->pscw);
    }
    p->used[(w->tag - TAG_FIRST) / 2] = 0;
    w->pscw = MPI_COMM_NULL;
    w->pscw_ref = NULL;
    return private_unref(p);
}

/* ---- MPI_Win_allocate --------------------------------------------------- */

#define SEGMENT_ALIGN 64 /* redirect.SegmentAlign */

int ghost_win_allocate_plain(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                             void *baseptr, MPI_Win *win)
{
    MPI_Aint rounded = (size + SEGMENT_ALIGN - 1) / SEGMENT_ALIGN * SEGMENT_ALIGN;
    int rc = GHOST_REAL(MPI_Win_allocate)(rounded, disp_unit, info, comm, baseptr, win);
    if (rc != MPI_SUCCESS)
        return rc;
    ghost_win_t *w = ghost_win_new(0);
    w->plain = 1;
    w->user = *win;
    w->size = size;
    w->disp_unit = disp_unit;
    w->base = *(void **)baseptr;
    if (ghost_win_register(w) != 0) {
        ghost_win_delete(w);
        return MPI_ERR_NO_MEM;
    }
    return MPI_SUCCESS;
}

int ghost_win_free_plain(ghost_win_t *w, MPI_Win *win)
{
    ghost_win_unregister(w);
    ghost_win_delete(w);
    return GHOST_REAL(MPI_Win_free)(win);
}

/* Windows live on intracommunicators; MPICH 4.0.2 crashes on an
 * intercommunicator, so say so the MPI way instead. */
static int check_window_comm(MPI_Comm comm)
{
    int inter = 0;
    int rc = PMPI_Comm_test_inter(comm, &inter);
    if (rc == MPI_SUCCESS && inter) {
        rc = MPI_ERR_COMM;
        PMPI_Comm_call_errhandler(comm, rc);
    }
    return rc;
}

/* Arguments Ghost checks itself are errors of the communicator, raised on
 * its errhandler as MPICH would. */
static int check_window_args(MPI_Comm comm, MPI_Aint size, MPI_Aint disp_unit)
{
    int rc = MPI_SUCCESS;
    if (size < 0)
        rc = MPI_ERR_SIZE;
    else if (disp_unit <= 0 || disp_unit > 0x7fffffff)
        rc = MPI_ERR_DISP;
    if (rc != MPI_SUCCESS)
        PMPI_Comm_call_errhandler(comm, rc);
    return rc;
}

ghost_hints_t ghost_default_hints; /* set by Go at MPI_Init, before any window is managed */
int ghost_node_local = 0;

enum { MAX_HINT_KEYS = 8 };
static char hint_keys[MAX_HINT_KEYS][MPI_MAX_INFO_KEY + 1];
static int nhint_keys;

int ghost_hint_key_add(const char *key)
{
    if (nhint_keys == MAX_HINT_KEYS || strlen(key) > MPI_MAX_INFO_KEY)
        return MPI_ERR_INTERN;
    strcpy(hint_keys[nhint_keys++], key);
    return MPI_SUCCESS;
}

/* The values of Ghost's keys in the last info object that held one, and
 * the hints Go made of them. Applications allocate many windows with the
 * same info (ARMCI-MPI names epochs_used on every one), and the answer of
 * the last call is reused without entering Go; the warnings about a bad
 * value were printed at its first window. */
enum { CACHED_VALUE_MAX = 256 };
static struct {
    int valid;
    int set[MAX_HINT_KEYS];
    char value[MAX_HINT_KEYS][CACHED_VALUE_MAX];
    ghost_hints_t hints;
} last_info;
static pthread_mutex_t last_info_lock = PTHREAD_MUTEX_INITIALIZER;

/* Reads Ghost's keys of info into set/value; returns 0 when a value is too
 * long to cache. */
static int read_hint_keys(MPI_Info info, int *set, char value[][CACHED_VALUE_MAX])
{
    for (int i = 0; i < nhint_keys; i++) {
        int len = CACHED_VALUE_MAX;
        set[i] = 0;
        if (GHOST_REAL(MPI_Info_get_string)(info, hint_keys[i], &len, value[i], &set[i]) != MPI_SUCCESS)
            return 0;
        if (!set[i])
            value[i][0] = 0;
        else if (len > CACHED_VALUE_MAX)
            return 0;
    }
    return 1;
}

static void window_hints(MPI_Info info, MPI_Comm comm, ghost_hints_t *hints)
{
    *hints = ghost_default_hints;
    if (info == MPI_INFO_NULL)
        return;
    int set[MAX_HINT_KEYS], any = 0;
    char value[MAX_HINT_KEYS][CACHED_VALUE_MAX];
    int cacheable = read_hint_keys(info, set, value);
    for (int i = 0; i < nhint_keys; i++)
        any |= set[i];
    if (cacheable && !any)
        return;
    pthread_mutex_lock(&last_info_lock);
    int hit = cacheable && last_info.valid;
    for (int i = 0; hit && i < nhint_keys; i++)
        hit = set[i] == last_info.set[i] && strcmp(value[i], last_info.value[i]) == 0;
    if (hit)
        *hints = last_info.hints;
    pthread_mutex_unlock(&last_info_lock);
    if (hit)
        return;
    ghostWinHints(info, comm, hints);
    if (!cacheable)
        return;
    pthread_mutex_lock(&last_info_lock);
    memcpy(last_info.set, set, sizeof set);
    memcpy(last_info.value, value, sizeof value);
    last_info.hints = *hints;
    last_info.valid = 1;
    pthread_mutex_unlock(&last_info_lock);
}

static int *node_of; /* by real world rank; NULL while the job lies on one node */
static MPI_Group world_group;

int ghost_nodes_setup(int nworld, const int *nodes)
{
    int *copy = malloc((size_t)nworld * sizeof *copy);
    if (!copy)
        return MPI_ERR_NO_MEM;
    memcpy(copy, nodes, (size_t)nworld * sizeof *copy);
    int rc = GHOST_REAL(MPI_Comm_group)(MPI_COMM_WORLD, &world_group);
    if (rc != MPI_SUCCESS) {
        free(copy);
        return rc;
    }
    node_of = copy;
    return MPI_SUCCESS;
}

/* Whether every process of comm lies on this process's node. Every member
 * answers alike from the same group and table, with no message: a window
 * allocation must not pay a collective to choose its path. */
static int on_one_node(MPI_Comm comm)
{
    if (!node_of)
        return 1;
    MPI_Group group;
    if (GHOST_REAL(MPI_Comm_group)(comm, &group) != MPI_SUCCESS)
        return 0;
    int n = 0, one = 0;
    GHOST_REAL(MPI_Group_size)(group, &n);
    int *ranks = malloc(2 * (size_t)n * sizeof *ranks);
    if (ranks) {
        for (int i = 0; i < n; i++)
            ranks[i] = i;
        one = GHOST_REAL(MPI_Group_translate_ranks)(group, n, ranks, world_group, ranks + n) == MPI_SUCCESS;
        for (int i = 1; one && i < n; i++)
            one = node_of[ranks[n + i]] == node_of[ranks[n]];
        free(ranks);
    }
    GHOST_REAL(MPI_Group_free)(&group);
    return one;
}

static int win_allocate(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,
                        MPI_Win *win)
{
    comm = GHOST_USER_COMM(comm);
    int rc = check_window_comm(comm);
    if (rc == MPI_SUCCESS)
        rc = check_window_args(comm, size, disp_unit);
    if (rc != MPI_SUCCESS)
        return rc;
    /* Go reads Ghost's info keys and warns about bad ones. Without new
     * values, and on the node-local path, Go is not entered at all: with
     * one P, the Go runtime hands its scheduler to another thread whenever
     * C runs long after or inside a call into Go, as window collectives do
     * (docs/design.md, "No Go on the way"). */
    ghost_hints_t hints;
    window_hints(info, comm, &hints);
    if (ghost_node_local && on_one_node(comm))
        return ghost_local_win_allocate(size, (int)disp_unit, info, comm, &hints, baseptr, win);
    return ghostWinAllocate(size, (int)disp_unit, info, comm, &hints, baseptr, win);
}

int ghost_windows_managed = 0;

int PMPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,
                      MPI_Win *win)
{
    GHOST_CALL_BEGINS(); /* a collective: it may wait */
    if (!ghost_windows_managed) /* before MPI_Init, or GHOST_NG=0 with GHOST_NODE_LOCAL=off */
        return GHOST_REAL(MPI_Win_allocate)(size, disp_unit, info, comm, baseptr, win);
    return win_allocate(size, disp_unit, info, comm, baseptr, win);
}
int MPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,
                     MPI_Win *win) __attribute__((alias("PMPI_Win_allocate")));

#ifdef GHOST_HAVE_LARGE_COUNT
int PMPI_Win_allocate_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                        void *baseptr, MPI_Win *win)
{
    GHOST_CALL_BEGINS();
    if (!ghost_windows_managed)
        return GHOST_REAL(MPI_Win_allocate_c)(size, disp_unit, info, comm, baseptr, win);
    return win_allocate(size, disp_unit, info, comm, baseptr, win);
}
int MPI_Win_allocate_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                       void *baseptr, MPI_Win *win) __attribute__((alias("PMPI_Win_allocate_c")));
#endif

/* ---- MPI_Win_free ------------------------------------------------------- */

GHOST_DEFINE(MPI_Win_free, (MPI_Win *win), (win), {
    ghost_win_t *w = ghost_win_find(*win);
    if (!w)
        return GHOST_REAL(MPI_Win_free)(win);
    if (w->plain)
        return ghost_win_free_plain(w, win);
    if (w->local)
        return ghost_local_win_free(w, win);
    return ghostWinFree(w, win);
})
