package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ghost-mpi/ghost/profile"
)

func TestParseReportArgs(t *testing.T) {
	for _, c := range []struct {
		args    []string
		wantErr string
		plot    string
		paths   int
	}{
		{args: []string{"t.jsonl"}, paths: 1},
		{args: []string{"--plot", "x.png", "t.jsonl"}, plot: "x.png", paths: 1},
		{args: []string{"a", "b"}, paths: 2},
		{args: nil, wantErr: "no trace file"},
		{args: []string{"--plot", "x.png", "a", "b"}, wantErr: "one trace file"},
		{args: []string{"--bogus", "a"}, wantErr: "not defined"},
	} {
		var stderr bytes.Buffer
		o, err := parseReportArgs(c.args, &stderr)
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("%v: got %v, want an error containing %q", c.args, err, c.wantErr)
			}
			continue
		}
		if err != nil || o.plot != c.plot || len(o.paths) != c.paths {
			t.Errorf("%v: got %+v, %v", c.args, o, err)
		}
	}
}

func TestTraceReportAndPlot(t *testing.T) {
	var records []profile.Record
	states := []profile.State{profile.StateOn, profile.StateOff, profile.StateOff, profile.StateOn}
	for i, s := range states {
		for rank := 0; rank < 2; rank++ {
			rec := profile.Record{Time: 100 + float64(i), Rank: rank, Interval: 1, MPI: 0.5, CR: 0.5,
				Vote: s, Windows: []profile.WindowState{{ID: 3, State: s}}, OpsGhost: 7, OpsDirect: 1}
			if i > 0 && s != states[i-1] {
				rec.Switches = []profile.Switch{{Time: rec.Time - 0.5, Window: 3, To: s, Point: profile.PointImplicit}}
			}
			records = append(records, rec)
		}
	}
	var out bytes.Buffer
	writeTraceReport(&out, "t.jsonl", records)
	text := out.String()
	for _, want := range []string{"2 rank(s), 8 interval record(s)", "window 3: ON → OFF → ON", "OFF        4",
		"switches by point: implicit 2"} {
		if !strings.Contains(text, want) {
			t.Errorf("report lacks %q:\n%s", want, text)
		}
	}
	png := filepath.Join(t.TempDir(), "t.png")
	if err := plotTrace(records, "t.jsonl", png); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(png); err != nil || st.Size() < 1000 {
		t.Fatalf("plot: %v", err)
	}
	if err := plotTrace(nil, "empty", png); err == nil {
		t.Fatal("plotting nothing should fail")
	}
}

func TestReportCommandErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, []byte("{\"vote\":\"on\"}\n{broken\n"), 0o644)
	var stdout, stderr bytes.Buffer
	if code := reportCommand([]string{bad}, &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), "bad.jsonl: line 2") {
		t.Fatalf("malformed trace: exit %d, stderr %q", code, stderr.String())
	}
	stderr.Reset()
	if code := reportCommand([]string{filepath.Join(dir, "missing")}, &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), "missing") {
		t.Fatalf("missing trace: exit %d, stderr %q", code, stderr.String())
	}
}
