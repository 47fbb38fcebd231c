package test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/ghost-mpi/ghost/internal/metrics"
	"github.com/ghost-mpi/ghost/profile"
)

// GHOST_ASYNC=auto in a passive-target program that never fences: windows
// switch at MPI_Barrier after flush_all or the last unlock (implicit
// points), communication phases turn redirection off and compute phases
// on, and no switch happens
// where it is not safe (an operation issued after the flush, a barrier that
// misses a rank, a barrier over another window's communicator). Counters
// updated with ACC, FOP and CAS loops across the switches stay exact. The
// trace and the metrics record every switch at point "implicit", and
// barriers where no vote changed cost no second collective. The ompi_
// cases run the program built with Open MPI (libghost-openmpi.so).
func TestImplicitPointsSwitchSafely(t *testing.T) {
	needMPI(t)
	line := regexp.MustCompile(`(?m)^phase (\d+) (lock )?(compute|comm) -> (on|off)$`)
	const barriers = 200
	for _, c := range []struct {
		name   string
		users  int
		ghosts int
		hosts  string
		ompi   bool
	}{
		{"g1", 3, 1, "", false},
		{"g2", 4, 2, "", false},
		{"g1_2nodes", 4, 1, "nodeA:3,nodeB:3", false},
		{"g2_2nodes", 4, 2, "nodeA:4,nodeB:4", false},
		{"ompi_g1", 3, 1, "", true},
		{"ompi_g1_2nodes", 4, 1, "nodeA:3,nodeB:3", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			bin := programFor(t, mpiOf(c.ompi), "programs", "implicit.c")
			dir := t.TempDir()
			trace := filepath.Join(dir, "trace.jsonl")
			textfiles := filepath.Join(dir, "metrics")
			if err := os.Mkdir(textfiles, 0o755); err != nil {
				t.Fatal(err)
			}
			r := ghostRun(t, job{users: c.users, ghosts: c.ghosts, hosts: c.hosts,
				env: []string{"GHOST_ASYNC=auto", "GHOST_PREDICT_INT=50ms", "GHOST_TRACE=" + trace,
					"GHOST_METRICS_TEXTFILE=" + textfiles, fmt.Sprintf("GHOST_METRICS_ADDR=127.0.0.1:%d", freePort(t)),
					// On one node the windows would be node-local, with
					// nothing to switch: test the ghost path there too.
					"GHOST_NODE_LOCAL=off",
					// This test is about the collective points: a switch at a
					// quiescence point (TestQuiescenceSwitchesSafely) may come
					// between a phase's unsafe barrier and its check.
					"GHOST_QUIESCE=off"},
				args: []string{bin, "6", "300", fmt.Sprint(barriers)}})
			expectChecks(t, r, c.users)
			phases := line.FindAllStringSubmatch(r.stdout, -1)
			// Window A and window C (lock epochs only).
			if len(phases) != 12 {
				t.Fatalf("%d phase lines, want 12:\n%s", len(phases), r)
			}
			for _, p := range phases {
				want := map[string]string{"compute": "on", "comm": "off"}[p[3]]
				if p[4] != want {
					t.Errorf("phase %s (%s%s): redirection %s, want %s\n%s", p[1], p[2], p[3], p[4], want, r)
				}
			}

			records, err := profile.ReadFile(trace)
			if err != nil {
				t.Fatalf("reading the trace: %v\n%s", err, r)
			}
			// Barrier time is recorded apart, as part of the MPI time, and
			// left out of CR: every rank spent some waiting in barriers.
			for _, s := range profile.Ranks(records) {
				if s.Wait <= 0 || s.Wait > s.MPI {
					t.Errorf("rank %d: %.4f s waiting in barriers of %.4f s in MPI", s.Rank, s.Wait, s.MPI)
				}
			}
			for _, rec := range records {
				if rec.CR < 0 || rec.CR > 1 || rec.Wait > rec.MPI {
					t.Errorf("record %+v: CR outside [0, 1] or wait above MPI time", rec)
				}
			}
			implicit := 0
			for _, e := range profile.Switches(records) {
				switch e.Point {
				case profile.PointImplicit:
					implicit++
				case profile.PointAllocation:
				default:
					t.Errorf("switch %+v at a point the program never reaches", e)
				}
			}
			// Windows A and C switch at least at the ends of phases 1 to 5.
			if implicit < 10 {
				t.Errorf("%d switches at implicit points in the trace, want at least 10", implicit)
			}

			files, _ := filepath.Glob(filepath.Join(textfiles, "*.prom"))
			recs, err := metrics.ReadTextfiles(files)
			if err != nil || len(recs) == 0 {
				t.Fatalf("metrics textfiles %v: %v\n%s", files, err, r)
			}
			var calls, rounds, switched float64
			for _, rec := range recs {
				calls += rec.SyncCalls["barrier"]
				rounds += rec.Internal["barrier"][2] // collective
				row := rec.Points["implicit"]
				switched += row[0] + row[1]
			}
			t.Logf("%d switch events at implicit points in the trace; metrics: %.0f implicit transitions, %.0f barriers, %.0f second collectives",
				implicit, switched, calls, rounds)
			if switched == 0 {
				t.Errorf("no transition counted at point implicit")
			}
			// Every rank made the back-to-back barriers, where no vote
			// changes: a second collective on a few barriers around the
			// phase ends at most, never on most of them.
			if calls < float64(c.users*barriers) || rounds > calls/8 {
				t.Errorf("%.0f barriers counted (want at least %d), %.0f of them with a second collective",
					calls, c.users*barriers, rounds)
			}
		})
	}
}
