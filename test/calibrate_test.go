package test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ghost-mpi/ghost/adapt"
)

// `ghost calibrate` runs a tiny sweep end to end (the quick patterns at
// n=2 g=1, one bisection step, short probes: at most 6 jobs), writes a
// thresholds file the parser accepts, and a job under GHOST_THRESHOLDS
// takes its pair.
func TestCalibrate(t *testing.T) {
	needMPI(t)
	out := filepath.Join(t.TempDir(), "thresholds.json")
	start := time.Now()
	r := execute(t, job{timeout: 3 * time.Minute}, filepath.Join(buildDir, "ghost"),
		"calibrate", "--quick", "-n", "2", "-g", "1", "--steps", "1", "--probe-seconds", "0.05", "-o", out)
	if r.code != 0 {
		t.Fatalf("ghost calibrate failed:\n%s", r)
	}
	t.Logf("tiny sweep took %v:\n%s", time.Since(start).Round(time.Second), r.stdout)
	f, err := adapt.LoadThresholds(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Boundaries) != 7 || len(f.Averages) != 1 {
		t.Fatalf("%d boundaries and %d averages, want 7 and 1", len(f.Boundaries), len(f.Averages))
	}
	ops := map[string]bool{}
	for _, b := range f.Boundaries {
		if b.N != 2 || b.G != 1 {
			t.Errorf("boundary %+v is not for n=2 g=1", b)
		}
		ops[b.Pattern.Op] = true
	}
	if len(ops) != len(adapt.PatternOps) {
		t.Errorf("ops calibrated: %v", ops)
	}
	if !f.Sweep.Quick || f.Sweep.Steps != 1 || f.Machine.Cores < 1 || !strings.Contains(f.Machine.MPI, "MPICH") {
		t.Errorf("sweep %+v machine %+v", f.Sweep, f.Machine)
	}
	if !strings.Contains(r.stdout, "wrote "+out) {
		t.Errorf("no summary line:\n%s", r.stdout)
	}

	a := f.Averages[0]
	bin := program(t, "world.c")
	run := ghostRun(t, job{users: 2, ghosts: 1, args: []string{bin, "2", "2"},
		env: []string{"GHOST_THRESHOLDS=" + out, "GHOST_ASYNC=auto", "GHOST_VERBOSE=info"}})
	expectChecks(t, run, 2)
	want := fmt.Sprintf("GHOST_THRESHOLDS=%s: CR thresholds low %g high %g (calibrated n=2 g=1", out, a.Low, a.High)
	if lines := ghostLines(run.stderr, "GHOST_THRESHOLDS="); len(lines) != 1 || !strings.Contains(lines[0], want) {
		t.Errorf("threshold lines %q, want one with %q\n%s", lines, want, run)
	}
}

// A missing or malformed GHOST_THRESHOLDS file is one warning per job that
// names the file and the problem; the job runs on the defaults.
func TestThresholdsFileWarning(t *testing.T) {
	needMPI(t)
	dir := t.TempDir()
	malformed := filepath.Join(dir, "bad.json")
	text := `{"format":"ghost-thresholds","version":1,"created":"2025-01-02T03:04:05Z",
 "machine":{"hostname":"h","cores":2,"mpi":"","hosts":""},
 "sweep":{"quick":true,"tolerance":0.05,"probe_seconds":0.1,"steps":1},
 "boundaries":[{"n":2,"g":1,"pattern":{"op":"put","datatype":"contig","blocking":"per-op","target":"all-to-all"},"cr":0.5,"kind":"crossing","load":0.5}],
 "averages":[{"n":2,"g":1,"cr":0.5,"low":0.7,"high":0.6}]}`
	if err := os.WriteFile(malformed, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := program(t, "world.c")
	for _, tt := range []struct{ name, path, problem string }{
		{"malformed", malformed, "averages[0]: low 0.7 must be below high 0.6"},
		{"missing", filepath.Join(dir, "none.json"), "no such file or directory"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := ghostRun(t, job{users: 2, ghosts: 1, args: []string{bin, "2", "2"},
				env: []string{"GHOST_THRESHOLDS=" + tt.path, "GHOST_ASYNC=auto"}})
			expectChecks(t, r, 2)
			warns := ghostLines(r.stderr, "thresholds file")
			want := "warning: thresholds file " + tt.path + ": " + tt.problem + "; using GHOST_CR_LOW=0.3 and GHOST_CR_HIGH=0.6"
			if len(warns) != 1 || !strings.Contains(warns[0], want) {
				t.Fatalf("warnings %q, want one with %q\n%s", warns, want, r)
			}
		})
	}
}
