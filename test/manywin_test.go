package test

import (
	"regexp"
	"strconv"
	"testing"
	"time"
)

// Many redirected windows alive at once, on 2 users across 2 fake nodes
// with one and two ghosts per node (issue 12): the program allocates small
// windows over MPI_COMM_WORLD until MPICH runs out of context ids, which
// must come back as an MPI error on both users at the same window, not as
// an abort; then one locked accumulate on the first and the last window,
// and everything is freed.
//
// A redirected window costs three context ids on a user (its handle, its
// node segment and its global window), where plain MPICH's MPI_Win_allocate
// costs one: MPICH 4.0.2 has about 2,040, so about 680 windows fit, against
// 407 when every window also had lock windows and a communicator of its
// own. minLiveWindows is that floor.
const minLiveWindows = 650

var liveWindows = regexp.MustCompile(`(?m)^live windows: (\d+)$`)
var limitError = regexp.MustCompile(`(?m)^allocation \d+ failed with error class \d+`)

func TestManyWindows(t *testing.T) {
	needMPI(t)
	bin := program(t, "manywin.c")
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
