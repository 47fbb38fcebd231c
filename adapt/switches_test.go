package adapt

import (
	"testing"
	"time"

	"github.com/ghost-mpi/ghost/internal/config"
)

func TestSwitchesFor(t *testing.T) {
	auto := config.Config{Async: config.AsyncAuto, GSyncInterval: 2 * time.Second}
	tests := []struct {
		name           string
		cfg            config.Config
		threadMultiple bool
		want           Switches
	}{
		{"on: nothing", config.Config{Async: config.AsyncOn}, false, Switches{}},
		{"off: nothing", config.Config{Async: config.AsyncOff}, false, Switches{}},
		{"GHOST_PROFILE: timers only", config.Config{Async: config.AsyncOn, Profile: true}, false, Switches{Timers: true}},
		{"GHOST_TRACE: intervals", config.Config{Async: config.AsyncOn, Trace: "t.jsonl"}, false,
			Switches{Timers: true, Intervals: true}},
		{"auto", auto, false, Switches{Timers: true, Intervals: true, Auto: true, ImplicitPoints: true, GP: true, Quiesce: true}},
		{"auto, thread multiple: no implicit points, no quiescence", auto, true,
			Switches{Timers: true, Intervals: true, Auto: true, GP: true}},
		{"auto, GHOST_GSYNC_INT=0: no GP", config.Config{Async: config.AsyncAuto}, false,
			Switches{Timers: true, Intervals: true, Auto: true, ImplicitPoints: true, Quiesce: true}},
		{"auto, GHOST_QUIESCE=off", config.Config{Async: config.AsyncAuto, QuiesceOff: true}, false,
			Switches{Timers: true, Intervals: true, Auto: true, ImplicitPoints: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := SwitchesFor(tt.cfg, tt.threadMultiple); got != tt.want {
				t.Errorf("SwitchesFor = %+v, want %+v", got, tt.want)
			}
		})
	}
}
