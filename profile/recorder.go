package profile

import (
	"sync"
	"time"
)

// Sink takes a process's records: a *Writer on the trace file.
type Sink interface {
	Write(Record) error
	Close() error
}

// OpCounts are a process's RMA operations, by path.
type OpCounts struct{ Ghost, Direct uint64 }

// Recorder turns one process's interval timers and window switches into
// records. Switches arrive from the data plane at agreement points, on
// any thread, and go into the next record; a record is written per
// prediction interval. After a failed write it records nothing more.
type Recorder struct {
	mu       sync.Mutex
	sink     Sink
	rank     int
	tickHz   float64
	windows  func() []WindowState
	now      func() time.Time
	disabled bool
	switches []Switch // since the last record
}

// NewRecorder records for the application's rank rank into sink. tickHz
// converts the timers' ticks to seconds; windows lists the windows alive,
// now is the clock.
func NewRecorder(sink Sink, rank int, tickHz float64, windows func() []WindowState,
	now func() time.Time) *Recorder {
	return &Recorder{sink: sink, rank: rank, tickHz: tickHz, windows: windows, now: now}
}

// StateOf is the state of a window that is redirected (on) or not.
func StateOf(on bool) State {
	if on {
		return StateOn
	}
	return StateOff
}

func unixSeconds(t time.Time) float64 { return float64(t.UnixNano()) / 1e9 }

// Switched notes a change of window's agreed state at point (an index of
// Points). A nil Recorder records nothing.
func (r *Recorder) Switched(window int64, on bool, point int) {
	if r == nil {
		return
	}
	s := Switch{Time: unixSeconds(r.now()), Window: window, To: StateOf(on), Point: Points[point]}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.switches = append(r.switches, s)
}

// Ticks are one interval's times in the timers' ticks: inside MPI, in all,
// waiting (part of both), and the stalls, which are among the waits unless
// Over (Record.Over); and the RMA operations issued in it.
type Ticks struct {
	MPI, Total, Wait, Stall uint64
	Over                    bool
	Ops                     OpCounts
}

// Record writes one interval, t, and the CR and ballot the predictor made
// from it (adapt.Predictor.Ballot: positive for on, its size the weight).
// It returns the error of a failed write, after which the Recorder is
// disabled; a nil or disabled Recorder writes nothing.
func (r *Recorder) Record(t Ticks, cr float64, ballot int) error {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.disabled {
		return nil
	}
	rec := Record{
		Time:      unixSeconds(r.now()),
		Rank:      r.rank,
		Interval:  float64(t.Total) / r.tickHz,
		MPI:       float64(t.MPI) / r.tickHz,
		Wait:      float64(t.Wait) / r.tickHz,
		Stall:     float64(t.Stall) / r.tickHz,
		Over:      t.Over,
		CR:        cr,
		Vote:      StateOf(ballot > 0),
		Weight:    max(ballot, -ballot),
		Windows:   r.windows(),
		OpsGhost:  t.Ops.Ghost,
		OpsDirect: t.Ops.Direct,
		Switches:  r.switches,
	}
	r.switches = nil
	if err := r.sink.Write(rec); err != nil {
		r.disabled = true
		return err
	}
	return nil
}

// Close closes the sink; nothing is recorded after it.
func (r *Recorder) Close() error {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.disabled = true
	return r.sink.Close()
}
