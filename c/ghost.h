/*
 * The C data plane of Ghost: state shared between the hand-written and the
 * generated MPI wrappers, and the small C API that the Go control plane
 * (shim/) calls. Go fills these globals once, at MPI_Init; the per-call path
 * only reads them.
 */
#ifndef GHOST_H_INCLUDED
#define GHOST_H_INCLUDED

#include <mpi.h>
#include <stdint.h>

#include "zconst.h" /* numbers shared with Go (GHOST_MAX_NG, SEGMENT_ALIGN), generated */
#include "abi.h"   /* the MPI ABI, and its zreal.h: pointers to the real functions */
#include "predict.h" /* adapt/: the predictor and the window-wide decision, in C */

/* ---- world translation -------------------------------------------------- */

/* The communicator the application sees as MPI_COMM_WORLD: every process but
 * the ghosts. It equals MPI_COMM_WORLD before MPI_Init and when GHOST_NG=0. */
extern MPI_Comm ghost_user_world;

/* Total number of ghost processes in the job (all nodes). */
extern int ghost_total_ghosts;

#define GHOST_USER_COMM(c) ((c) == MPI_COMM_WORLD ? ghost_user_world : (c))

/* Whether keyval is one of the communicator attributes MPI predefines,
 * which MPICH keeps on the built-in MPI_COMM_WORLD (c/world.c). */
int ghost_is_predefined_comm_keyval(int keyval);

/* Set while MPI's own MPI_Init or MPI_Init_thread runs (world.c): the UCX
 * context created then is MPI's, not one the application made itself
 * (ucxwake.c). */
extern int ghost_mpi_initializing;

/* ---- calls begun ----------------------------------------------------------- */

/* How many wrapped MPI calls this thread has begun (every wrapper that may
 * wait counts one: not the local calls). A user that waits dozes only
 * after a stretch of empty polls inside one call (politeness.c): MPICH's
 * shared-memory messages complete without any event its UCX progress
 * reports, so without this mark a run of short waits looked like one long
 * wait. One increment of a thread-local word per call. */
extern __thread unsigned ghost_calls_begun;
#define GHOST_CALL_BEGINS() (ghost_calls_begun++)

/* ---- profiling hooks ---------------------------------------------------- */

/* Nonzero when wrapped calls are timed. Off, each wrapper pays one
 * predictable branch on a global and then tail-jumps into MPICH. */
extern int ghost_prof_enabled;
#define GHOST_PROFILING() __builtin_expect(ghost_prof_enabled, 0)

typedef struct {
    uint64_t calls;     /* wrapped MPI calls completed by this thread */
    uint64_t mpi_ticks; /* TSC ticks spent inside them */
} ghost_prof_counters_t;

uint64_t ghost_prof_enter(void);
void ghost_prof_exit(uint64_t t0);
/* ghost_prof_exit for an RMA operation or one of its synchronization
 * calls (flush, lock, unlock, fence, PSCW): their time outside waits is
 * also the interval's RMA time, which prices an operation on each path
 * without the collectives that the same interval may hold. */
void ghost_prof_exit_rma(uint64_t t0);
void ghost_prof_read(ghost_prof_counters_t *out);
uint64_t ghost_now_ns(void);
uint64_t ghost_ticks(void);
/* TSC ticks per second, measured once over at least 5 ms from
 * ghost_tsc_hz_start (or from the first call). */
void ghost_tsc_hz_start(void);
double ghost_tsc_hz(void);

/* Profiling predictions (GHOST_ASYNC=auto): the length of one prediction
 * interval in TSC ticks (0: none), and this process's latest ballot: its
 * vote weighted by what it has at stake, positive for redirection on and
 * negative for off, never 0 (adapt.Predictor.Ballot); agreement points sum
 * the ranks' ballots. ghost_prof_vote is for agreement points: it ends the
 * interval there once the interval holds a tenth of GHOST_PREDICT_INT
 * outside waits, or, where ghost_prof_point_ops is set (at MPI_Init, where
 * the host's processes share cores: shim/adapt.go), once the process
 * issued POINT_OPS RMA operations in it (prof.c), so that the vote is
 * about the step that just ended. */
extern uint64_t ghost_predict_ticks;
extern int ghost_prof_point_ops;
extern int ghost_vote; /* this process's latest ballot: > 0 for redirection on */
int ghost_prof_vote(void);
/* The process's predictor (adapt/predict.h), which the control plane
 * creates and hands over here (a ghost_predictor_t); until then, and
 * without GHOST_ASYNC=auto, intervals end without a vote. */
extern ghost_predictor_t *ghost_predictor;
void ghost_prof_use_predictor(void *predictor);
/* Whether every interval's end goes to Go for the trace (GHOST_TRACE) and
 * the debug log (ghostRecordInterval): a call into Go per interval, which
 * costs the thread switches that adapt/predict.h describes. */
extern int ghost_prof_report;
/* Ends the current prediction interval now (at finalize, so that the last
 * partial interval reaches the predictor and the trace). */
void ghost_prof_flush(void);
/* ticks of the current wrapped call were spent waiting for other ranks (in
 * MPI_Barrier, or the ballot of a fence): not communication, so not part of
 * CR (c/prof.c). */
void ghost_prof_wait(uint64_t ticks);
/* A completion of operations that went straight to a target (redirection
 * off) took ticks; *fastest is that target's fastest recent one. The part
 * beyond GHOST_STALL_FACTOR times the fastest was spent waiting for a
 * target outside MPI, which redirection would have spared: a stall, which
 * CR counts as time outside communication (c/prof.c). Returns that stall
 * in ticks (0: none). */
enum { GHOST_STALL_FACTOR = 4 };
uint64_t ghost_prof_direct_completion(uint64_t *fastest, uint64_t ticks);
/* The process's RMA time so far, in ticks: the time of its threads'
 * completed outermost RMA calls, without their waits and stalls. It only
 * grows; differences measure a stretch (quiesce.c's cost rule). */
uint64_t ghost_prof_rma_so_far(void);
/* Nonzero under GHOST_ASYNC=auto: windows agree on the votes at fences,
 * allocation, MPI_Win_set_info(symmetric=true) and implicit points. */
extern int ghost_async_auto;

/* Ghost defines the PMPI_ names too (mpi_f08 and tools call them), so its
 * own calls into MPICH that must bypass the wrappers use these. */
static inline int ghost_real_finalize(void) { return GHOST_REAL(MPI_Finalize)(); }
static inline int ghost_real_abort(int code) { return GHOST_REAL(MPI_Abort)(MPI_COMM_WORLD, code); }

/* GHOST_HW_BYPASS: nonzero when contiguous PUT/GET of predefined types go
 * straight to the target in global-window epochs (rma.c). Set once at
 * MPI_Init, to the same value on every process (shim/hw.go). */
extern int ghost_hw_bypass;

/* ---- control channel (ctl.c) -------------------------------------------- */

/* Commands from a user process to the ghosts of its node. They travel on a
 * private duplicate of the node communicator, so no user tag or communicator
 * is ever touched. */
enum ghost_cmd_op {
    GHOST_CMD_FINALIZE = 1,
    GHOST_CMD_WIN_ALLOCATE, /* arg: window id, users; then the users' world ranks */
    GHOST_CMD_WIN_FREE,     /* arg: window id */
};

#define GHOST_CMD_WORDS 8
typedef struct {
    int64_t op;
    int64_t arg[GHOST_CMD_WORDS - 1];
} ghost_cmd_t;

/* Set up by Go after the split. ctl is the private node communicator. */
void ghost_ctl_setup(MPI_Comm ctl);
/* User side: send a command to the ghost with node-local rank ghost_local. */
int ghost_ctl_send(int ghost_local, const ghost_cmd_t *cmd);
/* Both sides: the payload that follows a command, as ints. */
int ghost_ctl_send_ints(int dest, const int *v, int n);
int ghost_ctl_recv_ints(int src, int *v, int n);
/* Ghost side: test for a command; returns 1 and fills *cmd and *from (the
 * sender's node-local rank) when one arrived, 0 otherwise. Every call also
 * drives MPI progress, which is what serves RMA aimed at this ghost. */
int ghost_ctl_poll(ghost_cmd_t *cmd, int *from);
/* Ghost side: cancel the pending receive before finalizing. */
void ghost_ctl_teardown(void);

/* Ghost side: one pass over every channel of the ghost's loop, in one call.
 * GONE: the node's users or the launcher went away (ghost_life_gone), and
 * nothing else was read. Otherwise, with gsync (the node's first ghost
 * under GHOST_ASYNC=auto), EXCHANGED: a GP exchange completed
 * (ghost_gp_test), and an exchange starts when gp_start_ns >= 0
 * (ghost_gp_start); WOKEN: a wake message arrived (ghost_wake_poll);
 * COMMAND: *cmd and *from hold a command (ghost_ctl_poll); PROGRESSED:
 * MPI's progress in those polls moved network traffic (ghost_progressed),
 * such as operations from another node that the ghost served. */
enum { GHOST_PASS_GONE = 1, GHOST_PASS_EXCHANGED = 2, GHOST_PASS_WOKEN = 4, GHOST_PASS_COMMAND = 8,
       GHOST_PASS_PROGRESSED = 16 };
int ghost_poll_pass(int gsync, int64_t gp_start_ns, ghost_cmd_t *cmd, int *from);

/* ---- ghost idling (load.c) ---------------------------------------------- */

/* Tasks runnable on this machine right now, the caller included (from
 * /proc/loadavg); -1 when unknown. */
int ghost_runnable(void);
/* The same, read at most once a millisecond by the process: for the
 * politeness of waiting users and the profile's stalled intervals, which
 * ask often, and for which a reading that old is as good. */
int ghost_runnable_recent(void);

/* The CPUs this process may run on (its affinity mask), read once. */
int ghost_cores(void);
/* Ghosts of the job on this host that give way to runnable ranks (they
 * yield or sleep when idle: not GHOST_WAIT=spin), which the profile's
 * test for oversubscribed cores leaves out (c/prof.c); set at MPI_Init. */
extern int ghost_host_polite_ghosts;
/* CPU time (user+system) this process has used, in nanoseconds. */
int64_t ghost_cpu_ns(void);
/* Resident set size of this process, in kB. */
int64_t ghost_rss_kb(void);

/* ---- node shared memory (arena.c) --------------------------------------- */

/* Allocates a block of bytes in the node's shared memory, owned by node
 * rank 0, and points *block at it on every process of node (collective). */
int ghost_node_block(MPI_Comm node, int local_rank, MPI_Aint bytes, MPI_Win *win, void *block);

/* ---- polite waiting (politeness.c) ------------------------------------ */

/* Empty progress polls after which a user process yields its core; 0 never. */
extern int ghost_yield_after;
/* A ghost's count of UCX progress events (operations from other nodes
 * arriving or moving, among others); ghost_progressed returns whether it
 * grew since the last call. Users do not count. */
extern int ghost_count_progress;
int ghost_progressed(void);

/* ---- errhandlers on the world ------------------------------------------- */

/* MPI_ERRORS_ARE_FATAL's behaviour with the user rank named: prints the
 * error and aborts the job with its class as status (world.c). */
void ghost_fatal_error(int code) __attribute__((noreturn));
/* Puts that behaviour on the user world in place of MPI_ERRORS_ARE_FATAL. */
int ghost_fatal_note_setup(void);


/* ---- leaving without MPI_Finalize (life.c) ------------------------------ */

/* Collective over the node (users and ghosts): publishes every process's
 * pid in node shared memory; a ghost opens pidfds on the node's users. */
int ghost_life_setup(MPI_Comm node, int local_rank, int local_size, int ghosts, int is_ghost);
/* Collective over the node, at a normal finalize. */
int ghost_life_teardown(void);
/* User side: MPI_Finalize has begun, so exit() is an ordinary one. */
void ghost_life_finalizing(void);
/* Ghost side: 1 when this ghost should leave (a user of its node left or
 * died without MPI_Finalize, or its launcher is gone), with the reason. */
int ghost_life_gone(void);
const char *ghost_life_reason(void);
/* Ghost side: ends the process with status 0 without running any of the
 * application's exit code (atexit handlers, destructors, stdio buffers). */
void ghost_life_leave(void) __attribute__((noreturn));

/* Removes libghost.so from this process's LD_PRELOAD (at MPI_Init), so
 * that the processes a rank starts (system, popen, fork+exec) run without
 * Ghost; other entries are kept. */
void ghost_unpreload(void);
/* Around MPICH's init: takes what the application left in stdout's buffer
 * before MPI_Init out of it, and puts it back once the process is known to
 * be a user. MPICH flushes stdout inside MPI_Init, which in a process that
 * becomes a ghost would write the application's output once more. */
void ghost_stdout_stash(void);
void ghost_stdout_restore(void);

/* ---- entry points into Go (defined in shim/) ---------------------------- */

/* Returns once the Go runtime has started (any call into Go waits for
 * that): ghost_unpreload calls it before it changes the environment. */
extern void ghostRuntimeReady(void);
/* Whether GHOST_UCX_WAKE leaves UCX's wake-up events on (ucxwake.c, inside
 * MPI_Init). */
extern int ghostUCXWakeWanted(void);
/* Called right after PMPI_Init/PMPI_Init_thread. On a ghost it never returns. */
extern int ghostAfterInit(int provided);
/* Called at the start of MPI_Finalize on user processes. */
extern void ghostBeforeFinalize(void);
/* The trace and the debug log of an interval, where ghost_prof_report asks
 * for them: its communication ticks (MPI without waits for other ranks and
 * stalls on targets outside MPI), its length without the waits, all
 * waits, and the stalls (among the waits, unless the cores were
 * oversubscribed and they were counted as communication), its operations
 * through the ghosts and direct, its CR, and the ballot that stands after
 * it. */
extern void ghostRecordInterval(uint64_t comm_ticks, uint64_t span_ticks, uint64_t wait_ticks, uint64_t stall_ticks,
                                int stalls_counted_as_comm, uint64_t ghost_ops, uint64_t direct_ops, double cr,
                                int ballot);
/* A window's agreed state changed to on at point (GHOST_POINT_*), for the
 * trace; called only when ghost_trace_switches is set. */
extern void ghostSwitched(int64_t window, int on, int point);

#endif /* GHOST_H_INCLUDED */
