package test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ghost-mpi/ghost/internal/metrics"
)

// syncCounts is what one run of programs/sync_messages.c cost in internal
// MPI operations, summed over its nodes' textfile records.
type syncCounts struct {
	Nodes int    `json:"nodes"`
	Ranks int    `json:"ranks"` // user ranks, one per node
	Mode  string `json:"mode"`  // "one" (right neighbour) or "all" targets
	// Calls by call label, and the internal operations made for them by
	// call and kind, over every process of the job (users and ghosts).
	Calls       map[string]float64 `json:"calls"`
	P2P         map[string]float64 `json:"p2p"`
	Wakes       map[string]float64 `json:"wakes"`
	Collectives map[string]float64 `json:"collectives"`
}

// perCall is the average of ops over the calls of call: what one call on
// one process cost.
func (c syncCounts) perCall(ops map[string]float64, call string) float64 {
	if c.Calls[call] == 0 {
		return 0
	}
	return ops[call] / c.Calls[call]
}

// runSyncMessages runs the program on nodes fake nodes with 1 user and 1
// ghost each.
func runSyncMessages(t *testing.T, nodes int, mode string) syncCounts {
	t.Helper()
	dir := t.TempDir()
	hosts := make([]string, nodes)
	for i := range hosts {
		hosts[i] = fmt.Sprintf("n%d:2", i)
	}
	res := ghostRun(t, job{users: nodes, ghosts: 1, hosts: strings.Join(hosts, ","),
		env:     []string{"GHOST_METRICS_TEXTFILE=" + dir, "GHOST_METRICS_ADDR=off"},
		args:    []string{program(t, "sync_messages.c"), mode},
		timeout: 2 * time.Minute})
	expectChecks(t, res, nodes)
	paths, _ := filepath.Glob(filepath.Join(dir, "*.prom"))
	if len(paths) != nodes {
		t.Fatalf("%d textfile records for %d nodes\n%s", len(paths), nodes, res)
	}
	recs, err := metrics.ReadTextfiles(paths)
	if err != nil {
		t.Fatal(err)
	}
	c := syncCounts{Nodes: nodes, Ranks: nodes, Mode: mode, Calls: map[string]float64{},
		P2P: map[string]float64{}, Wakes: map[string]float64{}, Collectives: map[string]float64{}}
	for _, r := range recs {
		for call, n := range r.SyncCalls {
			c.Calls[call] += n
		}
		for call, ops := range r.Internal {
			c.P2P[call] += ops[0]
			c.Wakes[call] += ops[1]
			c.Collectives[call] += ops[2]
		}
	}
	return c
}

// syncRounds is ROUNDS in programs/sync_messages.c.
const syncRounds = 8

// TestSyncMessages: a rank that touches one target between
// synchronizations pays the same internal messages per flush_all,
// unlock_all(NOCHECK) and fence on 2, 4 and 8 nodes (the touched list of
// c/epoch.c); one that touches every target pays one flush per target. With
// SYNC_MESSAGES_RESULTS=PREFIX it also runs the all-targets mode on every
// size and writes PREFIX.json and PREFIX.md (bench/sync-messages.sh).
func TestSyncMessages(t *testing.T) {
	needMPI(t)
	results := os.Getenv("SYNC_MESSAGES_RESULTS")
	var runs []syncCounts
	for _, nodes := range []int{2, 4, 8} {
		c := runSyncMessages(t, nodes, "one")
		runs = append(runs, c)
		// One flush of the one target's ghost, and at most one wake
		// message for it (rate-limited, so fewer is possible), whatever
		// the job's size. The first fence has nothing to flush. An
		// uncontended lock is a fetch-and-op on the target's lock word and
		// its flush; an unlock the flush of the epoch's operations, the
		// release and its flush (c/lock.c).
		perCall := map[string]float64{"flush_all": 1, "unlock_all": 1, "fence": syncRounds / (syncRounds + 1.0),
			"lock": 2, "unlock": 3, "flush": 1}
		for call, want := range perCall {
			if got := c.perCall(c.P2P, call); got != want {
				t.Errorf("%d nodes, one target: %.3f point-to-point operations per %s, want %.3f "+
					"(flushes and lock-word atomics at the target's ghost)", nodes, got, call, want)
			}
			if got := c.perCall(c.Wakes, call); got > 1 {
				t.Errorf("%d nodes, one target: %.2f wake messages per %s, want at most 1", nodes, got, call)
			}
		}
		want := map[string]float64{"lock": syncRounds, "unlock": syncRounds, "flush": syncRounds, "lock_all": syncRounds,
			"unlock_all": syncRounds, "flush_all": syncRounds, "fence": syncRounds + 1}
		for call, n := range want {
			if c.Calls[call] != n*float64(nodes) {
				t.Errorf("%d nodes: %v %s calls, want %v", nodes, c.Calls[call], call, n*float64(nodes))
			}
		}
		// The fence's barrier, and nothing else collective.
		if got := c.perCall(c.Collectives, "fence"); got != 1 {
			t.Errorf("%d nodes: %.2f collectives per fence, want 1", nodes, got)
		}
		if c.P2P["lock_all"]+c.Wakes["lock_all"] != 0 {
			t.Errorf("%d nodes: lock_all(NOCHECK) made %v internal operations, want none", nodes, c.P2P["lock_all"])
		}
		t.Logf("%d nodes, one target: p2p per flush_all %.2f, unlock_all %.2f, fence %.2f; per allocation, job-wide: %v p2p, %v collectives",
			nodes, c.perCall(c.P2P, "flush_all"), c.perCall(c.P2P, "unlock_all"), c.perCall(c.P2P, "fence"),
			c.P2P["win_allocate"], c.Collectives["win_allocate"])
		// The window lives in the pooled global window (shim/pooled.go):
		// per allocation each user makes 5 collectives over the window's
		// users (its private communicator's duplicate, the first time; the
		// users' list; the window id; the arena offsets; the handle), and
		// no ghost takes part.
		if got, want := c.P2P["win_allocate"], 0.0; got != want {
			t.Errorf("%d nodes: %v point-to-point operations per allocation, want %v", nodes, got, want)
		}
		if got, want := c.Collectives["win_allocate"], float64(5*nodes); got != want {
			t.Errorf("%d nodes: %v collectives per allocation, job-wide, want %v", nodes, got, want)
		}
	}
	for _, nodes := range []int{2, 4, 8} {
		if results == "" && nodes != 8 {
			continue
		}
		c := runSyncMessages(t, nodes, "all")
		runs = append(runs, c)
		// A flush per target on another node: the cost follows what was
		// touched. (The rank's own target is on its node, where a put is a
		// copy in the node segment with nothing to flush.)
		for _, call := range []string{"flush_all", "unlock_all"} {
			if got := c.perCall(c.P2P, call); got != float64(nodes-1) {
				t.Errorf("%d nodes, all targets: %.2f point-to-point operations per %s, want %d",
					nodes, got, call, nodes-1)
			}
		}
		t.Logf("%d nodes, all targets: p2p per flush_all %.2f, unlock_all %.2f, fence %.2f",
			nodes, c.perCall(c.P2P, "flush_all"), c.perCall(c.P2P, "unlock_all"), c.perCall(c.P2P, "fence"))
	}
	if results != "" {
		writeSyncResults(t, results, runs)
	}
}

// writeSyncResults writes the runs to prefix.json and a table to prefix.md.
func writeSyncResults(t *testing.T, prefix string, runs []syncCounts) {
	t.Helper()
	js, _ := json.MarshalIndent(runs, "", "  ")
	if err := os.WriteFile(prefix+".json", append(js, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Internal messages per synchronization call\n\n")
	fmt.Fprintf(&b, "Written by `bench/sync-messages.sh` (test/sync_messages_test.go) on %s, from the\n", time.Now().UTC().Format("2006-01-02"))
	fmt.Fprintf(&b, "`ghost_sync_internal_operations_total` and `ghost_sync_calls_total` textfile records\n")
	fmt.Fprintf(&b, "of test/programs/sync_messages.c: fake nodes on one host, 1 user + 1 ghost per node,\n")
	fmt.Fprintf(&b, "%d calls of each kind per rank. Each cell is point-to-point operations (lock-word atomics,\n", syncRounds)
	fmt.Fprintf(&b, "flushes, commands) / wake messages / collectives, per call and process. Wake messages are\n")
	fmt.Fprintf(&b, "rate-limited to one per ghost per 0.2 ms, so their number depends on timing: at most one\n")
	fmt.Fprintf(&b, "per touched target on another node. Fence: %d calls, the first with `MPI_MODE_NOPRECEDE`\n", syncRounds+1)
	fmt.Fprintf(&b, "(nothing to complete). Allocation and free: job-wide totals for one window, every user\n")
	fmt.Fprintf(&b, "and ghost taking part.\n\n")
	calls := []string{"lock", "flush", "unlock", "lock_all", "flush_all", "unlock_all", "fence"}
	fmt.Fprintf(&b, "| nodes | targets |")
	for _, c := range calls {
		fmt.Fprintf(&b, " %s |", c)
	}
	fmt.Fprintf(&b, " win_allocate (job) | win_free (job) |\n|---|---|")
	for range calls {
		fmt.Fprintf(&b, "---|")
	}
	fmt.Fprintf(&b, "---|---|\n")
	for _, r := range runs {
		targets := "right neighbour"
		if r.Mode == "all" {
			targets = "all"
		}
		fmt.Fprintf(&b, "| %d | %s |", r.Nodes, targets)
		for _, c := range calls {
			fmt.Fprintf(&b, " %.2f / %.2f / %.2f |", r.perCall(r.P2P, c), r.perCall(r.Wakes, c), r.perCall(r.Collectives, c))
		}
		for _, c := range []string{"win_allocate", "win_free"} {
			fmt.Fprintf(&b, " %.0f / %.0f / %.0f |", r.P2P[c], r.Wakes[c], r.Collectives[c])
		}
		fmt.Fprintf(&b, "\n")
	}
	if err := os.WriteFile(prefix+".md", []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}
