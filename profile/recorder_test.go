package profile

import (
	"errors"
	"reflect"
	"testing"
	"time"
)

type memSink struct {
	recs   []Record
	fail   error
	closed bool
}

func (m *memSink) Write(r Record) error {
	if m.fail != nil {
		return m.fail
	}
	m.recs = append(m.recs, r)
	return nil
}

func (m *memSink) Close() error { m.closed = true; return nil }

func TestRecorder(t *testing.T) {
	clock := time.Unix(100, 500_000_000)
	wins := []WindowState{{ID: 7, State: StateOn}}
	sink := &memSink{}
	r := NewRecorder(sink, 3, 1000, func() []WindowState { return wins }, func() time.Time { return clock })

	// Interval 1: 5 operations through ghosts, 2 direct, one switch.
	r.Switched(7, false, 1)
	if err := r.Record(Ticks{MPI: 300, Total: 1000, Wait: 100, Stall: 50, Ops: OpCounts{Ghost: 5, Direct: 2}}, 0.25, -50); err != nil {
		t.Fatal(err)
	}
	// Interval 2: nothing new.
	clock = clock.Add(time.Second)
	if err := r.Record(Ticks{Total: 2000, Stall: 1000, Over: true}, 0, 135); err != nil {
		t.Fatal(err)
	}
	want := []Record{
		{Time: 100.5, Rank: 3, Interval: 1, MPI: 0.3, Wait: 0.1, Stall: 0.05, CR: 0.25, Vote: StateOff, Weight: 50, Windows: wins,
			OpsGhost: 5, OpsDirect: 2, Switches: []Switch{{Time: 100.5, Window: 7, To: StateOff, Point: PointFence}}},
		{Time: 101.5, Rank: 3, Interval: 2, Stall: 1, Over: true, Vote: StateOn, Weight: 135, Windows: wins},
	}
	if !reflect.DeepEqual(sink.recs, want) {
		t.Errorf("records\n got %+v\nwant %+v", sink.recs, want)
	}

	// A failed write is returned once; then the Recorder writes nothing.
	sink.fail = errors.New("disk full")
	if err := r.Record(Ticks{MPI: 1, Total: 1}, 1, 50); err == nil {
		t.Error("a failed write returned no error")
	}
	sink.fail = nil
	if err := r.Record(Ticks{MPI: 1, Total: 1}, 1, 50); err != nil || len(sink.recs) != 2 {
		t.Errorf("after a failed write: err %v, %d records, want nil and 2", err, len(sink.recs))
	}
	if r.Close(); !sink.closed {
		t.Error("Close did not close the sink")
	}
}

func TestNilRecorder(t *testing.T) {
	var r *Recorder
	r.Switched(1, true, 0)
	if err := r.Record(Ticks{MPI: 1, Total: 2}, 0.5, 50); err != nil {
		t.Errorf("nil Record: %v", err)
	}
	if err := r.Close(); err != nil {
		t.Errorf("nil Close: %v", err)
	}
}

func TestStateOf(t *testing.T) {
	if StateOf(true) != StateOn || StateOf(false) != StateOff {
		t.Errorf("StateOf(true), StateOf(false) = %q, %q", StateOf(true), StateOf(false))
	}
}
