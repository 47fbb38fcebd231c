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

// Predictor turns interval measurements into votes. It is safe for the
// several threads of an MPI_THREAD_MULTIPLE process.
type Predictor struct {
	mu     sync.Mutex
	limits Thresholds
	on     bool
	last   float64
}

// NewPredictor starts with redirection on: a fresh window is redirected
// until the first measurements say otherwise.
func NewPredictor(t Thresholds) *Predictor {
	return &Predictor{limits: t, on: true}
}

// Observe records one interval, mpi ticks of total spent inside MPI, and
// returns the vote: true for redirection on.
func (p *Predictor) Observe(mpi, total uint64) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if total == 0 {
		return p.on
	}
	cr := float64(mpi) / float64(total)
	p.last = cr
	switch {
	case cr > p.limits.High:
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
