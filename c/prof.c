/*
 * Profiling: every wrapper times its call when ghost_prof_enabled is set
 * (GHOST_PROFILING=1, or GHOST_ASYNC=auto, whose predictions need it).
 *
 * The clock is the TSC: about 8 ns a read here, against 20 ns for the vDSO's
 * clock_gettime, and CR = T_mpi / T_total is a ratio, so ticks need no
 * conversion.
 *
 * Intervals are the process's, not a thread's (issue 14): under
 * MPI_THREAD_MULTIPLE the vote must be about the whole process, not about
 * whichever thread happened to end the interval. Each thread adds its MPI
 * and wait time to a block of its own (its own cache line: no shared line is
 * written on the call path), and the thread that ends an interval sums the
 * blocks' growth since the last end. The process's CR is the MPI share of
 * the time of the threads that called MPI in the interval. Ending an
 * interval is one thread at a time (close_lock); the others go on.
 *
 * An interval ends every GHOST_PREDICT_INT, at the call that finds it over,
 * and at every agreement point (ghost_prof_vote: fence, barrier,
 * MPI_Win_set_info, allocation) once it holds at least a tenth of
 * GHOST_PREDICT_INT outside waits and agreement points, or (where cores
 * are shared) POINT_OPS RMA operations, and is a step of the program
 * rather than the tail of one that outlived an interval (enough, a_step,
 * a_tail): the vote cast there is then about the step that has
 * just ended, and is applied at that same point, instead of
 * a window of time that straddles two phases and is applied one step later.
 * The floor keeps a run of back-to-back barriers from making one Go call
 * and one trace record per barrier, each over a CR of a few microseconds.
 *
 * Time spent waiting for other ranks in MPI_Barrier and in the ballot of a
 * fence (agree.c reports it, ghost_prof_wait) is neither communication nor
 * computation: it is taken out of both the MPI time and the interval, so
 * that CR is the share of communication in the time the rank did not wait.
 * Otherwise a rank that waits at barriers for neighbours that compute votes
 * as if it communicated, and the vote feeds itself (issue 13). A stall, a
 * completion of direct operations that waited for a target outside MPI
 * (ghost_prof_direct_completion), is taken out of the MPI time only: it is
 * the time that redirection would give back, so it speaks for redirection,
 * where a barrier's wait says nothing either way.
 */
#include "counters.h"
#include "ghost.h"
#include "offload.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <time.h>
#include <x86intrin.h>

int ghost_prof_enabled = 0;
uint64_t ghost_predict_ticks = 0; /* 0: no prediction */
int ghost_vote = -1;              /* this process's latest ballot; setupProfiling sets adapt.NewPredictor's */
int ghost_async_auto = 0;

/* An agreement point ends the interval once it holds this share of
 * GHOST_PREDICT_INT outside waits (see above). */
enum { POINT_FRACTION = 10 };

/* An agreement point also ends the interval once the process issued this
 * many RMA operations in it, however little time it holds outside waits:
 * a rank whose operations of a communication step completed quickly
 * spends most of the step waiting at the barrier for a slower neighbour,
 * and its time outside waits stayed under the floor above (0.35 ms of a
 * 2.5 ms step, at 10 ms), so its vote from the computation before stood
 * for a second redirected step in about half the communication phases of
 * the passive multiphase benchmark on the 2-core VM
 * (bench/results/2026-11-26-point-ops.md). A few hundred operations
 * through one path measure it; back-to-back barriers issue none.
 *
 * Only where the host's processes share cores (ghost_prof_point_ops): there
 * a redirected communication step costs about ten times a direct one, and
 * the second such step is what the rule saves. On dedicated cores the two
 * paths cost about the same in such a step, and the rule's short intervals
 * voted off on the ghost path's extra cost per operation in NWChem's
 * redirected stretches, where redirection was the better configuration:
 * the window switched off in 16 of 16 traced runs with the rule, 0 of 16
 * without (bench/results/2026-11-26-device16-final-README.md). */
enum { POINT_OPS = 128 };
int ghost_prof_point_ops = 0;

/* One thread's totals. Only the owner writes the totals (relaxed atomic
 * stores of its own sums); the closer reads them and alone writes the
 * snapshot of the last end. Blocks are never freed: a thread that exits
 * leaves its block to the next new thread, whose totals go on from there. */
typedef struct thread_prof {
    uint64_t calls;
    uint64_t mpi;  /* ticks in outermost calls, each clipped to its interval */
    uint64_t wait; /* of mpi, waiting in barriers and ballots, and stalls */
    uint64_t stall; /* of wait, stalls on targets outside MPI */
    uint64_t point; /* of mpi, inside calls that are agreement points, outside their waits */
    uint64_t rma;   /* of mpi, inside RMA calls (ghost_prof_exit_rma), outside their waits */
    uint64_t entered; /* when the outermost call in progress began; 0: none */
    uint64_t raw;  /* ticks in outermost calls, unclipped (ghost_prof_read) */
    /* The closer's: the totals at the last end of an interval. */
    uint64_t seen_calls, seen_mpi, seen_wait, seen_stall, seen_point, seen_rma;
    struct thread_prof *next;
    int unused;      /* its thread has exited: a new thread may take it */
    uint64_t exited; /* when, in ticks: it took part in an interval until then */
} __attribute__((aligned(64))) thread_prof_t;

static thread_prof_t *threads;         /* every block, newest first */
static __thread thread_prof_t *mine;   /* this thread's */
static __thread int depth;             /* wrapped calls in progress: Ghost's own calls nest */
static __thread int in_point;          /* the outermost call is an agreement point */
static __thread uint64_t point_waits;  /* this thread's waits when the point cast its vote */
static __thread uint64_t call_waits;   /* this thread's waits when its outermost call began */
static pthread_key_t exit_key;
static pthread_once_t exit_once = PTHREAD_ONCE_INIT;

/* Read on every call, written once per interval: a line of its own. */
static struct {
    uint64_t start; /* the current interval's start; 0 before the first */
} __attribute__((aligned(64))) interval;
static int close_lock;

static void thread_exit(void *arg)
{
    thread_prof_t *b = arg;
    __atomic_store_n(&b->exited, __rdtsc(), __ATOMIC_RELAXED);
    __atomic_store_n(&b->unused, 1, __ATOMIC_RELEASE);
}
static void make_exit_key(void) { pthread_key_create(&exit_key, thread_exit); }

/* This thread's block: the one it has, a left one, or a new one. A thread
 * that cannot get one (no memory) is not profiled. */
static thread_prof_t *block(void)
{
    if (__builtin_expect(mine != NULL, 1))
        return mine;
    pthread_once(&exit_once, make_exit_key);
    thread_prof_t *b = __atomic_load_n(&threads, __ATOMIC_ACQUIRE);
    for (; b; b = b->next) {
        int one = 1;
        if (__atomic_load_n(&b->unused, __ATOMIC_RELAXED) &&
            __atomic_compare_exchange_n(&b->unused, &one, 0, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
            break;
    }
    if (!b) {
        if (posix_memalign((void **)&b, 64, sizeof *b) != 0)
            return NULL;
        *b = (thread_prof_t){0};
        b->next = __atomic_load_n(&threads, __ATOMIC_RELAXED);
        while (!__atomic_compare_exchange_n(&threads, &b->next, b, 1, __ATOMIC_RELEASE, __ATOMIC_RELAXED))
            ;
    }
    pthread_setspecific(exit_key, b);
    mine = b;
    return b;
}

static void add(uint64_t *total, uint64_t ticks)
{
    __atomic_store_n(total, *total + ticks, __ATOMIC_RELAXED);
}

uint64_t ghost_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t ghost_ticks(void) { return __rdtsc(); }

/* The TSC rate is measured once, against the clock, over the stretch from
 * ghost_tsc_hz_start (early in MPI_Init) to the first ghost_tsc_hz, which
 * sleeps only for what is left of TSC_SPAN: MPI_Init's own work then pays
 * for the measurement, which a short job would otherwise feel. */
enum { TSC_SPAN_NS = 5000000 };
static uint64_t tsc_n0, tsc_t0;
static double tsc_hz;

void ghost_tsc_hz_start(void)
{
    if (!tsc_n0) {
        tsc_n0 = ghost_now_ns();
        tsc_t0 = __rdtsc();
    }
}

double ghost_tsc_hz(void)
{
    if (tsc_hz > 0)
        return tsc_hz;
    ghost_tsc_hz_start();
    uint64_t elapsed = ghost_now_ns() - tsc_n0;
    if (elapsed < TSC_SPAN_NS) {
        struct timespec pause = {0, (long)(TSC_SPAN_NS - elapsed)};
        nanosleep(&pause, NULL);
    }
    uint64_t n1 = ghost_now_ns(), t1 = __rdtsc();
    tsc_hz = (double)(t1 - tsc_t0) * 1e9 / (double)(n1 - tsc_n0);
    return tsc_hz;
}

/* The process's interval so far, over the threads that called MPI in it
 * or are inside a call (and the caller, which may be inside its first call
 * since a long computation): communication, time outside waits for other ranks, the
 * waits and the stalls among them, each the
 * mean over those threads, so that one thread gives its own numbers. A
 * thread that has exited took part until its exit. */
typedef struct {
    uint64_t comm;    /* MPI time, waits and stalls left out */
    uint64_t span;    /* the interval, waits for other ranks left out */
    uint64_t wait;    /* waits for other ranks, and stalls */
    uint64_t stall;   /* of wait */
    uint64_t point;   /* inside agreement points: synchronization, not a step */
    uint64_t rma;     /* of comm, inside RMA calls */
    uint64_t threads; /* that took part */
} sums_t;

static sums_t interval_sums(uint64_t now, const thread_prof_t *caller)
{
    sums_t s = {0, 0, 0, 0, 0, 0, 0};
    for (thread_prof_t *b = __atomic_load_n(&threads, __ATOMIC_ACQUIRE); b; b = b->next) {
        uint64_t calls = __atomic_load_n(&b->calls, __ATOMIC_RELAXED) - b->seen_calls;
        uint64_t entered = __atomic_load_n(&b->entered, __ATOMIC_RELAXED);
        if (!calls && !entered && b != caller)
            continue;
        uint64_t end = now;
        if (b != caller && __atomic_load_n(&b->unused, __ATOMIC_ACQUIRE)) {
            uint64_t exited = __atomic_load_n(&b->exited, __ATOMIC_RELAXED);
            end = exited > interval.start && exited < now ? exited : now;
        }
        uint64_t length = end - interval.start;
        uint64_t mpi = __atomic_load_n(&b->mpi, __ATOMIC_RELAXED) - b->seen_mpi;
        /* A call in progress (a lock that waits, the caller's own fence)
         * has spent its time so far in MPI: counted here, since its end
         * adds only its part after the interval's start. */
        if (entered && entered < now)
            mpi += now - (entered > interval.start ? entered : interval.start);
        uint64_t wait = __atomic_load_n(&b->wait, __ATOMIC_RELAXED) - b->seen_wait;
        uint64_t stall = __atomic_load_n(&b->stall, __ATOMIC_RELAXED) - b->seen_stall;
        uint64_t point = __atomic_load_n(&b->point, __ATOMIC_RELAXED) - b->seen_point;
        uint64_t rma = __atomic_load_n(&b->rma, __ATOMIC_RELAXED) - b->seen_rma;
        /* A call that ended just as the interval did may be counted in the
         * one before with its clip to the older start: keep each share <= 1. */
        wait = wait < mpi ? wait : mpi;
        wait = wait < length ? wait : length;
        stall = stall < wait ? stall : wait;
        mpi = mpi < length ? mpi : length;
        /* Waits for other ranks leave both terms; stalls only the
         * communication: the thread did not communicate, and what it did
         * instead is what redirection would have spared it. */
        s.comm += mpi - wait;
        s.span += length - (wait - stall);
        s.wait += wait;
        s.stall += stall;
        s.point += point < length ? point : length;
        s.rma += rma < mpi - wait ? rma : mpi - wait;
        s.threads++;
    }
    if (s.threads > 1) {
        s.comm /= s.threads;
        s.span /= s.threads;
        s.wait /= s.threads;
        s.stall /= s.threads;
        s.point /= s.threads;
        s.rma /= s.threads;
    }
    return s;
}

/* The interval's span outside agreement points (waits are out of the
 * span already). */
static uint64_t outside_points(sums_t s) { return s.point < s.span ? s.span - s.point : 0; }

/* Whether the interval holds enough for a vote: a tenth of
 * GHOST_PREDICT_INT outside waits and agreement points, on the mean of the
 * threads that took part. An interval spent nearly all in waits says
 * nothing about the program, and its CR would be the noise of a few
 * microseconds; one spent in agreement points (the fences of several
 * windows, one after another) is the synchronization at the end of a step
 * whose vote the first point cast, not a step of its own. */
static int enough(sums_t s) { return outside_points(s) >= ghost_predict_ticks / POINT_FRACTION; }

int ghost_host_polite_ghosts;

/* Whether more tasks are runnable than this process has cores (load.c),
 * not counting this host's polite ghosts. A stall then proves nothing: the
 * target may have been in MPI and waiting for a core, which redirection
 * does not give it (the ghost needs one as well). An idle ghost that polls
 * with yields is runnable without keeping a rank from a core; counted, it
 * made 2 users and 1 ghost on 2 cores read as oversubscribed at the end of
 * about a third of the multiphase benchmark's stalled intervals, whose
 * stalls then counted as communication, and some computation phases
 * stayed direct throughout (bench/results/2026-11-26-oversubscribed-flag.md).
 * Read only for intervals that stalled, at most once a millisecond: a
 * read costs 2-7 us, and a fenced step can be a millisecond long. */
static int oversubscribed(void)
{
    return ghost_runnable_recent() - ghost_host_polite_ghosts > ghost_cores();
}

/* This process's RMA operations so far, over every path (counters.h). Read
 * at agreement points and where an interval ends only: it sums the
 * process's counter slots. */
static uint64_t rma_ops(void)
{
    uint64_t n = 0;
    for (int path = 0; path < GHOST_NPATHS; path++)
        n += ghost_counters_path_ops(path);
    return n;
}

static uint64_t ops_at_start; /* rma_ops() when the interval began */

/* Whether the interval began where the clock ended the one before
 * (GHOST_PREDICT_INT), with no agreement point reached since: the step in
 * progress then outlived an interval, which has voted on it already. */
static int began_mid_step;

ghost_predictor_t *ghost_predictor;
int ghost_prof_report = 0;

/* The operations on each path since the last interval that the predictor
 * observed or the trace recorded (an interval closed without a vote hands
 * its operations on to the next one), and the start of the next count. */
typedef struct {
    uint64_t ghost, direct;
} path_ops_t;
static path_ops_t ops_counted;

static path_ops_t ops_since(void)
{
    path_ops_t now = {ghost_counters_path_ops(GHOST_PATH_GHOST), ghost_counters_path_ops(GHOST_PATH_DIRECT)};
    path_ops_t d = {now.ghost - ops_counted.ghost, now.direct - ops_counted.direct};
    ops_counted = now;
    return d;
}

void ghost_prof_use_predictor(void *predictor)
{
    ghost_predictor = predictor;
    ops_since(); /* the first interval's count starts here */
}

/* The predictor's vote on the interval s, in C: a call into Go from here
 * would cost the ranks' cores a handful of the Go runtime's thread
 * switches at every interval (adapt/predict.h). Quiescence reads what the
 * direct path taught from the predictor (c/quiesce.c); the trace and the
 * debug log, where asked for, get the interval from Go
 * (ghostRecordInterval). */
static void observe(sums_t s, int over)
{
    path_ops_t n = ops_since();
    ghost_interval_t iv = {.comm = s.comm, .span = s.span, .stall = s.stall, .over = over,
                           .direct = n.direct, .redirected = n.ghost, .rma = s.rma};
    ghost_predictor_observe(ghost_predictor, &iv);
    int vote = ghost_predictor_ballot(ghost_predictor);
    __atomic_store_n(&ghost_vote, vote, __ATOMIC_RELAXED);
    ghost_gp_publish(vote > 0);
    if (ghost_prof_report)
        ghostRecordInterval(s.comm, s.span, s.wait, s.stall, over, n.ghost, n.direct, ghost_predictor->last, vote);
}

/* Ends the interval at now, under close_lock, and starts the next; with a
 * vote where the caller found that the interval says something about the
 * program (vote). An interval closed without one hands its operations on
 * to the next (ops_since). ops is rma_ops() now, where the next interval's
 * count starts. */
static void close_interval(uint64_t now, sums_t s, int vote, uint64_t ops)
{
    int over = s.stall && oversubscribed();
    if (over) { /* the stalls may have been waits for a core: communication */
        s.comm += s.stall;
        s.rma += s.stall; /* stalls are completions, inside RMA calls */
        s.wait -= s.stall;
    }
    if (interval.start && vote && ghost_predictor)
        observe(s, over);
    for (thread_prof_t *b = __atomic_load_n(&threads, __ATOMIC_ACQUIRE); b; b = b->next) {
        b->seen_calls = __atomic_load_n(&b->calls, __ATOMIC_RELAXED);
        b->seen_mpi = __atomic_load_n(&b->mpi, __ATOMIC_RELAXED);
        b->seen_wait = __atomic_load_n(&b->wait, __ATOMIC_RELAXED);
        b->seen_stall = __atomic_load_n(&b->stall, __ATOMIC_RELAXED);
        b->seen_point = __atomic_load_n(&b->point, __ATOMIC_RELAXED);
        b->seen_rma = __atomic_load_n(&b->rma, __ATOMIC_RELAXED);
    }
    ops_at_start = ops;
    __atomic_store_n(&interval.start, now, __ATOMIC_RELAXED);
}

static int try_lock(void) { return !__atomic_exchange_n(&close_lock, 1, __ATOMIC_ACQUIRE); }
static void unlock(void) { __atomic_store_n(&close_lock, 0, __ATOMIC_RELEASE); }

/* For the points and finalize, which need the interval's end to be theirs:
 * another thread that is ending one is a Go call away from done. */
static void lock(void)
{
    while (!try_lock())
        sched_yield();
}

/* Adds ticks of waiting, clipped to the current interval as the MPI time
 * is, to this thread's waits (and its stalls, for a stall). */
static void waited(uint64_t ticks, int stall)
{
    thread_prof_t *b = block();
    if (!b)
        return;
    uint64_t since_start = ghost_ticks() - __atomic_load_n(&interval.start, __ATOMIC_RELAXED);
    ticks = ticks < since_start ? ticks : since_start;
    add(&b->wait, ticks);
    if (stall)
        add(&b->stall, ticks);
}

void ghost_prof_wait(uint64_t ticks) { waited(ticks, 0); }

/* The fastest recent completion follows a faster one at once, an ordinary
 * slower one by a sixteenth of the difference, and a stall by a sixteenth
 * of itself: it tracks what a transfer to the target costs when the target
 * is in MPI, while the stalls leave it near the fast completions. The
 * origin cannot tell a transfer from a target outside MPI, but a
 * completion several times slower than the fastest recent one to the same
 * target is not explained by the transfer. The creep on stalls is the way
 * out when transfers really became slower (larger, or a busier network):
 * after about 20 stalls in a row the estimate has doubled, so a target
 * that computes through hundreds of consecutive completions is in the end
 * taken for a slow path again. Stores race between threads of one origin:
 * a lost update only delays the estimate. */
uint64_t ghost_prof_direct_completion(uint64_t *fastest, uint64_t ticks)
{
    uint64_t f = __atomic_load_n(fastest, __ATOMIC_RELAXED), stall = 0;
    if (!f || ticks < f)
        f = ticks;
    else if (ticks <= GHOST_STALL_FACTOR * f)
        f += (ticks - f) / 16;
    else {
        stall = ticks - GHOST_STALL_FACTOR * f;
        waited(stall, 1);
        f += f / 16 + 1;
    }
    __atomic_store_n(fastest, f, __ATOMIC_RELAXED);
    return stall;
}

/* Only the outermost wrapped call is timed: Ghost's control plane calls
 * MPI through the same wrappers (it defines the PMPI_ names), and counting
 * those again would count one stretch of time twice. */
uint64_t ghost_prof_enter(void)
{
    uint64_t now = __rdtsc();
    if (depth++ == 0) {
        thread_prof_t *b = block();
        if (b) {
            __atomic_store_n(&b->entered, now, __ATOMIC_RELAXED);
            call_waits = __atomic_load_n(&b->wait, __ATOMIC_RELAXED);
        }
    }
    return now;
}

/* rma: the call is an RMA operation or one of its synchronization calls
 * (ghost_prof_exit_rma). */
static void exit_call(uint64_t t0, int rma)
{
    if (--depth > 0)
        return;
    uint64_t now = __rdtsc();
    /* The process-wide totals the metrics export (counters.h). */
    ghost_count_mpi_call(now - t0);
    thread_prof_t *b = block();
    if (!b)
        return;
    __atomic_store_n(&b->entered, 0, __ATOMIC_RELAXED);
    add(&b->calls, 1);
    add(&b->raw, now - t0);

    /* A call can outlive the interval it began in (agreement points end
     * intervals from inside fences): only its part since the interval's
     * start belongs to this interval, which keeps CR <= 1. */
    uint64_t start = __atomic_load_n(&interval.start, __ATOMIC_RELAXED);
    uint64_t since_start = now - start;
    uint64_t mine_here = now - t0 < since_start ? now - t0 : since_start;
    add(&b->mpi, mine_here);
    if (in_point) {
        /* Only the point's time outside its waits: the waits (a barrier's
         * is all of it) already leave the span, and counting them twice
         * kept a rank that waited at every barrier for a slower neighbour
         * from ever holding enough for a vote, so that its vote from the
         * phase before stood through a whole communication phase. */
        uint64_t waited = __atomic_load_n(&b->wait, __ATOMIC_RELAXED) - point_waits;
        in_point = 0;
        add(&b->point, mine_here > waited ? mine_here - waited : 0);
    }
    if (rma) { /* outside its waits, as the communication time is */
        uint64_t waited = __atomic_load_n(&b->wait, __ATOMIC_RELAXED) - call_waits;
        add(&b->rma, mine_here > waited ? mine_here - waited : 0);
    }
    if (ghost_predict_ticks && since_start >= ghost_predict_ticks && try_lock()) {
        if (__atomic_load_n(&interval.start, __ATOMIC_RELAXED) == start) { /* nobody ended it meanwhile */
            sums_t s = interval_sums(now, b);
            close_interval(now, s, enough(s), rma_ops());
            began_mid_step = 1;
        }
        unlock();
    }
}

void ghost_prof_exit(uint64_t t0) { exit_call(t0, 0); }
void ghost_prof_exit_rma(uint64_t t0) { exit_call(t0, 1); }

/* Whether the interval that reaches a point is a step of the program:
 * time outside communication (computation, or stalls), or RMA operations.
 * An interval of MPI calls that are neither (the allreduces, communicator
 * splits and info queries between two barriers of one synchronization)
 * is the end of the step that the earlier point voted on, however long a
 * loaded machine makes it: its CR near 1 would vote redirection off. */
static int a_step(sums_t s, uint64_t ops)
{
    return s.span - s.comm >= ghost_predict_ticks / POINT_FRACTION || ops != ops_at_start;
}

/* Whether the interval that reaches a point is only the tail of a step
 * that outlived GHOST_PREDICT_INT: less than half an interval outside
 * agreement points, after an interval that the clock ended inside the same
 * step. The vote on the step is then the one cast over most of it, and the
 * point ends the tail without a vote: ended, it keeps the points that
 * follow in the same synchronization (the fences of a program's other
 * windows) from ending it with a vote of its own, which would give the
 * windows of one step different states. The end of a step is where ranks
 * that finished early wait in the point and drive MPI's progress: the
 * operations of a tail complete promptly whatever the step was. In a test
 * whose stall phases last 400 ms at intervals of 100 ms, the tail of 19 ms
 * in which rank 0's target had finished and waited in the fence voted off
 * against the stalls of the three intervals before it, and the phase ended
 * direct in about 1 run of 15. */
static int a_tail(sums_t s) { return began_mid_step && outside_points(s) < ghost_predict_ticks / 2; }

int ghost_prof_vote(void)
{
    thread_prof_t *b = block();
    in_point = depth > 0; /* the call that casts the vote is a point */
    point_waits = b ? __atomic_load_n(&b->wait, __ATOMIC_RELAXED) : 0;
    if (ghost_predict_ticks) {
        lock();
        uint64_t now = __rdtsc(), ops;
        /* The step that has just ended, once it holds enough to say
         * something; else the interval goes on past the point. */
        sums_t s = interval_sums(now, b);
        if (interval.start) {
            ops = rma_ops();
            int busy = ghost_prof_point_ops && ops - ops_at_start >= POINT_OPS;
            if ((enough(s) || busy) && a_step(s, ops))
                close_interval(now, s, !a_tail(s), ops);
        }
        began_mid_step = 0; /* the next step begins here */
        unlock();
    }
    return __atomic_load_n(&ghost_vote, __ATOMIC_RELAXED);
}

void ghost_prof_flush(void)
{
    if (!ghost_predict_ticks)
        return;
    lock();
    uint64_t now = __rdtsc();
    if (interval.start) {
        sums_t s = interval_sums(now, block());
        if (enough(s))
            close_interval(now, s, 1, rma_ops());
        else if (ghost_prof_report) { /* too short to vote on, but its operations and switches belong in the trace */
            path_ops_t n = ops_since();
            ghostRecordInterval(s.comm, s.span, s.wait, s.stall, 0, n.ghost, n.direct,
                                s.span ? (double)s.comm / (double)s.span : 0, __atomic_load_n(&ghost_vote, __ATOMIC_RELAXED));
        }
    }
    unlock();
}


uint64_t ghost_prof_rma_so_far(void)
{
    uint64_t rma = 0;
    for (thread_prof_t *b = __atomic_load_n(&threads, __ATOMIC_ACQUIRE); b; b = b->next)
        rma += __atomic_load_n(&b->rma, __ATOMIC_RELAXED);
    return rma;
}

void ghost_prof_read(ghost_prof_counters_t *out)
{
    thread_prof_t *b = block();
    out->calls = b ? b->calls : 0;
    out->mpi_ticks = b ? b->raw : 0;
}
