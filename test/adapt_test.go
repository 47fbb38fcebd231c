package test

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/ghost-mpi/ghost/profile"
)

// GHOST_ASYNC=auto: each process profiles itself, and at every fence the
// window adopts the majority vote. Compute phases (CR near 0) must leave
// redirection on, communication phases (CR near 1) must turn it off; the
// program checks that every rank holds the same state after each fence and
// that no accumulate was lost across the switches. The ompi_ cases run the
// same program built with Open MPI (libghost-openmpi.so).
func TestProfilingSwitchesByPhase(t *testing.T) {
	needMPI(t)
	line := regexp.MustCompile(`(?m)^phase (\d+) (compute|comm) -> (on|off)$`)
	exchanges := regexp.MustCompile(`ghost at world rank \d+: (\d+) GP exchanges`)
	for _, c := range []struct {
		name  string
		users int
		hosts string
		gsync string
		ompi  bool
	}{
		{"one_node", 2, "", "0", false},
		{"two_nodes", 2, "nodeA:2,nodeB:2", "0", false},
		{"one_node_gp", 3, "", "100ms", false},
		{"two_nodes_gp", 2, "nodeA:2,nodeB:2", "100ms", false},
		{"ompi_one_node", 2, "", "0", true},
		{"ompi_two_nodes", 2, "nodeA:2,nodeB:2", "0", true},
		{"ompi_one_node_gp", 3, "", "100ms", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			bin := programFor(t, mpiOf(c.ompi), "programs", "phases.c")
			r := ghostRun(t, job{users: c.users, ghosts: 1, hosts: c.hosts,
				env: []string{"GHOST_ASYNC=auto", "GHOST_PREDICT_INT=100ms", "GHOST_GSYNC_INT=" + c.gsync, "GHOST_VERBOSE=info",
					// On one node the window would be node-local, with
					// nothing to adapt: test the ghost path there too.
					"GHOST_NODE_LOCAL=off"},
				args: []string{bin, "6", "300"}})
			if c.gsync != "0" {
				m := exchanges.FindAllStringSubmatch(r.stderr, -1)
				if len(m) == 0 {
					t.Fatalf("no GP exchange report:\n%s", r)
				}
				for _, x := range m {
					if n, _ := strconv.Atoi(x[1]); n == 0 {
						t.Errorf("a sync ghost made no exchange:\n%s", r)
					}
				}
			}
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

// TestProfilingVotePerProcess (issue 14): under MPI_THREAD_MULTIPLE the
// vote is the process's. Three worker threads per rank run lock,
// accumulate, fetch-and-op and unlock epochs at once, each on a window of
// its own, while the main thread computes; then every thread computes. The
// process communicated in the first kind of phase and must vote
// redirection off there, even though the thread that reaches the fence
// (the main one) never called MPI in it; after a compute phase the windows
// must be on again. Values are checked exactly by the program. The
// thresholds are set apart (0.25 and 0.45) because three threads of four
// in MPI give a CR near 0.75 only on idle cores: on a shared 2-core box the
// workers are descheduled outside MPI too.
func TestProfilingVotePerProcess(t *testing.T) {
	needMPI(t)
	bin := program(t, "vote_threads.c")
	line := regexp.MustCompile(`(?m)^phase (\d+) (compute|comm) -> (on|off)$`)
	for _, c := range []struct{ name, hosts string }{
		{"one_node", ""},
		{"two_nodes", "nodeA:2,nodeB:2"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := ghostRun(t, job{users: 2, ghosts: 1, hosts: c.hosts,
				env: []string{"GHOST_ASYNC=auto", "GHOST_PREDICT_INT=50ms", "GHOST_CR_LOW=0.25", "GHOST_CR_HIGH=0.45",
					"GHOST_NODE_LOCAL=off"},
				args: []string{bin, "4", "300"}})
			expectChecks(t, r, 2)
			phases := line.FindAllStringSubmatch(r.stdout, -1)
			if len(phases) != 4 {
				t.Fatalf("%d phase lines, want 4:\n%s", len(phases), r)
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

// TestStallsAreNotCommunication (issue 13): with redirection off, a flush
// to a target that computes waits until the target calls MPI again. That
// wait (a stall: a completion several times slower than the fastest recent
// one to the same target) is what redirection removes, so it must count as
// time outside communication, or a rank that only waits on its computing
// neighbour votes redirection off and keeps it off. In stall phases rank 0
// flushes to rank 1, which computes in 20 ms chunks, and each such phase
// starts with redirection off; both ranks must then vote it on. In comm
// phases both ranks accumulate and flush in a tight loop, and redirection
// must be off after them. The trace must show rank 0's stalls, and `ghost
// report` a column of them. On a machine whose cores are oversubscribed
// (other jobs), stalls count as communication, since a target may then
// wait for a core rather than compute: the stall phases are then only
// logged. Quiescence points are off (GHOST_QUIESCE): each phase is one
// lock_all inside a fence epoch, where a quiescence point would switch
// redirection on within the phase's first stretch and leave no stalls to
// measure; the votes under test are cast at the fences.
func TestStallsAreNotCommunication(t *testing.T) {
	needMPI(t)
	bin := program(t, "stall.c")
	line := regexp.MustCompile(`(?m)^phase (\d+) (stall|comm) -> (on|off)$`)
	for _, c := range []struct{ name, hosts string }{
		{"one_node", ""},
		{"two_nodes", "nodeA:2,nodeB:2"},
	} {
		t.Run(c.name, func(t *testing.T) {
			trace := filepath.Join(t.TempDir(), "trace.jsonl")
			r := ghostRun(t, job{users: 2, ghosts: 1, hosts: c.hosts,
				env: []string{"GHOST_ASYNC=auto", "GHOST_PREDICT_INT=100ms", "GHOST_NODE_LOCAL=off", "GHOST_QUIESCE=off",
					"GHOST_TRACE=" + trace},
				args: []string{bin, "4", "400"}})
			expectChecks(t, r, 2)
			records, err := profile.ReadFile(trace)
			if err != nil {
				t.Fatal(err)
			}
			// Rank 0 spends most of two 400 ms stall phases stalled. When
			// more tasks were runnable than cores, the library counted the
			// stalls as communication (they may have been waits for a core),
			// and the stall phases may rightly end off.
			stalled, crowded := 0.0, false
			for _, rec := range records {
				if rec.Rank == 0 {
					stalled += rec.Stall
				}
				crowded = crowded || rec.Over
			}
			if stalled < 0.2 {
				t.Errorf("rank 0 stalled %.3f s in the trace, want most of the stall phases (0.8 s)", stalled)
			}
			phases := line.FindAllStringSubmatch(r.stdout, -1)
			if len(phases) != 4 {
				t.Fatalf("%d phase lines, want 4:\n%s", len(phases), r)
			}
			for _, p := range phases {
				want := map[string]string{"stall": "on", "comm": "off"}[p[2]]
				switch {
				case p[3] == want:
				case p[2] == "stall" && crowded:
					t.Logf("phase %s (stall) ended %s: the cores were oversubscribed (another job runs here), "+
						"so stalls counted as communication", p[1], p[3])
				default:
					t.Errorf("phase %s (%s): redirection %s, want %s\n%s", p[1], p[2], p[3], want, r)
				}
			}
			out, err := exec.Command(filepath.Join(buildDir, "ghost"), "report", trace).CombinedOutput()
			if err != nil || !strings.Contains(string(out), "of it stalled s") {
				t.Errorf("ghost report: %v\n%s", err, out)
			}
		})
	}
}

// TestPinnedWindowKeepsItsState: under GHOST_ASYNC=auto a window allocated
// with async_config=on is the application's to switch. The votes leave it
// on through a communication phase (fences and Global Arrays' flush_all +
// MPI_Barrier) that keeps the other window off, and leave it off, once
// MPI_Win_set_info has set it so, through a compute phase that switches
// the other window on (pinned.c checks the states and the values).
func TestPinnedWindowKeepsItsState(t *testing.T) {
	needMPI(t)
	bin := program(t, "pinned.c")
	for _, c := range []struct{ name, hosts string }{
		{"one_node", ""},
		{"two_nodes", "nodeA:2,nodeB:2"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := ghostRun(t, job{users: 2, ghosts: 1, hosts: c.hosts,
				env: []string{"GHOST_ASYNC=auto", "GHOST_PREDICT_INT=50ms",
					"GHOST_NODE_LOCAL=off"}, // one node: the ghost path, where the state matters
				args: []string{bin, "300", "200"}})
			expectChecks(t, r, 2)
			if !strings.Contains(r.stdout, "A on P off") {
				t.Errorf("want the unpinned window on and the pinned one off at the end:\n%s", r)
			}
		})
	}
}

// TestAutoPresumesFromCores: under GHOST_ASYNC=auto a window allocated
// before anything was measured starts redirected when every process of the
// job on its host has a core of its own, and direct when they share cores
// (the ghost would then take CPU from the ranks). The job runs under
// taskset, which gives every process (ghosts included: they are copies of
// the program) the CPUs named. Two fake nodes share the host's cores: their
// processes count together.
func TestAutoPresumesFromCores(t *testing.T) {
	needMPI(t)
	if _, err := exec.LookPath("taskset"); err != nil {
		t.Skip("taskset not found")
	}
	bin := program(t, "start_state.c")
	cases := []struct {
		name         string
		users, cpus  int
		hosts, start string
	}{
		{"1 user and 1 ghost on 1 CPU", 1, 1, "", "off"},
		{"1 user and 1 ghost on 2 CPUs", 1, 2, "", "on"},
		{"2 fake nodes of 1 user and 1 ghost on 2 CPUs", 2, 2, "nodeA:2,nodeB:2", "off"},
		{"2 fake nodes of 1 user and 1 ghost on 4 CPUs", 2, 4, "nodeA:2,nodeB:2", "on"},
	}
	for _, c := range cases {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			if runtime.NumCPU() < c.cpus {
				t.Skipf("needs %d CPUs, this machine has %d", c.cpus, runtime.NumCPU())
			}
			r := ghostRun(t, job{users: c.users, ghosts: 1, hosts: c.hosts,
				env:  []string{"GHOST_ASYNC=auto", "GHOST_NODE_LOCAL=off"},
				args: []string{"taskset", "-c", fmt.Sprintf("0-%d", c.cpus-1), bin}})
			expectChecks(t, r, c.users)
			if want := "start " + c.start; !strings.Contains(r.stdout, want+"\n") {
				t.Errorf("want %q:\n%s", want, r)
			}
		})
	}
}
