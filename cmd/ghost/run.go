package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"

	"github.com/ghost-mpi/ghost/internal/config"
	"github.com/ghost-mpi/ghost/redirect"
)

const runUsage = `usage: ghost run -n N [-g G] [--hosts nodeA:k,nodeB:k] [--mpiexec-arg X]... [--dry-run] -- prog [args...]

Starts N user ranks of prog plus G ghost processes on every node, through
MPICH's hydra mpiexec, or through Open MPI's mpirun when prog uses Open MPI
(its DT_NEEDED; a script's interpreter; mpi4py's module for Python). The
program sees an MPI_COMM_WORLD of exactly N ranks.

  -n N              user ranks (required)
  -g G              ghosts per node (default: GHOST_NG, else auto: 1 per
                    node when the users span several hosts, 0 on one host,
                    where every window is served in shared memory)
  --hosts LIST      fake several nodes on this machine with hydra's fork
                    launcher (Open MPI: ghost as mpirun's rsh agent). Each
                    entry host:k counts every process slot on that host,
                    ghosts included. Hosts are filled in order and each host
                    used gets G ghosts.
  --mpiexec-arg X   pass X to mpiexec before the program (repeatable)
  --dry-run         print the exact mpiexec command line and exit

libghost.so is taken from GHOST_LIB if set, else beside this binary, else
from ../lib relative to it. mpiexec is GHOST_MPIEXEC if set, else the first
of mpiexec.hydra, mpiexec.mpich, mpiexec on PATH. LD_PRELOAD and GHOST_NG
reach the ranks through -genv, so mpiexec and hydra's proxies never load
Ghost.

For Open MPI programs the library is libghost-openmpi.so (GHOST_LIB_OPENMPI,
found the same way; without it the program is refused) and the launcher
GHOST_MPIRUN, else mpirun.openmpi or orterun, with --oversubscribe,
--allow-run-as-root as root, and -x for LD_PRELOAD, GHOST_NG and every
GHOST_* variable. --hosts fakes the nodes with ghost as mpirun's rsh agent;
--mpiexec-arg passes mpirun options.
`

// runOptions is a parsed `ghost run` command line.
type runOptions struct {
	users       int
	ghosts      int
	hosts       string
	mpiexecArgs []string
	dryRun      bool
	program     []string
}

type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, " ") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

func parseRunArgs(args []string, getenv func(string) string, stderr io.Writer) (runOptions, error) {
	var o runOptions
	fs := flag.NewFlagSet("ghost run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, runUsage+runSlurmUsage) }
	ghosts := jobFlags(fs, &o.users, 0, &o.hosts)
	fs.Var((*multiFlag)(&o.mpiexecArgs), "mpiexec-arg", "argument for mpiexec")
	fs.BoolVar(&o.dryRun, "dry-run", false, "print the command line")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	o.program = fs.Args()
	if o.users < 1 {
		return o, fmt.Errorf("-n is required and must be at least 1")
	}
	if len(o.program) == 0 {
		return o, fmt.Errorf("no program given: put it after --, e.g. ghost run -n 2 -- ./app")
	}
	g, err := ghostCount(*ghosts, getenv, o.users, o.hosts)
	if err != nil {
		return o, err
	}
	o.ghosts = g
	return o, nil
}

// jobFlags registers the job-shape flags that run and doctor share: -n
// user ranks (default defaultUsers), --hosts fake nodes, and -g, returned
// as text for ghostCount to resolve after parsing.
func jobFlags(fs *flag.FlagSet, users *int, defaultUsers int, hosts *string) (ghosts *string) {
	fs.IntVar(users, "n", defaultUsers, "user ranks")
	fs.StringVar(hosts, "hosts", "", "fake nodes")
	return fs.String("g", "", "ghosts per node")
}

// ghostCount resolves -g, then the GHOST_NG/CSP_NG environment, then auto,
// with the same validation as the library. auto (config.NGAuto) becomes 1
// when the job's users spread over several hosts and 0 when they fit on
// one: a ghost on a single node would only take a core from the
// application (config.ResolveNG).
func ghostCount(flagValue string, getenv func(string) string, users int, hostList string) (int, error) {
	if flagValue == "auto" {
		return autoGhosts(users, hostList, getenv), nil
	}
	if flagValue != "" {
		n, err := strconv.Atoi(flagValue)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("-g %q is not valid: accepted values are auto or a non-negative integer (ghosts per node)", flagValue)
		}
		return n, nil
	}
	var env []string
	for _, name := range []string{"GHOST_NG", "CSP_NG"} {
		if v := getenv(name); v != "" {
			env = append(env, name+"="+v)
		}
	}
	cfg, problems := config.Load(env)
	for _, p := range problems {
		if p.Severity == config.Error {
			return 0, errors.New(p.Msg)
		}
	}
	if cfg.NG == config.NGAuto {
		return autoGhosts(users, hostList, getenv), nil
	}
	return cfg.NG, nil
}

// autoGhosts is GHOST_NG=auto for a launch: one ghost per host when the
// users alone fill more than one host, none when they fit on the first.
// Without --hosts the job runs on this machine alone. Host lists that
// cannot hold the users count as several hosts, so that building the
// command reports the shortage with a ghost per host included. Inside a
// Slurm allocation, without --hosts, the nodes are the allocation's that
// the users spread over (run_slurm.go).
func autoGhosts(users int, hostList string, getenv func(string) string) int {
	nodes := 1
	if n, ok := slurmAutoNodes(users, getenv); ok && hostList == "" {
		nodes = n
	}
	if hostList != "" {
		if hosts, err := redirect.ParseHosts(hostList); err == nil {
			nodes = 2
			if plan, err := redirect.Place(users, 0, hosts); err == nil {
				nodes = len(plan)
			}
		}
	}
	return config.ResolveNG(config.NGAuto, nodes, true) // the launcher starts the ghosts' processes itself
}

// findLibrary locates libghost.so, the library for MPICH programs.
func findLibrary(getenv func(string) string, exe string) (string, error) {
	return findLibraryFor(mpichABI, getenv, exe)
}

// findMpiexec prefers hydra by name: once Open MPI is installed too (NWChem
// pulls it in), plain "mpiexec" may be Open MPI's.
func findMpiexec(getenv func(string) string, lookPath func(string) (string, error)) (string, error) {
	if p := getenv("GHOST_MPIEXEC"); p != "" {
		return p, nil
	}
	for _, name := range []string{"mpiexec.hydra", "mpiexec.mpich", "mpiexec"} {
		if p, err := lookPath(name); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("no mpiexec found on PATH (install mpich, or set GHOST_MPIEXEC)")
}

// mpiexecCommand builds the full command line.
// placeOnHosts lays the job's users and ghosts out over the fake nodes
// of --hosts (redirect.Place), for either launcher.
func placeOnHosts(o runOptions) ([]redirect.HostSlots, error) {
	hosts, err := redirect.ParseHosts(o.hosts)
	if err != nil {
		return nil, err
	}
	return redirect.Place(o.users, o.ghosts, hosts)
}

func mpiexecCommand(o runOptions, mpiexec, lib, existingPreload string) ([]string, error) {
	preload := lib
	if existingPreload != "" {
		preload += ":" + existingPreload
	}
	cmd := []string{mpiexec}
	total := o.users + o.ghosts
	if o.hosts != "" {
		plan, err := placeOnHosts(o)
		if err != nil {
			return nil, err
		}
		cmd = append(cmd, "-launcher", "fork", "-hosts", redirect.FormatHosts(plan))
		total = redirect.TotalSlots(plan)
	}
	cmd = append(cmd, "-n", strconv.Itoa(total),
		"-genv", "LD_PRELOAD", preload,
		"-genv", "GHOST_NG", strconv.Itoa(o.ghosts))
	cmd = append(cmd, o.mpiexecArgs...)
	return append(cmd, o.program...), nil
}

func runCommand(args []string, stdout, stderr io.Writer) int {
	o, err := parseRunArgs(args, os.Getenv, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "ghost run: %v\n", err)
		return 2
	}
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintf(stderr, "ghost run: %v\n", err)
		return 1
	}
	// The program's MPI picks the library and the launcher, before
	// anything starts: libghost.so in an Open MPI program would crash in
	// its first MPI call on every rank. A program whose MPI cannot be
	// told (static, unreadable) goes to MPICH's launcher, where the
	// library's own check at MPI_Init has the last word.
	if m, err := programMPI(o.program, exec.LookPath); err == nil && m.Family == openMPIABI.Family {
		return runOpenMPI(o, m, exe, stdout, stderr)
	}
	lib, err := findLibrary(os.Getenv, exe)
	if err != nil {
		fmt.Fprintf(stderr, "ghost run: %v\n", err)
		return 1
	}
	if inSlurm(o, os.Getenv) {
		return runInSlurm(o, lib, stdout, stderr)
	}
	mpiexec, err := findMpiexec(os.Getenv, exec.LookPath)
	if err != nil {
		fmt.Fprintf(stderr, "ghost run: %v\n", err)
		return 1
	}
	cmd, err := mpiexecCommand(o, mpiexec, lib, os.Getenv("LD_PRELOAD"))
	if err != nil {
		fmt.Fprintf(stderr, "ghost run: %v\n", err)
		return 2
	}
	return becomeLauncher(cmd, os.Environ(), o.dryRun, "", stdout, stderr)
}

// becomeLauncher prints cmd under --dry-run, or else replaces ghost with
// it: the launcher's exit status and signals are then the job's own. hint
// follows the error when cmd[0] cannot be found.
func becomeLauncher(cmd, env []string, dryRun bool, hint string, stdout, stderr io.Writer) int {
	if dryRun {
		fmt.Fprintln(stdout, shellJoin(cmd))
		return 0
	}
	path, err := exec.LookPath(cmd[0])
	if err != nil {
		fmt.Fprintf(stderr, "ghost run: %v%s\n", err, hint)
		return 1
	}
	err = syscall.Exec(path, cmd, env)
	fmt.Fprintf(stderr, "ghost run: exec %s: %v\n", path, err)
	return 1
}

// shellJoin quotes words for a POSIX shell where needed.
func shellJoin(words []string) string {
	out := make([]string, len(words))
	for i, w := range words {
		if w != "" && strings.IndexFunc(w, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:,=+@%", r))
		}) < 0 {
			out[i] = w
			continue
		}
		out[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
	}
	return strings.Join(out, " ")
}
