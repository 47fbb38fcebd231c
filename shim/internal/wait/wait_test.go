package wait

import (
	"testing"
	"time"

	"github.com/ghost-mpi/ghost/internal/config"
)

// actions runs n idle polls and returns the last action of each kind seen
// and the count per kind.
func count(p *Policy, n int) (map[Kind]int, Action) {
	seen := map[Kind]int{}
	var last Action
	for i := 0; i < n; i++ {
		last = p.Idle()
		seen[last.Kind]++
	}
	return seen, last
}

func TestPolicy(t *testing.T) {
	tests := []struct {
		name      string
		mode      config.WaitMode
		over      bool // oversubscribed node
		polls     int
		wantKinds map[Kind]int
		wantLast  Action
	}{
		{"spin never rests", config.WaitSpin, false, 10000, map[Kind]int{Spin: 10000}, Action{Kind: Spin}},
		{"yield always yields", config.WaitYield, false, 10, map[Kind]int{Yield: 10}, Action{Kind: Yield}},
		{"adaptive spins first", config.WaitAdaptive, false, SpinPolls, map[Kind]int{Spin: SpinPolls}, Action{Kind: Spin}},
		{"adaptive then yields", config.WaitAdaptive, false, SpinPolls + YieldPolls,
			map[Kind]int{Spin: SpinPolls, Yield: YieldPolls}, Action{Kind: Yield}},
		{"adaptive then sleeps", config.WaitAdaptive, false, SpinPolls + YieldPolls + 1,
			map[Kind]int{Spin: SpinPolls, Yield: YieldPolls, Sleep: 1}, Action{Kind: Sleep, Sleep: MinSleep}},
		{"back-off doubles", config.WaitAdaptive, false, SpinPolls + YieldPolls + 3,
			map[Kind]int{Spin: SpinPolls, Yield: YieldPolls, Sleep: 3}, Action{Kind: Sleep, Sleep: 4 * MinSleep}},
		{"back-off is capped", config.WaitAdaptive, false, SpinPolls + YieldPolls + 100,
			map[Kind]int{Spin: SpinPolls, Yield: YieldPolls, Sleep: 100}, Action{Kind: Sleep, Sleep: MaxSleep}},
		{"spin ignores oversubscription", config.WaitSpin, true, 10000, map[Kind]int{Spin: 10000}, Action{Kind: Spin}},
		{"oversubscribed: short spin", config.WaitAdaptive, true, OversubscribedSpinPolls,
			map[Kind]int{Spin: OversubscribedSpinPolls}, Action{Kind: Spin}},
		{"oversubscribed: then polls with yields", config.WaitAdaptive, true, OversubscribedSpinPolls + OversubscribedYieldPolls,
			map[Kind]int{Spin: OversubscribedSpinPolls, Yield: OversubscribedYieldPolls}, Action{Kind: Yield}},
		{"oversubscribed: then sleeps, short at first", config.WaitAdaptive, true, OversubscribedSpinPolls + OversubscribedYieldPolls + 1,
			map[Kind]int{Spin: OversubscribedSpinPolls, Yield: OversubscribedYieldPolls, Sleep: 1}, Action{Kind: Sleep, Sleep: OversubscribedFirstSleep}},
		{"oversubscribed: soon at the ceiling", config.WaitAdaptive, true, OversubscribedSpinPolls + OversubscribedYieldPolls + 4,
			map[Kind]int{Spin: OversubscribedSpinPolls, Yield: OversubscribedYieldPolls, Sleep: 4}, Action{Kind: Sleep, Sleep: MaxSleep}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := New(tt.mode)
			p.SetOversubscribed(tt.over)
			kinds, last := count(p, tt.polls)
			for k, n := range tt.wantKinds {
				if kinds[k] != n {
					t.Errorf("kind %d seen %d times, want %d", k, kinds[k], n)
				}
			}
			if last != tt.wantLast {
				t.Errorf("last = %+v, want %+v", last, tt.wantLast)
			}
		})
	}
}

func TestWorkedResets(t *testing.T) {
	p := New(config.WaitAdaptive)
	p.SetOversubscribed(false)
	count(p, SpinPolls+YieldPolls+50)
	p.Worked()
	if a := p.Idle(); a.Kind != Spin {
		t.Fatalf("after work, action = %+v, want spin", a)
	}
	count(p, SpinPolls+YieldPolls-1)
	if a := p.Idle(); a != (Action{Kind: Sleep, Sleep: MinSleep}) {
		t.Fatalf("back-off did not restart: %+v", a)
	}
}

func TestMaxSleepBoundsIdleCost(t *testing.T) {
	// The ceiling is the latency a request can add when it finds the ghost
	// asleep; keep it well under the ~180 ms plain MPICH needs.
	if MaxSleep > 2*time.Millisecond {
		t.Fatalf("MaxSleep = %v is too long", MaxSleep)
	}
	// A ghost every origin wakes dozes longer, but not so long that Go's
	// runtime preempts the loop's goroutine with a signal (after 10 ms).
	if WakeableMaxSleep <= MaxSleep || WakeableMaxSleep >= 10*time.Millisecond {
		t.Fatalf("WakeableMaxSleep = %v, want between MaxSleep and 10 ms", WakeableMaxSleep)
	}
}

// Until a reading of the load says otherwise, a ghost takes the cores for
// shared: it spins only the short budget.
func TestStartsAsOnSharedCores(t *testing.T) {
	p := New(config.WaitAdaptive)
	kinds, last := count(p, OversubscribedSpinPolls+OversubscribedYieldPolls+1)
	if kinds[Spin] != OversubscribedSpinPolls || kinds[Yield] != OversubscribedYieldPolls ||
		last != (Action{Kind: Sleep, Sleep: OversubscribedFirstSleep}) {
		t.Fatalf("a new policy: %v then %+v, want the budgets of shared cores", kinds, last)
	}
}

// The back-off's ceiling: MaxSleep, or WakeableMaxSleep for a ghost that
// every origin can wake, on either kind of cores.
func TestWakeableCeiling(t *testing.T) {
	tests := []struct {
		name           string
		over, wakeable bool
		want           time.Duration
	}{
		{"own cores", false, false, MaxSleep},
		{"shared cores", true, false, MaxSleep},
		{"own cores, wakeable", false, true, WakeableMaxSleep},
		{"shared cores, wakeable", true, true, WakeableMaxSleep},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := New(config.WaitAdaptive)
			p.SetOversubscribed(tt.over)
			p.SetWakeable(tt.wakeable)
			_, last := count(p, SpinPolls+YieldPolls+100)
			if last != (Action{Kind: Sleep, Sleep: tt.want}) {
				t.Fatalf("after a long idle stretch: %+v, want a doze of %v", last, tt.want)
			}
			if !p.WakeOnRemote(last.Sleep) {
				t.Fatalf("a doze at the ceiling (%v) does not end on traffic from another node", last.Sleep)
			}
		})
	}
}

func TestOversubscriptionFollowsTheLoad(t *testing.T) {
	p := New(config.WaitAdaptive)
	p.SetOversubscribed(true)
	count(p, OversubscribedSpinPolls+OversubscribedYieldPolls)
	if a := p.Idle(); a != (Action{Kind: Sleep, Sleep: OversubscribedFirstSleep}) {
		t.Fatalf("oversubscribed: after the short spin and the yields, %+v, want a short sleep", a)
	}
	p.Worked()
	p.SetOversubscribed(false)
	kinds, _ := count(p, SpinPolls+YieldPolls)
	if kinds[Spin] != SpinPolls || kinds[Yield] != YieldPolls {
		t.Fatalf("load gone: %v, want the full spin and yield budgets", kinds)
	}
}

func TestWakeOnRemote(t *testing.T) {
	tests := []struct {
		name  string
		over  bool
		sleep time.Duration
		want  bool
	}{
		{"own cores, shortest doze", false, MinSleep, true},
		{"own cores, ceiling", false, MaxSleep, true},
		{"shared cores, first doze", true, OversubscribedFirstSleep, false},
		{"shared cores, just under", true, RemoteWakeSleep - time.Microsecond, false},
		{"shared cores, at the threshold", true, RemoteWakeSleep, true},
		{"shared cores, ceiling", true, MaxSleep, true},
	}
	for _, tt := range tests {
		p := New(config.WaitAdaptive)
		p.SetOversubscribed(tt.over)
		if got := p.WakeOnRemote(tt.sleep); got != tt.want {
			t.Errorf("%s: WakeOnRemote(%v) = %v, want %v", tt.name, tt.sleep, got, tt.want)
		}
	}
}

// The back-off reaches the threshold on shared cores: a ghost that stays
// idle ends up in dozes that traffic from another node can end.
func TestOversubscribedBackOffReachesRemoteWakes(t *testing.T) {
	p := New(config.WaitAdaptive)
	p.SetOversubscribed(true)
	for i := 0; i < OversubscribedSpinPolls+OversubscribedYieldPolls+10; i++ {
		if a := p.Idle(); a.Kind == Sleep && p.WakeOnRemote(a.Sleep) {
			return
		}
	}
	t.Fatalf("no doze of %v or more within 10 dozes", RemoteWakeSleep)
}
