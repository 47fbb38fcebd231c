/* How a rank's process ends, and what it does around MPI. argv[1] selects:
 *   exit N      user rank 1 calls exit(N) without MPI_Finalize; the others
 *               wait in a barrier that cannot complete
 *   exitone N   user rank 1 calls exit(N) without MPI_Finalize; the others
 *               return 0 from main a second later, without finalizing
 *   return N    every rank returns N from main without finalizing
 *   abort N     user rank 1 calls MPI_Abort(MPI_COMM_WORLD, N)
 *   segv        user rank 1 dereferences NULL
 *   kill        user rank 1 sends itself SIGKILL
 *   atexit      an atexit handler and stdout buffered before MPI_Init, then
 *               an ordinary finalize
 *   children    every rank runs a shell command with system() and forks a
 *               child that exits, after MPI_Init
 *   signals     handlers of the application's own: SIGUSR1 (installed
 *               before MPI_Init), SIGPIPE ignored, SIGSEGV (after); then
 *               user rank 1 crashes
 *   lockkill    user rank 0 dies (SIGKILL) holding an exclusive lock on
 *               rank 1 of an MPI_Win_allocate window; the others wait for
 *               the same lock
 *   fencekill   user rank 1 dies (SIGKILL) between two fences while the
 *               others are inside the second
 *   sleep S     every rank sleeps S seconds outside MPI, then finalizes
 */
#include <errno.h>
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int rank = -1, size;

static void say_atexit(void) { printf("atexit rank %d\n", rank); }

static volatile sig_atomic_t usr1;
static void on_usr1(int sig) { (void)sig; usr1++; }

static void on_segv(int sig)
{
    char buf[96];
    int n = snprintf(buf, sizeof buf, "handler: rank %d caught signal %d\n", rank, sig);
    if (write(2, buf, n) < 0)
        _exit(99);
    /* Let the fault kill the process as it would have: the usual status. */
    signal(SIGSEGV, SIG_DFL);
}

static void crash(void)
{
    volatile int *p = NULL;
    *p = 1;
}

static void windowed(const char *mode)
{
    MPI_Win win;
    int *base;
    MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    *base = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    int one = 1;
    if (strcmp(mode, "lockkill") == 0) {
        if (rank == 0) {
            MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
            MPI_Put(&one, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
            MPI_Win_flush(1, win);
            printf("rank 0 dies holding the lock\n");
            fflush(stdout);
            raise(SIGKILL);
        }
        sleep(1); /* rank 0 holds the lock by now */
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
        MPI_Put(&one, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
        MPI_Win_unlock(1, win);
    } else {
        MPI_Win_fence(0, win);
        MPI_Put(&one, 1, MPI_INT, (rank + 1) % size, 0, 1, MPI_INT, win);
        if (rank == 1) {
            printf("rank 1 dies between fences\n");
            fflush(stdout);
            raise(SIGKILL);
        }
        MPI_Win_fence(0, win);
    }
    MPI_Win_free(&win);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "atexit";
    int n = argc > 2 ? atoi(argv[2]) : 0;
    if (strcmp(mode, "atexit") == 0) {
        atexit(say_atexit);
        printf("buffered before MPI_Init\n"); /* stdout is a pipe: buffered */
    }
    if (strcmp(mode, "signals") == 0) {
        struct sigaction sa = {0};
        sa.sa_handler = on_usr1;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGUSR1, &sa, NULL);
        signal(SIGPIPE, SIG_IGN);
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Barrier(MPI_COMM_WORLD);

    if (strcmp(mode, "exit") == 0) {
        if (rank == 1)
            exit(n);
        MPI_Barrier(MPI_COMM_WORLD);
    } else if (strcmp(mode, "exitone") == 0) {
        if (rank == 1)
            exit(n);
        sleep(1);
        return 0;
    } else if (strcmp(mode, "return") == 0) {
        return n;
    } else if (strcmp(mode, "abort") == 0) {
        if (rank == 1)
            MPI_Abort(MPI_COMM_WORLD, n);
        MPI_Barrier(MPI_COMM_WORLD);
    } else if (strcmp(mode, "segv") == 0) {
        if (rank == 1)
            crash();
        MPI_Barrier(MPI_COMM_WORLD);
    } else if (strcmp(mode, "kill") == 0) {
        if (rank == 1)
            raise(SIGKILL);
        MPI_Barrier(MPI_COMM_WORLD);
    } else if (strcmp(mode, "children") == 0) {
        char cmd[256];
        /* grep's /proc/self is grep's own: an exec'd grandchild. */
        snprintf(cmd, sizeof cmd,
                 "echo \"rank %d: child maps libghost $(grep -c libghost /proc/self/maps)"
                 " LD_PRELOAD=[$LD_PRELOAD]\"",
                 rank);
        fflush(stdout);
        if (system(cmd) != 0)
            printf("rank %d: system failed\n", rank);
        fflush(stdout);
        pid_t pid = fork();
        if (pid == 0) {
            printf("rank %d: forked child exits\n", rank);
            exit(0); /* runs the inherited exit code, Ghost's included */
        }
        int st = -1;
        waitpid(pid, &st, 0);
        printf("rank %d: forked child status %d\n", rank, st);
        MPI_Barrier(MPI_COMM_WORLD);
    } else if (strcmp(mode, "signals") == 0) {
        struct sigaction sa = {0};
        sa.sa_handler = on_segv;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGSEGV, &sa, NULL);
        raise(SIGUSR1);
        kill(getpid(), SIGUSR1); /* may land on any thread, Go's included */
        for (int i = 0; i < 1000 && usr1 < 2; i++)
            usleep(1000);
        int fds[2];
        if (pipe(fds) != 0)
            return 98;
        close(fds[0]);
        ssize_t w = write(fds[1], "x", 1);
        printf("rank %d: SIGUSR1 handled %d times; write to a closed pipe: %s\n", rank, (int)usr1,
               w < 0 && errno == EPIPE ? "EPIPE" : "other");
        fflush(stdout);
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 1)
            crash();
        MPI_Barrier(MPI_COMM_WORLD);
    } else if (strcmp(mode, "sleep") == 0) {
        printf("rank %d sleeps\n", rank);
        fflush(stdout);
        sleep(n);
    } else if (strcmp(mode, "lockkill") == 0 || strcmp(mode, "fencekill") == 0) {
        windowed(mode);
    }
    MPI_Finalize();
    return 0;
}
