package test

// Real applications under Ghost (issue 5): NWChem (Global Arrays over
// ARMCI-MPI), ARMCI-MPI programs of our own, and OpenCoarrays' shipped test
// programs plus an event program of our own. All are Debian binaries or
// libraries built against MPICH and are only launched, never modified.
//
// `make test` runs a subset (TestAppsNWChem, TestAppsARMCI, TestAppsCoarrays
// without -apps.full). `make apps` runs the whole sweep with -apps.full:
// every input, program and shipped test under plain MPICH, plain MPICH with
// MPIR_CVAR_NOLOCAL=1 and Ghost, and TestAppsTable writes one table. What
// each part checks, and why the failures that remain are not Ghost's, is in
// docs/apps.md. The Open MPI builds of the same applications fill two more
// columns of that table (apps_openmpi_test.go).

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ghost-mpi/ghost/internal/apps"
)

var (
	appsFull     = flag.Bool("apps.full", false, "run the whole application sweep (make apps) and build its table")
	appsOut      = flag.String("apps.out", "", "with -apps.full: write the table (Markdown) to this file")
	appsMaxProcs = flag.Int("apps.maxprocs", 4, "largest job, in processes (ghosts included), the application tests start")
)

// Where the Debian packages put what the tests need (internal/apps).
const (
	nwchemBin    = apps.NWChemBin
	armciLib     = apps.ARMCILib
	armciHeader  = apps.ARMCIHeader
	cafTestDir   = apps.CafTestDir
	cafCompiler  = apps.CafCompiler
	mpiexecMPICH = apps.MpiexecMPICH
)

// needApp skips the test when the application's package is not installed
// (`make apps` and .ci/run install them), except in CI, where that is an
// error.
func needApp(t *testing.T, pkg string, paths ...string) {
	t.Helper()
	needMPI(t)
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil {
			msg := fmt.Sprintf("%s missing (Debian package %s; `make apps` installs it)", p, pkg)
			if os.Getenv("CI") != "" {
				t.Fatal(msg)
			}
			t.Skip(msg)
		}
	}
	if _, err := exec.LookPath(mpiexecMPICH); err != nil {
		t.Skip("mpiexec.hydra not on PATH")
	}
}

// appBinary compiles one of our application programs under apps/ once for
// MPICH: C with mpicc.mpich and ARMCI-MPI's static library, Fortran with
// caf.mpich.
func appBinary(t *testing.T, sub, name string) string {
	t.Helper()
	return appBinaryFor(t, apps.MPICH, sub, name)
}

// appBinaryFor compiles one of our application programs once for mpi.
func appBinaryFor(t *testing.T, mpi apps.MPI, sub, name string) string {
	t.Helper()
	compileMu.Lock()
	defer compileMu.Unlock()
	src := filepath.Join("apps", sub, name)
	bin := filepath.Join(progDir, mpi.BinName(src))
	if _, err := os.Stat(bin); err == nil {
		return bin
	}
	bin, err := mpi.Build(src, progDir)
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// ---------------------------------------------------------------------------
// Runs: the columns of the table, three for MPICH's builds of the
// applications and two for Open MPI's (apps_openmpi_test.go).

type mode int

const (
	plain        mode = iota // MPICH as installed
	noLocal                  // MPICH with MPIR_CVAR_NOLOCAL=1 (hides the small-window bug)
	ghosted                  // under `ghost run`
	openMPIPlain             // Open MPI's build under Open MPI's mpirun
	ghostOpenMPI             // Open MPI's build under `ghost run` (libghost-openmpi.so)
	numModes
)

var modeNames = [numModes]string{"plain", "plain+NOLOCAL", "Ghost", "Open MPI", "Ghost (Open MPI)"}

// layout is how a run is placed: users per job, ghosts per node (Ghost
// column only), and 1 node or 2 fake nodes (hydra's fork launcher).
type layout struct {
	name   string
	users  int
	ghosts int
	nodes  int
	env    []string // extra environment for every column (e.g. GHOST_LOAD)
}

func (l layout) procs(m mode) int {
	if m == ghosted || m == ghostOpenMPI {
		return l.users + l.ghosts*l.nodes
	}
	return l.users
}

// hosts splits n processes over the fake nodes as evenly as hydra's fill
// order allows ("nodeA:k,nodeB:k").
func (l layout) hosts(m mode) string {
	if l.nodes < 2 {
		return ""
	}
	per := (l.users + l.nodes - 1) / l.nodes
	if m == ghosted || m == ghostOpenMPI {
		per += l.ghosts
	}
	var hs []string
	for i := 0; i < l.nodes; i++ {
		hs = append(hs, fmt.Sprintf("node%c:%d", 'A'+i, per))
	}
	return strings.Join(hs, ",")
}

// appResult is one finished (or refused) run.
type appResult struct {
	cmd            string
	stdout, stderr string
	code           int
	timedOut       bool
	dur            time.Duration
	skipped        string // why it did not run
}

func (r appResult) String() string {
	const tail = 6000
	clip := func(s string) string {
		if len(s) > tail {
			return "[...]\n" + s[len(s)-tail:]
		}
		return s
	}
	return fmt.Sprintf("%s\nexit %d (timed out: %v) after %.1f s\n--- stdout\n%s--- stderr\n%s",
		r.cmd, r.code, r.timedOut, r.dur.Seconds(), clip(r.stdout), clip(r.stderr))
}

// appRun starts args in one column's way, in dir (the test's temporary
// directory when empty), and never fails the test itself: a plain run that
// crashes or hangs is a result to record.
func appRun(t *testing.T, l layout, m mode, dir string, timeout time.Duration, args ...string) appResult {
	t.Helper()
	if p := l.procs(m); p > *appsMaxProcs {
		return appResult{skipped: fmt.Sprintf("needs %d processes > -apps.maxprocs=%d", p, *appsMaxProcs)}
	}
	var name string
	var argv []string
	env := append([]string{}, l.env...)
	switch m {
	case plain, noLocal:
		name = mpiexecMPICH
		if h := l.hosts(m); h != "" {
			argv = append(argv, "-launcher", "fork", "-hosts", h)
		}
		argv = append(argv, "-n", strconv.Itoa(l.users))
		if m == noLocal {
			env = append(env, "MPIR_CVAR_NOLOCAL=1")
		}
	case openMPIPlain:
		if l.nodes > 1 {
			// Open MPI's own fake nodes are ghost run's (its rsh agent).
			return appResult{skipped: "fake nodes: Open MPI only through ghost run"}
		}
		name = apps.OpenMPI.Launcher
		argv = append(argv, "--oversubscribe", "-n", strconv.Itoa(l.users))
		if os.Geteuid() == 0 {
			argv = append(argv, "--allow-run-as-root") // CI runs as root
		}
	case ghosted, ghostOpenMPI:
		// ghost run picks the library and launcher from the program's MPI.
		name = filepath.Join(buildDir, "ghost")
		argv = []string{"run", "-n", strconv.Itoa(l.users), "-g", strconv.Itoa(l.ghosts)}
		if h := l.hosts(m); h != "" {
			argv = append(argv, "--hosts", h)
		}
		argv = append(argv, "--")
	}
	argv = append(argv, args...)
	if dir == "" {
		dir = t.TempDir()
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, argv...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	r := appResult{
		cmd:      strings.TrimSpace(strings.Join(env, " ") + " " + name + " " + strings.Join(argv, " ")),
		stdout:   stdout.String(),
		stderr:   stderr.String(),
		dur:      time.Since(start),
		timedOut: ctx.Err() != nil,
	}
	var exitErr *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exitErr):
		r.code = exitErr.ExitCode()
	default:
		if !r.timedOut {
			t.Fatalf("%s: %v", r.cmd, err)
		}
	}
	if r.timedOut && r.code == 0 {
		r.code = -1
	}
	return r
}

// ---------------------------------------------------------------------------
// The table.

// cell is one column of a row.
type cell struct {
	ran    bool
	ok     bool
	status string // PASS, FAIL (...), TIMEOUT, or why it did not run
	dur    time.Duration
}

func (c cell) String() string {
	if !c.ran {
		if c.status == "" {
			return "—"
		}
		return c.status
	}
	return fmt.Sprintf("%s, %.1f s", c.status, c.dur.Seconds())
}

type appRow struct {
	app, test, setup string
	cells            [numModes]cell
	note             string
}

var appTable struct {
	sync.Mutex
	rows  []appRow
	start time.Time
	load0 string
}

// addRow adds a row to the table, or fills the columns r has (run or
// given a status) into the row of the same application, test and setup:
// the MPICH and Open MPI tests of one program share a row.
func addRow(r appRow) {
	appTable.Lock()
	defer appTable.Unlock()
	if appTable.start.IsZero() {
		appTable.start = time.Now()
	}
	row := &r
	merged := false
	for i := range appTable.rows {
		if e := &appTable.rows[i]; e.app == r.app && e.test == r.test && e.setup == r.setup {
			for m, c := range r.cells {
				if c.ran || c.status != "" {
					e.cells[m] = c
				}
			}
			if r.note != "" && !strings.Contains(e.note, r.note) {
				e.note = strings.TrimPrefix(e.note+"; "+r.note, "; ")
			}
			row, merged = e, true
			break
		}
	}
	if !merged {
		appTable.rows = append(appTable.rows, r)
	}
	if *appsFull {
		var cols []string
		for _, c := range r.cells {
			cols = append(cols, fmt.Sprintf("%-24s", c))
		}
		fmt.Fprintf(os.Stderr, "apps: %-12s %-44s %-22s | %s\n", row.app, row.test, row.setup, strings.Join(cols, " | "))
	}
}

func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

// skippedCell records a column that was not started.
func skippedCell(why string) cell { return cell{status: why} }

// ---------------------------------------------------------------------------
// NWChem.

type nwchemInput struct {
	name   string // apps/nwchem/<name>.nw
	subset bool   // part of `make test`
}

var nwchemInputs = []nwchemInput{
	{"water_scf", true},
	{"water_dft", false},
	{"ethanol_scf", false},
	{"ethanol_dft", false},
}

// energyTol is the agreement issue 5 asks for, in Hartree.
const energyTol = apps.EnergyTol

// nwchemRun runs one input in a fresh directory (NWChem writes its
// database, vectors and scratch files there) and returns the last total
// energy it printed.
func nwchemRun(t *testing.T, l layout, m mode, input string, timeout time.Duration) (appResult, float64, bool) {
	t.Helper()
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join("apps", "nwchem", input+".nw"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, input+".nw"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	r := appRun(t, l, m, dir, timeout, nwchemBin, input+".nw")
	e, ok := apps.Energy(r.stdout)
	return r, e, ok
}

// nwchemCell judges a run against the reference energy.
func nwchemCell(r appResult, e float64, haveE bool, ref float64, haveRef bool) cell {
	c := cell{ran: r.skipped == "", dur: r.dur}
	switch {
	case r.skipped != "":
		c.status = "skipped: " + r.skipped
	case r.timedOut:
		c.status = "TIMEOUT"
	case !haveE:
		c.status = fmt.Sprintf("FAIL (no energy, exit %d)", r.code)
	case !haveRef:
		c.status = fmt.Sprintf("E=%.12f, no reference", e)
	case math.Abs(e-ref) > energyTol:
		c.status = fmt.Sprintf("WRONG E=%.12f (off by %.1e, exit %d)", e, e-ref, r.code)
	case r.code != 0:
		c.status = fmt.Sprintf("FAIL (E right, exit %d)", r.code)
	default:
		c.ok = true
		c.status = fmt.Sprintf("PASS E=%.12f", e)
	}
	return c
}

// TestAppsNWChem: SCF and DFT energies under Ghost agree with plain MPICH
// with MPIR_CVAR_NOLOCAL=1 (the reference, one node) to 1e-8 Hartree.
// `make test` runs water SCF only (reference and Ghost, one node); the full
// sweep runs every input on one node (1 and 2 ghosts) and on two fake
// nodes, in all three columns, and records plain MPICH's failure without
// NOLOCAL.
func TestAppsNWChem(t *testing.T) {
	needApp(t, "nwchem-mpich", nwchemBin)
	// Generous: NWChem under Ghost is slow on 2 oversubscribed cores today.
	const plainTimeout, ghostTimeout = 4 * time.Minute, 6 * time.Minute
	type lay struct {
		layout
		modes []mode
	}
	all := []mode{plain, noLocal, ghosted}
	layouts := []lay{{layout{name: "1 node: 2 users + 1 ghost", users: 2, ghosts: 1, nodes: 1}, all}}
	if *appsFull {
		layouts = append(layouts,
			lay{layout{name: "1 node: 2 users + 2 ghosts", users: 2, ghosts: 2, nodes: 1}, []mode{ghosted}},
			lay{layout{name: "2 fake nodes: 1 user + 1 ghost each", users: 2, ghosts: 1, nodes: 2}, all})
	}
	for _, in := range nwchemInputs {
		if !*appsFull && !in.subset {
			continue
		}
		t.Run(in.name, func(t *testing.T) {
			// The reference: plain MPICH, NOLOCAL, one node, same user count.
			refRun, ref, haveRef := nwchemRun(t, layouts[0].layout, noLocal, in.name, plainTimeout)
			if !haveRef || refRun.code != 0 {
				t.Errorf("the reference run (plain MPICH, MPIR_CVAR_NOLOCAL=1) failed:\n%s", refRun)
			} else {
				t.Logf("reference (plain MPICH, MPIR_CVAR_NOLOCAL=1): E = %.12f in %.1f s", ref, refRun.dur.Seconds())
			}
			for i, l := range layouts {
				row := appRow{app: "NWChem", test: in.name, setup: l.name}
				if len(l.modes) == 1 {
					row.cells[plain], row.cells[noLocal] = skippedCell("(as 1 ghost)"), skippedCell("(as 1 ghost)")
				}
				for _, m := range l.modes {
					if !*appsFull && m == plain {
						row.cells[m] = skippedCell("(make apps)")
						continue
					}
					r, e, haveE := refRun, ref, haveRef
					if !(i == 0 && m == noLocal) {
						timeout := plainTimeout
						if m == ghosted {
							timeout = ghostTimeout
						}
						r, e, haveE = nwchemRun(t, l.layout, m, in.name, timeout)
					}
					row.cells[m] = nwchemCell(r, e, haveE, ref, haveRef)
					if m == ghosted && !row.cells[m].ok {
						t.Errorf("%s under Ghost (%s): %s\n%s", in.name, l.name, row.cells[m].status, r)
					}
					if m == ghosted {
						t.Logf("Ghost (%s): %s", l.name, row.cells[m])
					}
				}
				if !row.cells[plain].ok && row.cells[plain].ran && row.cells[noLocal].ok {
					row.note = "plain: MPICH 4.0.2 small-window bug (NOLOCAL hides it)"
				}
				addRow(row)
			}
		})
	}
}

// ---------------------------------------------------------------------------
// ARMCI-MPI.

type armciProg struct {
	src    string
	args   []string
	subset bool
}

var armciProgs = []armciProg{
	{"armci_contig.c", nil, true},
	{"armci_strided.c", nil, false},
	{"armci_rmw.c", nil, false},
	{"armci_nxtask.c", nil, true},
}

var nxtaskTime = regexp.MustCompile(`nxtask: .* time_s=([0-9.]+)`)

// checksCell judges a self-checking program (the check.h contract): exit 0,
// no FAIL line, and a clean summary from each of want ranks.
func checksCell(r appResult, want int) cell {
	c := cell{ran: r.skipped == "", dur: r.dur}
	if r.skipped != "" {
		c.status = "skipped: " + r.skipped
		return c
	}
	if r.timedOut {
		c.status = "TIMEOUT"
		return c
	}
	seen, failed := map[int]bool{}, 0
	for _, m := range summaryLine.FindAllStringSubmatch(r.stdout, -1) {
		rank, _ := strconv.Atoi(m[1])
		size, _ := strconv.Atoi(m[2])
		checks, _ := strconv.Atoi(m[3])
		nf, _ := strconv.Atoi(m[4])
		failed += nf
		if size == want && checks > 0 {
			seen[rank] = true
		}
	}
	switch {
	case failed > 0:
		c.status = fmt.Sprintf("FAIL (%d checks)", failed)
	case r.code != 0 || strings.Contains(r.stdout, "FAIL"):
		c.status = fmt.Sprintf("FAIL (exit %d)", r.code)
	case len(seen) != want:
		c.status = fmt.Sprintf("FAIL (%d of %d ranks reported)", len(seen), want)
	default:
		c.ok, c.status = true, "PASS"
	}
	return c
}

// TestAppsARMCI: our ARMCI-MPI programs give exact results under Ghost
// with GHOST_NG=1 and 2. `make test` runs armci_contig and armci_nxtask
// under Ghost only; the full sweep adds the other programs, the plain
// columns, two fake nodes and 3 ranks.
func TestAppsARMCI(t *testing.T) {
	needApp(t, "libarmci-mpi-dev", armciLib, armciHeader)
	const timeout = 2 * time.Minute
	type lay struct {
		layout
		modes []mode
	}
	all := []mode{plain, noLocal, ghosted}
	layouts := []lay{
		{layout{name: "1 node, GHOST_NG=1", users: 2, ghosts: 1, nodes: 1}, all},
		{layout{name: "1 node, GHOST_NG=2", users: 2, ghosts: 2, nodes: 1}, []mode{ghosted}},
	}
	if *appsFull {
		layouts = append(layouts,
			lay{layout{name: "1 node, GHOST_NG=2, GHOST_LOAD=op", users: 2, ghosts: 2, nodes: 1, env: []string{"GHOST_LOAD=op"}}, []mode{ghosted}},
			lay{layout{name: "2 fake nodes, GHOST_NG=1", users: 2, ghosts: 1, nodes: 2}, all},
			lay{layout{name: "3 ranks, GHOST_NG=1", users: 3, ghosts: 1, nodes: 1}, all},
		)
	}
	for _, p := range armciProgs {
		if !*appsFull && !p.subset {
			continue
		}
		name := strings.TrimSuffix(p.src, ".c")
		t.Run(name, func(t *testing.T) {
			bin := appBinary(t, "armci", p.src)
			for _, l := range layouts {
				row := appRow{app: "ARMCI-MPI", test: name, setup: l.name}
				var notes []string
				for _, m := range l.modes {
					if !*appsFull && m != ghosted {
						row.cells[m] = skippedCell("(make apps)")
						continue
					}
					r := appRun(t, l.layout, m, "", timeout, append([]string{bin}, p.args...)...)
					row.cells[m] = checksCell(r, l.users)
					if mt := nxtaskTime.FindStringSubmatch(r.stdout); mt != nil {
						notes = append(notes, fmt.Sprintf("%s %s s", modeNames[m], mt[1]))
					}
					if m == ghosted {
						if !row.cells[m].ok {
							t.Errorf("%s under Ghost (%s): %s\n%s", name, l.name, row.cells[m].status, r)
						} else {
							t.Logf("Ghost (%s): %s", l.name, row.cells[m])
						}
					}
				}
				if len(l.modes) == 1 && *appsFull {
					row.cells[plain], row.cells[noLocal] = skippedCell("(as GHOST_NG=1)"), skippedCell("(as GHOST_NG=1)")
				}
				if len(notes) > 0 {
					row.note = "task loop: " + strings.Join(notes, ", ")
				}
				if c := row.cells[plain]; c.ran && !c.ok && row.cells[noLocal].ok {
					row.note = strings.TrimPrefix(row.note+"; plain: MPICH 4.0.2 small-window bug (NOLOCAL hides it)", "; ")
				}
				addRow(row)
			}
		})
	}
}

// ---------------------------------------------------------------------------
// OpenCoarrays.

// cafImages lists the shipped tests that need more than 2 images: they
// stop at once with 2 (the whole set is still run with 2 images) and get a
// second row at this many images when the job fits -apps.maxprocs.
var cafImages = map[string]int{
	"allocatable_p2p_event_post":             4,
	"issue-422-send-get":                     3,
	"sendget_convert_char_array":             3,
	"sendget_convert_nums":                   3,
	"static_event_post_issue_293":            3,
	"strided_sendget":                        3,
	"sync_image_ring_abort_on_stopped_image": 3,
	"issue-488-multi-dim-cobounds":           8,
	"issue-493-coindex-slice":                8,
	"sync_team":                              8,
	"team_number":                            8,
}

// cafExcluded are left out of the gate (they still run with 2 images).
var cafExcluded = map[string]string{
	"image_fail_and_failed_images_test_1":  "failed images: needs fault tolerance (and 3 images)",
	"image_fail_and_get_test_1":            "failed images: needs fault tolerance (and 3 images)",
	"image_fail_and_status_test_1":         "failed images: needs fault tolerance (and 3 images)",
	"image_fail_and_stopped_images_test_1": "failed images: needs fault tolerance (and 3 images)",
	"image_fail_and_sync_test_1":           "failed images: needs fault tolerance (and 3 images)",
	"image_fail_and_sync_test_2":           "failed images: needs fault tolerance (and 3 images)",
	"image_fail_and_sync_test_3":           "failed images: needs fault tolerance (and 3 images)",
	"image_fail_test_1":                    "failed images: needs fault tolerance (and 3 images)",
}

// cafKnown explains failures seen in every column (plain, NOLOCAL, Ghost).
var cafKnown = map[string]string{
	"sendget_convert_char_array@3": "libcaf_mpich 2.10.1: sendget with kind conversion is wrong in every column (same message)",
	"sendget_convert_nums@3":       "libcaf_mpich 2.10.1: sendget with kind conversion is wrong in every column; the set of failed conversions varies run to run with NOLOCAL too",
	"issue-488-multi-dim-cobounds": "needs 8 images and a true/false argument (reads it at line 30)",
	"issue-493-coindex-slice":      "needs 8 images: stops silently with fewer",
}

// cafCase is a shipped test run with a number of images.
type cafCase struct {
	name   string
	images int
}

// cafSubset is `make test`'s share: 10 shipped tests, the event ones
// included, several of which plain MPICH fails (small-window bug).
var cafSubset = []cafCase{
	{"asynchronous_hello_world", 2}, // events
	{"static_event_post_issue_293", 3},
	{"atomics", 2},
	{"register", 2},
	{"hello_multiverse", 2},
	{"whole_get_array", 2},
	{"convert-before-put", 2},
	{"send_convert_nums", 2},
	{"co_reduce_test", 2},
	{"teams_coarray_sendget", 2},
}

// cafCases lists every shipped test in dir with 2 images and, for those in
// cafImages, again with as many as they need.
func cafCases(t *testing.T, dir string) []cafCase {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	if len(names) == 0 {
		t.Fatalf("no test programs in %s", dir)
	}
	var cases []cafCase
	for _, n := range names {
		cases = append(cases, cafCase{n, 2})
		if k := cafImages[n]; k > 2 {
			cases = append(cases, cafCase{n, k})
		}
	}
	return cases
}

// cafExpected is why a shipped test is expected to fail with tc's image
// count whatever the MPI: excluded (cafExcluded), or stopped at once for
// want of images; "" otherwise.
func cafExpected(tc cafCase) string {
	if why, ok := cafExcluded[tc.name]; ok {
		return "excluded: " + why
	}
	if need := cafImages[tc.name]; tc.images == 2 && need > 2 {
		return fmt.Sprintf("needs %d images (stops at once with 2); see its row with %d", need, need)
	}
	return ""
}

// cafCell: a shipped test passes when it exits 0 and says so ("Test
// passed." for almost all; coarray_distributed_transpose prints "test
// passed:"). Plain MPICH's oversubscription warnings do not count.
func cafCell(r appResult) cell {
	c := cell{ran: r.skipped == "", dur: r.dur}
	switch {
	case r.skipped != "":
		c.status = "skipped: " + r.skipped
	case r.timedOut:
		c.status = "TIMEOUT"
	case r.code != 0:
		c.status = fmt.Sprintf("FAIL (exit %d)", r.code)
	case !apps.CafPassed(r.stdout + r.stderr):
		c.status = "FAIL (no \"Test passed\")"
	default:
		c.ok, c.status = true, "PASS"
	}
	return c
}

// eventCell judges our event program: it must pass, and the column says
// whether image 1's posts completed while their targets computed.
func eventCell(r appResult) (cell, bool) {
	c := cafCell(r)
	async, _ := apps.EventPostsAsync(r.stdout)
	if c.ok {
		if async {
			c.status = "PASS, posts async"
		} else {
			c.status = "PASS, posts waited"
		}
	}
	return c, async
}

// TestAppsCoarrays: OpenCoarrays' shipped tests with 2 images, and our
// event program. Ghost must pass every test that passes in either plain
// column. `make test` runs 10 shipped tests and the event program under
// Ghost (and the event program's plain baseline).
func TestAppsCoarrays(t *testing.T) {
	needApp(t, "libcoarrays-mpich-dev", cafTestDir)
	if _, err := exec.LookPath(cafCompiler); err != nil {
		t.Skip(cafCompiler + " not on PATH")
	}
	const plainTimeout, ghostTimeout = 5 * time.Minute, 7 * time.Minute
	timeout := func(m mode) time.Duration {
		if m == ghosted {
			return ghostTimeout
		}
		return plainTimeout
	}
	onNode := func(images int) layout {
		return layout{name: fmt.Sprintf("%d images", images), users: images, ghosts: 1, nodes: 1}
	}

	t.Run("event_compute", func(t *testing.T) {
		bin := appBinary(t, "coarray", "event_compute.f90")
		args := []string{bin, "3.0", "5"}
		type lay struct {
			layout
			modes []mode
		}
		all := []mode{plain, noLocal, ghosted}
		layouts := []lay{{layout{name: "2 images, GHOST_NG=1", users: 2, ghosts: 1, nodes: 1}, []mode{plain, ghosted}}}
		if *appsFull {
			layouts = []lay{
				{layout{name: "2 images, GHOST_NG=1", users: 2, ghosts: 1, nodes: 1}, all},
				{layout{name: "2 images, GHOST_NG=2", users: 2, ghosts: 2, nodes: 1}, []mode{ghosted}},
				{layout{name: "2 images, 2 fake nodes", users: 2, ghosts: 1, nodes: 2}, all},
				{layout{name: "3 images, GHOST_NG=1", users: 3, ghosts: 1, nodes: 1}, all},
			}
		}
		for _, l := range layouts {
			row := appRow{app: "OpenCoarrays", test: "event_compute (ours)", setup: l.name}
			for _, m := range l.modes {
				r := appRun(t, l.layout, m, "", timeout(m), args...)
				c, async := eventCell(r)
				row.cells[m] = c
				switch {
				case m == ghosted && (!c.ok || !async):
					t.Errorf("Ghost (%s): the event posts did not complete while their targets computed: %s\n%s", l.name, c, r)
				case m == ghosted:
					t.Logf("Ghost (%s): %s", l.name, c)
				case m == plain && l.nodes == 1 && c.ok && async:
					// The baseline: plain MPICH needs the target in MPI.
					t.Errorf("plain MPICH (%s) completed the posts while the targets computed: the baseline changed\n%s", l.name, r)
				}
			}
			if len(l.modes) == 1 {
				row.cells[plain], row.cells[noLocal] = skippedCell("(as GHOST_NG=1)"), skippedCell("(as GHOST_NG=1)")
			} else if !*appsFull {
				row.cells[noLocal] = skippedCell("(make apps)")
			}
			row.note = "posts: plain waits for the target to call MPI; Ghost completes them while it computes"
			addRow(row)
		}
	})

	if !*appsFull {
		for _, tc := range cafSubset {
			t.Run(fmt.Sprintf("%s@%d", tc.name, tc.images), func(t *testing.T) {
				r := appRun(t, onNode(tc.images), ghosted, "", ghostTimeout, filepath.Join(cafTestDir, tc.name))
				c := cafCell(r)
				if !c.ok {
					t.Fatalf("%s with %d images under Ghost: %s\n%s", tc.name, tc.images, c.status, r)
				}
				t.Logf("Ghost: %s", c)
				addRow(appRow{app: "OpenCoarrays", test: tc.name, setup: onNode(tc.images).name,
					cells: [numModes]cell{plain: skippedCell("(make apps)"), noLocal: skippedCell("(make apps)"), ghosted: c}})
			})
		}
		return
	}

	for _, tc := range cafCases(t, cafTestDir) {
		key := tc.name
		if tc.images != 2 {
			key = fmt.Sprintf("%s@%d", tc.name, tc.images)
		}
		t.Run(key, func(t *testing.T) {
			l := onNode(tc.images)
			row := appRow{app: "OpenCoarrays", test: tc.name, setup: l.name}
			_, isExcluded := cafExcluded[tc.name]
			var results [numModes]appResult
			for _, m := range []mode{plain, noLocal, ghosted} {
				results[m] = appRun(t, l, m, "", timeout(m), filepath.Join(cafTestDir, tc.name))
				row.cells[m] = cafCell(results[m])
			}
			p, nl, g := row.cells[plain], row.cells[noLocal], row.cells[ghosted]
			need := cafImages[tc.name]
			switch {
			case isExcluded:
				row.note = cafExpected(tc)
			case !p.ran && !g.ran:
				row.note = fmt.Sprintf("not run: %d images need more processes than -apps.maxprocs=%d allows", tc.images, *appsMaxProcs)
			case !g.ran:
				row.note = fmt.Sprintf("Ghost not run: %d processes > -apps.maxprocs=%d (APPS_FLAGS='-apps.maxprocs %d' runs it)",
					l.procs(ghosted), *appsMaxProcs, l.procs(ghosted))
			case g.ok && !p.ok && nl.ok:
				row.note = "plain: MPICH 4.0.2 small-window bug (NOLOCAL and Ghost pass)"
			case g.ok && !p.ok && !nl.ok:
				row.note = "passes only under Ghost"
			case g.ok:
			case p.ok || nl.ok:
				row.note = "GHOST REGRESSION: a plain column passes"
				t.Errorf("%s with %d images: plain %s, NOLOCAL %s, but Ghost %s\n%s", tc.name, tc.images, p.status, nl.status, g.status, results[ghosted])
			case cafKnown[key] != "":
				row.note = cafKnown[key]
			case tc.images == 2 && need > 2:
				row.note = cafExpected(tc)
			default:
				row.note = "fails in every column: unexplained"
				t.Errorf("%s with %d images fails in every column, with no known reason:\n%s", tc.name, tc.images, results[ghosted])
			}
			addRow(row)
		})
	}
}

// ---------------------------------------------------------------------------

// TestAppsTable prints (and with -apps.out writes) the table of the full
// sweep. It runs last among the TestApps tests (source order).
func TestAppsTable(t *testing.T) {
	if !*appsFull {
		t.Skip("the table is built by `make apps` (-apps.full)")
	}
	appTable.Lock()
	defer appTable.Unlock()
	var b strings.Builder
	host, _ := os.Hostname()
	fmt.Fprintf(&b, "# make apps: real applications under Ghost\n\n")
	fmt.Fprintf(&b, "%s on %s, %d cores, load average now %s; Ghost at %s.\n", time.Now().UTC().Format("2006-01-02 15:04 UTC"),
		host, runtime.NumCPU(), loadAvg(), gitDescribe())
	fmt.Fprintf(&b, "Columns: MPICH's builds: plain MPICH; plain MPICH with MPIR_CVAR_NOLOCAL=1; Ghost (`ghost run`). "+
		"Open MPI's builds: plain Open MPI (mpirun.openmpi); Ghost on Open MPI (`ghost run` with libghost-openmpi.so: %s). Times are wall seconds of the whole job.\n",
		ghostOpenMPIState())
	fmt.Fprintf(&b, "NWChem: PASS when the energy agrees with the one-node NOLOCAL run to %.0e Hartree (Ghost on Open MPI: with plain Open MPI's). ARMCI and mpi4py: every value checked. OpenCoarrays: exit 0 and \"Test passed\".\n\n", energyTol)
	b.WriteString("| application | test | setup |")
	for _, n := range modeNames {
		b.WriteString(" " + n + " |")
	}
	b.WriteString(" note |\n|---|---|---|" + strings.Repeat("---|", int(numModes)) + "---|\n")
	for _, r := range appTable.rows {
		fmt.Fprintf(&b, "| %s | %s | %s |", r.app, r.test, r.setup)
		for _, c := range r.cells {
			fmt.Fprintf(&b, " %s |", c)
		}
		fmt.Fprintf(&b, " %s |\n", r.note)
	}
	// Pass counts per application and column.
	b.WriteString("\n| application | runs |")
	for _, n := range modeNames {
		b.WriteString(" " + n + " passes |")
	}
	b.WriteString(" Ghost time (s) | plain+NOLOCAL time (s) | Ghost (Open MPI) time (s) | Open MPI time (s) |\n|---|---|" +
		strings.Repeat("---|", int(numModes)+4) + "\n")
	apps := []string{}
	seen := map[string]bool{}
	for _, r := range appTable.rows {
		if !seen[r.app] {
			seen[r.app] = true
			apps = append(apps, r.app)
		}
	}
	for _, a := range apps {
		var n int
		var pass, ran [numModes]int
		var tsum [numModes]time.Duration
		for _, r := range appTable.rows {
			if r.app != a {
				continue
			}
			n++
			for m := range r.cells {
				if r.cells[m].ran {
					ran[m]++
					tsum[m] += r.cells[m].dur
				}
				if r.cells[m].ok {
					pass[m]++
				}
			}
		}
		fmt.Fprintf(&b, "| %s | %d |", a, n)
		for m := range pass {
			fmt.Fprintf(&b, " %d/%d |", pass[m], ran[m])
		}
		fmt.Fprintf(&b, " %.0f | %.0f | %.0f | %.0f |\n", tsum[ghosted].Seconds(), tsum[noLocal].Seconds(),
			tsum[ghostOpenMPI].Seconds(), tsum[openMPIPlain].Seconds())
	}
	fmt.Fprintf(&b, "\nSweep time %.0f s; load average at the end %s.\n", time.Since(appTable.start).Seconds(), loadAvg())
	out := b.String()
	fmt.Print(out)
	if *appsOut != "" {
		if err := os.WriteFile(*appsOut, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func gitDescribe() string {
	out, err := exec.Command("git", "describe", "--always", "--dirty").Output()
	if err != nil {
		return "?"
	}
	return strings.TrimSpace(string(out))
}
