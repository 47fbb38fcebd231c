package test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/ghost-mpi/ghost/profile"
)

// TestWindowRegistry: the C window table is Ghost's one registry of
// windows, and Go's record of a redirected window hangs off its entry
// (ghost_win_t.go_state), so the two cannot disagree. Through 12 cycles
// of windows over MPI_COMM_WORLD and over two halves of it, pooled and
// with internal objects of their own, freed in orders that differ by cycle
// and by half while older windows stay alive (programs/win_registry.c),
// every window reaches its own memory and every free succeeds; and the
// trace's last record of each rank, written at MPI_Finalize, lists no
// window alive in the table.
func TestWindowRegistry(t *testing.T) {
	needMPI(t)
	bin := program(t, "win_registry.c")
	for _, tc := range []struct {
		name   string
		ghosts int
		hosts  string
	}{
		{"g1", 1, ""},
		{"g1-2nodes", 1, "nodeA:3,nodeB:3"},
		{"g2-2nodes", 2, "nodeA:4,nodeB:4"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const users = 4
			path := filepath.Join(t.TempDir(), "trace.jsonl")
			r := ghostRun(t, job{users: users, ghosts: tc.ghosts, hosts: tc.hosts, timeout: 3 * time.Minute,
				env:  []string{"GHOST_TRACE=" + path, "GHOST_PREDICT_INT=20ms", "GHOST_VERBOSE=debug"},
				args: []string{bin, "12"}})
			expectChecks(t, r, users)
			if tc.hosts != "" && len(ghostLines(r.stderr, "no room in some user's arena part")) == 0 {
				t.Errorf("no window got internal objects of its own:\n%s", r)
			}
			records, err := profile.ReadFile(path)
			if err != nil {
				t.Fatalf("reading the trace: %v\n%s", err, r)
			}
			last := map[int]profile.Record{}
			sawWindows := false
			for _, rec := range records {
				last[rec.Rank] = rec
				sawWindows = sawWindows || len(rec.Windows) > 0
			}
			if len(last) != users || !sawWindows {
				t.Fatalf("trace has records of %d ranks (want %d), windows listed: %v", len(last), users, sawWindows)
			}
			for rank, rec := range last {
				if len(rec.Windows) != 0 {
					t.Errorf("rank %d: at MPI_Finalize the window table still holds %+v", rank, rec.Windows)
				}
			}
		})
	}
}
