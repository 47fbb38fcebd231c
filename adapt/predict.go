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
	// RMA is the part of Comm spent in RMA calls (operations, flushes,
	// locks, fences, PSCW): what prices an operation on its path. Comm
	// also holds the interval's collectives, which a program's phase of
	// Global Arrays syncs makes much longer than its few operations, and
	// priced that way the direct path looked as dear as the ghosts. 0: not
	// measured, Comm prices the operations.
	RMA uint64
}

// ranDirect is whether most of the interval's operations went straight to
// their targets.
func (iv Interval) ranDirect() bool { return iv.Direct > iv.Redirected }

// measuredDirect is whether the interval measured the direct path: most of
// its operations went straight to their targets, and completing them
// (communication and stalls) took at least MinStallShare of it. Its stalls
// then measure what redirection would give back. An interval that only
// computed, with a few operations left over from the phase before, says
// nothing about the path; it votes as a computing target does.
func (iv Interval) measuredDirect() bool {
	used := iv.Comm
	if !iv.Over { // else the stalls are in Comm already
		used += iv.Stall
	}
	return iv.ranDirect() && float64(used) >= MinStallShare*float64(iv.Span)
}

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
	// perOp is the communication time per operation, in ticks, on each
	// path (direct, redirected), learned from the intervals that ran
	// mostly on it; 0 until one has.
	perOp [2]float64
	// stallShare is the share of recent direct intervals spent in stalls
	// that count (stalled's conditions): what redirection gives back.
	stallShare float64
	// stalledLast is whether the latest interval ran direct and stalled.
	stalledLast bool
	// weight is what the standing vote has at stake, as a share of the
	// interval that cast it (Ballot).
	weight float64
	// pricedBy is how many operations the latest redirected interval
	// issued: the evidence behind perOp[redirected] (doubt).
	pricedBy uint64
	// stallDebt is what the stalls that the estimate kept direct have cost
	// since it was last measured or doubted, in ticks (doubt).
	stallDebt float64
}

// Paths of perOp.
const (
	direct = iota
	redirected
)

// learn folds an interval's communication time per operation into the
// estimate of the path most of its operations took, half old, half new:
// phases change the cost, and a stale estimate costs a wrong switch.
func (p *Predictor) learn(iv Interval) {
	path, ops := redirected, iv.Redirected
	if iv.ranDirect() {
		path, ops = direct, iv.Direct
	}
	if ops == 0 {
		return
	}
	spent := iv.Comm
	if iv.RMA > 0 {
		spent = iv.RMA
	}
	p.perOp[path] = blend(p.perOp[path], float64(spent)/float64(ops))
	if path == redirected {
		p.pricedBy, p.stallDebt = ops, 0
	}
	if path == direct {
		share := 0.0
		if !iv.Over {
			share = float64(iv.Stall) / float64(iv.Span)
		}
		p.stallShare = (p.stallShare + share) / 2
	}
}

// blend is half the old estimate and half the new sample, or the sample
// when there is no estimate yet.
func blend(old, sample float64) float64 {
	if old == 0 {
		return sample
	}
	return (old + sample) / 2
}

// extra is what redirecting ops operations costs over sending them
// straight to their targets, in ticks, as measured so far; known says
// whether both paths have been measured.
func (p *Predictor) extra(ops uint64) (ticks float64, known bool) {
	if p.perOp[direct] == 0 || p.perOp[redirected] == 0 {
		return 0, false
	}
	return (p.perOp[redirected] - p.perOp[direct]) * float64(ops), true
}

// costsMore is whether a redirected interval paid more for its path than
// the stalls of the recent direct intervals, at their share of this one,
// would have cost it: then the direct path is worth another look. Below
// MinStallShare of the interval the difference is noise. The estimate is
// capped by the interval's own communication time, which it cannot have
// exceeded: a computing interval with a few operations left over from a
// phase whose operations queued for the ghost must not read as one that
// paid that phase's price per operation.
func (p *Predictor) costsMore(iv Interval) bool {
	extra, known := p.extra(iv.Redirected)
	extra = min(extra, float64(iv.Comm))
	return known && extra >= MinStallShare*float64(iv.Span) && extra > p.stallShare*float64(iv.Span)
}

// pays is whether redirecting a stalled direct interval's operations
// would have given back more than it costs: its stalls against the extra
// time per operation that redirection has shown. Before redirection has
// been measured, switching to it is a bet on a cost nobody knows, so it
// takes a phase of stalls, two stalled intervals in a row, not a moment:
// NWChem's first interval stalls for a quarter of its time on every run
// (one rank waits while the other starts up), and the bet on it cost
// ethanol SCF on 2 fake nodes 40% of its run.
func (p *Predictor) pays(iv Interval) bool {
	extra, known := p.extra(iv.Direct)
	if !known {
		return p.stalledLast
	}
	return float64(iv.Stall) > extra
}

// NewPredictor starts with redirection off: the ghost stays off the
// critical path until a measurement says that it would help. (Starting on
// cost NWChem on 2 fake nodes its first second at 2.5 times the direct
// path's time per operation, before its first implicit point voted off.)
func NewPredictor(t Thresholds) *Predictor {
	return &Predictor{limits: t, weight: MinStallShare}
}

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
	p.on = on
}

// Vote is the predictor's standing vote: true for redirection on.
func (p *Predictor) Vote() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.on
}

// BallotScale is the ballot's unit: a weight of 1, the whole interval at
// stake, is cast as BallotScale.
const BallotScale = 1000

// Ballot is the standing vote as the agreement sums it: its weight in
// thousandths of the interval that cast it, positive for redirection on
// and negative for off, never 0. Agree decides on the sum.
func (p *Predictor) Ballot() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return ballot(p.on, p.weight)
}

func ballot(on bool, weight float64) int {
	b := max(1, int(weight*BallotScale+0.5))
	if !on {
		return -b
	}
	return b
}

// Observe records one interval and returns the vote: true for redirection
// on.
//
// The paper's rule, off above High, on below Low and the last vote in
// between, holds for intervals whose operations went through the ghosts
// and for those that hardly communicated (a target that computes votes for
// the ghost that its origins need). An interval that measured the direct
// path (measuredDirect) is read by what it measured: without
// stalls (stalled) it votes off whatever its CR, since its completions
// did not wait for anybody and redirection could only add the ghost's hop
// (a low CR there is computation that nobody waited on, and voting on for
// it made NWChem flip on and off at every Global Arrays sync, each time
// paying the ghost path's cost for a phase). With stalls it votes off too
// once redirection has shown a cost per operation that, over the
// interval's operations, exceeds the stalls (pays): NWChem's rare
// intervals that stall for 5–10% still switched on for a phase at 20
// times the direct path's cost per operation. Otherwise the rule above
// decides, on a CR that leaves the stalls out.
//
// The same weighing ends a redirected phase that no longer pays: while
// redirected, stalls cannot be seen, so an interval whose extra cost per
// operation exceeds the stall share that the direct path last showed
// votes off (costsMore), whatever its CR. Without it, NWChem switched on
// for a start-up interval that stalled for a quarter of its time and then
// stayed on for the whole run with a CR of 0.44, inside the band, at 12
// times the direct path's cost per operation.
func (p *Predictor) Observe(iv Interval) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if iv.Span == 0 {
		return p.on
	}
	p.learn(iv)
	cr := float64(iv.Comm) / float64(iv.Span)
	p.last = cr
	measured, stalled := iv.measuredDirect(), iv.stalled()
	switch {
	case cr > p.limits.High:
		p.on = false
	case measured && !(stalled && p.pays(iv)):
		p.on = false
	case !iv.ranDirect() && p.costsMore(iv):
		p.on = false
	case cr < p.limits.Low:
		p.on = true
	}
	if measured && stalled && !p.on && float64(iv.Stall) >= DoubtStallShare*float64(iv.Span) {
		p.doubt(iv)
	}
	p.weight = p.stake(iv)
	p.stalledLast = measured && stalled // after pays, which reads the interval before
	return p.on
}

// DoubtStallShare is the share of an interval that its stalls must take
// before they cast doubt on redirection's measured cost (doubt): twice the
// noise floor. NWChem on 2 fake nodes stalls for 5–6% of many of its
// short intervals between Global Arrays syncs; each such interval halved
// the estimate, so that after a few of them a stalled interval voted
// redirection on again, and ethanol SCF flipped on and off at every other
// sync, paying the ghost path's cost for each step it ran redirected.
const DoubtStallShare = 2 * MinStallShare

// doubt halves the extra cost per operation that redirection is thought
// to have, after a stalled direct interval that it kept off. The estimate
// comes from the last phase that ran redirected, which may not be this
// one: one interval in which the ghost was slow to be scheduled (4.5 ms
// for 3 operations, on a machine whose cores are shared) kept the
// multiphase benchmark's computation phase direct for all of its steps,
// since only redirecting again could correct it. A phase of stalls thus
// retries redirection after a few intervals, and what it measures there
// becomes the estimate.
//
// How fast depends on the evidence behind the estimate. One priced by
// fewer than TrustedOps operations is halved at every such interval. One
// priced by more is a measurement, not an accident: it is halved only
// once the stalls it kept direct since then have cost as much as
// redirecting this interval's operations would, by that estimate (a retry
// is then no dearer than what waiting has lost). NWChem's ethanol SCF on 2
// fake nodes stalls for 0.1-3 ms in many of its 2-10 ms intervals between
// Global Arrays syncs, while a step it runs redirected takes 8-35 ms;
// halving at each of those stalls retried redirection every few syncs.
func (p *Predictor) doubt(iv Interval) {
	extra, known := p.extra(iv.Direct) // a doubted interval ran direct: iv.Direct > 0
	if !known || extra <= 0 {
		return
	}
	if p.pricedBy >= TrustedOps {
		if p.stallDebt += float64(iv.Stall); p.stallDebt < extra {
			return
		}
		p.stallDebt = 0
	}
	p.perOp[redirected] = p.perOp[direct] + (p.perOp[redirected]-p.perOp[direct])/2
}

// TrustedOps is how many operations through the ghosts make their price
// a measurement that stalls must outweigh before they doubt it (doubt):
// a step of operations, against the multiphase benchmark's stale estimate
// from an interval of 3.
const TrustedOps = 64

// stake is what the vote just cast has at stake over the interval, as a
// share of it: what redirecting gives back (the interval's stalls, or
// while redirected those that the direct path last showed) against what
// it costs (extra, where both paths have been measured), in the vote's
// favour. A vote whose favour nobody measured (a computing target's vote
// for its origins' ghost, a cost not yet known) weighs MinStallShare, the
// floor below which a difference is noise: such votes then decide by
// their count, as in the paper.
//
// The weights let the ranks that gain outvote those that pay less. In the
// multiphase benchmark's computation phase, a rank that computes in 2 ms
// chunks pays for each operation that it redirects about 9% of its
// interval, while its neighbour, stalled on those chunks, gets back a third
// of its own; by count, a tie of two that went off made the window flip
// at every step.
func (p *Predictor) stake(iv Interval) float64 {
	var gain, cost float64
	var known bool
	if iv.ranDirect() {
		if iv.stalled() {
			gain = float64(iv.Stall)
		}
		cost, known = p.extra(iv.Direct)
	} else {
		gain = p.stallShare * float64(iv.Span)
		cost, known = p.extra(iv.Redirected)
		cost = min(cost, float64(iv.Comm))
	}
	favour := (gain - cost) / float64(iv.Span)
	if !p.on {
		favour = -favour
	}
	if !known || favour < MinStallShare {
		return MinStallShare
	}
	return min(favour, 1)
}

// Direct is what the predictor has learned of the direct path: its
// communication time per operation, in ticks (0 before an interval ran
// mostly direct), and the share of recent direct intervals that its
// stalls took. A switch outside collectives weighs redirection's cost
// against them (c/quiesce.c) as costsMore does.
func (p *Predictor) Direct() (perOp, stallShare float64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.perOp[direct], p.stallShare
}

// LastCR is the communication ratio of the latest interval.
func (p *Predictor) LastCR() float64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.last
}

// Agree is the window-wide decision from the sum of the ranks' ballots
// (Ballot): on only when the weights for it outweigh those against, so a
// tie goes off. Votes that all weigh the floor decide by their count.
//
// Off is right at a tie where it matters. When one rank stalls on a
// neighbour that computes and the other completes promptly before
// redirection has been measured, both votes weigh the floor, and
// redirection would be a cost to both against a gain for one: NWChem on 2
// fake nodes starts so on every run (one rank waits while the other starts
// up), and a tie that went on, as it did when the ranks' mean CR broke
// ties, cost ethanol DFT a tenth of its run in a phase at the ghost path's
// cost. Once both paths are measured, the weights tell a gain from a cost:
// at the first point of a communication phase that runs redirected, the
// rank slowed down by the ghost outweighs the one that got there quickly
// and still votes on from the computation before.
func Agree(ballots int) bool {
	return ballots > 0
}

// SwitchMargin is how much the ballots against a window's standing state
// must outweigh those for it before the window leaves it (Decide): the
// noise floor of a vote, MinStallShare, in the ballot's unit.
const SwitchMargin = 50 // MinStallShare * BallotScale

// Decide is the decision at an agreement point for a window whose state
// is on (current true) or off: the state changes only when the sum of the
// ballots (Ballot) goes against it by at least SwitchMargin, so that a
// near tie keeps what the window has. Each switch costs a step on the
// path that the next point corrects, and the ranks' weights are
// measurements, with noise: in the multiphase benchmark's computation
// phase on the 2-core VM, the rank stalled on its computing neighbour
// weighed 175 to 326 for redirection and the neighbour 97 to 190 against
// it, and at a sum of -11 the window switched off, to switch on again at
// the next step (bench/results/2026-11-27T0747Z-multiphase-entry-step-trace.md).
// A window without a state yet (at allocation) takes Agree's answer. A
// single rank's vote at the floor still switches its window, and a tie of
// two floor votes keeps the state, off where cores are shared (the state
// presumed at allocation), as Agree's tie did.
func Decide(ballots int, current bool) bool {
	if current {
		return ballots > -SwitchMargin
	}
	return ballots >= SwitchMargin
}
