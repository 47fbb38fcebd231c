/* The vote of a process under MPI_THREAD_MULTIPLE (issue 14) is about the
 * whole process, not about whichever thread ends an interval.
 *
 * Every user rank runs WORKERS threads beside its main thread, each with a
 * window of its own (one lock per origin and target per window is what MPI
 * allows, so threads that lock concurrently use different windows). In a
 * "comm" phase the workers run lock, accumulate, fetch-and-op, unlock to
 * the next rank in a tight loop while the main thread computes outside MPI;
 * in a "compute" phase every thread computes. (Epochs to a target whose
 * threads all compute would wait for it with redirection off: a vote on
 * such a phase is the business of the wait separation, not of this test.)
 * The main thread then joins the workers and
 * fences every window, where GHOST_ASYNC=auto agrees on the ranks' votes.
 *
 * Three threads of four spend the comm phase inside MPI: the process
 * communicates, and the windows must end it with redirection off. A vote
 * taken from the main thread alone (it computed the whole phase) would
 * keep them on. After a compute phase they must be on again. Rank 0 prints
 * "phase P KIND -> on|off" per phase (the state of every window, which the
 * ranks check to be equal), and the accumulated and fetched values are
 * checked exactly.
 * Usage: vote_threads [phases] [phase_ms] */
#include "async_state.h"
#include "check.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

enum { WORKERS = 3 };

static MPI_Win wins[WORKERS];
static int64_t *mems[WORKERS];
static int target, comm_phase;
static double phase_s;

static void spin_until(double t_end)
{
    volatile double x = 0;
    while (MPI_Wtime() < t_end)
        for (int i = 0; i < 1000; i++)
            x += i;
}

typedef struct {
    int id;
    int64_t sent;    /* accumulates and fetch-and-ops of 1, this thread's */
    int64_t fetched; /* largest value fetch-and-op returned */
} worker_t;

static void one_epoch(worker_t *w)
{
    int64_t one = 1, old = -1;
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, target, 0, wins[w->id]);
    MPI_Accumulate(&one, 1, MPI_INT64_T, target, 0, 1, MPI_INT64_T, MPI_SUM, wins[w->id]);
    MPI_Fetch_and_op(&one, &old, MPI_INT64_T, target, 0, MPI_SUM, wins[w->id]);
    MPI_Win_unlock(target, wins[w->id]);
    w->sent += 2;
    if (old > w->fetched)
        w->fetched = old;
}

static void *work(void *arg)
{
    worker_t *w = arg;
    double end = MPI_Wtime() + phase_s;
    if (comm_phase) {
        while (MPI_Wtime() < end)
            one_epoch(w);
    } else {
        spin_until(end);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int rank, size;
    init_thread_multiple(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int phases = argc > 1 ? atoi(argv[1]) : 4;
    phase_s = (argc > 2 ? atof(argv[2]) : 300) / 1000;
    target = (rank + 1) % size;
    for (int i = 0; i < WORKERS; i++) {
        MPI_Win_allocate(sizeof(int64_t), sizeof(int64_t), MPI_INFO_NULL, MPI_COMM_WORLD, &mems[i], &wins[i]);
        *mems[i] = 0;
        MPI_Win_fence(0, wins[i]);
    }
    worker_t workers[WORKERS] = {{0}};
    for (int p = 0; p < phases; p++) {
        comm_phase = p % 2 == 0;
        pthread_t th[WORKERS];
        for (int i = 0; i < WORKERS; i++) {
            workers[i].id = i;
            pthread_create(&th[i], NULL, work, &workers[i]);
        }
        spin_until(MPI_Wtime() + phase_s);
        for (int i = 0; i < WORKERS; i++)
            pthread_join(th[i], NULL);
        int on = 1;
        for (int i = 0; i < WORKERS; i++) {
            MPI_Win_fence(0, wins[i]);
            int s = state_on(wins[i]);
            CHECK(i == 0 || s == on, "phase %d: window %d has state %d, window 0 has %d", p, i, s, on);
            on = i == 0 ? s : on;
        }
        int all[64];
        MPI_Allgather(&on, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD);
        for (int r = 1; r < size && r < 64; r++)
            CHECK(all[r] == all[0], "phase %d: rank %d has state %d, rank 0 has %d", p, r, all[r], all[0]);
        if (rank == 0) {
            printf("phase %d %s -> %s\n", p, comm_phase ? "comm" : "compute", on ? "on" : "off");
            fflush(stdout);
        }
    }
    /* Each window's value at this rank is what its one origin, the rank
     * before, sent on it; every fetch saw a value below that. */
    for (int i = 0; i < WORKERS; i++) {
        int64_t sent = workers[i].sent, got = 0, before = 0;
        MPI_Sendrecv(&sent, 1, MPI_INT64_T, target, 0, &got, 1, MPI_INT64_T, (rank + size - 1) % size, 0,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        before = *mems[i];
        CHECK(before == got, "window %d: value %lld, the origin sent %lld", i, (long long)before, (long long)got);
        CHECK(workers[i].fetched < sent, "window %d: fetched %lld, sent only %lld", i,
              (long long)workers[i].fetched, (long long)sent);
        MPI_Win_free(&wins[i]);
    }
    check_summary();
    MPI_Finalize();
    return 0;
}
