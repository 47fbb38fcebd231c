/*
 * How ghosts learn that the users of their node are gone, and how they leave.
 *
 * A ghost lives inside MPI_Init until every user of its node has sent
 * FINALIZE. A user that never finalizes (exit(n), a return from main, a
 * signal) would leave it serving forever, and the launcher would then kill
 * it: hydra records a process it reaps with a signal as such, and ORs the
 * statuses of the job, so a ghost killed with SIGKILL turned `exit(3)` into
 * status 9. So:
 *
 *  - Each process of a node writes its pid into a small block of node
 *    shared memory at MPI_Init.
 *  - A user that leaves through exit() without MPI_Finalize (a destructor of
 *    this library, which runs inside exit()) counts itself in that block,
 *    rings its ghosts' doorbells, and waits (at most LEAVE_WAIT_MS) until
 *    they have terminated. Only then does it terminate itself, which is
 *    what makes hydra kill the node's remaining processes: by then the
 *    ghosts have ended with status 0.
 *  - A ghost polls that count on every pass of its loop and, every
 *    WATCH_INTERVAL_NS, whether a user of its node died without a word
 *    (pidfds: SIGKILL, SIGSEGV, _exit) or its launcher (its parent) is gone.
 *    Then it leaves: it tells its PMI server that it is done, so that its
 *    own exit is not taken for a failure, and calls _exit(0).
 *
 * Nothing here calls MPI after setup: the exit path may run on any thread,
 * while another is inside MPI.
 */
#define _GNU_SOURCE
#include "agree.h"
#include "doorbell.h"
#include "ghost.h"

#include <dlfcn.h>
#include <linux/futex.h>
#include <stdint.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

#define LEAVE_WAIT_MS 2000
#define REAP_WAIT_MS 300
#define WATCH_INTERVAL_NS 20000000 /* 20 ms */

typedef struct {
    uint32_t departed; /* users that left without MPI_Finalize */
    uint32_t released; /* a departing user saw every ghost reaped (futex) */
    uint32_t pad[14];
    int32_t pid[]; /* by node-local rank */
} life_block_t;

static life_block_t *block;
static MPI_Win block_win = MPI_WIN_NULL;
static int n_local, n_ghosts, my_local = -1, is_ghost;
static pid_t my_pid, parent_pid;
static int finalizing;
static int *user_fds; /* ghost: pidfds of the node's users, -1 where none */
static uint64_t next_watch;
static const char *why_leaving = "";

static int pidfd_open(pid_t pid) { return (int)syscall(SYS_pidfd_open, pid, 0); }

int ghost_life_setup(MPI_Comm node, int local_rank, int local_size, int ghosts, int ghost)
{
    int rc = ghost_node_block(node, local_rank,
                              sizeof(life_block_t) + (MPI_Aint)local_size * sizeof(int32_t),
                              &block_win, &block);
    if (rc != MPI_SUCCESS)
        return rc;
    n_local = local_size;
    n_ghosts = ghosts;
    my_local = local_rank;
    is_ghost = ghost;
    my_pid = getpid();
    parent_pid = getppid();
    if (local_rank == 0) {
        __atomic_store_n(&block->departed, 0, __ATOMIC_RELAXED);
        __atomic_store_n(&block->released, 0, __ATOMIC_RELAXED);
    }
    block->pid[local_rank] = (int32_t)my_pid;
    rc = ghost_real_barrier(node); /* every pid is written before anyone reads one */
    if (rc != MPI_SUCCESS || !ghost)
        return rc;
    user_fds = malloc(sizeof(int) * local_size);
    for (int i = 0; i < local_size; i++)
        user_fds[i] = i < ghosts ? -1 : pidfd_open(block->pid[i]);
    return MPI_SUCCESS;
}

void ghost_life_finalizing(void) { finalizing = 1; }

int ghost_life_teardown(void)
{
    if (user_fds) {
        for (int i = 0; i < n_local; i++)
            if (user_fds[i] >= 0)
                close(user_fds[i]);
        free(user_fds);
        user_fds = NULL;
    }
    block = NULL;
    return GHOST_REAL(MPI_Win_free)(&block_win);
}

static int process_gone(int fd, pid_t pid)
{
    if (fd >= 0) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        return poll(&p, 1, 0) > 0;
    }
    return kill(pid, 0) != 0 && errno == ESRCH;
}

int ghost_life_gone(void)
{
    if (block == NULL)
        return 0;
    if (__atomic_load_n(&block->departed, __ATOMIC_ACQUIRE) != 0) {
        why_leaving = "a user of this node left without MPI_Finalize";
        return 1;
    }
    uint64_t now = ghost_now_ns();
    if (now < next_watch)
        return 0;
    next_watch = now + WATCH_INTERVAL_NS;
    if (getppid() != parent_pid) {
        why_leaving = "the launcher's proxy is gone";
        return 1;
    }
    for (int i = n_ghosts; i < n_local; i++)
        if (process_gone(user_fds[i], block->pid[i])) {
            why_leaving = "a user of this node died without MPI_Finalize";
            return 1;
        }
    return 0;
}

const char *ghost_life_reason(void) { return why_leaving; }

/* Tells a PMI-1 server (hydra's proxy) that this process is done, so that
 * closing the connection at exit is not a failure that makes the proxy kill
 * the node's processes, the users still on their way out included. Other
 * launchers (no PMI_FD) need nothing.
 *
 * The message must be in the protocol this process's own PMI client spoke
 * on PMI_FD. MPICH 4.0.2's client speaks only PMI-1 ("cmd=init
 * pmi_version=1"), also under srun --mpi=pmi2: Slurm's pmi2 plugin serves
 * PMI-1 clients on the same descriptor and answers this message with
 * "cmd=finalize_ack" (seen with strace in the test cluster). Slurm does not
 * end a step early for a task that exits without it, so there it only
 * keeps the protocol tidy (TestSlurm/leaving: statuses equal plain's). */
static void pmi_finalize(void)
{
    const char *env = getenv("PMI_FD");
    if (env == NULL)
        return;
    int fd = atoi(env);
    static const char cmd[] = "cmd=finalize\n";
    if (write(fd, cmd, sizeof cmd - 1) != (ssize_t)(sizeof cmd - 1))
        return;
    /* Wait briefly for the acknowledgement: the proxy handles the command
     * before it sees the connection close. */
    char buf[256];
    struct pollfd p = {.fd = fd, .events = POLLIN};
    if (poll(&p, 1, 200) > 0 && read(fd, buf, sizeof buf) < 0)
        return;
}

#ifdef GHOST_ABI_OPENMPI
/* Open MPI's launcher (ORTE, with PMIx) reports a process that called
 * MPI_Init and exits without finalizing its PMIx client as "exiting
 * improperly" and fails the job. PMIx_Finalize (libpmix, which libmpi
 * links) deregisters the process from its local server first; it does not
 * involve the other processes. */
static void pmix_finalize(void)
{
    int (*fin)(const void *, size_t) = (int (*)(const void *, size_t))dlsym(RTLD_DEFAULT, "PMIx_Finalize");
    if (fin != NULL)
        fin(NULL, 0);
}
#endif

void ghost_life_leave(void)
{
#ifdef GHOST_ABI_OPENMPI
    pmix_finalize();
#endif
    pmi_finalize(); /* nothing without hydra's PMI_FD */
    _exit(0);
}

/* The user side of an exit without MPI_Finalize. A destructor runs inside
 * exit() (a return from main included) after the application's atexit
 * handlers, and never in a forked child's _exit or on a signal. */
__attribute__((destructor)) static void user_leaving(void)
{
    if (block == NULL || is_ghost || finalizing || getpid() != my_pid)
        return;
    __atomic_add_fetch(&block->departed, 1, __ATOMIC_RELEASE);
    int fds[GHOST_MAX_NG];
    for (int g = 0; g < n_ghosts && g < GHOST_MAX_NG; g++) {
        fds[g] = pidfd_open(block->pid[g]);
        if (ghost_node_ctl)
            ghost_ring_slow(g);
    }
    for (int g = 0; g < n_ghosts && g < GHOST_MAX_NG; g++) {
        for (int waited = 0; waited < LEAVE_WAIT_MS; waited += 5) {
            if (fds[g] >= 0) {
                struct pollfd p = {.fd = fds[g], .events = POLLIN};
                if (poll(&p, 1, 5) != 0)
                    break;
            } else {
                if (kill(block->pid[g], 0) != 0)
                    break;
                struct timespec ts = {0, 5000000};
                nanosleep(&ts, NULL);
            }
        }
        if (fds[g] >= 0)
            close(fds[g]);
        /* Until the launcher has reaped it, too: hydra's proxy reaps one
         * child per event it handles, and a ghost still waiting to be
         * reaped when this process ends shifts that order, so that a user
         * the proxy kills next is more often reaped (and recorded) as
         * killed than without Ghost. */
        for (int waited = 0; waited < REAP_WAIT_MS && kill(block->pid[g], 0) == 0 &&
                             !__atomic_load_n(&block->released, __ATOMIC_ACQUIRE);
             waited += 2) {
            struct timespec ts = {0, 2000000};
            ghost_futex(&block->released, FUTEX_WAIT, 0, &ts);
        }
    }
    /* Every user of the node that leaves now goes at once: the first whose
     * exit the proxy sees makes it kill the node's other processes, and a
     * user still in this wait then was killed, recorded as 9 or 0 by
     * chance (TestGhostLeavesWithItsUsers/2nodes exited 9 instead of 5).
     * Whoever sees the ghosts reaped first releases the others, who would
     * otherwise each see it up to a polling period later. */
    __atomic_store_n(&block->released, 1, __ATOMIC_RELEASE);
    ghost_futex(&block->released, FUTEX_WAKE, INT32_MAX, NULL);
}

/* A rank's children are not MPI ranks: a shell from system() or popen(), a
 * script started with fork+exec. With LD_PRELOAD inherited, every one of
 * them would boot a Go runtime and load Ghost for nothing (and an MPI
 * program among them would split itself into users and ghosts). So at
 * MPI_Init, the one point every rank passes and mpiexec never does, the
 * library takes itself out of the variable. Before MPI_Init children still
 * inherit it; they stay inert (nothing of Ghost runs until MPI_Init). */
static int same_library(const char *entry, size_t len, const char *self)
{
    const char *base = strrchr(self, '/');
    base = base ? base + 1 : self;
    if (len == strlen(self) && strncmp(entry, self, len) == 0)
        return 1;
    /* The loader records the name as given; compare file names too, so
     * that a relative or differently spelled path still matches. */
    const char *ebase = entry;
    for (size_t i = 0; i < len; i++)
        if (entry[i] == '/')
            ebase = entry + i + 1;
    size_t blen = len - (size_t)(ebase - entry);
    return blen == strlen(base) && strncmp(ebase, base, blen) == 0;
}

void ghost_unpreload(void)
{
    const char *preload = getenv("LD_PRELOAD");
    Dl_info info;
    if (preload == NULL || !dladdr((void *)ghost_unpreload, &info) || info.dli_fname == NULL)
        return;
    size_t n = strlen(preload);
    char *kept = malloc(n + 1);
    if (kept == NULL)
        return;
    size_t k = 0;
    int changed = 0;
    /* ld.so separates entries with colons or spaces. */
    for (const char *p = preload; *p;) {
        size_t len = strcspn(p, ": ");
        if (len > 0) {
            if (same_library(p, len, info.dli_fname)) {
                changed = 1;
            } else {
                if (k > 0)
                    kept[k++] = ':';
                memcpy(kept + k, p, len);
                k += len;
            }
        }
        p += len;
        if (*p)
            p++;
    }
    kept[k] = 0;
    if (changed) {
        /* In a c-shared library the Go runtime starts on a thread of its
         * own, and copies the environment there from the array that the
         * process started with. unsetenv removes an entry by shifting the
         * later ones down in that very array: during the copy, Go skipped
         * the variable after LD_PRELOAD now and then (GHOST_NG on one rank
         * of four, which then took another ghost count than the others
         * and hung the job in MPI_Init). So Go must be done first. */
        ghostRuntimeReady();
        if (k == 0)
            unsetenv("LD_PRELOAD");
        else
            setenv("LD_PRELOAD", kept, 1);
    }
    free(kept);
}

static char *stdout_stash;
static size_t stdout_stash_len;

void ghost_stdout_stash(void)
{
    size_t n = __fpending(stdout);
    if (n == 0 || stdout->_IO_write_base == NULL || (stdout_stash = malloc(n)) == NULL)
        return;
    /* glibc keeps a stream's pending output between these two pointers. */
    memcpy(stdout_stash, stdout->_IO_write_base, n);
    stdout_stash_len = n;
    __fpurge(stdout);
}

void ghost_stdout_restore(void)
{
    if (stdout_stash == NULL)
        return;
    fwrite(stdout_stash, 1, stdout_stash_len, stdout);
    free(stdout_stash);
    stdout_stash = NULL;
}
