package test

import (
	"regexp"
	"strconv"
	"testing"
	"time"
)

var (
	userRSS  = regexp.MustCompile(`rank (\d+): \d+ ops in [0-9.]+ s, rss_kb before (\d+) after (\d+)`)
	ghostRSS = regexp.MustCompile(`ghost at world rank (\d+): window [0-9a-f]+ freed; rss_kb (\d+)`)
)

// maxGrowthKB bounds what a process may gain over the long run. A leak of
// one byte per operation would add about 500 kB per user rank here; what
// remains below the bound is allocator and page-cache noise.
const maxGrowthKB = 256

// 10^6 mixed operations through the ghosts leave no process bigger than it
// was after a warm-up: neither the users nor the ghost.
func TestSoak(t *testing.T) {
	needMPI(t)
	bin := program(t, "soak.c")
	r := ghostRun(t, job{users: 2, ghosts: 1, env: []string{"GHOST_VERBOSE=debug"},
		args: []string{bin, "1000000"}, timeout: 8 * time.Minute})
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
			t.Errorf("user rank %s grew by %d kB over 10^6 operations", m[1], after-before)
		}
	}
	// The ghost reports its size as each window goes: after the warm-up
	// window and after the long one.
	ghost := ghostRSS.FindAllStringSubmatch(r.stderr, -1)
	if len(ghost) != 2 {
		t.Fatalf("%d ghost RSS reports, want 2:\n%s", len(ghost), r)
	}
	before, _ := strconv.Atoi(ghost[0][2])
	after, _ := strconv.Atoi(ghost[1][2])
	t.Logf("ghost: rss %d kB -> %d kB", before, after)
	if after-before > maxGrowthKB {
		t.Errorf("the ghost grew by %d kB over 10^6 operations", after-before)
	}
}
