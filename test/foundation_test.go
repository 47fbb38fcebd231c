package test

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The application's MPI_COMM_WORLD holds the user ranks only, on one node
// and on fake nodes, with one and two ghosts per node.
func TestWorldExcludesGhosts(t *testing.T) {
	needMPI(t)
	tests := []struct {
		users, ghosts int
		hosts         string
		perNode       int // user ranks per node
	}{
		{users: 2, ghosts: 1, perNode: 2},
		{users: 2, ghosts: 2, perNode: 2},
		{users: 3, ghosts: 1, perNode: 3},
		{users: 4, ghosts: 1, hosts: "nodeA:3,nodeB:3", perNode: 2},
		{users: 2, ghosts: 2, hosts: "nodeA:3,nodeB:3", perNode: 1},
	}
	for _, tt := range tests {
		name := fmt.Sprintf("n%d_g%d", tt.users, tt.ghosts)
		if tt.hosts != "" {
			name += "_2nodes"
		}
		t.Run(name, func(t *testing.T) {
			bin := program(t, "world.c")
			r := ghostRun(t, job{users: tt.users, ghosts: tt.ghosts, hosts: tt.hosts,
				args: []string{bin, strconv.Itoa(tt.users), strconv.Itoa(tt.perNode)}})
			expectChecks(t, r, tt.users)
		})
	}
}

// MPI_Init_thread at every thread level splits the world the same way.
func TestInitThreadLevels(t *testing.T) {
	needMPI(t)
	bin := program(t, "world.c")
	for _, level := range []string{"single", "funneled", "serialized", "multiple"} {
		t.Run(level, func(t *testing.T) {
			r := ghostRun(t, job{users: 2, ghosts: 1, args: []string{bin, "2", "2", level}})
			expectChecks(t, r, 2)
		})
	}
}

// GHOST_NG=0 is a pure pass-through: every process is a user rank and the
// results equal a plain run's.
func TestPassThrough(t *testing.T) {
	needMPI(t)
	bin := program(t, "world.c")
	plain := mpiexecRun(t, job{args: []string{bin, "3", "3"}}, 3, false)
	expectChecks(t, plain, 3)
	ghost := ghostRun(t, job{users: 3, ghosts: 0, env: []string{"GHOST_VERBOSE=info"}, args: []string{bin, "3", "3"}})
	expectChecks(t, ghost, 3)
	if len(ghostLines(ghost.stderr, "no ghost processes")) != 1 {
		t.Errorf("no notice of GHOST_NG=0:\n%s", ghost)
	}
	if len(ghostLines(ghost.stderr, "ghost 0 of node")) != 0 {
		t.Errorf("a ghost ran under GHOST_NG=0:\n%s", ghost)
	}
}

// Fortran through `use mpi` (libmpifort calls the C MPI_ symbols) and
// through `use mpi_f08` (MPICH's f08 bindings call PMPI_ directly).
// Ghost reads its variables at MPI_Init, from the environment as the
// program left it, not as the process started: a program that sets
// GHOST_NG=1 and GHOST_VERBOSE=info before MPI_Init, started by hydra with
// Ghost preloaded and no GHOST_* variable, gets one ghost (its world is one
// process smaller) and Ghost's info line.
func TestConfigurationReadAtInit(t *testing.T) {
	needMPI(t)
	bin := program(t, "env_at_init.c")
	r := mpiexecRun(t, job{args: []string{bin, "3"}}, 3, true)
	expectChecks(t, r, 2)
	if !strings.Contains(r.stderr, "2 user rank(s), 1 ghost(s) on 1 node(s)") {
		t.Errorf("no info line for 2 users and 1 ghost:\n%s", r)
	}
}

func TestFortran(t *testing.T) {
	needMPI(t)
	line := regexp.MustCompile(`fortran rank (\d+) of 4 sum 6 half 2 expected 2`)
	for _, src := range []string{"world.f90", "world_f08.f90"} {
		bin := program(t, src)
		for _, hosts := range []string{"", "nodeA:3,nodeB:3"} {
			r := ghostRun(t, job{users: 4, ghosts: 1, hosts: hosts, args: []string{bin}})
			if r.code != 0 {
				t.Fatalf("%s: job failed:\n%s", src, r)
			}
			if got := len(line.FindAllString(r.stdout, -1)); got != 4 {
				t.Fatalf("%s, hosts %q: %d of 4 ranks right:\n%s", src, hosts, got, r)
			}
		}
	}
}

// Predefined attributes read from Fortran are those C reads: MPICH's
// Fortran bindings bypass MPI_Comm_get_attr and MPI_Win_get_attr
// (c/fortran.c). On one node (a node-local window) and on 2 fake nodes (a
// window through the ghosts).
func TestFortranAttributes(t *testing.T) {
	needMPI(t)
	bin := program(t, "win_attrs.f90")
	for _, tc := range []struct {
		ghosts int
		hosts  string
	}{{0, ""}, {1, "nodeA:3,nodeB:3"}} {
		r := ghostRun(t, job{users: 4, ghosts: tc.ghosts, hosts: tc.hosts, args: []string{bin}})
		expectChecks(t, r, 4)
	}
}

// An errhandler made in Fortran and set on MPI_COMM_WORLD fires with
// MPI_COMM_WORLD's handle, and on a duplicate of the world with the
// duplicate's (programs/errh_world.f90). Under MPICH the Fortran binding
// makes it through the C function; Open MPI's makes it inside libmpi, and
// Ghost interposes its Fortran entry point (c/world.c).
func TestFortranErrhandlerOnWorld(t *testing.T) {
	needMPI(t)
	for _, ompi := range []bool{false, true} {
		t.Run(map[bool]string{false: "mpich", true: "openmpi"}[ompi], func(t *testing.T) {
			bin := programFor(t, mpiOf(ompi), "programs", "errh_world.f90")
			expectChecks(t, ghostRun(t, job{users: 2, ghosts: 1, args: []string{bin}}), 2)
		})
	}
}

// An MPI_Win_allocate that fails on one rank under MPI_ERRORS_RETURN
// returns an error on every rank, and the job goes on (plain MPICH 4.0.2
// hangs here). Windows on one node, with and without a ghost; windows
// that span nodes still abort inside the ghosts' internal allocation.
func TestWindowAllocationFailure(t *testing.T) {
	needMPI(t)
	bin := program(t, "alloc_fail.c")
	for _, ghosts := range []int{0, 1} {
		r := ghostRun(t, job{users: 3, ghosts: ghosts, args: []string{bin}, timeout: 60 * time.Second})
		expectChecks(t, r, 3)
	}
	// A window that spans nodes: the greedy rank on the first node, then
	// on the second; its users and ghosts agree the failure.
	for _, greedy := range []string{"1", "2"} {
		r := ghostRun(t, job{users: 3, ghosts: 1, hosts: "nodeA:3,nodeB:2", args: []string{bin, greedy}, timeout: 60 * time.Second})
		expectChecks(t, r, 3)
	}
}

// A rank's exit status after MPI_Finalize is the job's status.
func TestExitCodes(t *testing.T) {
	needMPI(t)
	bin := program(t, "lifecycle.c")
	for _, code := range []int{0, 3} {
		r := ghostRun(t, job{users: 2, ghosts: 1, args: []string{bin, "exit", strconv.Itoa(code)}})
		if r.code != code {
			t.Errorf("exit %d: job status %d\n%s", code, r.code, r)
		}
	}
}

// MPI_Abort on the world ends every process, ghosts included, with the code.
func TestAbort(t *testing.T) {
	needMPI(t)
	bin := program(t, "lifecycle.c")
	for _, hosts := range []string{"", "nodeA:2,nodeB:2"} {
		r := ghostRun(t, job{users: 2, ghosts: 1, hosts: hosts, args: []string{bin, "abort", "7"}, timeout: 30 * time.Second})
		// MPICH's own abort notice is not asserted: hydra may kill the
		// proxy before it forwards that last line.
		if r.code != 7 {
			t.Errorf("hosts %q: MPI_Abort(7) gave status %d\n%s", hosts, r.code, r)
		}
	}
}

// Every bad configuration gets exactly one message, from one rank, naming
// the variable, the value and what is accepted, then a non-zero status.
func TestBadConfiguration(t *testing.T) {
	needMPI(t)
	bin := program(t, "world.c")
	tests := []struct {
		name  string
		procs int
		env   []string
		want  []string // substrings of the one error line
	}{
		{"not an integer", 3, []string{"GHOST_NG=abc"}, []string{`GHOST_NG="abc" is not valid`, "auto, or an integer from 0 to 8"}},
		{"bad node-local", 3, []string{"GHOST_NODE_LOCAL=sometimes"}, []string{`GHOST_NODE_LOCAL="sometimes" is not valid`, "on or off"}},
		{"negative", 3, []string{"GHOST_NG=-1"}, []string{`GHOST_NG="-1" is not valid`}},
		{"casper alias", 3, []string{"CSP_NG=x"}, []string{`CSP_NG="x" is not valid`}},
		{"no user left", 2, []string{"GHOST_NG=2"}, []string{"GHOST_NG=2 leaves no user process on node 0", "accepted values are 0 to 1"}},
		{"bad wait", 3, []string{"GHOST_WAIT=sleepy"}, []string{`GHOST_WAIT="sleepy" is not valid`, "spin, yield or adaptive"}},
		{"bad verbose", 3, []string{"GHOST_VERBOSE=loud"}, []string{`GHOST_VERBOSE="loud"`, "error, warn, info or debug"}},
	}
	// The same rules under Open MPI, with libghost-openmpi.so preloaded
	// into the Open MPI build of the program.
	binOpenMPI := programFor(t, openMPI, "programs", "world.c")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := mpiexecRun(t, job{env: tt.env, args: []string{bin, "2", "2"}, timeout: 30 * time.Second}, tt.procs, true)
			expectOneConfigError(t, r, tt.want)
		})
		t.Run("openmpi/"+tt.name, func(t *testing.T) {
			r := openMPIRunLib(t, job{env: tt.env, args: []string{binOpenMPI, "2", "2"}, timeout: 30 * time.Second},
				tt.procs, openMPI.lib)
			expectOneConfigError(t, r, tt.want)
		})
	}
	// The launcher rejects a bad -g before starting anything.
	r := execute(t, job{}, filepath.Join(buildDir, "ghost"), "run", "-n", "2", "-g", "two", "--", bin)
	if r.code != 2 || !strings.Contains(r.stderr, `-g "two" is not valid`) {
		t.Errorf("ghost run -g two:\n%s", r)
	}
	r = execute(t, job{}, filepath.Join(buildDir, "ghost"), "run", "-n", "5", "--hosts", "nodeA:3,nodeB:3", "--", bin)
	if r.code != 2 || !strings.Contains(r.stderr, "cannot hold 5 users plus 1 ghost(s) per host") {
		t.Errorf("ghost run with too few slots:\n%s", r)
	}
}

// expectOneConfigError checks a job refused for a bad setting: it failed,
// with exactly one error line that holds every string of want, before the
// application ran.
func expectOneConfigError(t *testing.T, r result, want []string) {
	t.Helper()
	if r.code == 0 {
		t.Fatalf("job succeeded:\n%s", r)
	}
	errs := ghostLines(r.stderr, "error:")
	if len(errs) != 1 {
		t.Fatalf("%d error lines, want 1:\n%s", len(errs), r)
	}
	for _, w := range want {
		if !strings.Contains(errs[0], w) {
			t.Errorf("error %q lacks %q", errs[0], w)
		}
	}
	if strings.Contains(r.stdout, "checks") {
		t.Errorf("the application ran:\n%s", r)
	}
}

// An unknown GHOST_ variable is a warning, once per job, with a suggestion.
func TestUnknownVariableWarning(t *testing.T) {
	needMPI(t)
	bin := program(t, "world.c")
	r := ghostRun(t, job{users: 2, ghosts: 1, env: []string{"GHOST_WIAT=spin"}, args: []string{bin, "2", "2"}})
	expectChecks(t, r, 2)
	warns := ghostLines(r.stderr, "warning:")
	if len(warns) != 1 || !strings.Contains(warns[0], "GHOST_WIAT is not a Ghost variable") ||
		!strings.Contains(warns[0], "did you mean GHOST_WAIT?") {
		t.Fatalf("warnings = %q\n%s", warns, r)
	}
}

// `ghost run --dry-run` prints the mpiexec line and starts nothing.
func TestDryRun(t *testing.T) {
	needMPI(t)
	ghost := filepath.Join(buildDir, "ghost")
	lib := filepath.Join(buildDir, "libghost.so")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-n", "3", "-g", "1"}, "-launcher fork -hosts nodeA:3,nodeB:2 -n 5 -genv LD_PRELOAD " + lib + " -genv GHOST_NG 1 -verbose ./app 'x y'"},
		// GHOST_NG=auto: 3 users fit on the first host, so no ghost.
		{[]string{"-n", "3"}, "-launcher fork -hosts nodeA:3 -n 3 -genv LD_PRELOAD " + lib + " -genv GHOST_NG 0 -verbose ./app 'x y'"},
		// 4 users span both hosts: one ghost on each.
		{[]string{"-n", "4"}, "-launcher fork -hosts nodeA:3,nodeB:3 -n 6 -genv LD_PRELOAD " + lib + " -genv GHOST_NG 1 -verbose ./app 'x y'"},
	} {
		args := append(append([]string{"run"}, tc.args...), "--hosts", "nodeA:3,nodeB:3", "--dry-run", "--mpiexec-arg", "-verbose", "--", "./app", "x y")
		r := execute(t, job{}, ghost, args...)
		if r.code != 0 || !strings.Contains(r.stdout, tc.want) {
			t.Fatalf("dry run %v printed %q, want it to contain %q\n%s", tc.args, r.stdout, tc.want, r)
		}
	}
	help := execute(t, job{}, ghost, "run", "--help")
	for _, w := range []string{"-n N", "-g G", "--hosts", "--mpiexec-arg", "--dry-run", "GHOST_LIB", "GHOST_MPIEXEC"} {
		if !strings.Contains(help.stderr+help.stdout, w) {
			t.Errorf("ghost run --help lacks %q", w)
		}
	}
}

var ghostCPU = regexp.MustCompile(`ghost 0 of node (\d+) \(world rank \d+\): \d+ commands, \d+ polls, \d+ wakes; cpu ([0-9.]+) ms over ([0-9.]+) s wall \(([0-9.]+)% of a core\)`)

// An idle ghost must leave the cores to the users: while 2 users compute for
// 3 s on this 2-core machine, the ghost's CPU time stays under 10% of a core.
// This is a resource bound, not a timing test: it reads the ghost's own
// getrusage, which is independent of machine speed.
func TestIdleGhostCPU(t *testing.T) {
	needMPI(t)
	bin := program(t, "lifecycle.c")
	r := ghostRun(t, job{users: 2, ghosts: 1, env: []string{"GHOST_VERBOSE=info"}, args: []string{bin, "compute", "3"}})
	if r.code != 0 {
		t.Fatalf("job failed:\n%s", r)
	}
	m := ghostCPU.FindStringSubmatch(r.stderr)
	if m == nil {
		t.Fatalf("no ghost CPU report:\n%s", r)
	}
	pct, _ := strconv.ParseFloat(m[4], 64)
	t.Logf("idle ghost: cpu %s ms over %s s = %.2f%% of a core", m[2], m[3], pct)
	if pct >= 10 {
		t.Errorf("idle ghost used %.2f%% of a core, want < 10%%", pct)
	}
}
