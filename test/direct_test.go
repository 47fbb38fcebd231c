package test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ghost-mpi/ghost/internal/metrics"
)

// TestSameNodeDirect: in a window that spans 2 fake nodes, PUT and GET to a
// target on the origin's own node are copies in the node segment in lock
// and lock_all epochs, whose lock words are held from the lock call on;
// values and exclusive-lock counters stay exact
// (programs/same_node.c). With GHOST_NODE_LOCAL=off every one goes through
// the ghost.
func TestSameNodeDirect(t *testing.T) {
	needMPI(t)
	const n = 20
	for _, tc := range []struct {
		name    string
		env     []string
		local   bool
		ghostsN int
	}{
		{"default", nil, true, 1},
		{"ng2", nil, true, 2},
		{"node_local_off", []string{"GHOST_NODE_LOCAL=off"}, false, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			hosts := fmt.Sprintf("a:%d,b:%d", 2+tc.ghostsN, 2+tc.ghostsN)
			res := ghostRun(t, job{users: 4, ghosts: tc.ghostsN, hosts: hosts, timeout: 2 * time.Minute,
				env:  append([]string{"GHOST_METRICS_TEXTFILE=" + dir, "GHOST_METRICS_ADDR=off"}, tc.env...),
				args: []string{program(t, "same_node.c"), fmt.Sprint(n)}})
			expectChecks(t, res, 4)
			want := map[[2]string]float64{ // per node: 2 users
				{"put", "local"}: 2 * (3*n + 1), {"put", "ghost"}: 2 * n,
				{"get", "local"}: 2 * 3 * n, {"get", "ghost"}: 0,
			}
			if !tc.local {
				want = map[[2]string]float64{
					{"put", "local"}: 0, {"put", "ghost"}: 2 * (4*n + 1),
					{"get", "local"}: 0, {"get", "ghost"}: 2 * 3 * n,
				}
			}
			for node := 0; node < 2; node++ {
				recs, err := metrics.ReadTextfiles([]string{filepath.Join(dir, metrics.TextfileName(node))})
				if err != nil || len(recs) != 1 {
					t.Fatalf("node %d textfile: %v\n%s", node, err, res)
				}
				var bad []string
				for k, v := range want {
					if got := recs[0].Ops[k[0]][pathIndex(k[1])]; got != v {
						bad = append(bad, fmt.Sprintf("%s %s = %v, want %v", k[0], k[1], got, v))
					}
				}
				if len(bad) > 0 {
					t.Errorf("node %d: %s", node, strings.Join(bad, "; "))
				}
			}
		})
	}
}

// TestManyWindows: 2,000 windows alive at once, as plain MPICH allows
// (about 2,040, one communicator context each), each with its own sizes;
// accumulates and attributes right on the first, a middle and the last;
// freed in another order and the room reused (programs/many_windows.c).
// On one node they are node-local windows in the node arena, with and
// without a ghost on the node; across 2 fake nodes they are redirected
// windows in the pooled global window, with one and two ghosts per node.
func TestManyWindows(t *testing.T) {
	needMPI(t)
	for _, tc := range []struct {
		name   string
		ghosts int
		hosts  string
	}{
		{"g0", 0, ""},
		{"g1", 1, ""},
		{"g1-2nodes", 1, "nodeA:2,nodeB:2"},
		{"g2-2nodes", 2, "nodeA:3,nodeB:3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := ghostRun(t, job{users: 2, ghosts: tc.ghosts, hosts: tc.hosts, timeout: 2 * time.Minute,
				args: []string{program(t, "many_windows.c"), "2000"}})
			expectChecks(t, res, 2)
		})
	}
}

// TestPollingLoops: loops of atomic reads (MPI_Fetch_and_op and
// MPI_Get_accumulate with MPI_NO_OP) that poll counters and a flag end, and
// every value read is exact, on one node and on 2 fake nodes with one and
// two ghosts per node (programs/polling_loops.c). A read of a target on
// the origin's node is a load from the node segment unless the origin's own
// accumulate to that target is still in flight: the per-node counts of
// fetch-and-op by path show which reads took which path.
func TestPollingLoops(t *testing.T) {
	needMPI(t)
	const n = 50
	for _, tc := range []struct {
		name    string
		env     []string
		hosts   string
		ghostsN int
		local   bool // same-node reads are loads
	}{
		{"one_node", nil, "", 0, false},
		{"2nodes", nil, "a:3,b:3", 1, true},
		{"2nodes_ng2", nil, "a:4,b:4", 2, true},
		{"2nodes_node_local_off", []string{"GHOST_NODE_LOCAL=off"}, "a:3,b:3", 1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			res := ghostRun(t, job{users: 4, ghosts: tc.ghostsN, hosts: tc.hosts, timeout: 2 * time.Minute,
				env:  append([]string{"GHOST_METRICS_TEXTFILE=" + dir, "GHOST_METRICS_ADDR=off"}, tc.env...),
				args: []string{program(t, "polling_loops.c"), fmt.Sprint(n)}})
			expectChecks(t, res, 4)
			if tc.hosts == "" {
				return // node-local windows: every operation is in memory
			}
			// Per node, 2 origins read their counter at each of 2 same-node
			// targets after a flush n times: loads, or the ghost when off.
			// Node b's origins poll only through the ghost otherwise: their
			// reads right after an add (FOP every other time, at 4
			// targets) and after a flush at 2 other-node targets.
			wantLocal, wantGhostB := float64(2*2*n), float64(2*(4*((n+1)/2)+2*n))
			if !tc.local {
				wantLocal, wantGhostB = 0, float64(2*(4*((n+1)/2)+4*n))
			}
			for node := 0; node < 2; node++ {
				recs, err := metrics.ReadTextfiles([]string{filepath.Join(dir, metrics.TextfileName(node))})
				if err != nil || len(recs) != 1 {
					t.Fatalf("node %d textfile: %v\n%s", node, err, res)
				}
				if got := recs[0].Ops["fop"][pathIndex("local")]; got != wantLocal {
					t.Errorf("node %d: fop local = %v, want %v", node, got, wantLocal)
				}
				if got := recs[0].Ops["fop"][pathIndex("ghost")]; node == 1 && got != wantGhostB {
					t.Errorf("node 1: fop ghost = %v, want %v", got, wantGhostB)
				}
			}
		})
	}
}
