/*
 * openmpi_progress: does an RMA operation complete while its target computes
 * outside MPI? Written for plain Open MPI (issue 17, item 1), but it is
 * plain MPI-3 and builds against either MPI.
 *
 * Two ranks. Rank 1 (the target) busy-loops for D ms without calling MPI,
 * and watches its own window slot while it loops. Rank 0 (the origin) waits
 * a few ms so that the target is surely inside its loop, then issues one
 * 8-byte operation (PUT, GET, ACC or FOP) and completes it with the chosen
 * synchronization, timing from the issue to the return of the completing
 * call:
 *   lock     MPI_Win_lock(SHARED) .. op .. MPI_Win_unlock
 *   lockall  op .. MPI_Win_flush, inside a lock_all epoch opened beforehand
 *   pscw     MPI_Win_start .. op .. MPI_Win_complete; the target posted
 *            before it started computing and waits after it
 *   fence    op .. MPI_Win_fence. The closing fence is collective, so it
 *            cannot return before the target calls it: what counts here is
 *            when the data arrived. The target sees PUT, ACC and FOP land in
 *            its memory; for GET and FOP the origin watches its result
 *            buffer (calling MPI_Iprobe, so that its own side progresses).
 * for each window flavour: allocate (MPI_Win_allocate), create
 * (MPI_Win_create over malloc'd memory), dynamic (MPI_Win_create_dynamic +
 * attach) and shared (MPI_Win_allocate_shared; only when both ranks share a
 * node).
 *
 * Both ranks run on one host, so CLOCK_MONOTONIC is one clock for both: the
 * target sends the times it started computing, saw the value land and
 * stopped computing, and the origin relates them to its own issue time. An
 * operation is "done while the target computed" when, before the target
 * stopped: under lock and lockall, the completing call had returned (which
 * completes it at the target as well); under PSCW, MPI_Win_complete had
 * returned and the target had seen the update (complete only completes the
 * operation at the origin); under fence, the update was in the target's
 * memory (PUT, ACC, FOP) and the fetched value in the origin's (GET, FOP).
 *
 * The target also measures its CPU time during each loop: a share well
 * below 1 means the machine was too busy for the 100 ms to mean anything.
 * A repetition in which the target started its loop only after the issue
 * (it lacked a core) is run again; "redone" counts them.
 *
 * Usage: openmpi_progress [-f flavours] [-s syncs] [-o ops] [-c ms] [-r reps] [-l label]
 *   -f  any of allocate,create,dynamic,shared (default all)
 *   -s  any of lock,lockall,pscw,fence (default all)
 *   -o  any of put,get,acc,fop (default all)
 *   -c  target compute time in ms (default 100)
 *   -r  repetitions of each cell (default 3)
 *   -l  a label copied into every output line (default "plain")
 *
 * Output, on rank 0's stdout, one JSON object a line: a "meta" line
 * (bench.h's), then one "cell" line per (flavour, sync, op) with medians
 * over the repetitions (done_ms: over the repetitions done while the
 * target computed), or a "skip" line with the reason a flavour was left
 * out (not on one node, or its window could not be made).
 */
#include "bench.h"

#include <unistd.h>

enum { OP_PUT, OP_GET, OP_ACC, OP_FOP, NOPS };
static const char *const op_names[NOPS] = {"put", "get", "acc", "fop"};

enum { SYNC_LOCK, SYNC_LOCKALL, SYNC_PSCW, SYNC_FENCE, NSYNCS };
static const char *const sync_names[NSYNCS] = {"lock", "lockall", "pscw", "fence"};

enum { FL_ALLOCATE, FL_CREATE, FL_DYNAMIC, FL_SHARED, NFLAVOURS };
static const char *const flavour_names[NFLAVOURS] = {"allocate", "create", "dynamic", "shared"};

enum { ORIGIN = 0, TARGET = 1, MAX_REPS = 64, MAX_REDO = 10 };
enum { WIN_LONGS = 8 }; /* 64 bytes: one slot per operation */

/* The origin starts its operation this long after the target begins to
 * compute, so that the operation surely meets a computing target. */
static const double ISSUE_DELAY_US = 5000;

typedef struct {
    unsigned flavours, syncs, ops;
    long compute_ms;
    int reps;
    const char *label;
} options_t;

static void usage(void)
{
    fprintf(stderr, "usage: openmpi_progress [-f allocate,create,dynamic,shared] [-s lock,lockall,pscw,fence] "
                    "[-o put,get,acc,fop] [-c ms] [-r reps] [-l label]\n");
    exit(2);
}

static options_t parse_options(int argc, char **argv)
{
    options_t o = {.flavours = (1u << NFLAVOURS) - 1, .syncs = (1u << NSYNCS) - 1, .ops = (1u << NOPS) - 1,
                   .compute_ms = 100, .reps = 3, .label = "plain"};
    int opt;
    while ((opt = getopt(argc, argv, "f:s:o:c:r:l:")) != -1) {
        switch (opt) {
        case 'f': o.flavours = bench_parse_names("openmpi_progress", optarg, "flavour", flavour_names, NFLAVOURS); break;
        case 's': o.syncs = bench_parse_names("openmpi_progress", optarg, "synchronization", sync_names, NSYNCS); break;
        case 'o': o.ops = bench_parse_names("openmpi_progress", optarg, "operation", op_names, NOPS); break;
        case 'c': o.compute_ms = bench_parse_long("openmpi_progress", optarg, "-c", 1, 100000); break;
        case 'r': o.reps = (int)bench_parse_long("openmpi_progress", optarg, "-r", 1, MAX_REPS); break;
        case 'l': o.label = optarg; break;
        default: usage();
        }
    }
    if (optind != argc)
        usage();
    return o;
}

typedef struct {
    MPI_Win win;
    long *mem;         /* the target's 8 slots (NULL on the origin unless shared) */
    MPI_Aint base;     /* displacement of slot 0 at the target */
    MPI_Group peer;    /* the other rank, for PSCW */
    int rank;
} window_t;

/* Opens a window of flavour fl; returns 0 when the flavour cannot run here
 * (shared across nodes), after printing why. */
/* Rank 0 prints why a flavour was left out. */
static void skip_flavour(int rank, int fl, const char *why, int rc)
{
    if (rank != 0)
        return;
    char text[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    if (rc != MPI_SUCCESS)
        MPI_Error_string(rc, text, &len);
    printf("{\"type\":\"skip\",\"flavour\":\"%s\",\"reason\":\"", flavour_names[fl]);
    bench_json_text(why);
    bench_json_text(text);
    printf("\"}\n");
    fflush(stdout);
}

/* Opens a window of flavour fl; returns 0, after saying why, when the
 * flavour cannot run here: shared across nodes, or no one-sided component
 * of this MPI configuration takes the window (Open MPI's osc/rdma over
 * TCP, for one), which MPI_COMM_WORLD's MPI_ERRORS_RETURN lets us see. */
static int open_window(window_t *w, int fl)
{
    MPI_Aint bytes = WIN_LONGS * sizeof(long);
    int rc = MPI_SUCCESS;
    w->mem = NULL;
    w->base = 0;
    w->win = MPI_WIN_NULL;
    switch (fl) {
    case FL_ALLOCATE:
        rc = MPI_Win_allocate(bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w->mem, &w->win);
        break;
    case FL_CREATE:
        w->mem = bench_malloc((size_t)bytes);
        rc = MPI_Win_create(w->mem, bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w->win);
        break;
    case FL_DYNAMIC:
        w->mem = bench_malloc((size_t)bytes);
        rc = MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &w->win);
        break;
    case FL_SHARED: {
        MPI_Comm node;
        int nsize;
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
        MPI_Comm_size(node, &nsize);
        MPI_Comm_free(&node);
        if (nsize != 2) {
            skip_flavour(w->rank, fl, "the two ranks are on different nodes", MPI_SUCCESS);
            return 0;
        }
        rc = MPI_Win_allocate_shared(w->rank == TARGET ? bytes : 0, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w->mem,
                                     &w->win);
        break;
    }
    }
    int ok = rc == MPI_SUCCESS;
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!ok) {
        const char *call[NFLAVOURS] = {"MPI_Win_allocate failed: ", "MPI_Win_create failed: ",
                                       "MPI_Win_create_dynamic failed: ", "MPI_Win_allocate_shared failed: "};
        skip_flavour(w->rank, fl, call[fl], rc);
        if (w->win != MPI_WIN_NULL)
            MPI_Win_free(&w->win);
        if (fl == FL_CREATE || fl == FL_DYNAMIC)
            free(w->mem);
        return 0;
    }
    if (fl == FL_DYNAMIC) {
        MPI_Win_attach(w->win, w->mem, bytes);
        MPI_Aint mine;
        MPI_Get_address(w->mem, &mine);
        /* The origin addresses the target's memory by its absolute address. */
        MPI_Sendrecv(&mine, 1, MPI_AINT, 1 - w->rank, 0, &w->base, 1, MPI_AINT, 1 - w->rank, 0, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
    }
    return 1;
}

static void close_window(window_t *w, int fl)
{
    if (fl == FL_DYNAMIC)
        MPI_Win_detach(w->win, w->mem);
    MPI_Win_free(&w->win);
    if (fl == FL_CREATE || fl == FL_DYNAMIC)
        free(w->mem);
}

/* What one repetition leaves behind, all in us of CLOCK_MONOTONIC. */
typedef struct {
    double issue, done, data; /* origin: issued, completing call returned, result seen (fence) */
    double start, landed, end, cpu; /* target: began computing, value seen, stopped; CPU us in the loop */
    int wrong;
} rep_t;

static double cpu_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec * 1e-3;
}

static const long GET_VALUE = 0x5eed, PUT_VALUE = 0x1234, ACC_VALUE = 7;

/* The slot value the operation leaves at the target. */
static long expected_after(int op)
{
    switch (op) {
    case OP_PUT: return PUT_VALUE;
    case OP_ACC: return ACC_VALUE;
    case OP_FOP: return 1;
    default: return GET_VALUE;
    }
}

static void target_rep(window_t *w, int sync, int op, const options_t *o, rep_t *r)
{
    volatile long *slot = &w->mem[op];
    long initial = op == OP_GET ? GET_VALUE : 0;
    /* Local stores to the window: under a self lock in passive mode, before
     * the opening fence or the post otherwise, as the memory model asks. */
    int passive = sync == SYNC_LOCK || sync == SYNC_LOCKALL;
    if (passive)
        MPI_Win_lock(MPI_LOCK_SHARED, TARGET, 0, w->win);
    *slot = initial;
    if (passive)
        MPI_Win_unlock(TARGET, w->win);
    if (sync == SYNC_FENCE)
        MPI_Win_fence(0, w->win);
    if (sync == SYNC_PSCW)
        MPI_Win_post(w->peer, 0, w->win);
    MPI_Barrier(MPI_COMM_WORLD);
    r->landed = 0;
    r->start = bench_now_us();
    double cpu0 = cpu_now_us(), end = r->start + o->compute_ms * 1e3;
    /* Compute outside MPI, looking at the slot between kernel steps. */
    do {
        bench_kernel_step();
        if (r->landed == 0 && *slot != initial)
            r->landed = bench_now_us();
    } while ((r->end = bench_now_us()) < end);
    r->cpu = cpu_now_us() - cpu0;
    if (sync == SYNC_FENCE)
        MPI_Win_fence(0, w->win);
    if (sync == SYNC_PSCW)
        MPI_Win_wait(w->win);
    /* The origin's epoch is closed once it reaches this barrier. */
    MPI_Barrier(MPI_COMM_WORLD);
    if (passive)
        MPI_Win_lock(MPI_LOCK_SHARED, TARGET, 0, w->win);
    r->wrong = *slot != expected_after(op);
    if (passive)
        MPI_Win_unlock(TARGET, w->win);
    double t[4] = {r->start, r->landed, r->end, r->cpu};
    MPI_Send(t, 4, MPI_DOUBLE, ORIGIN, 1, MPI_COMM_WORLD);
    MPI_Send(&r->wrong, 1, MPI_INT, ORIGIN, 2, MPI_COMM_WORLD);
}

static void origin_rep(window_t *w, int sync, int op, const options_t *o, rep_t *r)
{
    MPI_Aint disp = w->base + op * (MPI_Aint)sizeof(long);
    long put = PUT_VALUE, acc = ACC_VALUE, one = 1;
    volatile long result = -1;
    if (sync == SYNC_FENCE)
        MPI_Win_fence(0, w->win);
    MPI_Barrier(MPI_COMM_WORLD);
    bench_sleep_us(ISSUE_DELAY_US);
    r->data = 0;
    r->issue = bench_now_us();
    if (sync == SYNC_LOCK)
        MPI_Win_lock(MPI_LOCK_SHARED, TARGET, 0, w->win);
    if (sync == SYNC_PSCW)
        MPI_Win_start(w->peer, 0, w->win);
    switch (op) {
    case OP_PUT: MPI_Put(&put, 1, MPI_LONG, TARGET, disp, 1, MPI_LONG, w->win); break;
    case OP_GET: MPI_Get((long *)&result, 1, MPI_LONG, TARGET, disp, 1, MPI_LONG, w->win); break;
    case OP_ACC: MPI_Accumulate(&acc, 1, MPI_LONG, TARGET, disp, 1, MPI_LONG, MPI_SUM, w->win); break;
    case OP_FOP: MPI_Fetch_and_op(&one, (long *)&result, MPI_LONG, TARGET, disp, MPI_SUM, w->win); break;
    }
    switch (sync) {
    case SYNC_LOCK: MPI_Win_unlock(TARGET, w->win); break;
    case SYNC_LOCKALL: MPI_Win_flush(TARGET, w->win); break;
    case SYNC_PSCW: MPI_Win_complete(w->win); break;
    case SYNC_FENCE:
        if (op == OP_GET || op == OP_FOP) {
            /* Watch for the fetched value, driving this side's progress
             * meanwhile, until a second after the target stops computing:
             * an operation queued until the fence itself never shows. */
            double give_up = r->issue + o->compute_ms * 1e3 + 1e6;
            int flag;
            while (result == -1 && bench_now_us() < give_up)
                MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
            if (result != -1)
                r->data = bench_now_us();
        }
        MPI_Win_fence(0, w->win);
        break;
    }
    r->done = bench_now_us();
    MPI_Barrier(MPI_COMM_WORLD);
    double t[4];
    MPI_Recv(t, 4, MPI_DOUBLE, TARGET, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Recv(&r->wrong, 1, MPI_INT, TARGET, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    r->start = t[0];
    r->landed = t[1];
    r->end = t[2];
    r->cpu = t[3];
    long want = op == OP_GET ? GET_VALUE : 0; /* FOP fetches the reset value */
    if ((op == OP_GET || op == OP_FOP) && result != want)
        r->wrong++;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* When the operation was done, in us of CLOCK_MONOTONIC, or 0 when some
 * part of it was not seen while the target computed.
 *   lock, lockall: when MPI_Win_unlock or MPI_Win_flush returned, which by
 *     the standard completes the operation at the target too. This does not
 *     depend on the target being scheduled to watch its memory.
 *   pscw: MPI_Win_complete completes the operation at the origin only, so
 *     the later of its return and, for PUT, ACC and FOP, the moment the
 *     target saw the update.
 *   fence: the closing fence waits for the target by definition, so only
 *     the data counts: the update seen by the target (PUT, ACC, FOP) and the
 *     fetched value seen by the origin (GET, FOP). */
static double effect_at(int sync, int op, const rep_t *r)
{
    if (sync == SYNC_LOCK || sync == SYNC_LOCKALL)
        return r->done;
    double at = sync == SYNC_FENCE ? r->issue : r->done;
    if (op != OP_GET) {
        if (r->landed == 0)
            return 0;
        at = r->landed > at ? r->landed : at;
    }
    if (sync == SYNC_FENCE && (op == OP_GET || op == OP_FOP)) {
        if (r->data == 0)
            return 0;
        at = r->data > at ? r->data : at;
    }
    return at;
}

/* Prints one cell: medians over the repetitions, in ms from the issue. */
static void print_cell(const options_t *o, int fl, int sync, int op, const rep_t *r, int n, int redone)
{
    double done[MAX_REPS], end[MAX_REPS], share[MAX_REPS], effect[MAX_REPS];
    int in_time = 0, wrong = 0;
    for (int i = 0; i < n; i++) {
        done[i] = (r[i].done - r[i].issue) / 1e3;
        end[i] = (r[i].end - r[i].issue) / 1e3;
        share[i] = r[i].cpu / (r[i].end - r[i].start);
        wrong += r[i].wrong;
        double at = effect_at(sync, op, &r[i]);
        if (at > 0 && at < r[i].end)
            effect[in_time++] = (at - r[i].issue) / 1e3;
    }
    printf("{\"type\":\"cell\",\"label\":\"");
    bench_json_text(o->label);
    printf("\",\"flavour\":\"%s\",\"sync\":\"%s\",\"op\":\"%s\",\"reps\":%d,"
           "\"completion_ms\":%.3f,\"target_busy_after_issue_ms\":%.3f,\"done_while_computing\":%d,"
           "\"done_ms\":",
           flavour_names[fl], sync_names[sync], op_names[op], n, median(done, n), median(end, n), in_time);
    if (in_time)
        printf("%.3f", median(effect, in_time));
    else
        printf("null");
    printf(",\"target_cpu_share\":%.3f,\"redone\":%d,\"wrong_values\":%d}\n", median(share, n), redone, wrong);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    /* Window creation reports its errors on the communicator. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    options_t o = parse_options(argc, argv);
    window_t w;
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &w.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (w.rank == 0)
            fprintf(stderr, "openmpi_progress: needs exactly 2 ranks, got %d\n", size);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Group world;
    int peer = 1 - w.rank;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, 1, &peer, &w.peer);
    MPI_Group_free(&world);
    if (w.rank == 0) {
        bench_meta_begin("openmpi_progress", size, 0);
        printf(",\"label\":\"");
        bench_json_text(o.label);
        printf("\",\"compute_ms\":%ld,\"reps\":%d", o.compute_ms, o.reps);
        bench_meta_end();
        fflush(stdout);
    }
    rep_t reps[MAX_REPS];
    for (int fl = 0; fl < NFLAVOURS; fl++) {
        if (!(o.flavours & (1u << fl)) || !open_window(&w, fl))
            continue;
        for (int sync = 0; sync < NSYNCS; sync++) {
            if (!(o.syncs & (1u << sync)))
                continue;
            if (sync == SYNC_LOCKALL && w.rank == ORIGIN)
                MPI_Win_lock_all(0, w.win);
            for (int op = 0; op < NOPS; op++) {
                if (!(o.ops & (1u << op)))
                    continue;
                int redone = 0;
                for (int i = 0; i < o.reps;) {
                    if (w.rank == TARGET)
                        target_rep(&w, sync, op, &o, &reps[i]);
                    else
                        origin_rep(&w, sync, op, &o, &reps[i]);
                    /* A repetition counts only if the target was already
                     * computing when the operation was issued. On a busy
                     * machine the target may get its core back only after
                     * the issue, still inside MPI (the barrier), where it
                     * serves the operation itself. Such a repetition is
                     * run again, up to MAX_REDO times a cell. */
                    int valid = w.rank == ORIGIN ? reps[i].start < reps[i].issue : 0;
                    MPI_Bcast(&valid, 1, MPI_INT, ORIGIN, MPI_COMM_WORLD);
                    if (valid || redone == MAX_REDO)
                        i++;
                    else
                        redone++;
                }
                if (w.rank == ORIGIN)
                    print_cell(&o, fl, sync, op, reps, o.reps, redone);
            }
            if (sync == SYNC_LOCKALL && w.rank == ORIGIN)
                MPI_Win_unlock_all(w.win);
            MPI_Barrier(MPI_COMM_WORLD);
        }
        close_window(&w, fl);
    }
    MPI_Group_free(&w.peer);
    MPI_Finalize();
    return 0;
}
