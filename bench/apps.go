package main

// The application suite: the scoreboard. Real applications (NWChem through
// Global Arrays and ARMCI-MPI, an ARMCI-MPI task loop, OpenCoarrays) run
// under every configuration, and each run gives the wall time of the whole
// job and a verdict on its result. Unlike the other suites there is no
// benchmark program of ours: each workload prepares its own command and
// judges its own output (internal/apps), and the driver times the job.

import (
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/ghost-mpi/ghost/internal/apps"
	"github.com/ghost-mpi/ghost/internal/mpiprog"
)

// Workload is one application run of the apps suite.
type Workload struct {
	Name  string // the metric: wall seconds of the whole job
	Smoke bool   // part of a smoke run
	// OpenMPIOnly: the application exists only in an Open MPI build here
	// (Debian's mpi4py); MPICH's configurations skip it.
	OpenMPIOnly bool
	// Setup prepares, once per suite run and MPI, what every run of the
	// workload with that MPI's build of the application needs, under tmp,
	// compiling our programs with b; it returns the program and its
	// arguments and, when the application writes files where it runs, a
	// function that fills a fresh working directory.
	Setup func(b builder, tmp string, mpi apps.MPI) (argv []string, prepare func(dir string) error, err error)
	// Judge reads one run's output: the world size the application saw (0
	// when it does not say), whether its result is right, and why not.
	Judge func(stdout string) (worldSize int, ok bool, detail string)
}

// appsConfigs are the configurations of the scoreboard: plain MPICH made
// correct two ways (NOLOCAL, and what Debian's NWChem README recommends for
// MPICH 4.0.2), MPICH's progress thread (with NOLOCAL too: without it the
// alignment bug fails NWChem, after a 100 s wait per run, which compared
// nothing), and Ghost as a user gets it; then the Open MPI column: the
// applications' Open MPI builds under plain Open MPI and under Ghost
// (openMPIAppsConfigs).
var appsConfigs = []string{"plain-nolocal", "plain-armci-nowinalloc", "mpich-thread-nolocal", "ghost", "ghost-auto",
	openMPIPlainConfig, openMPIGhostConfig}

// The Open MPI configurations of the apps suite. They run the Open MPI
// builds of the applications (apps.OpenMPI); a run is recorded as skipped,
// with the reason, when that build is not installed, or, for Ghost, while
// libghost-openmpi.so is not built, so that the column fills in when it
// is.
const (
	openMPIPlainConfig = "openmpi"
	openMPIGhostConfig = "ghost-openmpi"
	openMPIGhostLib    = "libghost-openmpi.so" // beside the ghost binary, where ghost run looks
)

// openMPIAppsConfigs: plain Open MPI (its mpirun, as the tests run it), and
// Ghost's defaults through ghost run, which picks libghost-openmpi.so and
// Open MPI's mpirun for an Open MPI program itself.
func openMPIAppsConfigs() []Config {
	return []Config{{
		Name:  openMPIPlainConfig,
		About: "Open MPI's build of the application: mpirun.openmpi --oversubscribe -n N prog (--allow-run-as-root as root)",
		Command: func(l Launch, prog []string) []string {
			cmd := []string{apps.OpenMPI.Launcher, "--oversubscribe", "-n", strconv.Itoa(l.Users)}
			if os.Geteuid() == 0 {
				cmd = append(cmd, "--allow-run-as-root")
			}
			return append(cmd, prog...)
		},
	}, named(defaultGhostConfig(), openMPIGhostConfig)}
}

// The configurations are found by name among all of them.
func init() { configs = append(configs, openMPIAppsConfigs()...) }

// configMPI is the build of the applications configuration name runs.
func configMPI(name string) apps.MPI {
	if name == openMPIPlainConfig || name == openMPIGhostConfig {
		return apps.OpenMPI
	}
	return apps.MPICH
}

func appsSuite() Suite {
	return Suite{
		Name: "apps",
		About: "Real applications, wall seconds of the whole job with 2 application ranks, in their MPICH builds " +
			"and, for the openmpi and ghost-openmpi configurations, their Open MPI builds: NWChem 7.0.2 " +
			"(Global Arrays over ARMCI-MPI) on the four test/apps/nwchem inputs, ARMCI-MPI's NXTASK " +
			"task loop (test/apps/armci/armci_nxtask.c), and OpenCoarrays 2.10.1: our event program " +
			"(test/apps/coarray/event_compute.f90, 5 posts to images that compute 3 s) and the three " +
			"slowest shipped tests that pass with 2 images; with Open MPI also our mpi4py program " +
			"(test/apps/mpi4py/win_compute.py: ACC and FOP to a target computing 2 s). A run counts as correct when NWChem's " +
			"energy agrees with its reference to 1e-8 Ha, every ARMCI and mpi4py check passes, and a coarray test " +
			"exits 0 saying it passed.",
		Configs:   appsConfigs,
		Rounds:    3,
		Wide:      true,
		Workloads: appWorkloads(),
		Charts:    []Chart{categoryChart{Title: "apps: wall time of the job, s", Unit: "s", Log: true}},
	}
}

// appsTwoNodesConfigs run the applications on 2 fake nodes, one user and
// one ghost on each: there every window spans nodes and its redirection
// state matters (on one node every window is node-local, served in shared
// memory with no state to switch). Plain MPICH on the same fake nodes
// comes first, as the baseline.
var appsTwoNodesConfigs = []string{"plain-2nodes", "ghost-2nodes", "ghost-2nodes-off", "ghost-2nodes-auto"}

// appsTwoNodesSuite is issue 13's test of GHOST_ASYNC=auto on unmodified
// passive-target programs: NWChem and ARMCI-MPI's NXTASK, whose only
// agreement points are the implicit ones (Global Arrays' sync), with auto
// against redirection fixed on and off.
func appsTwoNodesSuite() Suite {
	return Suite{
		Name: "apps-2nodes",
		About: "NWChem 7.0.2 on the four test/apps/nwchem inputs and ARMCI-MPI's NXTASK task loop on 2 " +
			"fake nodes (hydra's fork launcher), 1 application rank and 1 ghost per node, so that every " +
			"window spans nodes: GHOST_ASYNC=on, off and auto against plain MPICH on the same fake " +
			"nodes, wall seconds of the whole job. These programs never fence: auto switches only at " +
			"implicit points (Global Arrays' flush_all + MPI_Barrier). Results are checked as in apps.",
		Configs: appsTwoNodesConfigs,
		// Its target is a ratio of medians within 10%, and one round's
		// auto/off ratio spreads by 11-14% (standard deviation over 231
		// rounds of earlier runs on the 2-core VM): a median of 3 or 5 moves
		// by about as much as the margin between auto and its target.
		Rounds:    9,
		Wide:      true,
		Workloads: passiveAppWorkloads(),
		Charts:    []Chart{categoryChart{Title: "apps-2nodes: wall time of the job, s", Unit: "s", Log: true}},
	}
}

// passiveAppWorkloads are the NWChem inputs and NXTASK.
func passiveAppWorkloads() []Workload {
	var ws []Workload
	for _, in := range []string{"water_scf", "water_dft", "ethanol_scf", "ethanol_dft"} {
		ws = append(ws, nwchemWorkload(in))
	}
	return append(ws, Workload{
		Name: "armci/nxtask", Smoke: true,
		Setup: func(b builder, tmp string, mpi apps.MPI) ([]string, func(string) error, error) {
			bin, err := b.app(mpi, filepath.Join("test", "apps", "armci", "armci_nxtask.c"), tmp)
			return []string{bin}, nil, err
		},
		Judge: judgeChecks,
	})
}

func appWorkloads() []Workload {
	ws := append(passiveAppWorkloads(), Workload{
		Name: "coarray/event_compute", Smoke: true,
		Setup: func(b builder, tmp string, mpi apps.MPI) ([]string, func(string) error, error) {
			bin, err := b.app(mpi, filepath.Join("test", "apps", "coarray", "event_compute.f90"), tmp)
			return []string{bin, "3.0", "5"}, nil, err
		},
		Judge: judgeCoarray,
	})
	for _, name := range slowCoarrayTests {
		ws = append(ws, Workload{
			Name: "coarray/" + name,
			Setup: func(_ builder, _ string, mpi apps.MPI) ([]string, func(string) error, error) {
				return []string{filepath.Join(mpi.CafTestDir, name)}, nil, nil
			},
			Judge: judgeCoarray,
		})
	}
	return append(ws, Workload{
		Name: "mpi4py/win_compute", Smoke: true, OpenMPIOnly: true,
		Setup: func(_ builder, _ string, mpi apps.MPI) ([]string, func(string) error, error) {
			script, err := filepath.Abs(filepath.Join("test", "apps", "mpi4py", "win_compute.py"))
			if err != nil {
				return nil, nil, err
			}
			// Debian's python3, whose mpi4py is built on Open MPI.
			const python = "/usr/bin/python3"
			if out, err := exec.Command(python, "-c", "import mpi4py.MPI").CombinedOutput(); err != nil {
				return nil, nil, fmt.Errorf("%s has no mpi4py (python3-mpi4py): %v %s", python, err, out)
			}
			return []string{python, script, "2.0", "5"}, nil, nil
		},
		Judge: judgeMpi4py,
	})
}

// judgeMpi4py: every check of win_compute.py passes, and the detail says
// whether its operations completed while the target computed.
func judgeMpi4py(stdout string) (int, bool, string) {
	size, ok, detail := judgeChecks(stdout)
	if async, found := apps.Mpi4pyOpsAsync(stdout); ok && found {
		detail += fmt.Sprintf("; ACC and FOP completed while the target computed: %v", async)
	}
	return size, ok, detail
}

// slowCoarrayTests are the three slowest of OpenCoarrays' shipped tests
// that pass with 2 images under plain MPICH with NOLOCAL (bench/README.md
// says how they were found).
var slowCoarrayTests = []string{"alloc_comp_multidim_shape", "allocate_as_barrier", "allocate_as_barrier_proc"}

func nwchemWorkload(input string) Workload {
	return Workload{
		Name: "nwchem/" + input, Smoke: input == "water_scf",
		Setup: func(_ builder, _ string, mpi apps.MPI) ([]string, func(string) error, error) {
			src, err := os.ReadFile(filepath.Join("test", "apps", "nwchem", input+".nw"))
			if err != nil {
				return nil, nil, err
			}
			// NWChem writes its database and scratch files where it runs.
			prepare := func(dir string) error { return os.WriteFile(filepath.Join(dir, input+".nw"), src, 0o644) }
			return []string{mpi.NWChem, input + ".nw"}, prepare, nil
		},
		Judge: func(stdout string) (int, bool, string) {
			e, ok := apps.Energy(stdout)
			if !ok {
				return apps.NWChemProcs(stdout), false, "no energy"
			}
			d := e - apps.NWChemReference[input]
			if math.Abs(d) > apps.EnergyTol {
				return apps.NWChemProcs(stdout), false, fmt.Sprintf("energy %.12f off by %.1e", e, d)
			}
			return apps.NWChemProcs(stdout), true, fmt.Sprintf("energy %.12f", e)
		},
	}
}

func judgeChecks(stdout string) (int, bool, string) {
	size, ranks, failed := apps.Checks(stdout)
	switch {
	case failed > 0 || strings.Contains(stdout, "FAIL"):
		return size, false, fmt.Sprintf("%d checks failed", failed)
	case ranks != size || size == 0:
		return size, false, fmt.Sprintf("%d of %d ranks reported", ranks, size)
	}
	return size, true, "all checks passed"
}

func judgeCoarray(stdout string) (int, bool, string) {
	if !apps.CafPassed(stdout) {
		return 0, false, "no \"Test passed\""
	}
	if async, found := apps.EventPostsAsync(stdout); found {
		return 0, true, fmt.Sprintf("passed; posts completed while the targets computed: %v", async)
	}
	return 0, true, "passed"
}

// setupFor prepares w for mpi's build of its application; skip says why
// it cannot run (not installed, not built, or MPICH for an Open MPI only
// application).
func setupFor(w Workload, o options, tmp string, mpi apps.MPI) workloadBuild {
	var b workloadBuild
	if w.OpenMPIOnly && mpi.Name != apps.OpenMPI.Name {
		b.skip = "only in an Open MPI build here"
		return b
	}
	argv, prepare, err := w.Setup(o.builder(), tmp, mpi)
	switch {
	case err != nil:
		b.skip = fmt.Sprintf("%s's build: %v", mpi.Name, err)
	case mpi.Name != apps.MPICH.Name:
		// An MPICH application that is missing fails its runs, as it
		// always did; another MPI's may simply not be installed.
		if _, err := exec.LookPath(argv[0]); err != nil {
			b.skip = fmt.Sprintf("%s's build is not installed: %v", mpi.Name, err)
		}
	}
	b.argv, b.prepare = argv, prepare
	return b
}

// workloadBuild is a workload prepared for one MPI's build of its
// application.
type workloadBuild struct {
	argv    []string
	prepare func(string) error
	skip    string // why the configurations of this build do not run it
}

// runWorkloads is runSuite for a suite of workloads: every round runs every
// workload under every configuration, alternating configurations within a
// workload. A sample is a job's wall time; a wrong result keeps its
// sample and is counted as a wrong value, so a fast wrong configuration
// shows as both.
// warmFiles reads every regular file among paths (a command's words, of
// which most are not files) into the page cache.
func warmFiles(paths []string) {
	for _, p := range paths {
		if st, err := os.Stat(p); err != nil || !st.Mode().IsRegular() {
			continue
		}
		if f, err := os.Open(p); err == nil {
			io.Copy(io.Discard, f)
			f.Close()
		}
	}
}

// appsTimeout is the limit for one application run. A bad configuration
// may take minutes: record it, don't lose it; but a -timeout given on the
// command line is taken as it is (a run against a budget).
func (o options) appsTimeout() time.Duration {
	if o.timeoutGiven {
		return o.timeout
	}
	return max(o.timeout, 3*time.Minute)
}

// failureSettle is the pause after a failed application run.
const failureSettle = 3 * time.Second

func runWorkloads(s Suite, o options, l Launch, env []string, tmp string, deadline time.Time,
	cfgs []Config, res SuiteResult) (SuiteResult, error) {
	type prepared struct {
		w      Workload
		builds map[string]workloadBuild // by MPI name
	}
	mpis := map[string]apps.MPI{}
	for _, c := range cfgs {
		m := configMPI(c.Name)
		mpis[m.Name] = m
	}
	var ws []prepared
	for _, w := range s.Workloads {
		if o.smoke && !w.Smoke {
			continue
		}
		p := prepared{w: w, builds: map[string]workloadBuild{}}
		for _, mpi := range mpis {
			p.builds[mpi.Name] = setupFor(w, o, tmp, mpi)
			if b := p.builds[mpi.Name]; b.skip != "" && mpi.Name == apps.MPICH.Name && !w.OpenMPIOnly {
				// MPICH's builds are the scoreboard's: no silent gaps.
				return res, fmt.Errorf("%s: %s", w.Name, b.skip)
			}
		}
		ws = append(ws, p)
	}
	ghostOpenMPISkip := ""
	if _, err := os.Stat(filepath.Join(o.build, openMPIGhostLib)); err != nil {
		ghostOpenMPISkip = openMPIGhostLib + " is not built"
	}
	timeout := o.appsTimeout()
	// scratch makes a fresh working directory under tmp for one run of p.
	scratch := func(b workloadBuild, name string) (string, error) {
		dir := filepath.Join(tmp, name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", err
		}
		if b.prepare != nil {
			if err := b.prepare(dir); err != nil {
				return "", err
			}
		}
		return dir, nil
	}
	started := time.Now()
	runs := 0
	afterFailure := false
	for round := 0; round < res.Rounds; round++ {
		for _, p := range ws {
			for _, c := range cfgs {
				b := p.builds[configMPI(c.Name).Name]
				run := Run{Config: c.Name, Round: round, Env: c.Env, Command: c.Command(l, b.argv),
					Meta: map[string]any{"workload": p.w.Name}}
				run.NotRun = b.skip
				if run.NotRun == "" && c.Name == openMPIGhostConfig {
					run.NotRun = ghostOpenMPISkip
				}
				if run.NotRun != "" {
					res.Runs = append(res.Runs, run)
					continue
				}
				if !deadline.IsZero() && time.Now().After(deadline) {
					run.Error = "skipped: -max-time reached"
					res.Runs = append(res.Runs, run)
					continue
				}
				fmt.Fprintf(os.Stderr, "bench: %s: %s under %s, round %d of %d\n", s.Name, p.w.Name, c.Name, round+1, res.Rounds)
				dir, err := scratch(b, fmt.Sprintf("run%d", runs))
				runs++
				if err != nil {
					return res, err
				}
				// NWChem writes tens of MB per run: flush what earlier runs
				// left dirty, so that no run pays for another's writeback.
				syscall.Sync()
				// The VM reclaims page cache that goes unused for a while:
				// every run starts with its own files in memory.
				lib := "libghost.so"
				if configMPI(c.Name).Name == apps.OpenMPI.Name {
					lib = openMPIGhostLib
				}
				warmFiles(append(slices.Clone(run.Command), filepath.Join(o.build, lib)))
				// The first run after a failed one (MPICH's progress thread
				// spins for minutes on water SCF before it fails) was slow,
				// even with its files warm and after a pause: water SCF
				// under Ghost, the configuration that comes next, took
				// 0.21-0.27 s there against 0.15-0.18 s under ghost-auto,
				// the same path, run after it (2026-11-25T144038Z and the
				// two runs before); by hand, the first Ghost run after the
				// progress thread took 0.29 s and the next three 0.16-0.20.
				// So that run is made once untimed first, in a scratch
				// directory of its own.
				if afterFailure {
					if warm, err := scratch(b, fmt.Sprintf("warm%d", runs)); err == nil {
						mpiprog.RunIn(warm, run.Command, append(append([]string{}, env...), c.Env...), timeout)
						os.RemoveAll(warm)
					}
					afterFailure = false
				}
				start := time.Now()
				stdout, err := mpiprog.RunIn(dir, run.Command, append(append([]string{}, env...), c.Env...), timeout)
				run.Seconds = time.Since(start).Seconds()
				size, ok, detail := p.w.Judge(string(stdout))
				run.Meta["result"] = detail
				run.Checked = true
				if !ok {
					run.WrongValues = 1
				}
				switch {
				case err != nil:
					run.Error = err.Error()
				case size != 0 && size != l.Users:
					run.Error = fmt.Sprintf("the application saw %d ranks, want %d", size, l.Users)
				}
				if run.Error != "" {
					fmt.Fprintf(os.Stderr, "bench: %s: %s under %s failed: %s\n", s.Name, p.w.Name, c.Name, run.Error)
					// A failed run may have spun for minutes and been
					// killed: let its processes go before the next timing.
					time.Sleep(failureSettle)
					afterFailure = true
				} else {
					res.Samples = append(res.Samples, Sample{Config: c.Name, Round: round, Metric: p.w.Name, Unit: "s", Value: run.Seconds})
				}
				res.Runs = append(res.Runs, run)
				os.RemoveAll(dir)
			}
		}
	}
	res.Seconds = time.Since(started).Seconds()
	res.Stats = statsOf(res.Samples)
	res.Deltas = compare(res.Stats, res.Baseline, s.Budget)
	return res, nil
}
