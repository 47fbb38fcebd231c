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
				t.Fatalf("Observe(%+v) = %v, want %v (per op: %v)", tt.iv, got, tt.want, p.perOp)
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

func TestAgree(t *testing.T) {
	tests := []struct {
		name  string
		on, n int
		want  bool
	}{
		{"majority on", 3, 4, true},
		{"majority off", 1, 4, false},
		{"tie goes off", 2, 4, false},
		{"tie of two goes off", 1, 2, false},
		{"one rank off", 0, 1, false},
		{"one rank on", 1, 1, true},
		{"odd count", 2, 3, true},
		{"no ranks", 0, 0, true},
	}
	for _, tt := range tests {
		if got := Agree(tt.on, tt.n); got != tt.want {
			t.Errorf("%s: Agree(%d, %d) = %v, want %v", tt.name, tt.on, tt.n, got, tt.want)
		}
	}
}
