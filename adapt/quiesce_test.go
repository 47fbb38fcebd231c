package adapt

import (
	"testing"
	"time"
)

func TestQuiescence(t *testing.T) {
	tests := []struct {
		predict time.Duration
		want    QuiescePolicy
	}{
		{time.Second, QuiescePolicy{Evidence: 50 * time.Millisecond, Glimpse: 12500 * time.Microsecond, Early: 3125 * time.Microsecond, Deadline: 20 * time.Millisecond,
			BackoffMax: time.Second, StallShare: 0.1}},
		{10 * time.Second, QuiescePolicy{Evidence: 500 * time.Millisecond, Glimpse: 125 * time.Millisecond, Early: 31250 * time.Microsecond, Deadline: 20 * time.Millisecond,
			BackoffMax: 10 * time.Second, StallShare: 0.1}},
		// Short intervals (tests use 50 ms) keep the evidence above the
		// deadline: an attempt never costs more than what called for it.
		{50 * time.Millisecond, QuiescePolicy{Evidence: 40 * time.Millisecond, Glimpse: 10 * time.Millisecond, Early: 2500 * time.Microsecond, Deadline: 20 * time.Millisecond,
			BackoffMax: 50 * time.Millisecond, StallShare: 0.1}},
		{time.Millisecond, QuiescePolicy{Evidence: 40 * time.Millisecond, Glimpse: 10 * time.Millisecond, Early: 2500 * time.Microsecond, Deadline: 20 * time.Millisecond,
			BackoffMax: 40 * time.Millisecond, StallShare: 0.1}},
	}
	for _, tt := range tests {
		if got := Quiescence(tt.predict); got != tt.want {
			t.Errorf("Quiescence(%v) = %+v, want %+v", tt.predict, got, tt.want)
		}
	}
}
