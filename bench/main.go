// Command bench runs Ghost's benchmark suites: each suite's C program is
// built with mpicc and run under every configuration it compares (plain
// MPICH, MPICH's progress thread, Ghost with redirection on and off, ...) in
// one run, with the same number of user ranks. Results go to
// bench/results/<UTC time>-<host>.json (raw samples and summaries), a
// markdown summary beside it (also printed) with the targets judged,
// and a PNG of plots.
//
//	go run ./bench                 # every suite
//	go run ./bench -suite intercept -smoke
//
// Run it from the repository root after `make`.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

type options struct {
	suites  string
	configs string
	smoke   bool
	users   int
	rounds  int
	timeout time.Duration
	// timeoutGiven says -timeout was on the command line: the apps suite
	// then takes it as it is, instead of raising it to its floor.
	timeoutGiven bool
	maxTime      time.Duration
	render       string
	build        string
	programs     string
	prebuild     string
	prebuilt     string
	out          string
	mpicc        string
	mpiexec      string
}

func parseFlags() options {
	var o options
	flag.StringVar(&o.suites, "suite", "all", "comma-separated suites to run, or all (known: "+strings.Join(suiteNames(), ", ")+")")
	flag.StringVar(&o.configs, "configs", "", "comma-separated configurations, overriding each suite's own list (the first is the baseline)")
	flag.BoolVar(&o.smoke, "smoke", false, "short run that only proves the suites work")
	flag.IntVar(&o.users, "n", 2, "user ranks in every configuration")
	flag.IntVar(&o.rounds, "rounds", 0, "times each configuration runs, interleaved with the others (default: the suite's, 5 unless it says; smoke 1)")
	flag.DurationVar(&o.timeout, "timeout", 60*time.Second, "limit for one run of a program (the apps suite raises it to 3m unless it is given)")
	flag.DurationVar(&o.maxTime, "max-time", 0, "limit for the whole driver run: runs that would start later are skipped and reported (0: none)")
	flag.StringVar(&o.render, "render", "", "run nothing: rewrite the .md and .png of an earlier run from its .json (after a change to the report)")
	flag.StringVar(&o.build, "build", "build", "directory holding libghost.so and the ghost CLI")
	flag.StringVar(&o.programs, "programs", "bench/programs", "directory of the benchmark programs")
	flag.StringVar(&o.prebuild, "prebuild", "", "run nothing: compile the selected suites' programs (ours, not the installed applications) into this directory, for -prebuilt on a machine without compilers")
	flag.StringVar(&o.prebuilt, "prebuilt", "", "directory of programs compiled by -prebuild: run them, compile nothing")
	flag.StringVar(&o.out, "out", "bench/results", "directory for the results")
	flag.StringVar(&o.mpicc, "mpicc", "mpicc", "MPI C compiler")
	flag.StringVar(&o.mpiexec, "mpiexec", "mpiexec.hydra", "hydra's mpiexec, used by every configuration")
	flag.Parse()
	flag.Visit(func(f *flag.Flag) { o.timeoutGiven = o.timeoutGiven || f.Name == "timeout" })
	return o
}

// rounds is how many times each configuration of s runs.
func (o options) roundsFor(s Suite) int {
	switch {
	case o.rounds > 0:
		return o.rounds
	case o.smoke:
		return 1
	case s.Rounds > 0:
		return s.Rounds
	}
	return 5
}

func main() {
	o := parseFlags()
	do := run
	switch {
	case o.render != "" && o.prebuild != "":
		fmt.Fprintln(os.Stderr, "bench: -render and -prebuild both run nothing else: give one")
		os.Exit(2)
	case o.render != "":
		do = rerender
	case o.prebuild != "":
		do = prebuild
	}
	if err := do(o); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(o options) error {
	selected, err := findSuites(o.suites)
	if err != nil {
		return err
	}
	launch, env, err := prepareLaunch(o)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "ghost-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	report := Report{Started: time.Now().UTC(), Smoke: o.smoke, Env: captureEnvironment()}
	deadline := time.Time{}
	if o.maxTime > 0 {
		deadline = report.Started.Add(o.maxTime)
	}
	for _, s := range selected {
		res, err := runSuite(s, o, launch, env, tmp, deadline)
		if err != nil {
			return fmt.Errorf("%s: %v", s.Name, err)
		}
		report.Suites = append(report.Suites, res)
	}
	report.Env.LoadAfter = loadAverage()
	report.Seconds = time.Since(report.Started).Seconds()
	report.Targets = evaluate(targets, report.Suites)

	md := markdown(report)
	fmt.Print(md)
	paths, err := writeReport(o.out, report, md)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "bench: wrote %s\n", strings.Join(paths, ", "))
	for _, s := range report.Suites {
		if s.failed() {
			return fmt.Errorf("%s: some runs failed (see the report)", s.Name)
		}
	}
	return nil
}

// prepareLaunch resolves the tools every configuration uses. ghost run is
// told which mpiexec and which libghost.so to use, so that the Ghost
// configurations run the library just built under the same launcher as the
// plain one.
func prepareLaunch(o options) (Launch, []string, error) {
	if o.users < 1 {
		return Launch{}, nil, fmt.Errorf("-n must be at least 1")
	}
	mpiexec, err := exec.LookPath(o.mpiexec)
	if err != nil {
		return Launch{}, nil, err
	}
	build, err := filepath.Abs(o.build)
	if err != nil {
		return Launch{}, nil, err
	}
	ghost, lib := filepath.Join(build, "ghost"), filepath.Join(build, "libghost.so")
	for _, p := range []string{ghost, lib} {
		if _, err := os.Stat(p); err != nil {
			return Launch{}, nil, fmt.Errorf("%v (run make first)", err)
		}
	}
	env := []string{"GHOST_MPIEXEC=" + mpiexec, "GHOST_LIB=" + lib}
	return Launch{Mpiexec: mpiexec, Ghost: ghost, Users: o.users}, env, nil
}

// runSuite builds the suite's program and runs it rounds times under each
// configuration. Configurations alternate inside a round, so a burst of load
// from other users of the box lands on all of them rather than on one. Runs
// that would start after deadline (if set) are skipped and recorded so.
func runSuite(s Suite, o options, l Launch, env []string, tmp string, deadline time.Time) (SuiteResult, error) {
	names := s.Configs
	if o.configs != "" {
		names = strings.Split(o.configs, ",")
	}
	var cfgs []Config
	for _, n := range names {
		c, err := configByName(strings.TrimSpace(n))
		if err != nil {
			return SuiteResult{}, err
		}
		cfgs = append(cfgs, c)
	}
	rounds := o.roundsFor(s)
	res := SuiteResult{Name: s.Name, About: s.About, Program: s.Program, Users: l.Users,
		Rounds: rounds, Baseline: cfgs[0].Name, Budget: s.Budget, Wide: s.Wide, LoadBefore: loadAverage()}
	for _, c := range cfgs {
		res.Configs = append(res.Configs, ConfigInfo{Name: c.Name, About: c.About, ProgArgs: c.ProgArgs})
	}
	if len(s.Workloads) > 0 {
		return runWorkloads(s, o, l, env, tmp, deadline, cfgs, res)
	}
	exe, err := o.builder().bench(filepath.Join(o.programs, s.Program), tmp)
	if err != nil {
		return SuiteResult{}, err
	}
	args := s.Args(o.smoke)
	res.Args = args
	prog := append([]string{exe}, args...)
	parse := s.Parse
	if parse == nil {
		parse = parseOutput
	}
	started := time.Now()
	for round := 0; round < rounds; round++ {
		for _, c := range cfgs {
			if !deadline.IsZero() && time.Now().After(deadline) {
				res.Runs = append(res.Runs, Run{Config: c.Name, Round: round, Error: "skipped: -max-time reached"})
				continue
			}
			fmt.Fprintf(os.Stderr, "bench: %s: %s, round %d of %d\n", s.Name, c.Name, round+1, rounds)
			run, samples := runOnce(c, l, prog, env, round, o.timeout, parse)
			if run.Error != "" {
				fmt.Fprintf(os.Stderr, "bench: %s: %s failed: %s\n", s.Name, c.Name, run.Error)
			}
			res.Runs = append(res.Runs, run)
			res.Samples = append(res.Samples, samples...)
		}
	}
	res.Seconds = time.Since(started).Seconds()
	res.Stats = statsOf(res.Samples)
	res.Deltas = compare(res.Stats, res.Baseline, s.Budget)
	return res, nil
}

// rerender rewrites the markdown and the PNG of an earlier run from its
// JSON, in the directory of the JSON; the numbers are not touched. The
// table layout comes from today's suite definitions.
func rerender(o options) error {
	data, err := os.ReadFile(o.render)
	if err != nil {
		return err
	}
	var r Report
	if err := json.Unmarshal(data, &r); err != nil {
		return fmt.Errorf("%s: %v", o.render, err)
	}
	for i := range r.Suites {
		if def, ok := suiteByName(r.Suites[i].Name); ok {
			r.Suites[i].Wide = def.Wide
		}
	}
	md := markdown(r)
	base := strings.TrimSuffix(o.render, ".json")
	if err := writeAtomic(base+".md", []byte(md)); err != nil {
		return err
	}
	png, err := renderPNG(r)
	if err != nil || png == nil {
		return err
	}
	return writeAtomic(base+".png", png)
}
