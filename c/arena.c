/*
 * Node shared memory: the node arena (arena.h), and the small fixed blocks
 * (counters, doorbells, liveness, the L2 table) that ghost_node_block
 * allocates, at the end of this file.
 *
 * The node's first process creates a POSIX shared-memory file, sizes it
 * (sparse: ftruncate reserves nothing), and tells the others its name; once
 * every process has mapped it, the name is unlinked, so nothing is left in
 * /dev/shm whichever way the job ends. Each user's part is managed by that
 * user alone, with a first-fit list of free extents kept in private memory
 * (the application can scribble over window memory, never over the list).
 */
#define _GNU_SOURCE
#include "arena.h"

#include "counters.h"
#include "ghost.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#define LINE 64
#define ROUND_LINE(x) (((x) + LINE - 1) / LINE * LINE)
/* A freed block at least this large gives its whole pages back to the
 * system: a window of megabytes should not hold memory after MPI_Win_free,
 * while giving back small blocks would cost a system call per free. */
#define RELEASE_MIN ((MPI_Aint)64 * 1024)

typedef struct {
    MPI_Aint off, len; /* relative to the start of this process's part */
} extent_t;

static struct {
    char *base;         /* the whole node arena in this process */
    MPI_Aint bytes;     /* its length */
    MPI_Aint part_bytes;
    int my_part;        /* -1: none */
    pthread_mutex_t mu; /* guards free[] */
    extent_t *free;     /* free extents of this part, sorted by offset, never adjacent */
    int nfree, capfree;
} arena = {.my_part = -1, .mu = PTHREAD_MUTEX_INITIALIZER};

int ghost_arena_ready(void) { return arena.base != NULL; }
char *ghost_arena_base(void) { return arena.base; }
MPI_Aint ghost_arena_bytes(void) { return arena.bytes; }
MPI_Aint ghost_arena_part_bytes(void) { return arena.part_bytes; }
MPI_Aint ghost_arena_offset(const void *p) { return (const char *)p - arena.base; }
MPI_Aint ghost_arena_part_offset(int part) { return (MPI_Aint)part * arena.part_bytes; }

static char *my_part_base(void) { return arena.base + ghost_arena_part_offset(arena.my_part); }

int ghost_arena_owns(const void *p)
{
    if (!arena.base || arena.my_part < 0)
        return 0;
    const char *c = p, *start = my_part_base();
    return c >= start && c < start + arena.part_bytes;
}

/* What the node's first process tells the others. */
typedef struct {
    char name[64];
    int64_t part_bytes;
    int32_t ok;
} announce_t;

/* Creates the file under a name no other job uses. */
static int create_file(announce_t *a, MPI_Aint total)
{
    for (int attempt = 0; attempt < 8; attempt++) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        snprintf(a->name, sizeof a->name, "/ghost-arena-%d-%lx-%d", (int)getpid(),
                 (unsigned long)ts.tv_nsec, attempt);
        int fd = shm_open(a->name, O_CREAT | O_EXCL | O_RDWR, 0600);
        if (fd < 0 && errno == EEXIST)
            continue;
        if (fd < 0)
            return -1;
        if (ftruncate(fd, (off_t)total) != 0) {
            close(fd);
            shm_unlink(a->name);
            return -1;
        }
        return fd;
    }
    return -1;
}

/* The part size the node can afford: what was asked, but at most half of
 * the free space of /dev/shm shared among the parts, so that a small
 * /dev/shm (containers often mount 64 MiB) makes a small arena rather than
 * a SIGBUS when the windows are touched. */
static MPI_Aint affordable(MPI_Aint asked, int nparts)
{
    struct statvfs vfs;
    if (nparts <= 0 || statvfs("/dev/shm", &vfs) != 0)
        return asked;
    MPI_Aint room = (MPI_Aint)((double)vfs.f_bavail * vfs.f_frsize / 2 / nparts);
    room -= room % RELEASE_MIN;
    return room < asked ? room : asked;
}

int ghost_arena_setup(MPI_Comm node, int nparts, int my_part, MPI_Aint part_bytes)
{
    int me;
    PMPI_Comm_rank(node, &me);
    announce_t a = {{0}, 0, 0};
    int fd = -1;
    if (me == 0) {
        a.part_bytes = affordable(part_bytes, nparts);
        if (a.part_bytes >= RELEASE_MIN) {
            fd = create_file(&a, (MPI_Aint)nparts * a.part_bytes);
            a.ok = fd >= 0;
        }
    }
    int rc = GHOST_REAL(MPI_Bcast)(&a, sizeof a, MPI_BYTE, 0, node);
    if (rc != MPI_SUCCESS)
        return rc;
    MPI_Aint total = (MPI_Aint)nparts * a.part_bytes;
    char *base = NULL;
    int ok = a.ok;
    if (ok && me != 0)
        fd = shm_open(a.name, O_RDWR, 0);
    if (ok && fd >= 0) {
        void *p = mmap(NULL, (size_t)total, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd, 0);
        base = p == MAP_FAILED ? NULL : p;
    }
    if (fd >= 0)
        close(fd);
    ok = ok && base != NULL;
    /* Everyone has mapped the file (or failed to) once this returns. */
    rc = GHOST_REAL(MPI_Allreduce)(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, node);
    if (me == 0 && a.ok)
        shm_unlink(a.name);
    if (rc != MPI_SUCCESS || !ok) {
        if (base)
            munmap(base, (size_t)total);
        if (me == 0 && rc == MPI_SUCCESS && nparts > 0)
            fprintf(stderr, "ghost: warning: no shared-memory arena on this node (%s); "
                            "node-local windows get a segment each, which is slower to create\n",
                    a.ok ? "mapping it failed" : "/dev/shm has no room or refused the file");
        return rc;
    }
    arena.base = base;
    arena.bytes = total;
    arena.part_bytes = a.part_bytes;
    arena.my_part = my_part;
    if (my_part >= 0) {
        arena.free = malloc(sizeof(extent_t) * 16);
        arena.capfree = arena.free ? 16 : 0;
        arena.nfree = arena.free ? 1 : 0; /* without a list, nothing is ever allocated */
        if (arena.free)
            arena.free[0] = (extent_t){0, a.part_bytes};
    }
    return MPI_SUCCESS;
}

void *ghost_arena_alloc(MPI_Aint bytes)
{
    if (!arena.base || arena.my_part < 0 || bytes < 0)
        return NULL;
    bytes = ROUND_LINE(bytes > 0 ? bytes : 1);
    void *p = NULL;
    pthread_mutex_lock(&arena.mu);
    for (int i = 0; i < arena.nfree; i++) {
        extent_t *e = &arena.free[i];
        if (e->len < bytes)
            continue;
        p = my_part_base() + e->off;
        e->off += bytes;
        e->len -= bytes;
        if (e->len == 0) {
            memmove(e, e + 1, sizeof(extent_t) * (size_t)(arena.nfree - i - 1));
            arena.nfree--;
        }
        break;
    }
    pthread_mutex_unlock(&arena.mu);
    return p;
}

/* Returns the whole pages of a freed block to the system: the file is
 * shared, so this frees them for every process, which all agreed (by
 * freeing the window) never to touch them again. */
static void release_pages(char *p, MPI_Aint bytes)
{
    if (bytes < RELEASE_MIN)
        return;
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t lo = ((uintptr_t)p + page - 1) & ~(page - 1), hi = ((uintptr_t)p + (uintptr_t)bytes) & ~(page - 1);
    if (hi > lo)
        madvise((void *)lo, hi - lo, MADV_REMOVE);
}

void ghost_arena_free(void *p, MPI_Aint bytes)
{
    if (!p || !ghost_arena_owns(p))
        return;
    bytes = ROUND_LINE(bytes > 0 ? bytes : 1);
    release_pages(p, bytes);
    MPI_Aint off = (char *)p - my_part_base();
    pthread_mutex_lock(&arena.mu);
    /* i: the first free extent after the block. */
    int i = 0;
    while (i < arena.nfree && arena.free[i].off < off)
        i++;
    int joins_prev = i > 0 && arena.free[i - 1].off + arena.free[i - 1].len == off;
    int joins_next = i < arena.nfree && off + bytes == arena.free[i].off;
    if (joins_prev && joins_next) {
        arena.free[i - 1].len += bytes + arena.free[i].len;
        memmove(&arena.free[i], &arena.free[i + 1], sizeof(extent_t) * (size_t)(arena.nfree - i - 1));
        arena.nfree--;
    } else if (joins_prev) {
        arena.free[i - 1].len += bytes;
    } else if (joins_next) {
        arena.free[i].off = off;
        arena.free[i].len += bytes;
    } else {
        if (arena.nfree == arena.capfree) {
            extent_t *grown = realloc(arena.free, sizeof(extent_t) * (size_t)arena.capfree * 2);
            if (!grown) { /* out of memory: the block stays lost to the arena */
                pthread_mutex_unlock(&arena.mu);
                return;
            }
            arena.free = grown;
            arena.capfree *= 2;
        }
        memmove(&arena.free[i + 1], &arena.free[i], sizeof(extent_t) * (size_t)(arena.nfree - i));
        arena.free[i] = (extent_t){off, bytes};
        arena.nfree++;
    }
    pthread_mutex_unlock(&arena.mu);
}

/* ---- fixed node blocks -------------------------------------------------- */

int ghost_node_block(MPI_Comm node, int local_rank, MPI_Aint bytes, MPI_Win *win, void *block)
{
    void *mine;
    int rc = GHOST_REAL(MPI_Win_allocate_shared)(local_rank == 0 ? bytes : 0, 1, MPI_INFO_NULL, node,
                                                 &mine, win);
    if (rc != MPI_SUCCESS)
        return rc;
    if (local_rank == 0) /* the block's owner: its node shared memory */
        ghost_count_shm((int64_t)bytes);
    MPI_Aint size;
    int unit;
    return PMPI_Win_shared_query(*win, 0, &size, &unit, block);
}
