package test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"github.com/ghost-mpi/ghost/internal/metrics"
	"github.com/ghost-mpi/ghost/profile"
)

// GHOST_ASYNC=auto in a program whose ranks never meet between their
// allocations and their end (test/programs/quiesce.c): windows switch at
// quiescence points, outside collectives, and counters updated with ACC,
// FOP and CAS loops across the switches stay exact. The window whose
// operations are always in flight on the direct path (B, flush_local
// only) never switches to redirection there before its final flush_all; it
// may switch to the direct path, each user completing its accumulates
// through the ghosts itself when asked, and its counter stays exact. The
// one used in lock epochs only (C) switches between epochs. With
// GHOST_TEST_FAULT=quiesce_flip every rank coordinates flips both ways
// after its flushes, so the protocol runs dozens of times; without it, the
// stall rule switches window A to redirection, since rank 0 computes while
// the others wait on it. The trace and the metrics record every such
// switch at point "quiescence". The ompi_ case runs the program built with
// Open MPI (libghost-openmpi.so).
func TestQuiescenceSwitchesSafely(t *testing.T) {
	needMPI(t)
	states := regexp.MustCompile(`(?m)^states A=(on|off) B=(on|off) C=(on|off) E=(on|off) iterations (\d+)$`)
	loopsEnded := regexp.MustCompile(`(?m)^loops ended ([0-9.]+)$`)
	for _, c := range []struct {
		name   string
		users  int
		ghosts int
		hosts  string
		flip   bool
		ompi   bool
	}{
		{"g1_2nodes_flip", 4, 1, "nodeA:3,nodeB:3", true, false},
		{"g2_2nodes_flip", 4, 2, "nodeA:4,nodeB:4", true, false},
		{"g1_flip", 3, 1, "", true, false},
		{"g1_2nodes_stalls", 4, 1, "nodeA:3,nodeB:3", false, false},
		{"ompi_g1_2nodes_flip", 4, 1, "nodeA:3,nodeB:3", true, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			bin := programFor(t, mpiOf(c.ompi), "programs", "quiesce.c")
			dir := t.TempDir()
			trace := filepath.Join(dir, "trace.jsonl")
			textfiles := filepath.Join(dir, "metrics")
			if err := os.Mkdir(textfiles, 0o755); err != nil {
				t.Fatal(err)
			}
			env := []string{"GHOST_ASYNC=auto", "GHOST_TRACE=" + trace,
				"GHOST_METRICS_TEXTFILE=" + textfiles, fmt.Sprintf("GHOST_METRICS_ADDR=127.0.0.1:%d", freePort(t)),
				// On one node the windows would be node-local, with
				// nothing to switch: test the ghost path there too.
				"GHOST_NODE_LOCAL=off"}
			if c.flip {
				env = append(env, "GHOST_TEST_FAULT=quiesce_flip:5ms")
			}
			// Under quiesce_flip every rank flips A, the window with the
			// lowest id, every 5 ms, and an attempt gives way to one on a
			// lower id: C, which answers only between its lock epochs, then
			// switched 0 to 8 times in a second with two ghosts per node.
			seconds := "1"
			if c.flip {
				seconds = "3"
			}
			r := ghostRun(t, job{users: c.users, ghosts: c.ghosts, hosts: c.hosts, env: env,
				args: []string{bin, seconds, "2"}})
			expectChecks(t, r, c.users)
			if m := states.FindStringSubmatch(r.stdout); m == nil {
				t.Fatalf("no states line:\n%s", r)
			}
			m := loopsEnded.FindStringSubmatch(r.stdout)
			if m == nil {
				t.Fatalf("no loops ended line:\n%s", r)
			}
			var loopsEnd float64
			fmt.Sscan(m[1], &loopsEnd)

			records, err := profile.ReadFile(trace)
			if err != nil {
				t.Fatalf("reading the trace: %v\n%s", err, r)
			}
			// The windows in the order of allocation: A, B, C, E.
			start := profile.Start(records)
			var ids []int64
			byWindow := map[int64][2]int{} // quiescence switches to off, to on
			onInLoop := map[int64]int{}    // switches to on before the first rank left its loop
			for _, e := range profile.Switches(records) {
				if !slices.Contains(ids, e.Window) {
					ids = append(ids, e.Window)
				}
				switch e.Point {
				case profile.PointQuiescence:
					n := byWindow[e.Window]
					if e.To == profile.StateOn {
						n[1]++
					} else {
						n[0]++
					}
					byWindow[e.Window] = n
					if e.To == profile.StateOn && e.First < loopsEnd-start {
						onInLoop[e.Window]++
					}
				case profile.PointAllocation, profile.PointFence, profile.PointImplicit:
				default:
					t.Errorf("switch %+v at a point the program never reaches", e)
				}
			}
			slices.Sort(ids)
			if len(ids) < 3 {
				t.Fatalf("switches of %d windows in the trace, want A, B and C at least\n%s", len(ids), r)
			}
			a, b, cw := byWindow[ids[0]], byWindow[ids[1]], byWindow[ids[2]]
			t.Logf("quiescence switches (to off, to on): A %v, B %v (%d to on in the loops), C %v; all %v",
				a, b, onInLoop[ids[1]], cw, byWindow)
			if onInLoop[ids[1]] > 0 {
				t.Errorf("B (accumulates completed only locally, never quiet on the direct path) switched to redirection %d times at quiescence points while the ranks looped, want none", onInLoop[ids[1]])
			}
			if c.flip && !c.ompi && cw[0]+cw[1] == 0 {
				t.Errorf("C (lock epochs) never switched at a quiescence point under quiesce_flip, though its ranks are quiet between epochs")
			}
			// Under Open MPI on fake nodes, where every operation through a
			// ghost of the other node costs milliseconds, most attempts run
			// out of time: one switch proves the path.
			if c.flip && !c.ompi && (a[0] == 0 || a[1] == 0) {
				t.Errorf("A switched %v times (to off, to on) under quiesce_flip, want both ways", a)
			}
			if c.flip && c.ompi && a[0]+a[1] == 0 {
				t.Errorf("A never switched at a quiescence point under quiesce_flip")
			}
			if !c.flip && a[1] == 0 {
				t.Errorf("A never switched to redirection at a quiescence point, though rank 0 computes while the others wait on it")
			}

			files, _ := filepath.Glob(filepath.Join(textfiles, "*.prom"))
			recs, err := metrics.ReadTextfiles(files)
			if err != nil || len(recs) == 0 {
				t.Fatalf("metrics textfiles %v: %v\n%s", files, err, r)
			}
			var switched float64
			for _, rec := range recs {
				row := rec.Points["quiescence"]
				switched += row[0] + row[1]
			}
			if switched == 0 {
				t.Errorf("no transition counted at point quiescence in the metrics")
			}
		})
	}
}

// A computation phase and then a communication phase with no collective
// between them, on 2 fake nodes (test/programs/busy_phase.c): the stall
// rule switches the window to redirection at a quiescence point while rank
// 0 waits on rank 1, which computes longer, and the busy rule switches it
// back to the direct path at one inside the communication phase, where the
// ranks spend their time in RMA calls; the counter is exact. The stall rule may switch the window on
// again in the communication phase, where completions that wait on a busy
// peer's progress read as stalls (the weight that the busy switch set
// halves at each renewal of the stretch), and the busy rule then switches
// it back, so the state at the phase's end proves nothing.
func TestQuiescenceLeavesBusyPhase(t *testing.T) {
	needMPI(t)
	ended := regexp.MustCompile(`(?m)^rank \d+: computation ended (on|off), communication ended (on|off)$`)
	phases := regexp.MustCompile(`(?m)^phases ([0-9.]+) ([0-9.]+)$`)
	bin := programFor(t, mpiOf(false), "programs", "busy_phase.c")
	trace := filepath.Join(t.TempDir(), "trace.jsonl")
	r := ghostRun(t, job{users: 2, ghosts: 1, hosts: "nodeA:2,nodeB:2",
		env:  []string{"GHOST_ASYNC=auto", "GHOST_TRACE=" + trace},
		args: []string{bin, "0.5", "0.5", "5"}})
	expectChecks(t, r, 2)
	states := ended.FindAllStringSubmatch(r.stdout, -1)
	m := phases.FindStringSubmatch(r.stdout)
	if len(states) != 2 || m == nil {
		t.Fatalf("want two ranks' states and the phases line:\n%s", r)
	}
	var began, end float64
	fmt.Sscan(m[1], &began)
	fmt.Sscan(m[2], &end)
	records, err := profile.ReadFile(trace)
	if err != nil {
		t.Fatalf("reading the trace: %v\n%s", err, r)
	}
	start := profile.Start(records)
	var onInComp, offInComm int
	for _, e := range profile.Switches(records) {
		switch {
		case e.Point != profile.PointQuiescence:
		case e.To == profile.StateOn && e.First < began-start:
			onInComp++
		case e.To == profile.StateOff && e.First >= began-start && e.Last <= end-start:
			offInComm++
		}
	}
	var lines []string
	for _, st := range states {
		lines = append(lines, st[0])
	}
	t.Logf("%q; quiescence switches: %d to on in the computation phase, %d to off in the communication phase",
		lines, onInComp, offInComm)
	if onInComp == 0 {
		t.Fatalf("the window never switched to redirection at a quiescence point, though rank 0 waited on rank 1's computation\n%s", r)
	}
	if offInComm == 0 {
		t.Errorf("no switch to the direct path at a quiescence point in the communication phase")
	}
}

// Under GHOST_ASYNC=auto MPI_Barrier becomes Ghost's own collective, and a
// rank that holds a window able to switch outside collectives waits in it
// differently (answering switches). Ranks that hold no such window must
// still take the same kind of collective: here only the even ranks hold
// a window (on their own communicator, spanning the two fake nodes), and
// every rank meets in barriers on MPI_COMM_WORLD (a blocking allreduce on
// some ranks against a nonblocking one on others hung).
func TestBarrierWhereOnlySomeRanksHoldWindows(t *testing.T) {
	needMPI(t)
	for _, ompi := range []bool{false, true} {
		name := "mpich"
		if ompi {
			name = "ompi"
		}
		t.Run(name, func(t *testing.T) {
			bin := programFor(t, mpiOf(ompi), "programs", "barrier_subwin.c")
			r := ghostRun(t, job{users: 4, ghosts: 1, hosts: "nodeA:3,nodeB:3",
				env:  []string{"GHOST_ASYNC=auto", "GHOST_TEST_FAULT=quiesce_flip:1ms"},
				args: []string{bin, "40"}})
			expectChecks(t, r, 4)
			if !regexp.MustCompile(`(?m)^rank 0 of 4: 2 checks, 0 failed$`).MatchString(r.stdout) {
				t.Errorf("rank 0 did not check the sum:\n%s", r)
			}
		})
	}
}
