// Package adapt decides when redirection through the ghosts is worth it.
//
// Redirection helps phases in which targets compute outside MPI; it hurts
// phases in which communication dominates, because many targets funnel into
// few ghosts. A process measures its communication ratio CR = T_mpi/T_total
// over each prediction interval and votes: off above High, on below Low,
// and in between it keeps its last vote (hysteresis, so that a phase near a
// threshold does not make the window flap). The window then agrees on the
// votes (Agree) at points where every rank is present.
//
// The package makes no MPI call. The predictor and the window-wide decision
// are C (predict.c), which the C data plane runs where an interval ends and
// at every agreement point without a call into Go (predict.h says why);
// this file wraps them for Go. The rest of the package is Go.
package adapt

// #include <stdlib.h>
// #include "predict.h"
import "C"

import (
	"fmt"
	"runtime"
	"sync"
	"unsafe"
)

// Thresholds are the CR boundaries of the hysteresis.
type Thresholds struct {
	Low, High float64
}

// Validate checks 0 <= Low < High <= 1.
func (t Thresholds) Validate() error {
	if t.Low < 0 || t.High > 1 || t.Low >= t.High {
		return fmt.Errorf("CR thresholds must satisfy 0 <= low < high <= 1, got low %g high %g", t.Low, t.High)
	}
	return nil
}

// The predictor's constants, defined in predict.h (each one's reason is
// there).
const (
	// MinStallShare is the share of an interval that stalls must take
	// before an interval whose operations went straight to their targets
	// speaks for redirection.
	MinStallShare = C.GHOST_MIN_STALL_SHARE
	// DoubtStallShare is the share of an interval that its stalls must
	// take before they cast doubt on redirection's measured cost.
	DoubtStallShare = C.GHOST_DOUBT_STALL_SHARE
	// TrustedOps is how many operations through the ghosts make their
	// price a measurement that stalls must outweigh before they doubt it.
	TrustedOps = C.GHOST_TRUSTED_OPS
	// BusyOps is how many operations through the ghosts make a stretch's
	// CR a measurement at a quiescence point.
	BusyOps = C.GHOST_BUSY_OPS
	// BallotScale is the ballot's unit: a weight of 1, the whole interval
	// at stake, is cast as BallotScale.
	BallotScale = C.GHOST_BALLOT_SCALE
	// SwitchMargin is how much the ballots against a window's standing
	// state must outweigh those for it before the window leaves it
	// (Decide).
	SwitchMargin = C.GHOST_SWITCH_MARGIN
)

// Interval is what one process measured over one prediction interval, in
// the timers' ticks (ghost_interval_t in predict.h says what each field
// holds).
type Interval struct {
	// Comm is the time spent communicating, Span the interval's length
	// (both without the waits for other ranks): CR = Comm / Span.
	Comm, Span uint64
	// Stall is the part of Span spent completing operations that went
	// straight to a target outside MPI. Over says that more tasks were
	// runnable than the process had cores.
	Stall uint64
	Over  bool
	// Direct and Redirected count the RMA operations issued in the
	// interval, by path.
	Direct, Redirected uint64
	// RMA is the part of Comm spent in RMA calls; 0: not measured.
	RMA uint64
}

func (iv Interval) c() C.ghost_interval_t {
	over := 0
	if iv.Over {
		over = 1
	}
	return C.ghost_interval_t{comm: C.uint64_t(iv.Comm), span: C.uint64_t(iv.Span), stall: C.uint64_t(iv.Stall),
		over: C.int(over), direct: C.uint64_t(iv.Direct), redirected: C.uint64_t(iv.Redirected),
		rma: C.uint64_t(iv.RMA)}
}

// Predictor turns interval measurements into votes (predict.c). Its
// state is C memory, which the data plane of the process that owns it
// updates (Handle); the methods here serialize among themselves, and the
// process's own data plane calls it only where no method runs (before the
// first interval, or from inside an interval's end).
type Predictor struct {
	mu sync.Mutex
	c  *C.ghost_predictor_t
}

// NewPredictor starts with redirection off and the thresholds t.
func NewPredictor(t Thresholds) *Predictor {
	p := &Predictor{c: (*C.ghost_predictor_t)(C.calloc(1, C.sizeof_ghost_predictor_t))}
	C.ghost_predictor_init(p.c, C.double(t.Low), C.double(t.High))
	runtime.AddCleanup(p, func(c *C.ghost_predictor_t) { C.free(unsafe.Pointer(c)) }, p.c)
	return p
}

// Handle is the predictor's C state, a ghost_predictor_t, for the data
// plane of this process. The Predictor must outlive its use there.
func (p *Predictor) Handle() unsafe.Pointer { return unsafe.Pointer(p.c) }

// Presume sets the vote that stands until the first interval is observed:
// what the ranks agree on for the windows they allocate before they have
// measured anything. A process whose cores are its own presumes
// redirection (the ghost path then costs little, and a program that
// reaches no agreement point after its allocations keeps that state for
// its whole run: ARMCI-MPI's NXTASK task loop never synchronizes), one
// that shares cores presumes the direct path (the ghost then competes with
// the ranks for the CPU). The presumption weighs the floor, like any vote
// that nothing measured.
func (p *Predictor) Presume(on bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.c.on = C.int(boolInt(on))
}

// Vote is the predictor's standing vote: true for redirection on.
func (p *Predictor) Vote() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.c.on != 0
}

// Ballot is the standing vote as the agreement sums it: its weight in
// thousandths of the interval that cast it, positive for redirection on
// and negative for off, never 0. Agree and Decide decide on the sum.
func (p *Predictor) Ballot() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return int(C.ghost_predictor_ballot(p.c))
}

func ballot(on bool, weight float64) int {
	return int(C.ghost_ballot_of(C.int(boolInt(on)), C.double(weight)))
}

// Observe records one interval and returns the vote: true for redirection
// on (ghost_predictor_observe in predict.c gives the rules).
func (p *Predictor) Observe(iv Interval) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	civ := iv.c()
	return C.ghost_predictor_observe(p.c, &civ) != 0
}

// Direct is what the predictor has learned of the direct path: its
// communication time per operation, in ticks (0 before an interval ran
// mostly direct), and the share of recent direct intervals that its
// stalls took. A switch outside collectives weighs redirection's cost
// against them (c/quiesce.c).
func (p *Predictor) Direct() (perOp, stallShare float64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return float64(p.c.per_op[C.GHOST_PREDICT_DIRECT]), float64(p.c.stall_share)
}

// perOp is the learned communication time per operation on each path
// (direct, redirected), for the tests' messages.
func (p *Predictor) perOp() [2]float64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return [2]float64{float64(p.c.per_op[0]), float64(p.c.per_op[1])}
}

// LastCR is the communication ratio of the latest interval.
func (p *Predictor) LastCR() float64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return float64(p.c.last)
}

// Agree is the window-wide decision from the sum of the ranks' ballots
// where a window has no state yet (at allocation): on only when the
// weights for it outweigh those against, so a tie goes off.
func Agree(ballots int) bool { return C.ghost_agree(C.int(ballots)) != 0 }

// Decide is the decision at an agreement point for a window whose state is
// on (current true) or off: the state changes only when the sum of the
// ballots goes against it by at least SwitchMargin.
func Decide(ballots int, current bool) bool {
	return C.ghost_decide(C.int(ballots), C.int(boolInt(current))) != 0
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
