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

	"github.com/ghost-mpi/ghost/redirect"
)

// Launching inside a Slurm allocation. Slurm, not hydra's fork launcher,
// must start the processes there, so that they run on the allocation's
// nodes under its control. `ghost run` reads the allocation's shape from
// Slurm's environment (redirect.SlurmFromEnv), spreads the user ranks over
// its nodes with GHOST_NG ghosts on each (redirect.PlanSlurm), and starts
// them through srun or through hydra's Slurm launcher. Both fill nodes in
// Slurm's node order, so each node's lowest local ranks, which Ghost's
// split makes its ghosts, are exactly the extra processes started there.

const runSlurmUsage = `
Inside a Slurm allocation (SLURM_JOB_ID set), without --hosts, the users
are spread evenly over the allocation's nodes with G ghosts on each
(auto: 1 when the users span several nodes), and the job starts through
srun --mpi=pmi2 (GHOST_SRUN names srun), or through hydra's Slurm launcher
with GHOST_LAUNCHER=hydra. --mpiexec-arg then passes options to that
launcher. When the allocation cannot hold users plus ghosts, the error
says what to ask Slurm for. ghost srun-args prints srun's options for
scripts that call srun themselves.
`

// Launcher names for GHOST_LAUNCHER.
const (
	launcherSrun  = "srun"
	launcherHydra = "hydra"
)

// slurmLauncher reads GHOST_LAUNCHER: srun (the default) or hydra.
func slurmLauncher(getenv func(string) string) (string, error) {
	switch v := strings.ToLower(strings.TrimSpace(getenv("GHOST_LAUNCHER"))); v {
	case "", launcherSrun:
		return launcherSrun, nil
	case launcherHydra:
		return launcherHydra, nil
	default:
		return "", fmt.Errorf("GHOST_LAUNCHER=%q is not valid: accepted values are srun or hydra", getenv("GHOST_LAUNCHER"))
	}
}

// srunBinary is GHOST_SRUN, else srun from PATH.
func srunBinary(getenv func(string) string) string {
	if p := getenv("GHOST_SRUN"); p != "" {
		return p
	}
	return "srun"
}

// inSlurm reports whether a job with these options runs inside a Slurm
// allocation: --hosts asks for fake nodes on this machine instead.
func inSlurm(o runOptions, getenv func(string) string) bool {
	return o.hosts == "" && firstEnv(getenv, "SLURM_JOB_ID", "SLURM_JOBID") != ""
}

func firstEnv(getenv func(string) string, names ...string) string {
	for _, n := range names {
		if v := getenv(n); v != "" {
			return v
		}
	}
	return ""
}

// slurmAutoNodes is the node count GHOST_NG=auto resolves with inside an
// allocation: the nodes the users will be spread over. ok is false
// outside an allocation or when its variables cannot be read (the launch
// then reports that).
func slurmAutoNodes(users int, getenv func(string) string) (nodes int, ok bool) {
	a, in, err := redirect.SlurmFromEnv(getenv)
	if !in || err != nil {
		return 0, false
	}
	return redirect.SlurmNodesUsed(users, a.NumNodes), true
}

// slurmPlan reads the allocation and places the job on at most nodes of
// its nodes (0: all).
func slurmPlan(o runOptions, getenv func(string) string, nodes int) (*redirect.SlurmAlloc, redirect.SlurmPlan, error) {
	a, _, err := redirect.SlurmFromEnv(getenv)
	if err != nil {
		return nil, redirect.SlurmPlan{}, fmt.Errorf("reading the Slurm allocation: %v", err)
	}
	p, err := redirect.PlanSlurm(a, o.users, o.ghosts, nodes)
	return a, p, err
}

// preloadValue is LD_PRELOAD for the ranks: Ghost's library first, then
// whatever the caller preloads.
func preloadValue(lib, existing string) string {
	if existing != "" {
		return lib + ":" + existing
	}
	return lib
}

// srunFlags are srun's options for a plan: the PMI that MPICH's client
// speaks, the node and task counts, and the variables the ranks need.
// The environment reaches the ranks through --export only, so srun itself
// never loads Ghost. --ntasks-per-node is stated only when every node gets
// the same count; otherwise srun's block distribution of -n over -N puts
// the one extra process on the first nodes, as the plan does.
func srunFlags(p redirect.SlurmPlan, preload string) ([]string, error) {
	if strings.ContainsRune(preload, ',') {
		// --export separates variables with commas.
		return nil, fmt.Errorf("LD_PRELOAD %q contains a comma, which srun's --export cannot pass", preload)
	}
	flags := []string{"--mpi=pmi2", "-N" + strconv.Itoa(len(p.Nodes)), "-n" + strconv.Itoa(p.Total)}
	if p.Even {
		flags = append(flags, "--ntasks-per-node="+strconv.Itoa(p.MaxSlots()))
	}
	return append(flags, "--export=ALL,LD_PRELOAD="+preload+",GHOST_NG="+strconv.Itoa(p.NG)), nil
}

// slurmCommand builds the whole launch command for the plan.
func slurmCommand(o runOptions, p redirect.SlurmPlan, a *redirect.SlurmAlloc, launcher, binary, lib, existingPreload string) ([]string, error) {
	preload := preloadValue(lib, existingPreload)
	var cmd []string
	switch launcher {
	case launcherSrun:
		flags, err := srunFlags(p, preload)
		if err != nil {
			return nil, err
		}
		cmd = append([]string{binary}, flags...)
	case launcherHydra:
		// Hydra's Slurm launcher starts its proxies with srun. Explicit
		// per-node counts pin the placement; they name Slurm's nodes, so
		// they need the node list.
		cmd = []string{binary, "-launcher", "slurm"}
		switch {
		case a.Nodes != nil:
			cmd = append(cmd, "-hosts", redirect.FormatHosts(p.Nodes))
		case p.Even:
			cmd = append(cmd, "-ppn", strconv.Itoa(p.MaxSlots()))
		default:
			return nil, fmt.Errorf("SLURM_JOB_NODELIST is not set, so hydra cannot be told %d processes on the first nodes and fewer on the rest; "+
				"give -n a multiple of %d, or use GHOST_LAUNCHER=srun", p.Total, len(p.Nodes))
		}
		cmd = append(cmd, "-n", strconv.Itoa(p.Total), "-genv", "LD_PRELOAD", preload, "-genv", "GHOST_NG", strconv.Itoa(p.NG))
	}
	cmd = append(cmd, o.mpiexecArgs...)
	return append(cmd, o.program...), nil
}

// slurmLaunchCommand is what `ghost run` (and doctor's dry run) would
// execute inside the allocation.
func slurmLaunchCommand(o runOptions, getenv func(string) string, lookPath func(string) (string, error), lib string) ([]string, redirect.SlurmPlan, *redirect.SlurmAlloc, error) {
	launcher, err := slurmLauncher(getenv)
	if err != nil {
		return nil, redirect.SlurmPlan{}, nil, err
	}
	a, p, err := slurmPlan(o, getenv, 0)
	if err != nil {
		return nil, p, a, err
	}
	binary := srunBinary(getenv)
	if launcher == launcherHydra {
		if binary, err = findMpiexec(getenv, lookPath); err != nil {
			return nil, p, a, err
		}
	}
	cmd, err := slurmCommand(o, p, a, launcher, binary, lib, getenv("LD_PRELOAD"))
	return cmd, p, a, err
}

// slurmExecEnv is the launcher's environment. salloc and sbatch export
// SLURM_NTASKS_PER_NODE, which srun reads as --ntasks-per-node; for a
// plan with uneven nodes ghost run gives srun -n and -N only, and the
// inherited count would make srun warn that it cannot honor it (it then
// ignores it). So it is left out of srun's environment there.
func slurmExecEnv(environ []string, p redirect.SlurmPlan, launcher string) []string {
	if p.Even || launcher != launcherSrun {
		return environ
	}
	out := make([]string, 0, len(environ))
	for _, kv := range environ {
		if !strings.HasPrefix(kv, "SLURM_NTASKS_PER_NODE=") {
			out = append(out, kv)
		}
	}
	return out
}

// runInSlurm is `ghost run` inside an allocation.
func runInSlurm(o runOptions, lib string, stdout, stderr io.Writer) int {
	cmd, plan, _, err := slurmLaunchCommand(o, os.Getenv, exec.LookPath, lib)
	if err != nil {
		fmt.Fprintf(stderr, "ghost run: %v\n", err)
		return 2
	}
	// Under srun, MPI_Abort ends the step with 137, since Slurm kills the
	// tasks.
	launcher, _ := slurmLauncher(os.Getenv)
	return becomeLauncher(cmd, slurmExecEnv(os.Environ(), plan, launcher), o.dryRun,
		" (set GHOST_SRUN or GHOST_MPIEXEC)", stdout, stderr)
}

const srunArgsUsage = `usage: ghost srun-args -n N [-g G] [-N NODES]

Prints the srun options that start N user ranks plus G ghosts per node,
for scripts that call srun themselves:

  srun $(ghost srun-args -n 4) ./app args...

Inside an allocation (SLURM_JOB_ID set) the users are spread over its
nodes, and the allocation is checked to hold them; the error says what to
ask Slurm for. Outside one, -N gives the node count the job will have.

  -n N      user ranks (required)
  -g G      ghosts per node (default: GHOST_NG, else auto: 1 when the users
            span several nodes, 0 on one node)
  -N NODES  outside an allocation: the nodes the job will have

libghost.so is found as for ghost run (GHOST_LIB). The options are
--mpi=pmi2, -N, -n, --ntasks-per-node when every node gets the same count,
and --export=ALL,LD_PRELOAD=...,GHOST_NG=G.
`

func srunArgsCommand(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("ghost srun-args", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, srunArgsUsage) }
	var users, nodes int
	var hosts string
	ghosts := jobFlags(fs, &users, 0, &hosts)
	fs.IntVar(&nodes, "N", 0, "nodes")
	err := fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	fail := func(code int, format string, a ...any) int {
		fmt.Fprintf(stderr, "ghost srun-args: "+format+"\n", a...)
		return code
	}
	switch {
	case err != nil:
		return 2
	case fs.NArg() > 0:
		return fail(2, "unexpected arguments %q: the program goes after the options, on srun's command line", fs.Args())
	case hosts != "":
		return fail(2, "--hosts is for ghost run's fake nodes; srun places processes on the allocation's nodes")
	case users < 1:
		return fail(2, "-n is required and must be at least 1")
	case nodes < 0:
		return fail(2, "-N %d is not valid: give a node count >= 1", nodes)
	}
	getenv := os.Getenv
	if id := firstEnv(os.Getenv, "SLURM_JOB_ID", "SLURM_JOBID"); id != "" {
		if nodes != 0 {
			return fail(2, "inside Slurm job %s the users are spread over the allocation's nodes; -N is for planning outside an allocation", id)
		}
	} else {
		if nodes == 0 {
			return fail(2, "not inside a Slurm allocation: give -N, the node count the job will have")
		}
		// Plan for the allocation the script will get: N nodes whose
		// capacity is not known yet.
		getenv = func(k string) string {
			switch k {
			case "SLURM_JOB_ID":
				return "(to be allocated)"
			case "SLURM_JOB_NUM_NODES":
				return strconv.Itoa(nodes)
			}
			return os.Getenv(k)
		}
	}
	o := runOptions{users: users}
	o.ghosts, err = ghostCount(*ghosts, getenv, users, "")
	if err != nil {
		return fail(2, "%v", err)
	}
	_, p, err := slurmPlan(o, getenv, 0)
	if err != nil {
		return fail(2, "%v", err)
	}
	exe, err := os.Executable()
	if err != nil {
		return fail(1, "%v", err)
	}
	lib, err := findLibrary(os.Getenv, exe)
	if err != nil {
		return fail(1, "%v", err)
	}
	flags, err := srunFlags(p, preloadValue(lib, os.Getenv("LD_PRELOAD")))
	if err != nil {
		return fail(1, "%v", err)
	}
	fmt.Fprintln(stdout, shellJoin(flags))
	return 0
}
