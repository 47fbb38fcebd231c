package wait

import (
	"testing"
	"time"
)

func TestSleepFor(t *testing.T) {
	a := Action{Kind: Sleep, Sleep: 8 * time.Microsecond}
	if got := SleepFor(a, true); got != a.Sleep {
		t.Errorf("serving: SleepFor = %v, want %v", got, a.Sleep)
	}
	if got := SleepFor(a, false); got != UnneededSleep {
		t.Errorf("not serving: SleepFor = %v, want %v", got, UnneededSleep)
	}
}

func TestLoadWatch(t *testing.T) {
	t0 := time.Unix(1000, 0)
	// Each step: the clock, what /proc/loadavg says, what the watch answers,
	// and whether it read the load.
	steps := []struct {
		at       time.Duration
		runnable int
		over, ok bool
		read     bool
	}{
		{0, 2, false, true, true},                       // 2 runnable on 2 cores
		{100 * time.Microsecond, 5, false, true, false}, // too soon: the last verdict
		{LoadInterval, 3, true, true, true},             // read again: 3 > 2
		{LoadInterval + time.Microsecond, 1, true, true, false},
		{3 * LoadInterval, -1, false, false, true},                // unreadable
		{3*LoadInterval + time.Microsecond, 1, false, true, true}, // unknown is not cached
	}
	var now time.Time
	var runnable, reads int
	w := NewLoadWatch(2, func() int { reads++; return runnable }, func() time.Time { return now })
	for i, s := range steps {
		now, runnable = t0.Add(s.at), s.runnable
		before := reads
		over, ok := w.Oversubscribed()
		if over != s.over || ok != s.ok || (reads > before) != s.read {
			t.Errorf("step %d: (over, ok, read) = (%v, %v, %v), want (%v, %v, %v)",
				i, over, ok, reads > before, s.over, s.ok, s.read)
		}
	}
}
