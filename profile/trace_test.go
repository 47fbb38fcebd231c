package profile

import (
	"bytes"
	"math"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func win(id int64, s State) []WindowState { return []WindowState{{ID: id, State: s}} }

func TestWriterAndReadRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "trace.jsonl")
	if err := Create(path); err != nil {
		t.Fatal(err)
	}
	// Several writers on one file, as several ranks append to it.
	var wg sync.WaitGroup
	for rank := 0; rank < 4; rank++ {
		wg.Add(1)
		go func(rank int) {
			defer wg.Done()
			w, err := Append(path)
			if err != nil {
				t.Error(err)
				return
			}
			defer w.Close()
			for i := 0; i < 50; i++ {
				if err := w.Write(Record{Time: float64(i), Rank: rank, Interval: 1, MPI: 0.5, CR: 0.5, Vote: StateOn,
					Windows: win(1, StateOn), OpsGhost: uint64(i)}); err != nil {
					t.Error(err)
				}
			}
		}(rank)
	}
	wg.Wait()
	records, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(records) != 200 {
		t.Fatalf("read %d records, want 200", len(records))
	}
	for _, s := range Ranks(records) {
		if s.Intervals != 50 || s.OpsGhost != 49*50/2 {
			t.Errorf("rank %d: %d intervals, %d ghost ops; want 50 and %d", s.Rank, s.Intervals, s.OpsGhost, 49*50/2)
		}
	}
}

func TestReadRejects(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"not json", "{\"t\":1,\"vote\":\"on\"}\nnot json\n", "line 2"},
		{"bad vote", `{"t":1,"vote":"maybe"}`, "vote"},
		{"bad state", `{"t":1,"vote":"on","windows":[{"id":1,"state":"sideways"}]}`, "state"},
		{"negative rank", `{"t":1,"rank":-1,"vote":"on"}`, "rank"},
		{"bad switch state", `{"t":1,"vote":"on","switches":[{"t":1,"window":1,"to":"up","point":"fence"}]}`, "neither on nor off"},
		{"bad switch point", `{"t":1,"vote":"on","switches":[{"t":1,"window":1,"to":"on","point":"lunch"}]}`, "point"},
		{"negative time", `{"t":1,"interval":-1,"vote":"on"}`, "negative"},
	} {
		if _, err := Read(strings.NewReader(c.in)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error mentioning %q", c.name, err, c.want)
		}
	}
	if r, err := Read(strings.NewReader("")); err != nil || len(r) != 0 {
		t.Errorf("empty trace: %v, %v", r, err)
	}
}

func TestTimelines(t *testing.T) {
	// Two ranks, one window switched off between t=2 and t=3 and back on
	// between t=4 and t=5; a second window appears at t=3 and stays plain.
	var records []Record
	states := []State{StateOn, StateOn, StateOff, StateOff, StateOn}
	for i, s := range states {
		for rank := 0; rank < 2; rank++ {
			r := Record{Time: float64(i+1) + 0.01*float64(rank), Rank: rank, Interval: 1, CR: float64(i) / 10,
				Vote: s, Windows: win(7, s), OpsGhost: 10, OpsDirect: 1}
			if i >= 2 {
				r.Windows = append(r.Windows, WindowState{ID: 9, State: StatePlain})
			}
			records = append(records, r)
		}
	}
	got := Timelines(records)
	if len(got) != 2 || got[0].Window != 7 || got[1].Window != 9 {
		t.Fatalf("windows %+v, want 7 then 9", got)
	}
	want := []struct {
		state      State
		start, end float64
		records    int
		cr         float64
	}{
		{StateOn, 0, 2.01, 4, 0.05},
		{StateOff, 2.01, 4.01, 4, 0.25},
		{StateOn, 4.01, 5.01, 2, 0.4},
	}
	if len(got[0].Phases) != len(want) {
		t.Fatalf("window 7: %d phases, want %d: %+v", len(got[0].Phases), len(want), got[0].Phases)
	}
	for i, w := range want {
		p := got[0].Phases[i]
		if p.State != w.state || math.Abs(p.Start-w.start) > 1e-9 || math.Abs(p.End-w.end) > 1e-9 ||
			p.Records != w.records || math.Abs(p.MeanCR-w.cr) > 1e-9 || p.OpsGhost != uint64(10*w.records) {
			t.Errorf("window 7 phase %d: %+v, want %+v", i, p, w)
		}
	}
	if p := got[1].Phases; len(p) != 1 || p[0].State != StatePlain || p[0].Records != 6 {
		t.Errorf("window 9: %+v, want one plain phase of 6 records", p)
	}
}

func TestRanksCR(t *testing.T) {
	s := Ranks([]Record{{Rank: 1, Interval: 2, MPI: 1, Vote: StateOn}, {Rank: 1, Interval: 2, MPI: 0, Vote: StateOff}})
	if len(s) != 1 || s[0].CR() != 0.25 || s[0].VotesOn != 1 {
		t.Fatalf("got %+v", s)
	}
	// A second of the four waiting, a quarter of it stalled: CR
	// (1.5-1)/(4-0.75). Stalls of an oversubscribed interval were counted
	// as communication and are not stalls of the summary.
	s = Ranks([]Record{{Rank: 0, Interval: 2, MPI: 1.5, Wait: 1, Stall: 0.25, Vote: StateOn}, {Rank: 0, Interval: 2, Vote: StateOn},
		{Rank: 0, Stall: 0.5, Over: true, Vote: StateOn}})
	if math.Abs(s[0].CR()-0.5/3.25) > 1e-12 || s[0].Wait != 1 || s[0].Stall != 0.25 {
		t.Fatalf("with waits: got %+v, CR %v", s, s[0].CR())
	}
	if (RankSummary{}).CR() != 0 {
		t.Fatal("CR of nothing should be 0")
	}
}

func TestReadLongLine(t *testing.T) {
	var b bytes.Buffer
	r := Record{Time: 1, Vote: StateOff}
	for i := 0; i < 20000; i++ {
		r.Windows = append(r.Windows, WindowState{ID: int64(i), State: StateOn})
	}
	line, _ := jsonLine(r)
	b.Write(line)
	got, err := Read(&b)
	if err != nil || len(got) != 1 || len(got[0].Windows) != 20000 {
		t.Fatalf("long line: %v", err)
	}
}

func TestSwitches(t *testing.T) {
	sw := func(at float64, window int64, to State, p Point) []Switch {
		return []Switch{{Time: at, Window: window, To: to, Point: p}}
	}
	records := []Record{
		{Time: 1, Rank: 0, Interval: 1, Vote: StateOff, Switches: sw(0.5, 7, StateOff, PointImplicit)},
		{Time: 1, Rank: 1, Interval: 1, Vote: StateOff, Switches: sw(0.6, 7, StateOff, PointImplicit)},
		// Rank 0 switches window 7 back on before rank 1 does: a new event.
		{Time: 2, Rank: 0, Interval: 1, Vote: StateOn, Switches: sw(1.5, 7, StateOn, PointFence)},
		{Time: 2, Rank: 1, Interval: 1, Vote: StateOn, Switches: append(sw(1.6, 7, StateOn, PointFence),
			sw(1.7, 9, StateOff, PointAllocation)...)},
		// The same rank twice in a row: two events, not one of two ranks.
		{Time: 3, Rank: 0, Interval: 1, Vote: StateOn, Switches: append(sw(2.1, 9, StateOn, PointSetInfo),
			sw(2.2, 9, StateOn, PointSetInfo)...)},
	}
	got := Switches(records)
	want := []SwitchEvent{
		{Window: 7, To: StateOff, Point: PointImplicit, Ranks: 2, First: 0.5, Last: 0.6},
		{Window: 7, To: StateOn, Point: PointFence, Ranks: 2, First: 1.5, Last: 1.6},
		{Window: 9, To: StateOff, Point: PointAllocation, Ranks: 1, First: 1.7, Last: 1.7},
		{Window: 9, To: StateOn, Point: PointSetInfo, Ranks: 1, First: 2.1, Last: 2.1},
		{Window: 9, To: StateOn, Point: PointSetInfo, Ranks: 1, First: 2.2, Last: 2.2},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d events %+v, want %d", len(got), got, len(want))
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.Window != w.Window || g.To != w.To || g.Point != w.Point || g.Ranks != w.Ranks ||
			math.Abs(g.First-w.First) > 1e-9 || math.Abs(g.Last-w.Last) > 1e-9 {
			t.Errorf("event %d = %+v, want %+v", i, g, w)
		}
	}
}
