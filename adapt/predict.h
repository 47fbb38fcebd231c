/*
 * The profiling predictor and the window-wide decision (predict.c), in C so
 * that the data plane runs them where an interval ends and at every
 * agreement point without a call into Go. A call into Go from a thread
 * that MPI's caller owns hands the Go runtime a processor that its
 * monitor thread then takes back, waking a second thread that spins and
 * sleeps: about 17 thread switches per interval and 5 per agreement on
 * cores that the ranks share (bench/results/2026-11-27-session33-checks.md).
 * adapt/predict.go wraps it for Go: the tests, and the control plane,
 * which creates a process's predictor and hands it to the data plane.
 */
#ifndef GHOST_PREDICT_H_INCLUDED
#define GHOST_PREDICT_H_INCLUDED

#include <stdint.h>

/* The share of an interval that stalls must take before an interval whose
 * operations went straight to their targets speaks for redirection. Below
 * it the direct path served the process: NWChem's Global Arrays phases on
 * 2 nodes stall for 0.2-0.5% of an interval with redirection off, while a
 * neighbour that computes through an origin's flushes
 * (bench/programs/multiphase.c's COMP phase) stalls for a third. */
#define GHOST_MIN_STALL_SHARE 0.05

/* The share of an interval that its stalls must take before they cast
 * doubt on redirection's measured cost (doubt, predict.c): twice the noise
 * floor. NWChem on 2 fake nodes stalls for 5-6% of many of its short
 * intervals between Global Arrays syncs; each such interval halved the
 * estimate, so that after a few of them a stalled interval voted
 * redirection on again, and ethanol SCF flipped on and off at every other
 * sync, paying the ghost path's cost for each step it ran redirected. */
#define GHOST_DOUBT_STALL_SHARE (2 * GHOST_MIN_STALL_SHARE)

/* How many operations through the ghosts make their price a measurement
 * that stalls must outweigh before they doubt it (doubt): a step of
 * operations, against the multiphase benchmark's stale estimate from an
 * interval of 3. */
#define GHOST_TRUSTED_OPS 64

/* How many operations through the ghosts make a stretch's CR a
 * measurement, where fewer could be one slow wake of a ghost: the busy
 * rule of a quiescence point (c/quiesce.c). A time share needs fewer of
 * them than a price per operation does (GHOST_TRUSTED_OPS): the multiphase
 * benchmark on 2 fake nodes issued 30-60 operations in the first 10 ms of
 * a communication phase that it entered through the ghosts, against
 * about 5000 a second direct. */
#define GHOST_BUSY_OPS 16

/* The ballot's unit: a weight of 1, the whole interval at stake, is cast
 * as GHOST_BALLOT_SCALE. */
#define GHOST_BALLOT_SCALE 1000

/* How much the ballots against a window's standing state must outweigh
 * those for it before the window leaves it (ghost_decide): the noise floor
 * of a vote, GHOST_MIN_STALL_SHARE, in the ballot's unit. */
#define GHOST_SWITCH_MARGIN 50

/* What one process measured over one prediction interval, in the timers'
 * ticks. */
typedef struct {
    /* The time spent communicating, and the interval's length (both
     * without the waits for other ranks): CR = comm / span. */
    uint64_t comm, span;
    /* The part of span spent completing operations that went straight to
     * a target outside MPI: the time that redirection gives back. */
    uint64_t stall;
    /* More tasks were runnable than the process had cores, so that the
     * stalls may have been waits for a core (they are then in comm as
     * well, and prove nothing). */
    int over;
    /* The RMA operations issued in the interval, by path. */
    uint64_t direct, redirected;
    /* The part of comm spent in RMA calls (operations, flushes, locks,
     * fences, PSCW): what prices an operation on its path. comm also holds
     * the interval's collectives, which a program's phase of Global Arrays
     * syncs makes much longer than its few operations, and priced that way
     * the direct path looked as dear as the ghosts. 0: not measured, comm
     * prices the operations. */
    uint64_t rma;
} ghost_interval_t;

/* Paths of per_op. */
enum { GHOST_PREDICT_DIRECT, GHOST_PREDICT_REDIRECTED };

/* A process's predictor. Its callers serialize: the data plane observes
 * under the profile's close lock (c/prof.c), and the control plane reads it
 * before the first interval or from inside one's close. */
typedef struct {
    double low, high; /* the CR thresholds of the hysteresis */
    int on;           /* the standing vote */
    double last;      /* the latest interval's CR */
    /* The communication time per operation, in ticks, on each path,
     * learned from the intervals that ran mostly on it; 0 until one has. */
    double per_op[2];
    /* The share of recent direct intervals spent in stalls that count: what
     * redirection gives back. */
    double stall_share;
    int stalled_last; /* the latest interval ran direct and stalled */
    /* What the standing vote has at stake, as a share of the interval that
     * cast it (ghost_predictor_ballot). */
    double weight;
    /* How many operations the latest redirected interval issued: the
     * evidence behind per_op[REDIRECTED] (doubt). */
    uint64_t priced_by;
    /* What the stalls that the estimate kept direct have cost since it was
     * last measured or doubted, in ticks (doubt). */
    double stall_debt;
} ghost_predictor_t;

/* Starts with redirection off and thresholds low < high. */
void ghost_predictor_init(ghost_predictor_t *p, double low, double high);
/* Records one interval; returns the vote, 1 for redirection on. */
int ghost_predictor_observe(ghost_predictor_t *p, const ghost_interval_t *iv);
/* The standing vote as the agreement sums it. */
int ghost_predictor_ballot(const ghost_predictor_t *p);
/* A ballot of weight (a share of the interval) for on or off. */
int ghost_ballot_of(int on, double weight);
/* The window-wide decisions from the sum of the ranks' ballots: at
 * allocation (no state yet), and at a point for a window whose state is
 * current (1 on, 0 off). */
int ghost_agree(int ballots);
int ghost_decide(int ballots, int current);

#endif
