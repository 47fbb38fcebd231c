/* Shared helpers for the RMA conformance programs in test/rma/.
 *
 * Every program is self-checking: CHECK(...) from check.h counts checks and
 * prints one FAIL line per failed one, and rma_finish() prints the summary
 * line the Go runner parses. Programs run with 2 to 4 ranks (the size is
 * read from MPI_COMM_WORLD; more ranks are refused) and take well under a
 * second with 2 ranks on 2 cores, a few seconds at worst when ranks and
 * ghosts oversubscribe the cores.
 *
 * The operation programs (put.c, get.c, acc.c, ...) describe one operation
 * as a struct optest and let run_modes() drive it through every
 * synchronization mode below; argv selects modes ("passive", "active", or
 * mode names), none means all of them. */
#ifndef RMA_H
#define RMA_H
#include "../programs/check.h"
#include <execinfo.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RMA_FN static __attribute__((unused))

static int me, np; /* rank and size in MPI_COMM_WORLD */
static const char *cur_mode = "-";

/* CHECKM prefixes the failure with the synchronization mode being run. */
#define CHECKM(cond, fmt, ...) CHECK(cond, "[%s] " fmt, cur_mode, ##__VA_ARGS__)

/* A watchdog turns a hang into one FAIL line and a quick exit (the job then
 * ends with a non-zero status), naming the mode or phase that was running,
 * with the main thread's stack on stderr (the functions that shared
 * libraries export: MPI's and Ghost's entry points). SA_ONSTACK: the
 * handler may run on a thread of the Go runtime that Ghost brings into the
 * process; such a thread hands the signal to the main thread. */
static int watchdog_secs = 50; /* under the Go runner's 60 s per job */
static pthread_t main_thread;
RMA_FN void watchdog_fired(int sig)
{
    if (!pthread_equal(pthread_self(), main_thread)) {
        pthread_kill(main_thread, sig);
        return;
    }
    char msg[256];
    int n = snprintf(msg, sizeof(msg), "FAIL rank %d: watchdog: no progress after %d s in [%s]\n", me,
                     watchdog_secs, cur_mode);
    if (write(1, msg, n) < 0)
        _exit(3);
    void *frames[32];
    int depth = backtrace(frames, 32);
    n = snprintf(msg, sizeof(msg), "rank %d: main thread's stack when the watchdog fired:\n", me);
    if (write(2, msg, n) >= 0)
        backtrace_symbols_fd(frames, depth, 2);
    _exit(3);
}
RMA_FN void watchdog(int secs)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = watchdog_fired;
    sa.sa_flags = SA_ONSTACK;
    sigaction(SIGALRM, &sa, NULL);
    main_thread = pthread_self();
    void *frame;
    backtrace(&frame, 1); /* loads libgcc now: the handler cannot */
    watchdog_secs = secs;
    alarm(secs);
}

RMA_FN void rma_init_thread(int *argc, char ***argv, int required, int *provided)
{
    MPI_Init_thread(argc, argv, required, provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (np < 2 && me == 0)
        printf("note: run with at least 2 ranks for a meaningful test\n");
    if (np > 4) { /* per-rank arrays are sized for 4 */
        CHECK(np <= 4, "these programs run with 2 to 4 ranks, not %d", np);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    watchdog(50);
}

RMA_FN void rma_init(int *argc, char ***argv)
{
    int provided;
    rma_init_thread(argc, argv, MPI_THREAD_SINGLE, &provided);
}

RMA_FN int rma_finish(void)
{
    cur_mode = "finalize";
    check_summary();
    MPI_Finalize();
    return 0;
}

/* Window sizes are rounded up to 64 bytes so that no window base in a
 * packed MPI_Win_allocate segment is misaligned (MPICH 4.0.2 misplaces
 * intranode RMA on bases that are not 16-byte aligned; only the tiny-window
 * programs exercise that on purpose). */
RMA_FN MPI_Aint round64(MPI_Aint bytes) { return (bytes + 63) / 64 * 64; }

RMA_FN void *alloc_win(MPI_Aint bytes, int disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
    void *base = NULL;
    MPI_Win_allocate(round64(bytes), disp_unit, info, comm, &base, win);
    return base;
}

/* check_ints and check_doubles count as one check each: they report the
 * first mismatch only. */
#define RMA_DEFINE_CHECK(name, type, fmt)                                                      \
    RMA_FN void name##_(const type *got, const type *want, int n, const char *what,            \
                        const char *file, int line)                                            \
    {                                                                                          \
        int bad = -1, nbad = 0;                                                                \
        for (int i = 0; i < n; i++)                                                            \
            if (got[i] != want[i]) {                                                           \
                if (bad < 0)                                                                   \
                    bad = i;                                                                   \
                nbad++;                                                                        \
            }                                                                                  \
        CHECK(bad < 0, "[%s] %s (%s:%d): %d of %d wrong, first [%d] = " fmt " want " fmt,      \
              cur_mode, what, file, line, nbad, n, bad, bad < 0 ? 0 : got[bad],                 \
              bad < 0 ? 0 : want[bad]);                                                        \
    }
RMA_DEFINE_CHECK(check_ints, int, "%d")
RMA_DEFINE_CHECK(check_doubles, double, "%g")
#define check_ints(got, want, n, what) check_ints_(got, want, n, what, __FILE__, __LINE__)
#define check_doubles(got, want, n, what) check_doubles_(got, want, n, what, __FILE__, __LINE__)

/* Local access to the caller's own window memory, synchronized with RMA by
 * a lock on itself (the portable way in both memory models). */
RMA_FN void self_lock(MPI_Win win, int type) { MPI_Win_lock(type, me, 0, win); }
RMA_FN void self_unlock(MPI_Win win) { MPI_Win_unlock(me, win); }

/* ---------------------------------------------------------------------- */
/* Synchronization modes. Passive modes lock targets one at a time (lock_*)
 * or all at once (lockall, flush*); active modes use fence or PSCW with
 * every rank in both the access and the exposure group. */
enum { PASSIVE, ACTIVE };
static const struct {
    const char *name;
    int kind;
} modes[] = {
    {"lock_shared", PASSIVE},  {"lock_excl", PASSIVE},     {"lock_nocheck", PASSIVE},
    {"lock_flush", PASSIVE},   {"lockall", PASSIVE},       {"lockall_nocheck", PASSIVE},
    {"flush", PASSIVE},        {"flush_all", PASSIVE},     {"flush_local", PASSIVE},
    {"flush_local_all", PASSIVE}, {"fence", ACTIVE},       {"fence_assert", ACTIVE},
    {"pscw", ACTIVE},          {"pscw_test", ACTIVE},      {"pscw_nocheck", ACTIVE},
};
#define NMODES ((int)(sizeof(modes) / sizeof(modes[0])))

/* The window of the mode being run: run_modes() allocates one of
 * win_bytes (disp_unit win_disp) for all modes, except lock_nocheck, which
 * gets a window of its own (MPICH 4.0.2 mishandles ordinary locks that
 * follow NOCHECK locks on the same window: see lock_nocheck_reuse.c). */
static MPI_Win win;
static void *wbase;

/* One operation under test. Callbacks may be NULL. */
struct optest {
    MPI_Aint win_bytes;
    int win_disp;
    int readonly;     /* targets' windows are never written: fence may assert NOPUT */
    int passive_only; /* request-based operations exist in passive epochs only */
    void (*reset)(int round); /* set own window (self-locked) and origin buffers */
    void (*issue)(int t);     /* issue the operations aimed at target t */
    void (*settle)(void);     /* complete outstanding requests (request ops) */
    void (*fetched)(int t);   /* check results that came back from t */
    void (*scribble)(int t);  /* overwrite origin buffers once locally complete */
    void (*verify)(void);     /* check own window after everyone finished */
    void (*post)(void);       /* collective check after verify */
};

static int round_no; /* increases with each mode run, to vary the values */

/* target k of this origin: start at itself, then walk up, so that origins
 * do not all hit the same target at the same time */
RMA_FN int target_k(int k) { return (me + k) % np; }

RMA_FN void run_mode(struct optest *T, int m)
{
    const char *name = modes[m].name;
    cur_mode = name;
    round_no++;
    MPI_Win shared_win = win;
    void *shared_base = wbase;
    int own = !strcmp(name, "lock_nocheck");
    if (own)
        wbase = alloc_win(T->win_bytes, T->win_disp, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    self_lock(win, MPI_LOCK_EXCLUSIVE);
    T->reset(round_no);
    self_unlock(win);
    MPI_Barrier(MPI_COMM_WORLD);

    MPI_Group g;
    MPI_Win_get_group(win, &g);
    int k;
#define EACH_T for (k = 0; k < np; k++)
#define T_ target_k(k)
#define SETTLE() do { if (T->settle) T->settle(); } while (0)
#define FETCHED(t) do { if (T->fetched) T->fetched(t); } while (0)
#define SCRIBBLE(t) do { if (T->scribble) T->scribble(t); } while (0)
    if (!strcmp(name, "lock_shared") || !strcmp(name, "lock_excl") || !strcmp(name, "lock_nocheck")) {
        int type = !strcmp(name, "lock_excl") ? MPI_LOCK_EXCLUSIVE : MPI_LOCK_SHARED;
        /* NOCHECK on a lock of itself is left to lock_nocheck_self.c: it
         * hangs MPICH 4.0.2's next exclusive lock from another rank. */
        int nocheck = !strcmp(name, "lock_nocheck");
        EACH_T {
            MPI_Win_lock(type, T_, nocheck && T_ != me ? MPI_MODE_NOCHECK : 0, win);
            T->issue(T_);
            SETTLE();
            MPI_Win_unlock(T_, win);
            FETCHED(T_);
            SCRIBBLE(T_);
        }
    } else if (!strcmp(name, "lock_flush")) {
        EACH_T {
            MPI_Win_lock(MPI_LOCK_SHARED, T_, 0, win);
            T->issue(T_);
            SETTLE();
            MPI_Win_flush(T_, win);
            FETCHED(T_);
            SCRIBBLE(T_);
            MPI_Win_unlock(T_, win);
        }
    } else if (!strcmp(name, "lockall") || !strcmp(name, "lockall_nocheck")) {
        MPI_Win_lock_all(!strcmp(name, "lockall") ? 0 : MPI_MODE_NOCHECK, win);
        EACH_T T->issue(T_);
        SETTLE();
        MPI_Win_unlock_all(win);
        EACH_T { FETCHED(T_); SCRIBBLE(T_); }
    } else if (!strcmp(name, "flush") || !strcmp(name, "flush_local")) {
        MPI_Win_lock_all(0, win);
        EACH_T {
            T->issue(T_);
            SETTLE();
            if (!strcmp(name, "flush"))
                MPI_Win_flush(T_, win);
            else
                MPI_Win_flush_local(T_, win);
            FETCHED(T_);
            SCRIBBLE(T_);
        }
        MPI_Win_unlock_all(win);
    } else if (!strcmp(name, "flush_all") || !strcmp(name, "flush_local_all")) {
        MPI_Win_lock_all(0, win);
        EACH_T T->issue(T_);
        SETTLE();
        if (!strcmp(name, "flush_all"))
            MPI_Win_flush_all(win);
        else
            MPI_Win_flush_local_all(win);
        EACH_T { FETCHED(T_); SCRIBBLE(T_); }
        MPI_Win_unlock_all(win);
    } else if (!strcmp(name, "fence") || !strcmp(name, "fence_assert")) {
        int a = !strcmp(name, "fence_assert");
        MPI_Win_fence(a ? MPI_MODE_NOPRECEDE | (T->readonly ? MPI_MODE_NOPUT : 0) : 0, win);
        EACH_T T->issue(T_);
        MPI_Win_fence(a ? MPI_MODE_NOSTORE | MPI_MODE_NOSUCCEED : MPI_MODE_NOSUCCEED, win);
        EACH_T FETCHED(T_);
    } else if (!strcmp(name, "pscw") || !strcmp(name, "pscw_test") || !strcmp(name, "pscw_nocheck")) {
        int nocheck = !strcmp(name, "pscw_nocheck");
        MPI_Win_post(g, nocheck ? MPI_MODE_NOCHECK : 0, win);
        if (nocheck)
            MPI_Barrier(MPI_COMM_WORLD); /* every post has returned before any start */
        MPI_Win_start(g, nocheck ? MPI_MODE_NOCHECK : 0, win);
        EACH_T T->issue(T_);
        MPI_Win_complete(win);
        if (!strcmp(name, "pscw_test")) {
            int flag = 0, polls = 0;
            while (!flag) {
                MPI_Win_test(win, &flag);
                polls++;
            }
            CHECKM(polls >= 1, "win_test polls %d", polls);
        } else {
            MPI_Win_wait(win);
        }
        EACH_T FETCHED(T_);
    }
#undef EACH_T
#undef T_
#undef SETTLE
#undef FETCHED
#undef SCRIBBLE
    MPI_Group_free(&g);
    if (modes[m].kind == PASSIVE) {
        MPI_Barrier(MPI_COMM_WORLD); /* every origin's epoch is closed */
        self_lock(win, MPI_LOCK_SHARED);
        if (T->verify)
            T->verify();
        self_unlock(win);
    } else if (T->verify) {
        T->verify();
    }
    if (T->post)
        T->post();
    MPI_Barrier(MPI_COMM_WORLD);
    if (own) {
        MPI_Win_free(&win);
        win = shared_win;
        wbase = shared_base;
    }
}

/* argv: none = every mode; "passive"/"active" = that kind; else mode names */
RMA_FN int mode_wanted(int m, int argc, char **argv)
{
    if (argc <= 1)
        return 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "all") || !strcmp(argv[i], modes[m].name) ||
            (!strcmp(argv[i], "passive") && modes[m].kind == PASSIVE) ||
            (!strcmp(argv[i], "active") && modes[m].kind == ACTIVE))
            return 1;
    }
    return 0;
}

RMA_FN void run_modes(struct optest *T, int argc, char **argv)
{
    int ran = 0;
    for (int i = 1; i < argc; i++) {
        int known = !strcmp(argv[i], "all") || !strcmp(argv[i], "passive") || !strcmp(argv[i], "active");
        for (int m = 0; m < NMODES; m++)
            known |= !strcmp(argv[i], modes[m].name);
        CHECK(known, "unknown mode %s", argv[i]);
    }
    wbase = alloc_win(T->win_bytes, T->win_disp, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    for (int m = 0; m < NMODES; m++) {
        if (!mode_wanted(m, argc, argv) || (T->passive_only && modes[m].kind == ACTIVE))
            continue;
        run_mode(T, m);
        ran++;
    }
    MPI_Win_free(&win);
    cur_mode = "-";
    CHECK(ran > 0 || T->passive_only, "no mode selected");
}

/* ---------------------------------------------------------------------- */
/* A smaller set of epochs for programs that test something else (datatypes,
 * window kinds): each rank accesses one target t. */
static const char *simple_modes[] = {"lockall+flush", "fence", "lock_excl"};
#define NSIMPLE 3

RMA_FN void simple_open(int m, int t, MPI_Win w)
{
    cur_mode = simple_modes[m];
    if (m == 0)
        MPI_Win_lock_all(0, w);
    else if (m == 1)
        MPI_Win_fence(0, w);
    else
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, w);
}

RMA_FN void simple_close(int m, int t, MPI_Win w)
{
    if (m == 0) {
        MPI_Win_flush(t, w);
        MPI_Win_unlock_all(w);
    } else if (m == 1) {
        MPI_Win_fence(MPI_MODE_NOSUCCEED, w);
    } else {
        MPI_Win_unlock(t, w);
    }
    MPI_Barrier(MPI_COMM_WORLD); /* every origin is done with every target */
}

/* Complete requests with a different MPI call each time: Wait, Waitall,
 * Test loop, Testall loop, Waitany, Waitsome. */
RMA_FN void complete_reqs(MPI_Request *reqs, int n)
{
    static int how;
    MPI_Status st[64]; /* real arrays: gcc warns on MPI_STATUSES_IGNORE */
    if (n == 0)
        return;
    switch (how++ % 6) {
    case 0:
        for (int i = 0; i < n; i++)
            MPI_Wait(&reqs[i], MPI_STATUS_IGNORE);
        break;
    case 1:
        MPI_Waitall(n, reqs, st);
        break;
    case 2:
        for (int i = 0; i < n; i++) {
            int flag = 0;
            while (!flag)
                MPI_Test(&reqs[i], &flag, MPI_STATUS_IGNORE);
        }
        break;
    case 3: {
        int flag = 0;
        while (!flag)
            MPI_Testall(n, reqs, &flag, st);
        break;
    }
    case 4:
        for (int i = 0; i < n; i++) {
            int idx;
            MPI_Waitany(n, reqs, &idx, MPI_STATUS_IGNORE);
        }
        break;
    default: {
        int left = n, outc, idx[64];
        while (left > 0) {
            MPI_Waitsome(n, reqs, &outc, idx, st);
            if (outc == MPI_UNDEFINED)
                break;
            left -= outc;
        }
        break;
    }
    }
    for (int i = 0; i < n; i++)
        CHECKM(reqs[i] == MPI_REQUEST_NULL, "request %d not freed", i);
}
#endif
