package test

import (
	"regexp"
	"strconv"
	"testing"
	"time"
)

// TestWindowLimit: redirected windows past MPICH's limit, on 2 users across
// 2 fake nodes with one and two ghosts per node (issue 12). The program
// allocates small windows over MPI_COMM_WORLD until MPICH runs out of
// context ids, which must come back as an MPI error on both users at the
// same window, not as an abort; then a locked accumulate on the first and
// the last window, and everything is freed and a new window works.
//
// A redirected window in the pooled global window costs one context id,
// its handle, as plain MPICH's MPI_Win_allocate does (about 2,040 per
// process); minLiveWindows is the floor (TestManyWindows checks 2,000
// windows in depth).
const minLiveWindows = 2000

var liveWindows = regexp.MustCompile(`(?m)^live windows: (\d+)$`)
var limitError = regexp.MustCompile(`(?m)^allocation \d+ failed with error class \d+`)

func TestWindowLimit(t *testing.T) {
	needMPI(t)
	bin := program(t, "window_limit.c")
	for _, tt := range []struct {
		ghosts int
		hosts  string
	}{{1, "nodeA:2,nodeB:2"}, {2, "nodeA:3,nodeB:3"}} {
		t.Run("g"+strconv.Itoa(tt.ghosts), func(t *testing.T) {
			r := ghostRun(t, job{users: 2, ghosts: tt.ghosts, hosts: tt.hosts,
				args: []string{bin, "3000", strconv.Itoa(minLiveWindows)}, timeout: 120 * time.Second})
			expectChecks(t, r, 2)
			m := liveWindows.FindStringSubmatch(r.stdout)
			if m == nil || !limitError.MatchString(r.stdout) {
				t.Fatalf("no limit reached and reported as an error:\n%s", r)
			}
			t.Logf("%s windows alive at once", m[1])
		})
	}
}

// TestArenaOverflow: windows that do not fit in their users' parts of the
// node arena get internal objects of their own, beside windows in the
// pooled global window, on 2 fake nodes with one and two ghosts per node;
// locks, accumulates at both ends and fence epochs work on both kinds
// (programs/arena_overflow.c: 6 windows of 256 MiB against 1 GiB parts).
func TestArenaOverflow(t *testing.T) {
	needMPI(t)
	bin := program(t, "arena_overflow.c")
	for _, tt := range []struct {
		ghosts int
		hosts  string
	}{{1, "nodeA:2,nodeB:2"}, {2, "nodeA:3,nodeB:3"}} {
		t.Run("g"+strconv.Itoa(tt.ghosts), func(t *testing.T) {
			r := ghostRun(t, job{users: 2, ghosts: tt.ghosts, hosts: tt.hosts, env: []string{"GHOST_VERBOSE=debug"},
				args: []string{bin}, timeout: 2 * time.Minute})
			expectChecks(t, r, 2)
			if len(ghostLines(r.stderr, "no room in some user's arena part")) == 0 {
				t.Fatalf("no window left the arena:\n%s", r)
			}
		})
	}
}
