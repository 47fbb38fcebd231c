package test

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/ghost-mpi/ghost/internal/metrics"
)

var activeWindows = regexp.MustCompile(`(?m)^ghost_active_windows\{[^}]*\} (\S+)$`)

// TestWindowRegistry: the C window table is Ghost's one registry of
// windows, and Go's record of a redirected window hangs off its entry
// (ghost_win_t.go_state), so the two cannot disagree. Through 12 cycles
// of windows over MPI_COMM_WORLD and over two halves of it, pooled and
// with internal objects of their own, freed in orders that differ by cycle
// and by half while older windows stay alive (programs/win_registry.c),
// every window reaches its own memory and every free succeeds; and each
// node's final metrics record, written once every user has finalized,
// counts no window alive (ghost_active_windows, which the table's register
// and unregister count: a window left unfreed shows as 1).
func TestWindowRegistry(t *testing.T) {
	needMPI(t)
	bin := program(t, "win_registry.c")
	for _, tc := range []struct {
		name   string
		ghosts int
		hosts  string
		nodes  int
	}{
		{"g1", 1, "", 1},
		{"g1-2nodes", 1, "nodeA:3,nodeB:3", 2},
		{"g2-2nodes", 2, "nodeA:4,nodeB:4", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const users = 4
			dir := t.TempDir()
			r := ghostRun(t, job{users: users, ghosts: tc.ghosts, hosts: tc.hosts, timeout: 3 * time.Minute,
				env:  []string{"GHOST_METRICS_TEXTFILE=" + dir, "GHOST_METRICS_ADDR=off", "GHOST_VERBOSE=debug"},
				args: []string{bin, "12"}})
			expectChecks(t, r, users)
			if tc.nodes > 1 && len(ghostLines(r.stderr, "no room in some user's arena part")) == 0 {
				t.Errorf("no window got internal objects of its own:\n%s", r)
			}
			for node := 0; node < tc.nodes; node++ {
				text, err := os.ReadFile(filepath.Join(dir, metrics.TextfileName(node)))
				if err != nil {
					t.Fatalf("node %d: %v\n%s", node, err, r)
				}
				m := activeWindows.FindStringSubmatch(string(text))
				if m == nil || m[1] != "0" {
					t.Errorf("node %d: windows alive after every free: %q, want 0", node, m)
				}
			}
		})
	}
}
