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
)

// Asynchronous progress as a functional test, not a timed one: the target
// spins outside MPI watching its window memory while the origin does lock,
// one operation, unlock. Under Ghost the value must arrive while the target
// is still outside MPI (within a generous 10 s); under plain MPICH it must
// not, which is the baseline Ghost exists to fix.
func TestAsyncProgress(t *testing.T) {
	needMPI(t)
	bin := program(t, "async_progress.c")
	for _, op := range []string{"acc", "put"} {
		for _, cfg := range []struct {
			name   string
			ghosts int
			hosts  string
			users  int
		}{
			{"g0", 0, "", 2}, // the node-local path, no ghost at all
			{"g1", 1, "", 2},
			{"g2", 2, "", 2},
			{"g1_2nodes", 1, "nodeA:2,nodeB:2", 2},
		} {
			t.Run(fmt.Sprintf("%s_%s", op, cfg.name), func(t *testing.T) {
				r := ghostRun(t, job{users: cfg.users, ghosts: cfg.ghosts, hosts: cfg.hosts, args: []string{bin, op, "10"}})
				if r.code != 0 || !strings.Contains(r.stdout, "target: arrived_outside_mpi=1") ||
					!strings.Contains(r.stdout, "target: final value 42") {
					t.Fatalf("the value did not arrive while the target computed:\n%s", r)
				}
			})
		}
		// Redirection off: the window is MPICH's own again, so progress is
		// plain MPICH's, but Ghost's realignment keeps the value right on
		// this 8-byte window, where plain MPICH 4.0.2 loses it. (On one node
		// this needs the node-local path off: it progresses by itself.)
		t.Run(op+"_ghost_async_off", func(t *testing.T) {
			r := ghostRun(t, job{users: 2, ghosts: 1, env: []string{"GHOST_ASYNC=off", "GHOST_NODE_LOCAL=off"}, args: []string{bin, op, "2"}})
			if r.code != 0 || !strings.Contains(r.stdout, "target: arrived_outside_mpi=0") ||
				!strings.Contains(r.stdout, "target: final value 42") {
				t.Fatalf("GHOST_ASYNC=off should behave like plain MPICH, with the value intact:\n%s", r)
			}
		})
		// Switched off at run time: the same window's operations now go
		// straight to the target, so progress is MPICH's own again.
		t.Run(op+"_switched_off", func(t *testing.T) {
			r := ghostRun(t, job{users: 2, ghosts: 1, env: []string{"GHOST_NODE_LOCAL=off"}, args: []string{bin, op, "2", "switch-off"}})
			if r.code != 0 || !strings.Contains(r.stdout, "target: arrived_outside_mpi=0") ||
				!strings.Contains(r.stdout, "target: final value 42") {
				t.Fatalf("after async_config=off the target should be reached directly:\n%s", r)
			}
		})
		t.Run(op+"_plain_baseline", func(t *testing.T) {
			r := mpiexecRun(t, job{args: []string{bin, op, "2"}}, 2, false)
			if r.code != 0 || !strings.Contains(r.stdout, "target: arrived_outside_mpi=0") {
				t.Fatalf("plain MPICH completed the operation without the target: the baseline changed:\n%s", r)
			}
		})
	}
}

// TestSleepingGhostLatency: epochs on the ghost path that find the ghost
// asleep (GHOST_WAIT=adaptive sleeps up to 8 ms at a time here) must not wait
// for its timed wakes. Origins ring as they issue and again from MPI's
// progress loop while they wait on the ghost (c/doorbell.h). Before that,
// 69 to 99 of 100 lock/accumulate/unlock epochs took over 1 ms, with a
// median of 1.19 ms; after it, at most 1 did, with a median of 0.19 ms
// (bench/results/2026-11-25-sleeping-ghost.md). On the AMD VM under PVM,
// where every thread switch costs more, the same code gives medians of
// 0.25-0.50 ms with 1 to 7 epochs of 60 over 1 ms
// (bench/results/2026-11-27-session35-checks.md, 2026-11-27-ghost-naps.md),
// so the limits sit between that and the failure: a median of 0.8 ms and a
// quarter of the epochs over 1 ms.
func TestSleepingGhostLatency(t *testing.T) {
	needMPI(t)
	bin := program(t, "sleeping_ghost.c")
	r := ghostRun(t, job{users: 2, ghosts: 1, env: []string{"GHOST_NODE_LOCAL=off"}, args: []string{bin, "60", "3"}})
	judgeSleepingGhost(t, r, 800, 15)
}

// TestSleepingGhostOtherNode: the same epochs from another (fake) node,
// whose origin cannot ring the ghost's doorbell. Over MPICH's UCX, the
// traffic itself ends the ghost's doze (c/ucxwake.c): the ghost, idle for
// 3 ms before each epoch, is in a doze long enough to ask for that
// (wait.RemoteWakeSleep) when the epoch's first message comes, so the
// thread that watches UCX rings it about once an epoch. Without the
// wakes, the epochs waited for the ghost's timed wakes: medians of 0.6-5.0
// ms, 17 to 60 of 60 over 1 ms; with them, medians of 0.15-0.46 ms and 2
// to 14 over 1 ms (bench/results/2026-11-27-ucx-wakeups.md). Those ranges
// overlap on this VM, so the rings are what the test requires; the
// latency limits catch only a gross loss.
func TestSleepingGhostOtherNode(t *testing.T) {
	needMPI(t)
	bin := program(t, "sleeping_ghost.c")
	r := ghostRun(t, job{users: 2, ghosts: 1, hosts: "nodeA:2,nodeB:2", env: []string{"GHOST_VERBOSE=debug"}, args: []string{bin, "60", "3"}})
	if !strings.Contains(r.stderr, "traffic from other nodes wakes it: true") {
		t.Fatalf("the target's ghost cannot be woken by traffic from another node (MPICH over UCX with wake-up events):\n%s", r)
	}
	most := largestCount(ghostRings, r.stderr)
	t.Logf("the target's ghost was rung %d times by traffic from the other node", most)
	if most < 30 {
		t.Errorf("traffic from the other node rang the target's ghost %d times in 60 epochs, want at least 30\n%s", most, r)
	}
	judgeSleepingGhost(t, r, 1200, 30)
}

// GHOST_UCX_WAKE=off leaves MPICH's UCX context without wake-up events,
// so no ghost can be woken by traffic from another node, and the job still
// runs and counts every epoch (at the ghost's timed wakes).
func TestUCXWakesOptOut(t *testing.T) {
	needMPI(t)
	bin := program(t, "sleeping_ghost.c")
	r := ghostRun(t, job{users: 2, ghosts: 1, hosts: "nodeA:2,nodeB:2",
		env: []string{"GHOST_VERBOSE=debug", "GHOST_UCX_WAKE=off"}, args: []string{bin, "20", "3"}})
	if r.code != 0 || !strings.Contains(r.stdout, "target: counted 20 epochs") {
		t.Fatalf("job failed:\n%s", r)
	}
	if !strings.Contains(r.stderr, "traffic from other nodes wakes it: false") ||
		strings.Contains(r.stderr, "traffic from other nodes wakes it: true") {
		t.Errorf("with GHOST_UCX_WAKE=off a ghost still set up the wakes from UCX:\n%s", r)
	}
}

// TestIdleGhostDozesLong: a ghost that every origin can wake needs no timed
// wake to see work, so an idle one dozes up to wait.WakeableMaxSleep (8 ms)
// instead of 1 ms: each timed wake takes a rank's turn on a shared core.
// On 2 fake nodes with redirection off, the ghosts serve the users' window
// and get no traffic while the users compute for a second. With UCX's
// wake-up events, traffic from the other node could end their dozes, and
// they poll about once per 8 ms; with GHOST_UCX_WAKE=off only their timed
// wakes serve that node, and they keep the 1 ms ceiling. The test compares
// the two ghosts' poll counts (each ghost's own report), which depend on the
// dozes' lengths, not on the machine's speed.
func TestIdleGhostDozesLong(t *testing.T) {
	needMPI(t)
	bin := program(t, "lifecycle.c")
	polls := func(extra ...string) int {
		env := append([]string{"GHOST_VERBOSE=info", "GHOST_ASYNC=off"}, extra...)
		r := ghostRun(t, job{users: 2, ghosts: 1, hosts: "nodeA:2,nodeB:2", env: env, args: []string{bin, "window", "1"}})
		if r.code != 0 || strings.Count(r.stdout, "computed") != 2 {
			t.Fatalf("job failed:\n%s", r)
		}
		most := largestCount(ghostPolls, r.stderr)
		if most == 0 {
			t.Fatalf("no ghost reported its polls:\n%s", r)
		}
		return most
	}
	wakeable, timed := polls(), polls("GHOST_UCX_WAKE=off")
	t.Logf("idle ghost polls over a second: %d woken by traffic, %d with timed wakes only", wakeable, timed)
	if 2*wakeable > timed {
		t.Errorf("a ghost that traffic can wake polled %d times, against %d for one that it cannot: want under half", wakeable, timed)
	}
}

// What each ghost reports at its end: its polls (GHOST_VERBOSE=info), and
// how often traffic from other nodes rang it (GHOST_VERBOSE=debug).
var (
	ghostPolls = regexp.MustCompile(`\d+ commands, (\d+) polls, \d+ wakes`)
	ghostRings = regexp.MustCompile(`traffic from other nodes rang its doorbell (\d+) times`)
)

// largestCount is the largest number that re's first group captures in s
// (one per ghost), 0 if none.
func largestCount(re *regexp.Regexp, s string) int {
	most := 0
	for _, m := range re.FindAllStringSubmatch(s, -1) {
		n, _ := strconv.Atoi(m[1])
		most = max(most, n)
	}
	return most
}

// judgeSleepingGhost checks sleeping_ghost.c's report against a median (µs)
// and a count of epochs over 1 ms.
func judgeSleepingGhost(t *testing.T, r result, maxMedian float64, maxOver int) {
	t.Helper()
	m := regexp.MustCompile(`origin: epochs 60 median_us ([\d.]+) p90_us ([\d.]+) max_us ([\d.]+) over_1ms (\d+)`).FindStringSubmatch(r.stdout)
	if r.code != 0 || m == nil || !strings.Contains(r.stdout, "target: counted 60 epochs") {
		t.Fatalf("job failed:\n%s", r)
	}
	median, _ := strconv.ParseFloat(m[1], 64)
	over, _ := strconv.Atoi(m[4])
	t.Logf("median %s us, p90 %s us, slowest %s us, %d of 60 over 1 ms", m[1], m[2], m[3], over)
	if median > maxMedian || over > maxOver {
		t.Errorf("epochs wait for the sleeping ghost's timed wakes: median %.0f us, %d of 60 over 1 ms\n%s", median, over, r)
	}
}

// TestWaitingUserLeavesItsCore: a user that waits in MPI while the host has
// more runnable processes than cores sleeps between polls instead of only
// yielding (c/politeness.c), so that the processes it waits for get its
// core. The job runs on 2 CPUs: rank 1 and the ghost serve a stream of
// accumulates to rank 0, which waits in MPI_Barrier for 400 ms. A waiter
// that only yields kept its core: it used 303-323 ms of CPU in that wait,
// and rank 1 completed 40-75 thousand operations; dozing, it used 15-20
// ms, and rank 1 completed 187-226 thousand
// (bench/results/2026-11-27-user-doze.md). The test judges the waiter's
// CPU share, which does not depend on the machine's speed.
func TestWaitingUserLeavesItsCore(t *testing.T) {
	needMPI(t)
	if runtime.NumCPU() < 2 {
		t.Skip("needs 2 CPUs to bind the job to")
	}
	if _, err := exec.LookPath("taskset"); err != nil {
		t.Skip("taskset not found (util-linux)")
	}
	bin := program(t, "waiting_user.c")
	j := job{env: []string{"GHOST_NODE_LOCAL=off", "GHOST_ASYNC=on"}}
	r := execute(t, j, "taskset", "-c", "0,1", filepath.Join(buildDir, "ghost"), "run", "-n", "2", "-g", "1", "--", bin, "400")
	m := regexp.MustCompile(`waiter: wall_ms ([\d.]+) cpu_ms ([\d.]+)`).FindStringSubmatch(r.stdout)
	if r.code != 0 || m == nil || !strings.Contains(r.stdout, " correct") {
		t.Fatalf("job failed:\n%s", r)
	}
	wall, _ := strconv.ParseFloat(m[1], 64)
	cpu, _ := strconv.ParseFloat(m[2], 64)
	t.Logf("the waiter used %.1f ms of CPU in a wait of %.1f ms", cpu, wall)
	if cpu > 0.25*wall {
		t.Errorf("the waiting user kept its core: %.1f ms of CPU in a wait of %.1f ms\n%s", cpu, wall, r)
	}
}
