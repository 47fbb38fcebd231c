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

// Each row is a sequence of intervals (CR in percent) and the vote after
// each one.
func TestPredictorHysteresis(t *testing.T) {
	limits := Thresholds{Low: 0.3, High: 0.6}
	tests := []struct {
		name  string
		crs   []uint64
		votes []bool
	}{
		{"starts on and stays on while computing", []uint64{5, 10, 29}, []bool{true, true, true}},
		{"goes off above high", []uint64{61}, []bool{false}},
		{"holds off in the band", []uint64{90, 50, 31, 59}, []bool{false, false, false, false}},
		{"comes back on below low", []uint64{90, 50, 29}, []bool{false, false, true}},
		{"holds on in the band", []uint64{10, 59, 31}, []bool{true, true, true}},
		{"boundaries are exclusive", []uint64{60, 30, 90, 30}, []bool{true, true, false, false}},
		{"flapping phases follow the thresholds", []uint64{95, 5, 95, 5}, []bool{false, true, false, true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := NewPredictor(limits)
			for i, cr := range tt.crs {
				if got := p.Observe(cr, 100); got != tt.votes[i] {
					t.Fatalf("interval %d (CR %d%%): vote %v, want %v", i, cr, got, tt.votes[i])
				}
			}
		})
	}
}

func TestPredictorEmptyInterval(t *testing.T) {
	p := NewPredictor(Thresholds{0.3, 0.6})
	p.Observe(90, 100)
	if p.Observe(0, 0) {
		t.Fatal("an empty interval changed the vote")
	}
	if cr := p.LastCR(); cr != 0.9 {
		t.Fatalf("LastCR = %g", cr)
	}
}

func TestAgree(t *testing.T) {
	band := Thresholds{Low: 0.3, High: 0.6}
	tests := []struct {
		name   string
		on, n  int
		meanCR float64
		want   bool
	}{
		{"majority on", 3, 4, 0.9, true},
		{"majority off", 1, 4, 0.1, false},
		{"tie, low mean CR: out-of-step computation", 2, 4, 0.35, true},
		{"tie, high mean CR: a communication phase begins", 1, 2, 0.61, false},
		{"tie at the middle goes off", 1, 2, 0.45, false},
		{"one rank off", 0, 1, 0.0, false},
		{"one rank on", 1, 1, 1.0, true},
		{"odd count", 2, 3, 0.9, true},
		{"no ranks", 0, 0, 0, true},
	}
	for _, tt := range tests {
		if got := Agree(tt.on, tt.n, tt.meanCR, band); got != tt.want {
			t.Errorf("%s: Agree(%d, %d, %g) = %v, want %v", tt.name, tt.on, tt.n, tt.meanCR, got, tt.want)
		}
	}
}
