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
// The package makes no MPI call: the C data plane measures, and calls in
// here once per interval and once per agreement.
package adapt

import (
	"fmt"
	"sync"
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

// MinStallShare is the share of an interval that stalls must take before
// an interval whose operations went straight to their targets speaks for
// redirection. Below it the direct path served the process: NWChem's
// Global Arrays phases on 2 nodes stall for 0.2–0.5% of an interval with
// redirection off, while a neighbour that computes through an origin's
// flushes (bench/programs/multiphase.c's COMP phase) stalls for a third.
const MinStallShare = 0.05

// Interval is what one process measured over one prediction interval, in
// the timers' ticks.
type Interval struct {
	// Comm is the time spent communicating, Span the interval's length
	// (both without the waits for other ranks): CR = Comm / Span.
	Comm, Span uint64
	// Stall is the part of Span spent completing operations that went
	// straight to a target outside MPI: the time that redirection gives
	// back. Over says that more tasks were runnable than the process had
	// cores, so that the stalls may have been waits for a core (they are
	// then in Comm as well, and prove nothing).
	Stall uint64
	Over  bool
	// Direct and Redirected count the RMA operations issued in the
	// interval, by path.
	Direct, Redirected uint64
}

// ranDirect is whether most of the interval's operations went straight to
// their targets: its stalls then measure what redirection would give back.
func (iv Interval) ranDirect() bool { return iv.Direct > iv.Redirected }

// stalled is whether the stalls are evidence that targets computed
// through this process's completions.
func (iv Interval) stalled() bool {
	return !iv.Over && float64(iv.Stall) >= MinStallShare*float64(iv.Span)
}

// Predictor turns interval measurements into votes. It is safe for the
// several threads of an MPI_THREAD_MULTIPLE process.
type Predictor struct {
	mu     sync.Mutex
	limits Thresholds
	on     bool
	last   float64
}

// NewPredictor starts with redirection off: the ghost stays off the
// critical path until a measurement says that it would help. (Starting on
// cost NWChem on 2 fake nodes its first second at 2.5 times the direct
// path's time per operation, before its first implicit point voted off.)
func NewPredictor(t Thresholds) *Predictor {
	return &Predictor{limits: t}
}

// Vote is the predictor's standing vote: true for redirection on.
func (p *Predictor) Vote() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.on
}

// Observe records one interval and returns the vote: true for redirection
// on.
//
// The paper's rule, off above High, on below Low and the last vote in
// between, holds for intervals whose operations went through the ghosts
// and for those without operations (a target that computes votes for the
// ghost that its origins need). An interval whose operations went mostly
// straight to their targets has measured the direct path instead: without
// stalls (stalled) it votes off whatever its CR, since its completions
// did not wait for anybody and redirection could only add the ghost's hop
// (a low CR there is computation that nobody waited on, and voting on for
// it made NWChem flip on and off at every Global Arrays sync, each time
// paying the ghost path's cost for a phase); with stalls, the rule above
// decides, on a CR that leaves the stalls out.
func (p *Predictor) Observe(iv Interval) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if iv.Span == 0 {
		return p.on
	}
	cr := float64(iv.Comm) / float64(iv.Span)
	p.last = cr
	switch {
	case cr > p.limits.High:
		p.on = false
	case iv.ranDirect() && !iv.stalled():
		p.on = false
	case cr < p.limits.Low:
		p.on = true
	}
	return p.on
}

// Thresholds are the predictor's CR boundaries.
func (p *Predictor) Thresholds() Thresholds { return p.limits }

// LastCR is the communication ratio of the latest interval.
func (p *Predictor) LastCR() float64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.last
}

// Agree is the window-wide decision from onVotes votes for redirection out
// of n ranks whose latest intervals had a mean communication ratio meanCR:
// the majority, and on a tie the mean CR against the middle of the
// hysteresis band t.
//
// A tie is common where it matters. When ranks of a window compute out of
// step with redirection off, the ranks that wait for a busy neighbour land
// between the thresholds and keep the off vote of the last communication
// phase, while the busy ones vote on; their mean CR sits low in the band.
// At the first fence of a communication phase that runs redirected, a
// rank that got there quickly still votes on from the computation before,
// while the one slowed down votes off; their mean CR sits high. Keeping the
// current state on a tie would be wrong both times.
func Agree(onVotes, n int, meanCR float64, t Thresholds) bool {
	switch {
	case n == 0:
		return true
	case 2*onVotes > n:
		return true
	case 2*onVotes < n:
		return false
	}
	return meanCR < (t.Low+t.High)/2
}
