// Package wait decides what an idle ghost does between two polls of MPI.
//
// Busy-polling is right on dedicated cores and ruinous when ghosts share
// cores with the application, as on a laptop or a CI box. The adaptive
// policy spins while work keeps arriving, then yields, then sleeps with
// exponential back-off up to a ceiling that bounds the added latency.
package wait

import (
	"time"

	"github.com/ghost-mpi/ghost/internal/config"
)

// Kind is what to do before the next poll.
type Kind int

const (
	Spin  Kind = iota // poll again at once
	Yield             // give the core up once (sched_yield)
	Sleep             // sleep for Action.Sleep
)

// Action is one decision.
type Action struct {
	Kind  Kind
	Sleep time.Duration
}

// Tuning of the adaptive policy. SpinPolls polls after the last work cost a
// few tens of microseconds. The sleep ceiling sets the price of idling: on
// the 2-core development VM one wake (nanosleep, context switch, one MPICH
// progress poll) costs about 40 us of CPU, so 1 ms keeps an idle ghost near
// 4% of a core, while a request that finds the ghost asleep, from an origin
// that cannot wake it (another node, without UCX's wake-up events), waits at
// most 1 ms, against the ~180 ms plain MPICH needs when the target computes.
const (
	SpinPolls  = 2000
	YieldPolls = 200
	MinSleep   = 2 * time.Microsecond
	MaxSleep   = time.Millisecond
)

// A ghost that every origin can wake (SetWakeable: its job runs on one node,
// whose origins ring its doorbell, or traffic from other nodes ends its
// dozes, c/ucxwake.c) does not need timed wakes to see work: there the
// ceiling only bounds a wake-up that went missing, a garbage collection of
// the ghost's Go runtime, and a metrics scrape, so it is longer. Each timed
// wake takes a rank's turn on a core where cores are shared, and in a
// communication phase that rank's peers wait for it: with the window's
// redirection off, the passive multiphase program's four communication
// phases on 2 fake nodes, 2 cores, took a median of 72.7 ms with idle ghosts
// waking every millisecond and 61.3 ms with 8 ms dozes (16 rounds each,
// interleaved; bench/results/2026-11-28-wakeable-doze.md). It stays under
// the 10 ms after which Go's runtime preempts the loop's goroutine with a
// signal (see schedulerTurn in shim/ghost.go).
const WakeableMaxSleep = 8 * time.Millisecond

// When the cores are oversubscribed (more tasks runnable than cores) every
// poll a ghost spins is taken from a rank that computes, or from a user
// that shares its core and must run before it can issue the operation the
// ghost waits for. Then the adaptive policy spins only a few polls, for an
// operation already on its way, and polls with a yield in between for a
// while: a yield hands the core to a runnable process that shares it, and
// returns at once when none does. A redirected communication phase (2
// users accumulating into both ranks in a loop through 1 ghost on 2 cores)
// took 8-10 ms when the kernel left the ghost a core of its own and up to
// 250 ms when the ghost spun 64 polls after each round trip on a user's
// core, keeping that user from issuing its next operation; with yields it
// usually takes 35-45 ms wherever the ghost runs
// (bench/results/2026-11-26-ghost-yield-polls.md). Then the ghost sleeps
// on the doorbell: local origins wake it, and the ceiling still bounds the
// latency of origins on other nodes. The caller reports
// the load with SetOversubscribed whenever it has read it.
//
// The sleeps then back off from OversubscribedFirstSleep to the ceiling
// rather than start there: right after a piece of work the next one is
// likely (the next step of the same lock epoch), and an origin on another
// node cannot ring the doorbell (traffic from it ends only dozes of
// RemoteWakeSleep or longer, below), so a ghost that slept the full ceiling at
// once made every round trip of such an epoch wait for it (ACC under
// lock/unlock to a computing target on another fake node: 2.3-2.7 ms, three
// round trips). The back-off costs three wakes more per burst of work
// (about 40 us of CPU each on the 2-core VM).
const (
	OversubscribedSpinPolls  = 4
	OversubscribedYieldPolls = 32
	OversubscribedFirstSleep = 125 * time.Microsecond
)

// A doze can end on traffic from another node as well as on a local
// origin's doorbell, where MPI lets the ghost know of that traffic (MPICH
// over UCX: c/ucxwake.c). Each such wake costs the woken ghost and the
// thread that watches UCX for it a switch onto a core, and on shared cores
// the task they preempt is a rank. While traffic is dense the back-off
// keeps the ghost's dozes short, so the next timed wake is never far and
// serves whatever arrived meanwhile at once; waking at every packet instead
// made NWChem's ethanol SCF on 2 fake nodes with 2 cores take 3.3 s instead
// of 2.9 under GHOST_ASYNC=on. So an oversubscribed ghost asks to be woken
// by remote traffic only for dozes of RemoteWakeSleep or longer, those in
// which an origin would otherwise wait the longest: a lock epoch to a
// computing target on another fake node through a sleeping ghost took
// medians of 0.6-5.0 ms (most near 4), and 0.15-0.46 ms with wakes
// (bench/results/2026-11-27-ucx-wakeups.md). On cores of its own the ghost
// takes no rank's turn, and asks at every doze.
const RemoteWakeSleep = 500 * time.Microsecond

// WakeOnRemote says whether the doze of a (for a Sleep action) should end
// when traffic from another node arrives.
func (p *Policy) WakeOnRemote(sleep time.Duration) bool {
	return !p.oversubscribed || sleep >= RemoteWakeSleep
}

// Policy tracks idleness since the last piece of work.
type Policy struct {
	mode           config.WaitMode
	oversubscribed bool
	wakeable       bool
	idle           int           // polls without work
	sleep          time.Duration // current back-off
}

// New returns a policy for mode that takes the cores for shared until
// SetOversubscribed says otherwise. A ghost reads the load when an origin
// wakes it, so it starts without a reading, and the two mistakes do not
// cost the same: on cores of its own, a ghost that dozes early wakes at its
// first operation and then reads the load; on shared cores, one that spins
// the full budget after each piece of work takes it from the ranks. The
// passive multiphase program's first computation phase under U, on 2 fake
// nodes, took a median of 72.4 ms when its ghosts started with the full
// budgets and 68.7 when they started as on shared cores (12 rounds each,
// bench/results/2026-11-28-wakeable-doze.md).
func New(mode config.WaitMode) *Policy { return &Policy{mode: mode, oversubscribed: true} }

// SetOversubscribed records whether more tasks than cores are runnable; it
// shapes the idle periods that follow.
func (p *Policy) SetOversubscribed(over bool) { p.oversubscribed = over }

// SetWakeable records whether every origin can end this ghost's dozes, which
// lets them grow to WakeableMaxSleep instead of MaxSleep.
func (p *Policy) SetWakeable(wakeable bool) { p.wakeable = wakeable }

// ceiling is the longest doze of the back-off.
func (p *Policy) ceiling() time.Duration {
	if p.wakeable {
		return WakeableMaxSleep
	}
	return MaxSleep
}

func (p *Policy) budgets() (spin, yield int) {
	if p.oversubscribed {
		return OversubscribedSpinPolls, OversubscribedYieldPolls
	}
	return SpinPolls, YieldPolls
}

// Worked records that the last poll found work.
func (p *Policy) Worked() {
	p.idle = 0
	p.sleep = 0
}

// Idle records a poll that found nothing and returns what to do next.
func (p *Policy) Idle() Action {
	p.idle++
	switch p.mode {
	case config.WaitSpin:
		return Action{Kind: Spin}
	case config.WaitYield:
		return Action{Kind: Yield}
	}
	spin, yield := p.budgets()
	switch {
	case p.idle <= spin:
		return Action{Kind: Spin}
	case p.idle <= spin+yield:
		return Action{Kind: Yield}
	}
	switch {
	case p.sleep != 0:
		p.sleep = min(2*p.sleep, p.ceiling())
	case p.oversubscribed:
		p.sleep = OversubscribedFirstSleep
	default:
		p.sleep = MinSleep
	}
	return Action{Kind: Sleep, Sleep: p.sleep}
}
