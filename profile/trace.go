// Package profile keeps the records of Ghost's self-profiling: one per
// prediction interval and process, written as JSON lines to the file named
// by GHOST_TRACE, and read back by `ghost report`. It records what was
// measured and decided; it decides nothing itself.
package profile

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"sync"
)

// State is a window's redirection state as the trace records it.
type State string

const (
	StateOn    State = "on"    // operations go through the ghosts
	StateOff   State = "off"   // operations go straight to the targets
	StatePlain State = "plain" // async_config=off at allocation: MPICH's own window
	StateLocal State = "local" // on one node: served in shared memory, nothing to switch
)

// WindowState is one window's agreed state at the end of an interval.
type WindowState struct {
	ID    int64 `json:"id"`
	State State `json:"state"`
}

// Point is where a window's agreed state changed.
type Point string

const (
	PointAllocation Point = "allocation" // the ranks' votes at MPI_Win_allocate
	PointFence      Point = "fence"      // MPI_Win_fence
	PointSetInfo    Point = "set_info"   // MPI_Win_set_info (async_config, or symmetric=true)
	PointImplicit   Point = "implicit"   // MPI_Barrier under GHOST_ASYNC=auto
	// PointQuiescence: every user of the window quiet inside an RMA call,
	// outside collectives, at a stalled rank's request (c/quiesce.c).
	PointQuiescence Point = "quiescence"
)

// Points lists the points in the order of c/counters.h's GHOST_POINT_*
// (an array, so that the library can check its length at compile time).
var Points = [...]Point{PointAllocation, PointFence, PointSetInfo, PointImplicit, PointQuiescence}

// Switch is one change of a window's agreed state, as one rank made it.
type Switch struct {
	Time   float64 `json:"t"` // seconds since the Unix epoch
	Window int64   `json:"window"`
	To     State   `json:"to"` // on or off
	Point  Point   `json:"point"`
}

// Record is one prediction interval of one process.
type Record struct {
	// Time is when the interval ended, in seconds since the Unix epoch, so
	// that the records of all ranks share one clock on a node.
	Time     float64 `json:"t"`
	Rank     int     `json:"rank"`     // in the application's MPI_COMM_WORLD
	Interval float64 `json:"interval"` // length, seconds
	MPI      float64 `json:"mpi"`      // time inside MPI calls, seconds
	// Wait is the part of MPI spent waiting for other ranks in
	// MPI_Barrier and in a fence's barrier, and stalled: neither
	// communication nor computation.
	Wait float64 `json:"wait"`
	// Stall is the time spent completing operations that went straight to
	// a target (redirection off) beyond what the fastest recent completion
	// to it took: waiting for a target outside MPI. It is part of Wait,
	// unless Over says that more tasks were runnable than the process had
	// cores when the interval ended: the stalls may then have been waits
	// for a core, and they count as communication (part of MPI only).
	Stall float64 `json:"stall"`
	Over  bool    `json:"oversubscribed,omitempty"`
	CR    float64 `json:"cr"` // (MPI - Wait) / (Interval - (Wait - Stall))
	// Vote is this process's prediction for the next interval: on or off.
	// Weight is what the vote has at stake, in thousandths of the
	// interval (adapt.Predictor.Ballot): agreement points sum the ranks'
	// votes so weighted.
	Vote   State `json:"vote"`
	Weight int   `json:"weight,omitempty"`
	// Windows holds every window alive at the end of the interval.
	Windows []WindowState `json:"windows"`
	// OpsGhost and OpsDirect count this process's RMA operations during the
	// interval that went through a ghost and straight to the target.
	OpsGhost  uint64 `json:"ops_ghost"`
	OpsDirect uint64 `json:"ops_direct"`
	// Switches are the changes of window states this process made during
	// the interval, in order.
	Switches []Switch `json:"switches,omitempty"`
}

// Writer appends records to a trace file shared by every rank of a job.
// Each record is one write(2) of one line on a file opened with O_APPEND,
// which Linux keeps whole against the other ranks' writes.
type Writer struct {
	mu sync.Mutex
	f  *os.File
}

// Create truncates the trace file; one rank does it before any rank writes.
func Create(path string) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	return f.Close()
}

// Append opens the trace file for appending records.
func Append(path string) (*Writer, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, err
	}
	return &Writer{f: f}, nil
}

// Write appends one record.
func (w *Writer) Write(r Record) error {
	line, err := jsonLine(r)
	if err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	_, err = w.f.Write(line)
	return err
}

func jsonLine(r Record) ([]byte, error) {
	line, err := json.Marshal(r)
	return append(line, '\n'), err
}

// Close closes the file.
func (w *Writer) Close() error { return w.f.Close() }

// ReadFile reads a trace file; errors name the file.
func ReadFile(path string) ([]Record, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	records, err := Read(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return records, nil
}

// Read parses a trace. A malformed line is an error that names its line
// number; an empty trace is not an error.
func Read(r io.Reader) ([]Record, error) {
	var records []Record
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	for line := 1; sc.Scan(); line++ {
		if len(sc.Bytes()) == 0 {
			continue
		}
		var rec Record
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			return nil, fmt.Errorf("line %d: %v", line, err)
		}
		if err := rec.validate(); err != nil {
			return nil, fmt.Errorf("line %d: %v", line, err)
		}
		records = append(records, rec)
	}
	return records, sc.Err()
}

func (r Record) validate() error {
	if r.Rank < 0 {
		return fmt.Errorf("rank %d is negative", r.Rank)
	}
	if r.Interval < 0 || r.MPI < 0 || r.Wait < 0 || r.Stall < 0 {
		return fmt.Errorf("negative interval, MPI, wait or stall time")
	}
	if r.Vote != StateOn && r.Vote != StateOff {
		return fmt.Errorf("vote %q is neither on nor off", r.Vote)
	}
	for _, w := range r.Windows {
		switch w.State {
		case StateOn, StateOff, StatePlain, StateLocal:
		default:
			return fmt.Errorf("window %d: state %q is not on, off, plain or local", w.ID, w.State)
		}
	}
	for _, s := range r.Switches {
		if s.To != StateOn && s.To != StateOff {
			return fmt.Errorf("switch of window %d: state %q is neither on nor off", s.Window, s.To)
		}
		if !slices.Contains(Points[:], s.Point) {
			return fmt.Errorf("switch of window %d: point %q is not one of %v", s.Window, s.Point, Points)
		}
	}
	return nil
}
