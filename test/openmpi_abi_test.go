package test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// Under Open MPI, a job's exit status with libghost-openmpi.so preloaded is
// plain Open MPI's when a rank leaves without MPI_Finalize, aborts or dies
// of a signal, on one node: the ghost notices that its users are gone,
// deregisters from its PMIx server and ends with status 0, so ORTE does not
// report it as exiting improperly. As under MPICH (TestExitStatusLikePlain),
// a pair that differs is run again, at most three pairs, before the test
// fails. A rank that dies of a fault prints its stack, as under plain Open
// MPI, whose own handler Go's runtime keeps out (c/crash_openmpi.c).
func TestOpenMPIExitStatusLikePlain(t *testing.T) {
	needMPI(t)
	bin := programFor(t, openMPI, "programs", "ending.c")
	cases := []struct {
		args   []string
		leaves bool // users leave through exit(): the ghost must notice
		trace  bool // a fault in the program: its frames on stderr
	}{
		{[]string{"exit", "3"}, true, false},
		{[]string{"exitone", "3"}, true, false},
		{[]string{"return", "5"}, true, false},
		{[]string{"abort", "7"}, false, false},
		{[]string{"segv"}, false, true},
		{[]string{"kill"}, false, false},
	}
	const users = 2
	for _, c := range cases {
		t.Run(strings.Join(c.args, "_"), func(t *testing.T) {
			args := append([]string{bin}, c.args...)
			var plain, ghost result
			for attempt := range 3 {
				plain = openMPIRunLib(t, job{args: args, timeout: 60 * time.Second}, users, "")
				noneLeft(t, bin)
				ghost = openMPIRunLib(t, job{args: args, timeout: 60 * time.Second,
					env: []string{"GHOST_NG=1", "GHOST_VERBOSE=info"}}, users+1, openMPI.lib)
				noneLeft(t, bin)
				if left := ghostLines(ghost.stderr, "without MPI_Finalize; leaving"); c.leaves && len(left) != 1 {
					t.Fatalf("%d ghost(s) left by themselves, want 1\n%s", len(left), ghost)
				}
				if strings.Contains(ghost.stderr, "exiting improperly") && !strings.Contains(plain.stderr, "exiting improperly") {
					t.Fatalf("Open MPI reports a process exiting improperly under Ghost only:\n%s", ghost)
				}
				if c.trace && !faultTrace.MatchString(ghost.stderr) {
					t.Fatalf("no stack trace of the fault reaching the program's code under Ghost:\n%s", ghost)
				}
				if plain.code == ghost.code {
					t.Logf("status %d under both (pair %d)", ghost.code, attempt+1)
					return
				}
			}
			t.Fatalf("plain Open MPI: %d, Ghost: %d\n--- plain\n%s\n--- ghost\n%s", plain.code, ghost.code, plain, ghost)
		})
	}
}

// faultTrace is c/crash_openmpi.c's report of a fault, down to a frame of
// the program (programFor names Open MPI binaries *_openmpi).
var faultTrace = regexp.MustCompile(`ghost: process \d+: SIGSEGV outside Go code; .*\n(.*\n)*.*_openmpi\(\+0x[0-9a-f]+\)`)

// An mpi4py program's RMA under Open MPI with libghost-openmpi.so preloaded
// by hand: Python loads libmpi only at import, and the library, which links
// libmpi itself, must work there too. The program is the apps suite's
// (test/apps/mpi4py/win_compute.py: Win.Allocate, Lock, Accumulate and
// Fetch_and_op while the target computes), which TestAppsOpenMPIMpi4py
// runs through `ghost run`; here plain Open MPI, Ghost's node-local path
// and its ghost path.
func TestOpenMPIMpi4py(t *testing.T) {
	needMPI(t)
	const python = "/usr/bin/python3" // Debian's, where python3-mpi4py installs
	if err := exec.Command(python, "-c", "import mpi4py").Run(); err != nil {
		t.Skipf("%s has no mpi4py (python3-mpi4py, which make deps and .ci/run install)", python)
	}
	if _, err := exec.LookPath("mpirun.openmpi"); err != nil {
		t.Skipf("mpirun.openmpi not found: %s", openMPI.skipReason)
	}
	script, _ := filepath.Abs(filepath.Join("apps", "mpi4py", "win_compute.py"))
	const users = 2
	for _, c := range []struct {
		name string
		env  []string
	}{
		{"plain", nil},
		{"g1", []string{"GHOST_NG=1"}},
		{"g1-ghostpath", []string{"GHOST_NG=1", "GHOST_NODE_LOCAL=off"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			// 0.5 s of computing, 2 rounds: enough for the checks.
			j := job{args: []string{python, script, "0.5", "2"}, env: c.env, timeout: 60 * time.Second}
			if c.env == nil {
				expectChecks(t, openMPIRunLib(t, j, users, ""), users)
				return
			}
			expectChecks(t, openMPIRunLib(t, j, users+1, openMPI.lib), users)
		})
	}
}

// The metrics textfile of a job under Open MPI: build information names
// Open MPI's handles and library (whose version string's length counts
// its NUL), and operations through the ghost are counted with their bytes,
// which for predefined types come from libghost-openmpi.so's type table.
func TestOpenMPIMetricsTextfile(t *testing.T) {
	needMPI(t)
	bin := programFor(t, openMPI, "rma", "acc.c")
	dir := t.TempDir()
	const users = 2
	r := openMPIRunLib(t, job{args: []string{bin}, timeout: 60 * time.Second,
		env: []string{"GHOST_NG=1", "GHOST_NODE_LOCAL=off", "GHOST_METRICS_TEXTFILE=" + dir}}, users+1, openMPI.lib)
	expectChecks(t, r, users)
	b, err := os.ReadFile(filepath.Join(dir, "ghost_node0.prom"))
	if err != nil {
		t.Fatalf("no textfile: %v\n%s", err, r)
	}
	text := string(b)
	if strings.ContainsRune(text, 0) {
		t.Errorf("the textfile holds a NUL byte:\n%q", text)
	}
	info := regexp.MustCompile(`(?m)^ghost_build_info\{abi="MPI 3\.1 \(Open MPI handles\)",mpi_version="Open MPI v4[^"]*[^" ]",`)
	if !info.MatchString(text) {
		t.Errorf("no ghost_build_info for Open MPI:\n%s", text)
	}
	ops := regexp.MustCompile(`(?m)^ghost_rma_operations_total\{node="0",op="acc",path="ghost"\} (\d+)$`).FindStringSubmatch(text)
	bytes := regexp.MustCompile(`(?m)^ghost_rma_bytes_total\{node="0",op="acc",path="ghost"\} (\d+)$`).FindStringSubmatch(text)
	if ops == nil || bytes == nil || ops[1] == "0" || bytes[1] == "0" {
		t.Errorf("accumulates through the ghost not counted (operations %v, bytes %v):\n%s", ops, bytes, text)
	}
}
