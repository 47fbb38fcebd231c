package main

import (
	"bufio"
	_ "embed"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/ghost-mpi/ghost/adapt"
	"github.com/ghost-mpi/ghost/internal/mpiprog"
	"github.com/ghost-mpi/ghost/redirect"
)

// calibrateSource is the measuring program; it is compiled with mpicc when
// `ghost calibrate` runs, against the MPI the jobs will use.
//
//go:embed programs/calibrate.c
var calibrateSource []byte

const calibrateUsage = `usage: ghost calibrate [-n LIST] [-g LIST] [--hosts LIST] [--quick] [-o FILE]
                       [--steps K] [--probe-seconds S]

Measures, on this machine, the communication ratio (CR) at which redirecting
RMA through the ghosts stops paying off, and writes a thresholds file for
GHOST_THRESHOLDS (docs/calibrate.md).

For every user count n, ghost count g and pattern (op: put, get, acc,
get_acc, fop, cas; datatype: contig, subarray; blocking: per-op, per-batch;
target: all-to-all, and all-to-one-node when the job spans several nodes) it
runs a compute-then-communicate loop with GHOST_ASYNC=off and =on at a
communication load, and bisects the load until both cost the same within
±5%. Each step is one job per mode for all patterns together.

  -n LIST            user process counts, comma-separated (default 2,4;
                     --quick: 2,3)
  -g LIST            ghosts per node, comma-separated (default 1,2; --quick: 1)
  --hosts LIST       fake nodes, as for ghost run (host:slots,...)
  --quick            7 patterns covering every op, datatype and blocking
                     (all-to-all only), 4 bisection steps, 0.4 s probes:
                     about 1.5 minutes on 2 cores
  -o FILE            the thresholds file to write (default thresholds.json)
  --steps K          bisection steps per pattern (default 5; --quick: 4)
  --probe-seconds S  measuring time of one probe (default 0.5; --quick: 0.4)
`

// Sweep parameters (docs/calibrate.md explains them).
const (
	// calibrateTolerance is when redirection on and off "cost the same":
	// their times per iteration within ±5%.
	calibrateTolerance = 0.05
	// minLoad is the lowest communication load tried: compute takes 199
	// times as long as the communication does without it, several
	// milliseconds per iteration here, long enough for a ghost that shares
	// a core to be scheduled while its targets compute.
	minLoad = 0.005
)

// quickPatterns cover every op, both datatypes and both blocking modes
// with 7 patterns, all-to-all.
var quickPatterns = []adapt.Pattern{
	{Op: "put", Datatype: "contig", Blocking: "per-op", Target: "all-to-all"},
	{Op: "get", Datatype: "subarray", Blocking: "per-batch", Target: "all-to-all"},
	{Op: "acc", Datatype: "contig", Blocking: "per-batch", Target: "all-to-all"},
	{Op: "acc", Datatype: "subarray", Blocking: "per-op", Target: "all-to-all"},
	{Op: "get_acc", Datatype: "contig", Blocking: "per-op", Target: "all-to-all"},
	{Op: "fop", Datatype: "contig", Blocking: "per-op", Target: "all-to-all"},
	{Op: "cas", Datatype: "contig", Blocking: "per-batch", Target: "all-to-all"},
}

// calibrateOptions is a parsed `ghost calibrate` command line.
type calibrateOptions struct {
	users        []int
	ghosts       []int
	hosts        string
	quick        bool
	output       string
	steps        int
	probeSeconds float64
}

func parseCalibrateArgs(args []string, stderr io.Writer) (calibrateOptions, error) {
	o := calibrateOptions{}
	fs := flag.NewFlagSet("ghost calibrate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, calibrateUsage) }
	users := fs.String("n", "", "user process counts")
	ghosts := fs.String("g", "", "ghosts per node")
	fs.StringVar(&o.hosts, "hosts", "", "fake nodes")
	fs.BoolVar(&o.quick, "quick", false, "a short sweep")
	fs.StringVar(&o.output, "o", "thresholds.json", "output file")
	fs.IntVar(&o.steps, "steps", -1, "bisection steps")
	fs.Float64Var(&o.probeSeconds, "probe-seconds", 0, "seconds per probe")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	defUsers, defGhosts, defSteps, defSeconds := "2,4", "1,2", 5, 0.5
	if o.quick {
		defUsers, defGhosts, defSteps, defSeconds = "2,3", "1", 4, 0.4
	}
	var err error
	if o.users, err = parseCounts("-n", orDefault(*users, defUsers), 2, 1<<20); err != nil {
		return o, err
	}
	if o.ghosts, err = parseCounts("-g", orDefault(*ghosts, defGhosts), 1, 8); err != nil {
		return o, err
	}
	if o.steps < 0 {
		o.steps = defSteps
	}
	if o.probeSeconds == 0 {
		o.probeSeconds = defSeconds
	}
	if !(o.probeSeconds > 0) || o.probeSeconds > 60 {
		return o, fmt.Errorf("--probe-seconds %g is not valid: accepted values are more than 0 and at most 60", o.probeSeconds)
	}
	if o.steps > 20 {
		return o, fmt.Errorf("--steps %d is not valid: accepted values are 0 to 20", o.steps)
	}
	if o.output == "" {
		return o, fmt.Errorf("-o needs a file name")
	}
	if o.hosts != "" {
		if _, err := redirect.ParseHosts(o.hosts); err != nil {
			return o, err
		}
	}
	return o, nil
}

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

// parseCounts reads a comma-separated list of distinct integers in
// [lo, hi].
func parseCounts(flagName, v string, lo, hi int) ([]int, error) {
	var out []int
	seen := map[int]bool{}
	for _, item := range strings.Split(v, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(item))
		if err != nil || n < lo || n > hi {
			return nil, fmt.Errorf("%s %q is not valid: accepted values are comma-separated integers from %d to %d", flagName, v, lo, hi)
		}
		if seen[n] {
			return nil, fmt.Errorf("%s %q names %d twice", flagName, v, n)
		}
		seen[n] = true
		out = append(out, n)
	}
	return out, nil
}

// planPatterns lists the patterns to calibrate: the quick subset, or every
// valid combination. all-to-one-node is the same as all-to-all when the job
// has one node, so it is planned only for jobs that span several.
func planPatterns(quick, multiNode bool) []adapt.Pattern {
	if quick {
		return quickPatterns
	}
	var out []adapt.Pattern
	for _, target := range adapt.PatternTargets {
		if target == "all-to-one-node" && !multiNode {
			continue
		}
		for _, op := range adapt.PatternOps {
			for _, dt := range adapt.PatternDatatypes {
				for _, blk := range adapt.PatternBlockings {
					p := adapt.Pattern{Op: op, Datatype: dt, Blocking: blk, Target: target}
					if p.Validate() == nil {
						out = append(out, p)
					}
				}
			}
		}
	}
	return out
}

// deployment is one (n, g) of the sweep.
type deployment struct{ users, ghosts int }

// planDeployments pairs every n with every g, checking that each fits the
// fake-node layout, and says for each whether it spans several nodes.
func planDeployments(users, ghosts []int, hosts string) ([]deployment, []bool, error) {
	var deps []deployment
	var multi []bool
	for _, n := range users {
		for _, g := range ghosts {
			nodes := 1
			if hosts != "" {
				list, err := redirect.ParseHosts(hosts)
				if err != nil {
					return nil, nil, err
				}
				plan, err := redirect.Place(n, g, list)
				if err != nil {
					return nil, nil, fmt.Errorf("n=%d g=%d does not fit --hosts %s: %v", n, g, hosts, err)
				}
				nodes = len(plan)
			}
			deps = append(deps, deployment{n, g})
			multi = append(multi, nodes > 1)
		}
	}
	return deps, multi, nil
}

// measurement is one probe's result in one mode.
type measurement struct {
	CR          float64 // communication ratio over all ranks
	IterSeconds float64 // the slowest rank's time per iteration
}

// probe is one load measured both ways.
type probe struct {
	Load    float64
	On, Off measurement
}

// ratio is the cost of redirection relative to none; below 1 it pays.
func (p probe) ratio() float64 { return p.On.IterSeconds / p.Off.IterSeconds }

// cr is the probe's communication ratio: the mean of both modes'. At a
// crossing both take the same time for the same computation, so their
// CRs agree up to noise.
func (p probe) cr() float64 { return (p.On.CR + p.Off.CR) / 2 }

// same is the crossing rule: on and off cost the same within tol (plus a
// hair, so that exactly 5% counts as the same in floating point).
func (p probe) same(tol float64) bool { return math.Abs(p.ratio()-1) <= tol+1e-9 }

// search bisects the communication load of one pattern for the point where
// redirection on and off cost the same. It probes load 1 (no computation)
// first, then minLoad, then bisects (geometrically) between the two ends
// that lie on either side of the crossing.
type search struct {
	pattern adapt.Pattern
	tol     float64
	steps   int     // bisection steps left
	ref     float64 // seconds per iteration with redirection off at load 1
	probes  []probe
	lo, hi  probe // bracketing probes, lo at the lower load
	result  *adapt.Boundary
}

func newSearch(p adapt.Pattern, tol float64, steps int) *search {
	return &search{pattern: p, tol: tol, steps: steps}
}

// next is the load to probe next; false when the search is done.
func (s *search) next() (float64, bool) {
	switch {
	case s.result != nil:
		return 0, false
	case len(s.probes) == 0:
		return 1, true
	case len(s.probes) == 1:
		return minLoad, true
	}
	// The geometric mean: the crossing usually lies at low loads, and a
	// load halves the computation's share only when it doubles.
	return math.Sqrt(s.lo.Load * s.hi.Load), true
}

// computeMicros converts a load into the computation per iteration: load
// is the fraction of an iteration spent communicating when communication
// takes what it takes at load 1 with redirection off.
func (s *search) computeMicros(load float64) float64 {
	return s.ref * (1 - load) / load * 1e6
}

// record takes the measurement of the load next returned.
func (s *search) record(p probe) {
	s.probes = append(s.probes, p)
	if len(s.probes) == 1 {
		s.ref = p.Off.IterSeconds
	}
	if p.same(s.tol) {
		s.finish(adapt.KindCrossing, p.cr(), p.Load)
		return
	}
	switch len(s.probes) {
	case 1:
		return
	case 2:
		top, bottom := s.probes[0], s.probes[1]
		switch {
		case top.ratio() < 1 && bottom.ratio() < 1:
			s.finish(adapt.KindOnWins, top.cr(), top.Load)
			return
		case top.ratio() > 1 && bottom.ratio() > 1:
			s.finish(adapt.KindOffWins, bottom.cr(), bottom.Load)
			return
		}
		s.lo, s.hi = bottom, top
	default:
		if (p.ratio() < 1) == (s.lo.ratio() < 1) {
			s.lo = p
		} else {
			s.hi = p
		}
		s.steps--
	}
	if s.steps <= 0 {
		cr, load := interpolate(s.lo, s.hi)
		s.finish(adapt.KindInterpolated, cr, load)
	}
}

// interpolate estimates where the cost ratio crosses 1 between two probes
// on either side of it, linearly in log(ratio), and returns the CR and the
// load there.
func interpolate(a, b probe) (cr, load float64) {
	la, lb := math.Log(a.ratio()), math.Log(b.ratio())
	f := 0.5
	if la != lb {
		f = la / (la - lb)
	}
	return a.cr() + f*(b.cr()-a.cr()), a.Load + f*(b.Load-a.Load)
}

func (s *search) finish(kind string, cr, load float64) {
	s.result = &adapt.Boundary{Pattern: s.pattern, Kind: kind,
		CR: math.Round(math.Min(math.Max(cr, 0), 1)*1e4) / 1e4, Load: math.Round(load*1e4) / 1e4}
}

// probeSpec is one probe of a job: a pattern at a computation time.
type probeSpec struct {
	pattern   adapt.Pattern
	computeUS float64
}

func (p probeSpec) arg() string {
	return fmt.Sprintf("%s:%s:%s:%s:%.1f", p.pattern.Op, p.pattern.Datatype, p.pattern.Blocking, p.pattern.Target, p.computeUS)
}

// jobRunner runs the probes in one job of the deployment with
// GHOST_ASYNC=async and returns one measurement per probe.
type jobRunner func(d deployment, async string, probes []probeSpec) ([]measurement, error)

// sweep runs the searches of one deployment to the end, one job per mode
// per round, every unfinished pattern probed in each round.
func sweep(d deployment, patterns []adapt.Pattern, tol float64, steps int, run jobRunner, progress io.Writer) ([]adapt.Boundary, error) {
	searches := make([]*search, len(patterns))
	for i, p := range patterns {
		searches[i] = newSearch(p, tol, steps)
	}
	for round := 1; ; round++ {
		var pending []*search
		var loads []float64
		var specs []probeSpec
		for _, s := range searches {
			if load, ok := s.next(); ok {
				pending = append(pending, s)
				loads = append(loads, load)
				specs = append(specs, probeSpec{s.pattern, s.computeMicros(load)})
			}
		}
		if len(pending) == 0 {
			break
		}
		fmt.Fprintf(progress, "n=%d g=%d: round %d, %d pattern(s)\n", d.users, d.ghosts, round, len(pending))
		// Alternate which mode goes first, so that a machine whose other
		// load drifts during a round does not favour one mode every time.
		modes := []string{"off", "on"}
		if round%2 == 0 {
			modes[0], modes[1] = modes[1], modes[0]
		}
		results := map[string][]measurement{}
		for _, mode := range modes {
			ms, err := run(d, mode, specs)
			if err != nil {
				return nil, err
			}
			results[mode] = ms
		}
		on, off := results["on"], results["off"]
		for i, s := range pending {
			s.record(probe{Load: loads[i], On: on[i], Off: off[i]})
		}
	}
	out := make([]adapt.Boundary, len(searches))
	for i, s := range searches {
		out[i] = *s.result
		out[i].N, out[i].G = d.users, d.ghosts
	}
	return out, nil
}

// buildThresholds assembles the file from the boundaries, one average per
// deployment.
func buildThresholds(boundaries []adapt.Boundary, deps []deployment, machine adapt.Machine, sw adapt.Sweep, created time.Time) (*adapt.ThresholdsFile, error) {
	f := &adapt.ThresholdsFile{Created: created.UTC().Truncate(time.Second), Machine: machine, Sweep: sw, Boundaries: boundaries}
	for _, d := range deps {
		var crs []float64
		for _, b := range boundaries {
			if b.N == d.users && b.G == d.ghosts {
				crs = append(crs, b.CR)
			}
		}
		a, err := adapt.DeriveAverage(d.users, d.ghosts, crs)
		if err != nil {
			return nil, err
		}
		f.Averages = append(f.Averages, a)
	}
	return f, nil
}

// parseProbeOutput reads the program's stdout: the library line and one
// measurement per probe, in order.
func parseProbeOutput(out []byte, probes int) (library string, ms []measurement, err error) {
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		line := sc.Text()
		f := strings.Fields(line)
		switch {
		case len(f) == 0, f[0] == "users":
		case f[0] == "library":
			library = strings.Join(f[1:], " ")
		case f[0] == "probe" && len(f) == 10 && f[2] == "cr" && f[4] == "iter_us":
			i, err1 := strconv.Atoi(f[1])
			cr, err2 := strconv.ParseFloat(f[3], 64)
			us, err3 := strconv.ParseFloat(f[5], 64)
			switch {
			case err1 != nil || err2 != nil || err3 != nil:
				return "", nil, fmt.Errorf("unreadable line %q", line)
			case i != len(ms):
				return "", nil, fmt.Errorf("probe %d where probe %d was due", i, len(ms))
			case !(cr >= 0 && cr <= 1) || !(us > 0):
				return "", nil, fmt.Errorf("implausible measurement %q", line)
			}
			ms = append(ms, measurement{CR: cr, IterSeconds: us / 1e6})
		default:
			return "", nil, fmt.Errorf("unknown line %q", line)
		}
	}
	if len(ms) != probes {
		return "", nil, fmt.Errorf("%d probe results for %d probes", len(ms), probes)
	}
	return library, ms, nil
}

// mpiRunner runs the calibration program under Ghost's launcher.
type mpiRunner struct {
	exe, lib, mpiexec string
	hosts             string
	seconds           float64
	library           string // the MPI library line of the last job
	jobs              int
}

func (r *mpiRunner) run(d deployment, async string, probes []probeSpec) ([]measurement, error) {
	args := []string{r.exe, strconv.FormatFloat(r.seconds, 'g', -1, 64)}
	for _, p := range probes {
		args = append(args, p.arg())
	}
	argv, err := mpiexecCommand(runOptions{users: d.users, ghosts: d.ghosts, hosts: r.hosts, program: args},
		r.mpiexec, r.lib, os.Getenv("LD_PRELOAD"))
	if err != nil {
		return nil, err
	}
	// Every probe warms up for a tenth of its time and has a barrier or
	// two; the rest is start-up, slow on a loaded machine.
	timeout := 60*time.Second + time.Duration(float64(len(probes))*(1.5*r.seconds+1)*float64(time.Second))
	out, err := mpiprog.Run(argv, []string{"GHOST_ASYNC=" + async}, timeout)
	r.jobs++
	if err != nil {
		return nil, fmt.Errorf("n=%d g=%d GHOST_ASYNC=%s: %v", d.users, d.ghosts, async, err)
	}
	lib, ms, err := parseProbeOutput(out, len(probes))
	if err != nil {
		return nil, fmt.Errorf("n=%d g=%d GHOST_ASYNC=%s: %v\n%s", d.users, d.ghosts, async, err, mpiprog.Tail(string(out), 2000))
	}
	r.library = lib
	return ms, nil
}

func calibrateCommand(args []string, stdout, stderr io.Writer) int {
	o, err := parseCalibrateArgs(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "ghost calibrate: %v\n", err)
		return 2
	}
	if err := calibrate(o, stdout, stderr); err != nil {
		fmt.Fprintf(stderr, "ghost calibrate: %v\n", err)
		return 1
	}
	return 0
}

func calibrate(o calibrateOptions, stdout, stderr io.Writer) error {
	deps, multi, err := planDeployments(o.users, o.ghosts, o.hosts)
	if err != nil {
		return err
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	lib, err := findLibrary(os.Getenv, exe)
	if err != nil {
		return err
	}
	mpiexec, err := findMpiexec(os.Getenv, exec.LookPath)
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "ghost-calibrate-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	prog, err := mpiprog.BuildSource("mpicc", "calibrate.c", calibrateSource, dir)
	if err != nil {
		return err
	}
	runner := &mpiRunner{exe: prog, lib: lib, mpiexec: mpiexec, hosts: o.hosts, seconds: o.probeSeconds}
	start := time.Now()
	var boundaries []adapt.Boundary
	for i, d := range deps {
		patterns := planPatterns(o.quick, multi[i])
		fmt.Fprintf(stderr, "ghost calibrate: n=%d g=%d: %d patterns, up to %d rounds of two jobs\n",
			d.users, d.ghosts, len(patterns), o.steps+2)
		b, err := sweep(d, patterns, calibrateTolerance, o.steps, runner.run, stderr)
		if err != nil {
			return err
		}
		boundaries = append(boundaries, b...)
	}
	host, _ := os.Hostname()
	machine := adapt.Machine{Hostname: host, Cores: runtime.NumCPU(), MPI: runner.library, Hosts: o.hosts}
	sw := adapt.Sweep{Quick: o.quick, Tolerance: calibrateTolerance, ProbeSeconds: o.probeSeconds, Steps: o.steps}
	f, err := buildThresholds(boundaries, deps, machine, sw, time.Now())
	if err != nil {
		return err
	}
	data, err := f.Encode()
	if err != nil {
		return err
	}
	// Check what is written with the parser the library uses.
	if _, err := adapt.ParseThresholds(o.output, data); err != nil {
		return fmt.Errorf("internal error: the file does not parse: %v", err)
	}
	if err := writeFileAtomic(o.output, data); err != nil {
		return err
	}
	printThresholds(stdout, f)
	fmt.Fprintf(stdout, "wrote %s (%d jobs in %s); use it with GHOST_THRESHOLDS=%s\n",
		o.output, runner.jobs, time.Since(start).Round(time.Second), o.output)
	return nil
}

// printThresholds writes the boundaries and averages as two tables.
func printThresholds(w io.Writer, f *adapt.ThresholdsFile) {
	fmt.Fprintf(w, "%-3s %-3s %-42s %-13s %-6s %s\n", "n", "g", "pattern", "kind", "load", "CR")
	for _, b := range f.Boundaries {
		fmt.Fprintf(w, "%-3d %-3d %-42s %-13s %-6.3f %.3f\n", b.N, b.G, b.Pattern, b.Kind, b.Load, b.CR)
	}
	fmt.Fprintf(w, "\n%-3s %-3s %-6s %-6s %s\n", "n", "g", "CR", "LOW", "HIGH")
	for _, a := range f.Averages {
		fmt.Fprintf(w, "%-3d %-3d %-6.3f %-6.3f %.3f\n", a.N, a.G, a.CR, a.Low, a.High)
	}
}

// writeFileAtomic writes through a temporary file in the same directory,
// so a reader never sees half a file.
func writeFileAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".thresholds-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
