package main

// #include "win.h"
// #include "counters.h"
import "C"

import (
	"fmt"
	"sync"
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

// tracer appends this rank's interval records to GHOST_TRACE.
type tracer struct {
	mu       sync.Mutex
	w        *profile.Writer
	rank     int
	tscHz    float64
	lastOps  opCounts
	disabled bool
	switches []profile.Switch // since the last record
}

// opCounts are this process's RMA operations so far, by path.
type opCounts struct{ ghost, direct uint64 }

var trace *tracer

// readOpCounts sums this process's operation counters over the op types.
func readOpCounts() opCounts {
	var c C.ghost_counters_t
	C.ghost_counters_sum_self(&c)
	var n opCounts
	for op := 0; op < C.GHOST_NOPS; op++ {
		n.ghost += uint64(c.ops[op][C.GHOST_PATH_GHOST])
		n.direct += uint64(c.ops[op][C.GHOST_PATH_DIRECT])
	}
	return n
}

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
	trace = &tracer{w: w, rank: userRank, tscHz: tscHz, lastOps: readOpCounts()}
	C.ghost_trace_switches = 1
}

// ghostSwitched is called by the C data plane at every change of a
// window's agreed state (agreement points only, never per operation): the
// switch goes into the next record.
//
//export ghostSwitched
func ghostSwitched(window C.int64_t, on, point C.int) {
	trace.switched(profile.Switch{Time: float64(time.Now().UnixNano()) / 1e9, Window: int64(window),
		To: stateOf(on != 0), Point: profile.Points[point]})
}

func (t *tracer) switched(s profile.Switch) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.switches = append(t.switches, s)
}

// record writes one interval: its MPI, total and barrier-wait ticks (the
// wait is part of both), and the CR and vote the predictor made from them.
func (t *tracer) record(mpiTicks, totalTicks, waitTicks uint64, cr float64, vote bool) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.disabled {
		return
	}
	ops := readOpCounts()
	rec := profile.Record{
		Time:      float64(time.Now().UnixNano()) / 1e9,
		Rank:      t.rank,
		Interval:  float64(totalTicks) / t.tscHz,
		MPI:       float64(mpiTicks) / t.tscHz,
		Wait:      float64(waitTicks) / t.tscHz,
		CR:        cr,
		Vote:      stateOf(vote),
		Windows:   windowStates(),
		OpsGhost:  ops.ghost - t.lastOps.ghost,
		OpsDirect: ops.direct - t.lastOps.direct,
		Switches:  t.switches,
	}
	t.lastOps = ops
	t.switches = nil
	if err := t.w.Write(rec); err != nil {
		self.log.errorf("GHOST_TRACE: %v; this rank stops recording", err)
		t.disabled = true
	}
}

// close ends the last, partial interval and closes the file.
func (t *tracer) close() {
	if t == nil {
		return
	}
	C.ghost_trace_switches = 0
	C.ghost_prof_flush()
	t.mu.Lock()
	defer t.mu.Unlock()
	t.w.Close()
	t.disabled = true
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
			s = stateOf(states[i] != 0)
		}
		out[i] = profile.WindowState{ID: int64(ids[i]), State: s}
	}
	return out
}

func stateOf(on bool) profile.State {
	if on {
		return profile.StateOn
	}
	return profile.StateOff
}
