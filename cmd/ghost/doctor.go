package main

import (
	"bytes"
	"debug/elf"
	_ "embed"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/ghost-mpi/ghost/internal/config"
	"github.com/ghost-mpi/ghost/internal/mpiprog"
	"github.com/ghost-mpi/ghost/internal/rdma/verbs"
	"github.com/ghost-mpi/ghost/redirect"
)

const doctorUsage = `usage: ghost doctor [-n N] [-g G] [--hosts LIST] [--json] [--no-probe] [--compute S] [-- program]

Checks whether Ghost is set up right on this machine and whether it will
help: the MPI library and its ABI, MPI's own asynchronous progress (a
2-rank probe), the node layout of a dry run, RDMA devices and the
GHOST_HW_BYPASS decision, and the GHOST_* environment. docs/doctor.md
explains every line.

  -n N          user ranks of the dry run (default 2)
  -g G          ghosts per node (default: GHOST_NG, else auto, as for run)
  --hosts LIST  fake nodes, as for ghost run
  --json        print a JSON document instead of the report
  --no-probe    skip the progress probe (it builds with mpicc and runs
                two short MPI jobs)
  --compute S   seconds the probe's target computes (default 0.3)
  program       an application binary: says whether its MPI library
                matches the ABI libghost.so is built for

Exit status: 0, or 1 when an error was found (2 for bad arguments).
`

//go:embed probes/async.c
var asyncProbe []byte

type doctorOptions struct {
	users   int
	ghosts  int
	hosts   string
	json    bool
	noProbe bool
	compute float64
	program string
}

func parseDoctorArgs(args []string, getenv func(string) string, stderr io.Writer) (doctorOptions, error) {
	var o doctorOptions
	fs := flag.NewFlagSet("ghost doctor", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, doctorUsage) }
	ghosts := jobFlags(fs, &o.users, 2, &o.hosts)
	fs.BoolVar(&o.json, "json", false, "JSON output")
	fs.BoolVar(&o.noProbe, "no-probe", false, "skip the probe")
	fs.Float64Var(&o.compute, "compute", 0.3, "probe compute seconds")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	switch rest := fs.Args(); len(rest) {
	case 0:
	case 1:
		o.program = rest[0]
	default:
		return o, fmt.Errorf("one program at most, got %q", rest)
	}
	if o.users < 1 {
		return o, fmt.Errorf("-n %d is not valid: accepted values are an integer >= 1", o.users)
	}
	if o.compute <= 0 || o.compute > 10 {
		return o, fmt.Errorf("--compute %g is not valid: accepted values are seconds in (0, 10]", o.compute)
	}
	g, err := ghostCount(*ghosts, getenv, o.users, o.hosts)
	if err != nil {
		return o, err
	}
	o.ghosts = g
	return o, nil
}

func doctorCommand(args []string, stdout, stderr io.Writer) int {
	o, err := parseDoctorArgs(args, os.Getenv, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "ghost doctor: %v\n", err)
		return 2
	}
	r := diagnose(o)
	if o.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(r); err != nil {
			fmt.Fprintf(stderr, "ghost doctor: %v\n", err)
			return 1
		}
	} else {
		writeText(stdout, r)
	}
	if len(r.Errors) > 0 {
		return 1
	}
	return 0
}

// diagnose gathers every section of the report on this machine.
func diagnose(o doctorOptions) *Report {
	r := &Report{Schema: doctorSchema, Warnings: []string{}, Errors: []string{}}
	cfg, problems := config.Load(os.Environ())

	lib := ""
	exe, exeErr := os.Executable()
	if exeErr == nil {
		if p, err := findLibrary(os.Getenv, exe); err == nil {
			lib = p
		}
	}
	openMPILib := ""
	if exeErr == nil {
		if p, err := findLibraryFor(openMPIABI, os.Getenv, exe); err == nil {
			openMPILib = p
		}
	}
	mpiexec := mpiSection(r, lib, openMPILib, o.program)

	r.Progress = ProgressReport{ComputeSeconds: o.compute}
	switch {
	case o.noProbe:
		r.Progress.Skipped = "--no-probe"
	case mpiexec == "":
		r.Progress.Skipped = "no mpiexec"
	default:
		probeSection(r, o, mpiexec, lib)
	}

	r.MPIs = mpiInstalls(r, o, exe, !o.noProbe)

	if slurmAlloc(o, os.Getenv) {
		r.Slurm, r.Layout = slurmSection(o, os.Getenv, exec.LookPath, lib, runtime.NumCPU(), cfg.Wait)
	} else {
		r.Layout = layoutOf(o.users, o.ghosts, o.hosts, runtime.NumCPU(), cfg.Wait)
	}
	layoutFindings(r)

	r.RDMA = verbs.Discover()
	r.HWBypass = redirect.DecideBypass(cfg.HWBypass, r.RDMA)

	r.Config = ConfigReport{Set: map[string]string{}, Problems: []ConfigProblem{}}
	for _, kv := range os.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok && (strings.HasPrefix(k, "GHOST_") || strings.HasPrefix(k, "CSP_")) {
			r.Config.Set[k] = v
		}
	}
	for _, p := range problems {
		sev := "warning"
		if p.Severity == config.Error {
			sev = "error"
			r.fail("configuration: %s", p.Msg)
		} else {
			r.warn("configuration: %s", p.Msg)
		}
		r.Config.Problems = append(r.Config.Problems, ConfigProblem{Severity: sev, Variable: p.Var, Message: p.Msg})
	}
	return r
}

// mpiSection fills r.MPI and returns the mpiexec to use, or "".
func mpiSection(r *Report, lib, openMPILib, program string) string {
	m := &r.MPI
	mpiexec, err := findMpiexec(os.Getenv, exec.LookPath)
	if err != nil {
		r.fail("%v", err)
	} else {
		m.Mpiexec = mpiexec
		if p, err := exec.LookPath(mpiexec); err == nil {
			m.Resolved, _ = filepath.EvalSymlinks(p)
		}
		out, _ := mpiprog.Run([]string{mpiexec, "--version"}, nil, 10*time.Second)
		var version string
		m.Launcher, m.Vendor, version = parseLauncherVersion(string(out))
		if m.Launcher != "hydra" {
			r.fail("mpiexec %s is %s's launcher, not MPICH's hydra: ghost run needs hydra (install mpich, or set GHOST_MPIEXEC)", mpiexec, m.Launcher)
		}
		if version != "" {
			m.Version, m.VersionFrom = version, filepath.Base(mpiexec)+" --version"
		}
	}
	// mpichversion is linked against libmpich, so it reports the library
	// the loader maps, not just the launcher's build.
	if path, err := exec.LookPath("mpichversion"); err == nil {
		out, _ := mpiprog.Run([]string{path}, nil, 10*time.Second)
		if v, dev, ok := parseMpichversion(string(out)); ok {
			m.Vendor, m.Version, m.Device, m.VersionFrom = "MPICH", v, dev, "mpichversion"
		}
	}
	for _, name := range mpichSonames {
		if p := resolveSoname(name); p != "" {
			m.Library = Soname{Name: name, Path: p}
			break
		}
	}
	if m.Library.Name == "" {
		m.Library = Soname{Name: mpichSonames[0]}
		r.fail("the loader finds no MPICH-ABI library (%s): install mpich", strings.Join(mpichSonames, " or "))
	}
	m.ABI = mpiFamily(m.Library.Name)

	if lib == "" {
		r.fail("libghost.so not found beside the ghost binary: build it with make, or set GHOST_LIB")
	} else {
		g := &GhostLib{Path: lib, Needed: []string{}}
		if needed, err := neededLibs(lib); err == nil {
			g.Needed = needed
		}
		g.BuiltFor = abiMarker(lib)
		checkLibghost(g, m.Vendor, m.Version)
		if !g.Matches {
			r.fail("libghost.so: %s", g.Verdict)
		}
		m.Libghost = g
	}

	if program != "" {
		p := &BinaryABI{Path: program}
		// A script is read as its interpreter; an MPI library that only
		// the program's libraries need is found below them (abi.go).
		linked, _ := programMPI([]string{program}, exec.LookPath)
		file := program
		if linked.ELF != "" {
			file = linked.ELF
		}
		sameFile := func(a, b string) bool {
			pa, pb := resolveSoname(a), resolveSoname(b)
			if pa == "" || pb == "" {
				return false
			}
			ra, errA := filepath.EvalSymlinks(pa)
			rb, errB := filepath.EvalSymlinks(pb)
			return errA == nil && errB == nil && ra == rb
		}
		needed, err := neededLibs(file)
		if err != nil {
			p.ABI, p.MPI, p.Verdict = "unknown", []string{}, fmt.Sprintf("cannot read its dynamic section: %v", err)
			r.warn("program %s: %s", program, p.Verdict)
		} else {
			p.Needed = needed
			checkProgram(p, m.Library.Name, sameFile)
			where := ""
			if linked.Script {
				where = "through its interpreter " + linked.ELF
			}
			if p.ABI == "none" && linked.Soname != "" {
				below := &BinaryABI{Needed: []string{linked.Soname}}
				checkProgram(below, m.Library.Name, sameFile)
				p.MPI, p.ABI, p.OK, p.Verdict = below.MPI, below.ABI, below.OK, below.Verdict
				where = linked.origin()
			}
			if p.ABI == openMPIABI.Family && openMPILib != "" {
				// ghost run takes it with Ghost's Open MPI library.
				p.OK = true
				p.Verdict = fmt.Sprintf("links %s: Open MPI's ABI, which %s is built for; ghost run starts it with Open MPI's mpirun",
					strings.Join(p.MPI, ", "), openMPILib)
			}
			if where != "" {
				p.Verdict = where + ": " + p.Verdict
			}
			switch {
			case p.ABI == "none":
				r.warn("program %s: %s", program, p.Verdict)
			case !p.OK:
				r.fail("program %s: %s", program, p.Verdict)
			}
		}
		m.Program = p
	}
	return mpiexec
}

// neededLibs reads a binary's DT_NEEDED entries.
func neededLibs(path string) ([]string, error) {
	f, err := elf.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	needed, err := f.ImportedLibraries()
	if needed == nil {
		needed = []string{}
	}
	return needed, err
}

// abiMarker finds the "ghost-mpi-abi: " string compiled into libghost.so
// (shim/hw.go); it survives stripping, unlike a symbol.
func abiMarker(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	const marker = "ghost-mpi-abi: "
	i := bytes.Index(b, []byte(marker))
	if i < 0 {
		return ""
	}
	rest := b[i+len(marker):]
	if end := bytes.IndexByte(rest, 0); end >= 0 && end < 128 {
		return string(rest[:end])
	}
	return ""
}

// resolveSoname finds the file the dynamic loader maps for a soname:
// LD_LIBRARY_PATH first, then ldconfig's cache, then the default
// directories.
func resolveSoname(name string) string {
	for _, dir := range filepath.SplitList(os.Getenv("LD_LIBRARY_PATH")) {
		if p := filepath.Join(dir, name); dir != "" && fileExists(p) {
			return p
		}
	}
	for _, ldconfig := range []string{"ldconfig", "/sbin/ldconfig", "/usr/sbin/ldconfig"} {
		out, err := exec.Command(ldconfig, "-p").Output()
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(out), "\n") {
			fields := strings.Fields(line)
			if len(fields) >= 3 && fields[0] == name && strings.Contains(line, "x86-64") == (runtime.GOARCH == "amd64") {
				return fields[len(fields)-1]
			}
		}
		break
	}
	for _, dir := range []string{"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64", "/lib", "/usr/lib"} {
		if p := filepath.Join(dir, name); fileExists(p) {
			return p
		}
	}
	return ""
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// probeSection builds the probe with MPICH's mpicc and runs it under plain
// MPI and, when libghost.so is there, under Ghost.
func probeSection(r *Report, o doctorOptions, mpiexec, lib string) {
	plain := func(probe []string) []string {
		// No Ghost, whatever LD_PRELOAD the caller has.
		return append([]string{mpiexec, "-n", "2", "-genv", "LD_PRELOAD", ""}, probe...)
	}
	var ghost func([]string) ([]string, error)
	if lib != "" {
		ghost = func(probe []string) ([]string, error) {
			return mpiexecCommand(runOptions{users: 2, ghosts: max(o.ghosts, 1), program: probe}, mpiexec, lib, "")
		}
	}
	for _, w := range runProgressProbe(&r.Progress, o, []string{"mpicc.mpich", "mpicc"}, plain, ghost) {
		r.warn("%s", w)
	}
}

// runProgressProbe fills pg: it builds the probe with the first of mpiccs
// on PATH and runs it as plain(probe) gives and, when ghost is not nil,
// under Ghost. It returns the warnings for the report.
func runProgressProbe(pg *ProgressReport, o doctorOptions, mpiccs []string,
	plain func(probe []string) []string, ghost func(probe []string) ([]string, error)) (warnings []string) {
	mpicc := ""
	for _, name := range mpiccs {
		if p, err := exec.LookPath(name); err == nil {
			mpicc = p
			break
		}
	}
	if mpicc == "" {
		pg.Skipped = fmt.Sprintf("no %s on PATH", strings.Join(mpiccs, " or "))
		return []string{"progress probe skipped: " + pg.Skipped}
	}
	dir, err := os.MkdirTemp("", "ghost-doctor-")
	if err != nil {
		pg.Skipped = err.Error()
		return nil
	}
	defer os.RemoveAll(dir)
	exe, err := mpiprog.BuildSource(mpicc, "async_probe.c", asyncProbe, dir)
	if err != nil {
		pg.Skipped = "building the probe: " + mpiprog.Tail(err.Error(), 500)
		return []string{"progress probe skipped: " + pg.Skipped}
	}
	pg.Ran = true
	probe := []string{exe, "acc", strconv.FormatFloat(o.compute, 'f', -1, 64)}
	timeout := time.Duration(o.compute*float64(time.Second)) + 30*time.Second
	pg.Plain = runProbe(plain(probe), timeout)
	if ghost != nil {
		if cmd, err := ghost(probe); err == nil {
			pg.Ghost = runProbe(cmd, timeout)
		}
	}
	progressVerdict(pg)
	for _, run := range []*ProbeRun{pg.Plain, pg.Ghost} {
		if run != nil && run.Error != "" {
			warnings = append(warnings, fmt.Sprintf("progress probe (%s): %s", run.Command, run.Error))
		}
	}
	return warnings
}

func runProbe(argv []string, timeout time.Duration) *ProbeRun {
	run := &ProbeRun{Command: shellJoin(argv), ArrivedSeconds: -1}
	out, err := mpiprog.Run(argv, nil, timeout)
	if err != nil {
		run.Error = mpiprog.Tail(err.Error(), 500)
		return run
	}
	if err := parseProbe(string(out), run); err != nil {
		run.Error = err.Error()
	}
	return run
}
