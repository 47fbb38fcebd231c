package test

import (
	"regexp"
	"strconv"
	"testing"
	"time"
)

var (
	userRSS  = regexp.MustCompile(`rank (\d+): \d+ ops in [0-9.]+ s, rss_kb before (\d+) after (\d+)`)
	ghostRSS = regexp.MustCompile(`ghost at world rank (\d+): every user finalized; rss_kb (\d+)`)
)

// soakOps is the length of one long run.
const soakOps = 3000000

// maxGrowthKB bounds what a process may gain over the second long run: half
// a byte per operation. The ghost serves all the operations, so a leak of
// one byte per operation would add about 3 MB to it (1.5 MB to each user).
// What stays below the bound does not scale with the work: measured here,
// the ghost gains about 200 kB per run whether the run has 10^6 or 4*10^6
// operations (memory malloc keeps after a window's internal objects are
// freed), users 30-50 kB. The ghost's size comes from two jobs, so it
// reports it after returning the Go heap's garbage to the system; even so,
// jobs doing the same work differ by up to 0.7 MB.
const maxGrowthKB = soakOps / 2 / 1024

// soakOps mixed operations, made twice, leave no process bigger after the
// second time than after the first: neither the users nor the ghost. (The
// first run brings the pools to their high-water marks.) Through the ghosts
// (the node-local path off, so that one node exercises them), and on the
// node-local path, where only the users exist.
func TestSoak(t *testing.T) {
	needMPI(t)
	bin := program(t, "soak.c")
	for _, c := range []struct {
		name   string
		ghosts int
		env    string
	}{
		{"ghost_path", 1, "GHOST_NODE_LOCAL=off"},
		{"node_local", 0, "GHOST_NODE_LOCAL=on"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := ghostRun(t, job{users: 2, ghosts: c.ghosts, env: []string{"GHOST_VERBOSE=debug", c.env},
				args: []string{bin, strconv.Itoa(soakOps)}, timeout: 8 * time.Minute})
			expectChecks(t, r, 2)
			users := userRSS.FindAllStringSubmatch(r.stdout, -1)
			if len(users) != 2 {
				t.Fatalf("%d user RSS reports, want 2:\n%s", len(users), r)
			}
			for _, m := range users {
				before, _ := strconv.Atoi(m[2])
				after, _ := strconv.Atoi(m[3])
				t.Logf("user rank %s: rss %d kB -> %d kB", m[1], before, after)
				if after-before > maxGrowthKB {
					t.Errorf("user rank %s grew by %d kB over %d operations", m[1], after-before, soakOps)
				}
			}
			if c.ghosts == 0 {
				return
			}
			// The ghost takes no part in allocating or freeing windows
			// that live in the node arena, so it reports its size once,
			// when every user has finalized. A job that makes the long
			// run once is the baseline: the ghost of the job above must
			// not be bigger by more than a pool's noise.
			once := ghostRun(t, job{users: 2, ghosts: c.ghosts, env: []string{"GHOST_VERBOSE=debug", c.env},
				args: []string{bin, strconv.Itoa(soakOps), "once"}, timeout: 8 * time.Minute})
			expectChecks(t, once, 2)
			base, twice := ghostRSS.FindStringSubmatch(once.stderr), ghostRSS.FindStringSubmatch(r.stderr)
			if base == nil || twice == nil {
				t.Fatalf("no ghost RSS report:\n%s\n%s", once, r)
			}
			before, _ := strconv.Atoi(base[2])
			after, _ := strconv.Atoi(twice[2])
			t.Logf("ghost: rss %d kB after one long run, %d kB after two", before, after)
			if after-before > maxGrowthKB {
				t.Errorf("the ghost grew by %d kB over %d more operations", after-before, soakOps)
			}
		})
	}
}
