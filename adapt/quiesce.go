package adapt

import "time"

// QuiescePolicy is when a process may switch a window outside collectives
// (c/quiesce.c), over a stretch of at least Evidence without a barrier: to
// redirection when its completions on the direct path stalled for
// StallShare of it; back to the direct path when its operations through
// the ghosts cost that share of it more than the direct path's cost per
// operation (Predictor.Direct) would have, and more than the stalls the
// direct path last showed. A stretch as short as Glimpse speaks too, once
// what it lost holds StallShare of Evidence: the evidence that a full
// stretch needs, in less time. Toward the direct path a stretch as short as
// Early speaks once BusyOps operations went through the ghosts in it: the
// busy rule, when the process spent more of it in RMA calls than the
// predictor's high CR threshold, and the cost rule once TrustedOps priced
// it (see Quiescence). An attempt waits Deadline at most for every user to be
// quiet (such a short stretch's attempt no longer than the stretch lost);
// after a failed one the process waits Evidence before the next, doubling
// up to BackoffMax.
type QuiescePolicy struct {
	Evidence, Glimpse, Early, Deadline, BackoffMax time.Duration
	StallShare                                     float64
}

// QuiesceDeadline is how long an attempt waits for the users to be quiet:
// each user that already is waits as long, inside an RMA call. Users
// reach their next RMA call within a task or two of a loop that claims
// tasks; a user that computes longer keeps its old path.
const QuiesceDeadline = 20 * time.Millisecond

// Quiescence is the policy for the prediction interval predict
// (GHOST_PREDICT_INT):
//   - the stalls must hold twice MinStallShare, the share below which a
//     prediction interval's stalls are noise: one process decides here,
//     where at a collective point the votes of all do;
//   - over a twentieth of the interval (50 ms at the default 1 s), and at
//     least twice the deadline, so that what an attempt may cost the others
//     is small beside the stalls it saves;
//   - or over a quarter of that, when the stalls already hold the share
//     of a full stretch: ARMCI-MPI's NXTASK stalls for a third of its
//     time on the task counter from its first claim, and waiting out the
//     full stretch cost it about 20 ms of stalls per rank, some 5% of the
//     job on 2 fake nodes;
//   - toward the direct path, over a sixteenth of it, once BusyOps
//     operations went through the ghosts in it and the process spent more
//     of it in RMA calls than the high CR threshold: the paper's rule,
//     which the predictor applies at every interval, spoken where the
//     interval's point may be a whole phase away. The multiphase benchmark
//     enters each communication phase redirected, at 0.08-0.33 ms an
//     operation through a ghost of the other fake node against a few
//     microseconds direct, and the cost rule could not see it: the direct
//     path's price came from the computation phase, whose intervals of 1-3
//     operations and a fence priced an operation at 0.06-0.1 ms, and its
//     floor from that phase's stalls (a third of its time)
//     (bench/results/2026-11-28-busy-quiescence.md);
//   - or, by the cost rule, once TrustedOps operations through the ghosts
//     cost that share more than the direct path would have: a price per
//     operation measured over that many is a measurement, not one slow
//     wake (the predictor's rule too, doubt in predict.c). Such an early
//     attempt waits no longer than the stretch spent, so a failure costs
//     at most what it tried to stop
//     (bench/results/2026-11-28-priced-quiescence.md);
//   - a process that keeps failing (a user that computes with operations
//     in flight, or holds a lock) tries at most once per interval.
func Quiescence(predict time.Duration) QuiescePolicy {
	evidence := max(predict/20, 2*QuiesceDeadline)
	return QuiescePolicy{
		Evidence:   evidence,
		Glimpse:    evidence / 4,
		Early:      evidence / 16,
		Deadline:   QuiesceDeadline,
		BackoffMax: max(predict, 2*QuiesceDeadline),
		StallShare: 2 * MinStallShare,
	}
}
