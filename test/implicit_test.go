package test

import (
	"regexp"
	"testing"
)

// GHOST_ASYNC=auto in a passive-target program that never fences: windows
// switch at MPI_Barrier after flush_all (implicit points), communication
// phases turn redirection off and compute phases on, and no switch happens
// where it is not safe (an operation issued after the flush, a barrier that
// misses a rank, a barrier over another window's communicator). Counters
// updated with ACC, FOP and CAS loops across the switches stay exact.
func TestImplicitPointsSwitchSafely(t *testing.T) {
	needMPI(t)
	bin := program(t, "implicit.c")
	line := regexp.MustCompile(`(?m)^phase (\d+) (compute|comm) -> (on|off)$`)
	for _, c := range []struct {
		name   string
		users  int
		ghosts int
		hosts  string
	}{
		{"g1", 3, 1, ""},
		{"g2", 4, 2, ""},
		{"g1_2nodes", 4, 1, "nodeA:3,nodeB:3"},
		{"g2_2nodes", 4, 2, "nodeA:4,nodeB:4"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := ghostRun(t, job{users: c.users, ghosts: c.ghosts, hosts: c.hosts,
				// On one node the windows would be node-local, with
				// nothing to switch: test the ghost path there too.
				env:  []string{"GHOST_ASYNC=auto", "GHOST_PREDICT_INT=50ms", "GHOST_NODE_LOCAL=off"},
				args: []string{bin, "6", "300"}})
			expectChecks(t, r, c.users)
			phases := line.FindAllStringSubmatch(r.stdout, -1)
			if len(phases) != 6 {
				t.Fatalf("%d phase lines, want 6:\n%s", len(phases), r)
			}
			for _, p := range phases {
				want := map[string]string{"compute": "on", "comm": "off"}[p[2]]
				if p[3] != want {
					t.Errorf("phase %s (%s): redirection %s, want %s\n%s", p[1], p[2], p[3], want, r)
				}
			}
		})
	}
}
