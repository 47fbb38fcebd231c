// Package test runs real MPI jobs under Ghost: C and Fortran programs from
// programs/, compiled with MPICH's wrappers and started with `ghost run` or
// hydra's mpiexec, each under a timeout. Nothing here mocks MPI.
package test

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

var (
	buildDir string // holds libghost.so and ghost
	progDir  string // compiled test programs
)

func TestMain(m *testing.M) {
	flag.Parse()
	if testing.Short() {
		fmt.Println("test: -short: MPI integration tests skipped")
		os.Exit(m.Run())
	}
	// Inside a Slurm allocation `ghost run` launches with srun; these tests
	// expect hydra on this machine (TestSlurm starts its own allocations).
	for _, v := range []string{"SLURM_JOB_ID", "SLURM_JOBID"} {
		os.Unsetenv(v)
	}
	// Every MPI process of MPICH and Open MPI loads its node's topology with
	// hwloc, whose PCI and Linux I/O discovery reads each device's
	// configuration from /sys. No test places anything by device, and a
	// 4-rank job of plain MPICH took a sixth less CPU to start and end
	// without them on the 2-core AMD VM (medians 0.55 s against 0.67,
	// bench/results/2026-11-27-launch-cost.md), which over the hundreds of
	// jobs of the suite is a minute or more. A caller's own choice of
	// components is kept.
	if _, set := os.LookupEnv("HWLOC_COMPONENTS"); !set {
		os.Setenv("HWLOC_COMPONENTS", "-linuxio,-pci")
	}
	buildDir = os.Getenv("LIBGHOST_BUILD_DIR")
	if buildDir == "" {
		buildDir, _ = filepath.Abs("../build")
	}
	for _, f := range []string{"libghost.so", "ghost"} {
		if _, err := os.Stat(filepath.Join(buildDir, f)); err != nil {
			fmt.Fprintf(os.Stderr, "test: %s missing in %s: run `make` first (or `make test`)\n", f, buildDir)
			os.Exit(1)
		}
	}
	dir, err := os.MkdirTemp("", "ghost-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	progDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// needMPI skips a test in -short mode.
func needMPI(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("MPI integration test")
	}
}

var compileMu sync.Mutex

// program compiles programs/<name> once (C with mpicc, Fortran with mpif90)
// and returns the binary's path.
func program(t *testing.T, name string) string {
	t.Helper()
	return programIn(t, "programs", name)
}

// programIn is program for a source in another directory (e.g. rma/); the
// directory prefixes the binary's name.
func programIn(t *testing.T, dir, name string) string {
	t.Helper()
	return programFor(t, mpich, dir, name)
}

// mpiFlavour is an MPI implementation the tests build programs with and
// launch them under.
type mpiFlavour struct {
	suffix     string // of the binaries' names: the two ABIs' builds differ
	cc, fc     string // compiler wrappers
	lib        string // Ghost's library for this ABI, in buildDir
	skipReason string // when set and cc is missing: why the test is skipped
	// fpkg: the pkg-config package whose libdir a Fortran program is
	// linked against first. Debian's mpifort.openmpi links -lmpi from the
	// system path, MPICH's libmpi where the mpi alternative points there
	// (docs/openmpi.md, mixed binaries).
	fpkg string
}

var (
	mpich   = mpiFlavour{cc: "mpicc", fc: "mpif90", lib: "libghost.so"}
	openMPI = mpiFlavour{suffix: "_openmpi", cc: "mpicc.openmpi", fc: "mpifort.openmpi", lib: "libghost-openmpi.so",
		skipReason: "the Open MPI tests need libopenmpi-dev and openmpi-bin (make deps and .ci/run install them)",
		fpkg:       "ompi-fort"}
)

// mpiOf is the MPI a test case runs under: Open MPI where ompi is set
// (ghost run then starts the program with libghost-openmpi.so through
// mpirun.openmpi, as it reads the binary's MPI), else MPICH.
func mpiOf(ompi bool) mpiFlavour {
	if ompi {
		return openMPI
	}
	return mpich
}

// programFor is programIn for the MPI of f.
func programFor(t *testing.T, f mpiFlavour, dir, name string) string {
	t.Helper()
	if f.skipReason != "" {
		if _, err := exec.LookPath(f.cc); err != nil {
			t.Skipf("%s not found: %s", f.cc, f.skipReason)
		}
	}
	compileMu.Lock()
	defer compileMu.Unlock()
	base := strings.TrimSuffix(name, filepath.Ext(name))
	if filepath.Ext(name) == ".f90" {
		base += "_f"
	}
	if dir != "programs" {
		base = dir + "_" + base
	}
	bin := filepath.Join(progDir, base+f.suffix)
	if _, err := os.Stat(bin); err == nil {
		return bin
	}
	src, _ := filepath.Abs(filepath.Join(dir, name))
	compiler := f.cc
	args := []string{"-O2", "-Wall", "-I" + filepath.Dir(src), "-o", bin, src, "-lpthread"}
	if filepath.Ext(name) == ".f90" {
		compiler = f.fc
		// Module files go beside the binary, not into the test's directory.
		args = []string{"-O2", "-J", filepath.Dir(bin), "-o", bin, src}
		if f.fpkg != "" {
			dir, err := exec.Command("pkg-config", "--variable=libdir", f.fpkg).Output()
			if err != nil || strings.TrimSpace(string(dir)) == "" {
				t.Fatalf("pkg-config --variable=libdir %s: %v", f.fpkg, err)
			}
			args = append(args, "-L"+strings.TrimSpace(string(dir)))
		}
	}
	out, err := exec.Command(compiler, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", compiler, name, err, out)
	}
	return bin
}

// job describes one MPI run.
type job struct {
	users   int
	ghosts  int      // -g for ghost run; ignored by plain runs
	hosts   string   // fake nodes, e.g. "nodeA:3,nodeB:3"
	env     []string // extra NAME=value for the ranks (inherited by mpiexec)
	args    []string // program and its arguments
	timeout time.Duration
}

// result is what a finished run left behind.
type result struct {
	stdout, stderr string
	code           int
	timedOut       bool
}

func (r result) String() string {
	return fmt.Sprintf("exit %d (timed out: %v)\n--- stdout\n%s--- stderr\n%s", r.code, r.timedOut, r.stdout, r.stderr)
}

// ghostRun starts the job through the real launcher, `ghost run`.
func ghostRun(t *testing.T, j job) result {
	t.Helper()
	args := []string{"run", "-n", strconv.Itoa(j.users), "-g", strconv.Itoa(j.ghosts)}
	if j.hosts != "" {
		args = append(args, "--hosts", j.hosts)
	}
	args = append(append(args, "--"), j.args...)
	return execute(t, j, filepath.Join(buildDir, "ghost"), args...)
}

// mpiexecRun starts exactly procs processes with hydra, optionally with
// libghost.so preloaded into the ranks (never into mpiexec itself).
func mpiexecRun(t *testing.T, j job, procs int, preload bool) result {
	t.Helper()
	args := []string{}
	if j.hosts != "" {
		args = append(args, "-launcher", "fork", "-hosts", j.hosts)
	}
	args = append(args, "-n", strconv.Itoa(procs))
	if preload {
		args = append(args, "-genv", "LD_PRELOAD", filepath.Join(buildDir, "libghost.so"))
	}
	return execute(t, j, "mpiexec.hydra", append(args, j.args...)...)
}

// openMPIRunLib starts exactly procs processes with Open MPI's mpirun on
// this node, with lib (a file in buildDir; none when empty) preloaded into
// the ranks and j.env passed to them: mpirun forwards only what -x names.
// A plain LD_PRELOAD would load Go into mpirun and its orted as well.
func openMPIRunLib(t *testing.T, j job, procs int, lib string) result {
	t.Helper()
	args := []string{"--oversubscribe", "-np", strconv.Itoa(procs)}
	if os.Geteuid() == 0 {
		args = append(args, "--allow-run-as-root") // CI runs as root
	}
	if lib != "" {
		// A missing file would only make the loader warn, and the job
		// would run, and pass, without Ghost.
		if _, err := os.Stat(filepath.Join(buildDir, lib)); err != nil {
			t.Fatalf("%s missing in %s: run `make` (it needs libopenmpi-dev)", lib, buildDir)
		}
		args = append(args, "-x", "LD_PRELOAD="+filepath.Join(buildDir, lib))
	}
	for _, e := range j.env {
		args = append(args, "-x", e)
	}
	return execute(t, j, "mpirun.openmpi", append(args, j.args...)...)
}

func execute(t *testing.T, j job, name string, args ...string) result {
	t.Helper()
	timeout := j.timeout
	if timeout == 0 {
		timeout = 60 * time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	// Each job gets its own Open MPI session directory. In the shared
	// one (/tmp/ompi.HOST.UID), an mpirun that ends removes the directory
	// once its own entry is gone, and a parallel subtest's mpirun that had
	// just created it then failed to create its entry there ("A call to
	// mkdir was unable to create the desired directory", CI at 9d59394).
	// MPICH ignores the variable.
	cmd.Env = append(os.Environ(), "OMPI_MCA_orte_tmpdir_base="+t.TempDir())
	cmd.Env = append(cmd.Env, j.env...)
	// mpiexec forks proxies and ranks: on timeout, kill the whole group.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var stacks string
	cmd.Cancel = func() error {
		stacks = hungStacks(cmd.Process.Pid)
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	res := result{stdout: stdout.String(), stderr: stderr.String(), timedOut: ctx.Err() != nil}
	var exitErr *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exitErr):
		res.code = exitErr.ExitCode()
	default:
		t.Fatalf("%s: %v", name, err)
	}
	if res.timedOut {
		t.Fatalf("%s %s timed out after %v\n%s--- stacks when it timed out\n%s", name, strings.Join(args, " "), timeout, res, stacks)
	}
	return res
}

var summaryLine = regexp.MustCompile(`(?m)^rank (\d+) of (\d+): (\d+) checks, (\d+) failed$`)

// expectChecks asserts that a self-checking program (programs/check.h)
// finished on every one of want ranks with no failed check.
func expectChecks(t *testing.T, r result, want int) {
	t.Helper()
	if r.code != 0 || strings.Contains(r.stdout, "FAIL") {
		t.Fatalf("job failed:\n%s", r)
	}
	seen := map[int]bool{}
	for _, m := range summaryLine.FindAllStringSubmatch(r.stdout, -1) {
		rank, _ := strconv.Atoi(m[1])
		size, _ := strconv.Atoi(m[2])
		checks, _ := strconv.Atoi(m[3])
		if size != want || m[4] != "0" || checks == 0 {
			t.Errorf("bad summary %q", m[0])
		}
		seen[rank] = true
	}
	if len(seen) != want {
		t.Fatalf("%d of %d ranks reported:\n%s", len(seen), want, r)
	}
}

// ghostLines returns Ghost's own stderr lines that contain substr.
func ghostLines(stderr, substr string) []string {
	var out []string
	for _, l := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(l, "ghost: ") && strings.Contains(l, substr) {
			out = append(out, l)
		}
	}
	return out
}
