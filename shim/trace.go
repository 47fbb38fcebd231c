package main

// #include "win.h"
// #include "counters.h"
import "C"

import (
	"fmt"
	"time"
	"unsafe"

	"github.com/ghost-mpi/ghost/profile"
)

// profile.Points follows counters.h's GHOST_POINT_*: a length that differs
// does not compile.
const (
	_ = uint(len(profile.Points) - C.GHOST_NPOINTS)
	_ = uint(C.GHOST_NPOINTS - len(profile.Points))
)

// maxTracedWindows bounds the windows listed per record; Ghost supports a
// few hundred redirected windows at once.
const maxTracedWindows = 1024

// trace records this rank's intervals to GHOST_TRACE; nil records nothing.
var trace *profile.Recorder

// createTrace truncates the trace file before any rank writes to it.
func createTrace(path string) error {
	if err := profile.Create(path); err != nil {
		return fmt.Errorf("GHOST_TRACE=%q: cannot create the trace file: %v", path, err)
	}
	return nil
}

// openTrace starts this user rank's trace; tscHz converts the timers'
// ticks to seconds.
func openTrace(path string, userRank int, tscHz float64) {
	w, err := profile.Append(path)
	if err != nil {
		self.log.errorf("GHOST_TRACE=%q: %v; this rank records no trace", path, err)
		return
	}
	trace = profile.NewRecorder(w, userRank, tscHz, windowStates, time.Now)
	C.ghost_trace_switches = 1
}

// ghostSwitched is called by the C data plane at every change of a
// window's agreed state (agreement points only, never per operation): the
// switch goes into the next record.
//
//export ghostSwitched
func ghostSwitched(window C.int64_t, on, point C.int) {
	trace.Switched(int64(window), on != 0, int(point))
}

// recordInterval writes one interval to the trace, if there is one.
func recordInterval(t profile.Ticks, cr float64, ballot int) {
	if err := trace.Record(t, cr, ballot); err != nil {
		self.log.errorf("GHOST_TRACE: %v; this rank stops recording", err)
	}
}

// closeTrace ends the last, partial interval and closes the file.
func closeTrace() {
	if trace == nil {
		return
	}
	C.ghost_trace_switches = 0
	C.ghost_prof_flush()
	trace.Close()
}

// windowStates lists the windows alive in this process.
func windowStates() []profile.WindowState {
	ids := make([]C.int64_t, maxTracedWindows)
	states := make([]C.int, maxTracedWindows)
	n := int(C.ghost_win_states((*C.int64_t)(unsafe.Pointer(&ids[0])), (*C.int)(unsafe.Pointer(&states[0])), maxTracedWindows))
	out := make([]profile.WindowState, n)
	for i := range out {
		var s profile.State
		switch states[i] {
		case C.GHOST_STATE_PLAIN:
			s = profile.StatePlain
		case C.GHOST_STATE_LOCAL:
			s = profile.StateLocal
		default:
			s = profile.StateOf(states[i] != 0)
		}
		out[i] = profile.WindowState{ID: int64(ids[i]), State: s}
	}
	return out
}
