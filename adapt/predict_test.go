package adapt

import (
	"strings"
	"testing"
)

func TestThresholdsValidate(t *testing.T) {
	tests := []struct {
		t   Thresholds
		err string
	}{
		{Thresholds{0.3, 0.6}, ""},
		{Thresholds{0, 1}, ""},
		{Thresholds{0.6, 0.6}, "low < high"},
		{Thresholds{0.7, 0.6}, "low < high"},
		{Thresholds{-0.1, 0.6}, "0 <= low"},
		{Thresholds{0.3, 1.1}, "high <= 1"},
	}
	for _, tt := range tests {
		err := tt.t.Validate()
		if tt.err == "" && err != nil || tt.err != "" && (err == nil || !strings.Contains(err.Error(), "0 <= low < high <= 1")) {
			t.Errorf("Validate(%+v) = %v, want %q", tt.t, err, tt.err)
		}
	}
}

// Each row is a sequence of intervals (CR in percent) without operations
// or through the ghosts, and the vote after each one: the paper's rule.
func TestPredictorHysteresis(t *testing.T) {
	limits := Thresholds{Low: 0.3, High: 0.6}
	tests := []struct {
		name  string
		crs   []uint64
		votes []bool
	}{
		{"starts off and stays off in the band", []uint64{59, 31}, []bool{false, false}},
		{"comes on below low and stays on while computing", []uint64{5, 10, 29}, []bool{true, true, true}},
		{"goes off above high", []uint64{5, 61}, []bool{true, false}},
		{"holds off in the band", []uint64{90, 50, 31, 59}, []bool{false, false, false, false}},
		{"comes back on below low", []uint64{90, 50, 29}, []bool{false, false, true}},
		{"holds on in the band", []uint64{10, 59, 31}, []bool{true, true, true}},
		{"boundaries are exclusive", []uint64{10, 60, 30, 90, 30}, []bool{true, true, true, false, false}},
		{"flapping phases follow the thresholds", []uint64{95, 5, 95, 5}, []bool{false, true, false, true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := NewPredictor(limits)
			if p.Vote() {
				t.Fatal("a new predictor votes on")
			}
			for i, cr := range tt.crs {
				iv := Interval{Comm: cr, Span: 100, Redirected: uint64(i % 2 * 50)}
				if got := p.Observe(iv); got != tt.votes[i] {
					t.Fatalf("interval %d (CR %d%%): vote %v, want %v", i, cr, got, tt.votes[i])
				}
			}
		})
	}
}

// Intervals whose operations went straight to their targets measured the
// direct path: only stalls, on cores that were not oversubscribed, speak
// for redirection.
func TestPredictorDirectIntervals(t *testing.T) {
	limits := Thresholds{Low: 0.3, High: 0.6}
	on := Interval{Comm: 5, Span: 100}
	tests := []struct {
		name string
		iv   Interval
		want bool
	}{
		{"computing, completions prompt: off", Interval{Comm: 10, Span: 100, Direct: 4000}, false},
		{"in the band, completions prompt: off", Interval{Comm: 45, Span: 100, Direct: 4000}, false},
		{"stalls below the floor: off", Interval{Comm: 10, Span: 1000, Stall: 49, Direct: 4000}, false},
		{"stalls at the floor, low CR: on", Interval{Comm: 10, Span: 1000, Stall: 50, Direct: 4000}, true},
		{"stalls, CR in the band: the last vote, which the first stalled interval cast off", Interval{Comm: 45, Span: 100, Stall: 30, Direct: 10}, false},
		{"stalls, CR above high: off", Interval{Comm: 70, Span: 100, Stall: 20, Direct: 10}, false},
		{"stalls while oversubscribed prove nothing: off", Interval{Comm: 10, Span: 100, Stall: 30, Over: true, Direct: 10}, false},
		{"mostly redirected: the paper's rule", Interval{Comm: 10, Span: 100, Direct: 50, Redirected: 50}, true},
		{"computed, a few operations left over: the paper's rule", Interval{Comm: 1, Span: 100, Direct: 2}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := NewPredictor(limits)
			p.Observe(on)
			p.Observe(tt.iv) // before redirection is measured, it takes two in a row
			if got := p.Observe(tt.iv); got != tt.want {
				t.Fatalf("Observe(%+v) twice after an on vote = %v, want %v", tt.iv, got, tt.want)
			}
		})
	}
}

// Direct reports what the direct intervals taught: the communication time
// per operation of the latest (half old, half new), and the share of
// their spans that the stalls took, blended the same way; redirected
// intervals teach it nothing.
func TestPredictorDirect(t *testing.T) {
	limits := Thresholds{Low: 0.3, High: 0.6}
	tests := []struct {
		name             string
		ivs              []Interval
		perOp, stallSpan float64
	}{
		{"nothing observed", nil, 0, 0},
		{"one direct interval", []Interval{{Comm: 40, Span: 100, Stall: 20, Direct: 10}}, 4, 0.1},
		{"two, blended", []Interval{{Comm: 40, Span: 100, Stall: 20, Direct: 10}, {Comm: 20, Span: 100, Direct: 10}}, 3, 0.05},
		{"oversubscribed stalls count as no share", []Interval{{Comm: 40, Span: 100, Stall: 20, Over: true, Direct: 10}}, 4, 0},
		{"redirected intervals leave it", []Interval{{Comm: 40, Span: 100, Stall: 20, Direct: 10}, {Comm: 90, Span: 100, Redirected: 10}}, 4, 0.1},
		{"priced by the RMA time, without the collectives", []Interval{{Comm: 90, RMA: 30, Span: 100, Direct: 10}}, 3, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := NewPredictor(limits)
			for _, iv := range tt.ivs {
				p.Observe(iv)
			}
			if perOp, share := p.Direct(); perOp != tt.perOp || share != tt.stallSpan {
				t.Fatalf("Direct() = %g, %g, want %g, %g", perOp, share, tt.perOp, tt.stallSpan)
			}
		})
	}
}

// Once redirection has shown its cost per operation, stalls must outweigh
// that cost over the interval's operations.
func TestPredictorWeighsStallsAgainstRedirection(t *testing.T) {
	limits := Thresholds{Low: 0.3, High: 0.6}
	tests := []struct {
		name    string
		history []Interval
		iv      Interval
		want    bool
	}{
		{"redirection not measured yet: one stalled interval is a moment",
			nil, Interval{Comm: 10, Span: 1000, Stall: 100, Direct: 1000}, false},
		{"redirection not measured yet: two in a row are a phase",
			[]Interval{{Comm: 10, Span: 1000, Stall: 100, Direct: 1000}},
			Interval{Comm: 10, Span: 1000, Stall: 100, Direct: 1000}, true},
		{"redirection not measured yet: stalls with a prompt interval between",
			[]Interval{{Comm: 10, Span: 1000, Stall: 100, Direct: 1000}, {Comm: 10, Span: 1000, Direct: 1000}},
			Interval{Comm: 10, Span: 1000, Stall: 100, Direct: 1000}, false},
		{"redirection 20 per op dearer, 1000 ops: 100 ticks of stalls do not pay",
			[]Interval{{Comm: 21000, Span: 100000, Redirected: 1000}, {Comm: 1000, Span: 100000, Direct: 1000}},
			Interval{Comm: 1000, Span: 1000, Stall: 100, Direct: 1000}, false},
		{"the same stalls over 4 ops pay",
			[]Interval{{Comm: 21000, Span: 100000, Redirected: 1000}, {Comm: 1000, Span: 100000, Direct: 1000}},
			Interval{Comm: 10, Span: 1000, Stall: 100, Direct: 4}, true},
		{"the estimate follows the latest phases",
			[]Interval{{Comm: 21000, Span: 100000, Redirected: 1000}, {Comm: 1000, Span: 100000, Redirected: 1000},
				{Comm: 1000, Span: 100000, Redirected: 1000}, {Comm: 1000, Span: 100000, Direct: 1000}},
			Interval{Comm: 100, Span: 1000, Stall: 100, Direct: 20}, true},
	}
	// On for a computing interval, then on for two whose direct operations
	// stalled for 30%: the direct path's stall share is 22.5%.
	stalledOn := []Interval{{Comm: 5, Span: 100}, {Comm: 1000, Span: 100000, Stall: 30000, Direct: 1000},
		{Comm: 1000, Span: 100000, Stall: 30000, Direct: 1000}}
	tests = append(tests, []struct {
		name    string
		history []Interval
		iv      Interval
		want    bool
	}{
		{"a redirected interval whose extra cost exceeds the stalls it spares votes off, CR in the band",
			stalledOn, Interval{Comm: 40000, Span: 100000, Redirected: 1000}, false},
		{"one whose extra cost is below the stalls stays on",
			stalledOn, Interval{Comm: 10000, Span: 100000, Redirected: 1000}, true},
		{"the estimate is capped by the interval's own communication",
			stalledOn, Interval{Comm: 1000, Span: 100000, Redirected: 1000}, true},
		{"an extra cost below the floor is noise",
			[]Interval{{Comm: 5, Span: 100}, {Comm: 1000, Span: 100000, Stall: 10000, Direct: 1000},
				{Comm: 1000, Span: 100000, Stall: 10000, Direct: 1000}},
			Interval{Comm: 5000, Span: 100000, Redirected: 1000}, true},
	}...)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := NewPredictor(limits)
			for _, iv := range tt.history {
				p.Observe(iv)
			}
			if got := p.Observe(tt.iv); got != tt.want {
				t.Fatalf("Observe(%+v) = %v, want %v (per op: %v)", tt.iv, got, tt.want, p.perOp())
			}
		})
	}
}

func TestPredictorEmptyInterval(t *testing.T) {
	p := NewPredictor(Thresholds{0.3, 0.6})
	p.Observe(Interval{Comm: 10, Span: 100})
	if !p.Observe(Interval{}) {
		t.Fatal("an empty interval changed the vote")
	}
	if cr := p.LastCR(); cr != 0.1 {
		t.Fatalf("LastCR = %g", cr)
	}
}

func TestPredictorPresume(t *testing.T) {
	p := NewPredictor(Thresholds{0.3, 0.6})
	floor := ballot(false, MinStallShare)
	if p.Vote() || p.Ballot() != floor {
		t.Fatalf("new predictor: vote %v, ballot %d, want off at the floor (%d)", p.Vote(), p.Ballot(), floor)
	}
	p.Presume(true)
	if !p.Vote() || p.Ballot() != -floor {
		t.Fatalf("presumed on: vote %v, ballot %d, want on at the floor (%d)", p.Vote(), p.Ballot(), -floor)
	}
	// The first interval decides from what it measured: a communication
	// phase votes off whatever was presumed.
	if p.Observe(Interval{Comm: 90, Span: 100, Redirected: 40}) {
		t.Fatal("a redirected interval with CR 0.9 kept the presumed vote")
	}
}

func TestAgree(t *testing.T) {
	tests := []struct {
		name    string
		ballots []int
		want    bool
	}{
		{"majority on at the floor", []int{50, 50, 50, -50}, true},
		{"majority off at the floor", []int{50, -50, -50, -50}, false},
		{"tie goes off", []int{50, 50, -50, -50}, false},
		{"tie of two goes off", []int{50, -50}, false},
		{"one rank off", []int{-50}, false},
		{"one rank on", []int{50}, true},
		{"a gain outweighs a smaller cost", []int{270, -90}, true},
		{"a cost outweighs a smaller gain", []int{90, -270}, false},
		{"one heavy cost outweighs a majority at the floor", []int{50, 50, -300}, false},
	}
	for _, tt := range tests {
		sum := 0
		for _, b := range tt.ballots {
			sum += b
		}
		if got := Agree(sum); got != tt.want {
			t.Errorf("%s: Agree(%v) = %v, want %v", tt.name, tt.ballots, got, tt.want)
		}
	}
}

func TestDecide(t *testing.T) {
	share, scale := MinStallShare, BallotScale
	if want := int(share*float64(scale) + 0.5); SwitchMargin != want {
		t.Fatalf("SwitchMargin = %d, want the noise floor MinStallShare in ballot units, %d", SwitchMargin, want)
	}
	tests := []struct {
		name    string
		ballots []int
		current bool
		want    bool
	}{
		{"on stays on at a tie", []int{50, -50}, true, true},
		{"off stays off at a tie", []int{50, -50}, false, false},
		{"a near tie keeps on", []int{175, -186}, true, true},
		{"a near tie keeps off", []int{186, -175}, false, false},
		{"off by the margin switches on", []int{100, -50}, false, true},
		{"on by the margin switches off", []int{50, -100}, true, false},
		{"one rank at the floor switches off", []int{-50}, true, false},
		{"one rank at the floor switches on", []int{50}, false, true},
		{"a gain well over a cost switches on", []int{296, -50}, false, true},
		{"a cost well over a gain switches off", []int{50, -662}, true, false},
		{"a majority at the floor switches on", []int{50, 50, 50, -50}, false, true},
	}
	for _, tt := range tests {
		sum := 0
		for _, b := range tt.ballots {
			sum += b
		}
		if got := Decide(sum, tt.current); got != tt.want {
			t.Errorf("%s: Decide(%v, %v) = %v, want %v", tt.name, tt.ballots, tt.current, got, tt.want)
		}
	}
}

// A ballot weighs what the vote has at stake, in thousandths of the
// interval that cast it: the floor (MinStallShare) where nothing was
// measured, what redirection gives back against what it costs otherwise.
func TestPredictorBallot(t *testing.T) {
	limits := Thresholds{Low: 0.3, High: 0.6}
	// On for a computing interval, then on for two whose direct
	// operations stalled for 30%: the stall share is 22.5%, and the
	// direct path costs 1 tick per operation.
	stalledOn := []Interval{{Comm: 5, Span: 100}, {Comm: 1000, Span: 100000, Stall: 30000, Direct: 1000},
		{Comm: 1000, Span: 100000, Stall: 30000, Direct: 1000}}
	tests := []struct {
		name    string
		history []Interval
		iv      Interval
		want    int
	}{
		{"a new predictor votes off at the floor", nil, Interval{}, -50},
		{"a computing target votes on at the floor", nil, Interval{Comm: 5, Span: 100}, 50},
		{"a prompt direct interval, redirection not measured: off at the floor",
			nil, Interval{Comm: 10, Span: 100, Direct: 4000}, -50},
		{"redirected, 10 per op against 1: 22.5% given back, 9% paid",
			stalledOn, Interval{Comm: 10000, Span: 100000, Redirected: 1000}, 135},
		{"redirected, 40 per op: 39% paid against 22.5% given back",
			stalledOn, Interval{Comm: 40000, Span: 100000, Redirected: 1000}, -165},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := NewPredictor(limits)
			for _, iv := range tt.history {
				p.Observe(iv)
			}
			if tt.iv.Span > 0 {
				p.Observe(tt.iv)
			}
			if got := p.Ballot(); got != tt.want {
				_, share := p.Direct()
				t.Fatalf("Ballot() = %d, want %d (per op %v, stall share %g)", got, tt.want, p.perOp(), share)
			}
		})
	}
}

// An estimate of redirection's cost from one bad interval must not keep a
// phase of stalls direct for good: each stalled interval that it keeps off
// halves the extra cost, until the stalls outweigh it and redirection is
// measured again.
// Stalls at the noise floor leave redirection's measured cost whole: they
// do not make the window retry redirection every few intervals.
func TestPredictorKeepsTheCostThroughMarginalStalls(t *testing.T) {
	p := NewPredictor(Thresholds{Low: 0.3, High: 0.6})
	p.Observe(Interval{Comm: 5, Span: 100})
	p.Observe(Interval{Comm: 45000, Span: 100000, Redirected: 3000})      // 15 per op through the ghost
	p.Observe(Interval{Comm: 3000, Span: 100000, Direct: 3000})           // 1 per op
	marginal := Interval{Comm: 200, Span: 10000, Stall: 600, Direct: 200} // 6%: stalled, below DoubtStallShare
	for i := 1; i <= 20; i++ {
		if p.Observe(marginal) {
			t.Fatalf("on after %d intervals whose stalls took 6%%, against a measured cost of 14 per op for 200 ops", i)
		}
	}
}

// A price that a step of operations measured is doubted only once the
// stalls it kept direct have lost what a retry would cost: NWChem's short
// intervals between syncs, stalled for a fifth of their time, must not
// retry redirection every few syncs.
func TestPredictorDoubtsAMeasuredCostByWhatTheStallsLost(t *testing.T) {
	p := NewPredictor(Thresholds{Low: 0.3, High: 0.6})
	p.Observe(Interval{Comm: 5, Span: 100})
	p.Observe(Interval{Comm: 7500, Span: 10000, Redirected: 500}) // 15 per op through the ghost
	p.Observe(Interval{Comm: 150, Span: 2000, Direct: 150})       // 1 per op
	stalled := Interval{Comm: 150, Span: 2000, Stall: 400, Direct: 150}
	// 14 extra per op, 2100 for the interval: halved after 6 stalled
	// intervals (2400 lost), after 3 more (1050), after 2 more (525); the
	// next one pays at 1.75 per op, 262 against its stall of 400.
	for i := 1; i <= 12; i++ {
		on := p.Observe(stalled)
		if on && i < 12 {
			t.Fatalf("on after %d stalled intervals: a measured cost was doubted too fast (per op %v)", i, p.perOp())
		}
		if on {
			return
		}
	}
	t.Fatalf("12 stalled intervals stayed off (per op %v)", p.perOp())
}

func TestPredictorDoubtsAStaleCost(t *testing.T) {
	p := NewPredictor(Thresholds{Low: 0.3, High: 0.6})
	p.Observe(Interval{Comm: 5, Span: 100})
	p.Observe(Interval{Comm: 45000, Span: 100000, Redirected: 3}) // the ghost was slow: 15000 per op
	p.Observe(Interval{Comm: 300, Span: 100000, Direct: 300})     // 1 per op
	stalled := Interval{Comm: 3, Span: 3000, Stall: 1000, Direct: 3}
	if p.Observe(stalled) {
		t.Fatal("the first stalled interval voted on against a cost of 45000 for its 3 operations")
	}
	for i := 2; i <= 10; i++ {
		if p.Observe(stalled) {
			if i < 5 {
				t.Fatalf("on after %d stalled intervals: the cost was doubted too fast", i)
			}
			return
		}
	}
	t.Fatalf("10 stalled intervals in a row stayed off (per op %v)", p.perOp())
}
