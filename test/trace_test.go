package test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ghost-mpi/ghost/profile"
)

// GHOST_TRACE under GHOST_ASYNC=auto: every rank records its intervals; the
// records must cover every rank, hold CRs in [0, 1], show the window in the
// state each phase ended with, and count exactly the operations each rank
// issued. (phases.c communicates only in phases that the previous compute
// phase left on, so its operations all take the ghost path.) `ghost report` must then print and plot the timeline.
func TestTraceRecordsIntervals(t *testing.T) {
	needMPI(t)
	bin := program(t, "phases.c")
	dir := t.TempDir()
	path := filepath.Join(dir, "trace.jsonl")
	const users = 2
	r := ghostRun(t, job{users: users, ghosts: 1,
		env: []string{"GHOST_ASYNC=auto", "GHOST_PREDICT_INT=50ms", "GHOST_GSYNC_INT=0", "GHOST_TRACE=" + path,
			"GHOST_NODE_LOCAL=off"}, // switching happens on the ghost path
		args: []string{bin, "4", "300"}})
	expectChecks(t, r, users)

	records, err := profile.ReadFile(path)
	if err != nil {
		t.Fatalf("reading the trace: %v\n%s", err, r)
	}
	issued := map[int]uint64{}
	for _, m := range regexp.MustCompile(`(?m)^rank (\d+) issued (\d+) operations$`).FindAllStringSubmatch(r.stdout, -1) {
		rank, _ := strconv.Atoi(m[1])
		n, _ := strconv.ParseUint(m[2], 10, 64)
		issued[rank] = n
	}
	if len(issued) != users {
		t.Fatalf("%d ranks reported their operations, want %d:\n%s", len(issued), users, r)
	}
	ranks := profile.Ranks(records)
	if len(ranks) != users {
		t.Fatalf("trace has %d ranks, want %d", len(ranks), users)
	}
	for _, s := range ranks {
		// 4 phases of 300 ms in 50 ms intervals: about 24 records.
		if s.Intervals < 10 {
			t.Errorf("rank %d: %d intervals recorded, want at least 10", s.Rank, s.Intervals)
		}
		if got := s.OpsGhost + s.OpsDirect; got != issued[s.Rank] {
			t.Errorf("rank %d: trace counts %d operations (%d ghost, %d direct), the program issued %d",
				s.Rank, got, s.OpsGhost, s.OpsDirect, issued[s.Rank])
		}
	}
	for _, rec := range records {
		if rec.CR < 0 || rec.CR > 1 {
			t.Errorf("record with CR %g outside [0, 1]: %+v", rec.CR, rec)
		}
	}
	// The program's window switched on → off → on → off (compute and comm
	// phases alternate); the trace's timeline of it must show the switches.
	var seq string
	for _, tl := range profile.Timelines(records) {
		if len(tl.Phases) > 1 {
			seq = stateSequenceOf(tl.Phases)
		}
	}
	if !strings.Contains(seq, "on off on") {
		t.Errorf("no window switched on → off → on in the trace (got %q)\n%s", seq, r)
	}

	png := filepath.Join(dir, "trace.png")
	out, err := exec.Command(filepath.Join(buildDir, "ghost"), "report", "--plot", png, path).CombinedOutput()
	if err != nil {
		t.Fatalf("ghost report: %v\n%s", err, out)
	}
	for _, want := range []string{"per rank", "window ", "ON → OFF → ON", "plot written to"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("ghost report output lacks %q:\n%s", want, out)
		}
	}
	if st, err := os.Stat(png); err != nil || st.Size() < 1000 {
		t.Errorf("plot %s missing or empty: %v", png, err)
	}
}

// A trace file that cannot be created stops the job at MPI_Init with one
// message naming the variable, instead of running without the trace.
func TestTraceUncreatable(t *testing.T) {
	needMPI(t)
	r := ghostRun(t, job{users: 2, ghosts: 1, env: []string{"GHOST_TRACE=/nonexistent-dir/trace.jsonl"},
		args: []string{program(t, "world.c")}})
	if r.code == 0 || strings.Count(r.stderr, "GHOST_TRACE=") != 1 {
		t.Fatalf("want a failed job with one GHOST_TRACE message:\n%s", r)
	}
}

func stateSequenceOf(phases []profile.Phase) string {
	var s []string
	for _, p := range phases {
		s = append(s, string(p.State))
	}
	return strings.Join(s, " ")
}
