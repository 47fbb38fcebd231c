package wait

import "time"

// UnneededSleep is how long a ghost that serves no window sleeps between
// looks at its channels: it bounds what a ghost costs where none is needed
// (about 40 us of CPU per wake here) and how late a lost wake-up is seen.
const UnneededSleep = 20 * time.Millisecond

// SleepFor is how long a ghost sleeps for a Sleep action. serving says
// whether any work can reach it other than a command (a window through
// this ghost, the GP exchange, the pooled window); when none can, only a
// command brings work, and commands ring the doorbell.
func SleepFor(a Action, serving bool) time.Duration {
	if !serving {
		return UnneededSleep
	}
	return a.Sleep
}

// LoadInterval is how often LoadWatch reads the machine's load at most.
const LoadInterval = time.Millisecond

// LoadWatch says, from a reading at most LoadInterval old, whether more
// tasks are runnable on this machine than this process has cores. A
// computing rank is runnable; a rank asleep, or blocked outside the CPU,
// is not. The ghost itself is counted, since it runs when it asks.
type LoadWatch struct {
	cores    int
	runnable func() int // tasks runnable now, the caller included; < 0: unknown
	now      func() time.Time
	last     time.Time
	over     bool
}

// NewLoadWatch reads runnable against cores (runtime.NumCPU counts the
// affinity mask), with now as its clock.
func NewLoadWatch(cores int, runnable func() int, now func() time.Time) *LoadWatch {
	return &LoadWatch{cores: cores, runnable: runnable, now: now}
}

// Oversubscribed returns the load's verdict; ok is false when the load
// cannot be read.
func (l *LoadWatch) Oversubscribed() (over, ok bool) {
	now := l.now()
	if !l.last.IsZero() && now.Sub(l.last) < LoadInterval {
		return l.over, true
	}
	running := l.runnable()
	if running < 0 {
		return false, false
	}
	l.last, l.over = now, running > l.cores
	return l.over, true
}
