package test

import (
	"testing"
)

// Redirection switched on and off, phase by phase, through MPI_Win_set_info
// at fences and with symmetric=true: the state agreed at each point is the
// same on every rank, and accumulate atomicity (ACC, FOP, CAS loops) and
// exclusive-lock mutual exclusion hold across every switch. The ompi_
// cases run the program built with Open MPI (libghost-openmpi.so).
func TestSwitchingKeepsAtomicity(t *testing.T) {
	needMPI(t)
	for _, c := range []struct {
		name   string
		users  int
		ghosts int
		hosts  string
		env    []string
		ompi   bool
	}{
		{"g1", 3, 1, "", nil, false},
		{"g2_spread", 3, 2, "", []string{"GHOST_LOAD=op"}, false},
		{"g1_2nodes", 4, 1, "nodeA:3,nodeB:3", nil, false},
		// Profiling votes and the ghost-offloaded exchange run underneath
		// the explicit switches.
		{"auto_gp", 3, 1, "", []string{"GHOST_ASYNC=auto", "GHOST_PREDICT_INT=50ms", "GHOST_GSYNC_INT=100ms"}, false},
		{"ompi_g1", 3, 1, "", nil, true},
		{"ompi_auto_gp", 3, 1, "", []string{"GHOST_ASYNC=auto", "GHOST_PREDICT_INT=50ms", "GHOST_GSYNC_INT=100ms"}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			bin := programFor(t, mpiOf(c.ompi), "programs", "switch.c")
			// The switches act on the ghost path, which a one-node window
			// takes only with the node-local path off.
			env := append([]string{"GHOST_NODE_LOCAL=off"}, c.env...)
			args := []string{bin, "8", "40"}
			if c.ompi {
				args = append(args, "cas32") // switch.c: Open MPI's crash
			}
			r := ghostRun(t, job{users: c.users, ghosts: c.ghosts, hosts: c.hosts, env: env, args: args})
			expectChecks(t, r, c.users)
		})
	}
}
