package main

// ghost run for Open MPI programs: Ghost's library built for Open MPI's ABI
// (libghost-openmpi.so), started with Open MPI's mpirun, and fake nodes on
// one host through an rsh agent that keeps each fake node's shared memory
// apart (docs/openmpi.md).

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/ghost-mpi/ghost/redirect"
)

// ghostABI is one MPI ABI Ghost's library is built for: the library's file
// name and the variable that overrides where it is taken from.
type ghostABI struct {
	Family  string // MPICH or Open MPI, as programFamily names them
	LibName string
	LibVar  string
}

var (
	mpichABI   = ghostABI{Family: "MPICH", LibName: "libghost.so", LibVar: "GHOST_LIB"}
	openMPIABI = ghostABI{Family: "Open MPI", LibName: "libghost-openmpi.so", LibVar: "GHOST_LIB_OPENMPI"}
)

// libraryCandidates are the places the library for abi is looked for
// without its variable: beside the ghost binary, then ../lib relative to it.
func (abi ghostABI) libraryCandidates(exe string) []string {
	dir := filepath.Dir(exe)
	return []string{filepath.Join(dir, abi.LibName), filepath.Join(dir, "..", "lib", abi.LibName)}
}

// findLibraryFor locates the library for abi: its variable when set (the
// file must exist), else the first candidate that exists.
func findLibraryFor(abi ghostABI, getenv func(string) string, exe string) (string, error) {
	if p := getenv(abi.LibVar); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("%s=%q: %v", abi.LibVar, p, err)
		}
		return filepath.Abs(p)
	}
	candidates := abi.libraryCandidates(exe)
	for _, c := range candidates {
		if _, err := os.Stat(c); err == nil {
			return filepath.Abs(c)
		}
	}
	return "", fmt.Errorf("%s not found (looked in %s); build it with make, or set %s",
		abi.LibName, strings.Join(candidates, ", "), abi.LibVar)
}

// findMpirun is Open MPI's launcher: GHOST_MPIRUN, else Debian's
// mpirun.openmpi, else orterun (Open MPI's own name for it, which no other
// MPI installs). Plain mpirun is not taken: it may be MPICH's.
func findMpirun(getenv func(string) string, lookPath func(string) (string, error)) (string, error) {
	if p := getenv("GHOST_MPIRUN"); p != "" {
		return p, nil
	}
	for _, name := range []string{"mpirun.openmpi", "orterun"} {
		if p, err := lookPath(name); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("no Open MPI mpirun found on PATH (mpirun.openmpi or orterun: install openmpi-bin, or set GHOST_MPIRUN)")
}

// fakeNodeAgent is the hidden subcommand mpirun runs instead of ssh to
// start the daemon of a fake node (--hosts).
const fakeNodeAgent = "openmpi-fake-node"

// mpirunCommand builds Open MPI's command line for o: every process on this
// host, or on o.hosts' fake nodes through ghostExe's agent. Open MPI
// forwards only the variables named with -x to the ranks of other hosts, so
// the library, GHOST_NG and every GHOST_* and CSP_* variable of env are
// named; --oversubscribe because the ghosts are processes beyond the
// host's cores, and --allow-run-as-root when root, which mpirun otherwise
// refuses (CI runs as root).
func mpirunCommand(o runOptions, mpirun, lib, ghostExe string, env []string, root bool) ([]string, error) {
	preload := lib
	var forward []string
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		switch {
		case k == "LD_PRELOAD" && v != "":
			preload += ":" + v
		case k == "GHOST_NG":
		case strings.HasPrefix(k, "GHOST_") || strings.HasPrefix(k, "CSP_"):
			forward = append(forward, k)
		}
	}
	slices.Sort(forward)
	cmd := []string{mpirun, "--oversubscribe", "--bind-to", "none"}
	if root {
		cmd = append(cmd, "--allow-run-as-root")
	}
	total := o.users + o.ghosts
	if o.hosts != "" {
		plan, err := placeOnHosts(o)
		if err != nil {
			return nil, err
		}
		// Ranks fill each fake node's slots in order, as hydra's fork
		// launcher does; the library counts the nodes itself
		// (MPI_Comm_split_type), so only the grouping matters.
		cmd = append(cmd, "--mca", "plm_rsh_agent", ghostExe+" "+fakeNodeAgent,
			"-H", redirect.FormatHosts(plan), "--map-by", "slot")
		if !setsMCA("osc", o.mpiexecArgs, env) {
			// Fake nodes talk over TCP, where Debian's osc list
			// (^ucx,pt2pt) has no component for a window that spans
			// them, Ghost's internal ones included (MPI_ERR_WIN):
			// osc/pt2pt serves them, as between real nodes without RDMA
			// (docs/openmpi.md).
			cmd = append(cmd, "--mca", "osc", "^ucx")
		}
		if !setsMCA(vmholeMCA, o.mpiexecArgs, env) {
			// Each fake node's orted maps the host's topology into
			// shared memory at an address its rtc/hwloc component
			// guesses from a hole in its own address space; twice in
			// CI runs (sessions 38 and 40) an orted died of a
			// segmentation fault in hwloc_shmem_topology_write there,
			// and the job never started. Without the hole the
			// processes read the topology themselves (docs/openmpi.md).
			cmd = append(cmd, "--mca", vmholeMCA, "none")
		}
		total = redirect.TotalSlots(plan)
	}
	cmd = append(cmd, "-n", strconv.Itoa(total),
		"-x", "LD_PRELOAD="+preload,
		"-x", "GHOST_NG="+strconv.Itoa(o.ghosts))
	for _, k := range forward {
		cmd = append(cmd, "-x", k)
	}
	cmd = append(cmd, o.mpiexecArgs...)
	return append(cmd, o.program...), nil
}

// vmholeMCA is Open MPI 4's parameter for where rtc/hwloc maps the
// topology it shares with the processes of a node; "none" shares none.
const vmholeMCA = "rtc_hwloc_vmhole"

// setsMCA says whether the user chose the MCA parameter name: in mpirun
// arguments (--mca NAME value, -mca, --gmca) or the environment
// (OMPI_MCA_NAME).
func setsMCA(name string, args, env []string) bool {
	for i, a := range args {
		if (a == "--mca" || a == "-mca" || a == "--gmca" || a == "-gmca") && i+1 < len(args) && args[i+1] == name {
			return true
		}
	}
	for _, kv := range env {
		if strings.HasPrefix(kv, "OMPI_MCA_"+name+"=") {
			return true
		}
	}
	return false
}

// runOpenMPI starts an Open MPI program (m) under Ghost, or refuses it with
// the line foreignMPIError gives when Ghost's Open MPI library is not
// there.
func runOpenMPI(o runOptions, m linkedMPI, exe string, stdout, stderr io.Writer) int {
	lib, err := findLibraryFor(openMPIABI, os.Getenv, exe)
	switch {
	case err != nil && os.Getenv(openMPIABI.LibVar) != "":
		fmt.Fprintf(stderr, "ghost run: %v\n", err)
		return 1
	case err != nil:
		fmt.Fprintf(stderr, "ghost run: %v\n", foreignMPIError(o.program, m))
		return 2
	}
	if inSlurm(o, os.Getenv) {
		fmt.Fprintf(stderr, "ghost run: %s uses Open MPI, which ghost run does not yet start inside a Slurm allocation "+
			"(it places ghosts with srun or hydra, which start MPICH jobs): run it outside the allocation, or with --hosts\n", o.program[0])
		return 2
	}
	mpirun, err := findMpirun(os.Getenv, exec.LookPath)
	if err != nil {
		fmt.Fprintf(stderr, "ghost run: %v\n", err)
		return 1
	}
	cmd, err := mpirunCommand(o, mpirun, lib, exe, os.Environ(), os.Geteuid() == 0)
	if err != nil {
		fmt.Fprintf(stderr, "ghost run: %v\n", err)
		return 2
	}
	return becomeLauncher(cmd, os.Environ(), o.dryRun, " (install openmpi-bin, or set GHOST_MPIRUN)", stdout, stderr)
}

// fakeNodeDirs are the directories of one fake node: Open MPI's session
// directory base and the backing directory of its shared-memory transport
// (vader). Both name their files by host name, job and local rank, and
// every fake node has the same host name and local ranks: without a
// directory each, two fake nodes' ranks would map each other's segments.
func fakeNodeDirs(host string, uid int, shmExists bool) (tmp, shm string) {
	base := fmt.Sprintf("ghost-fake-nodes-%d", uid)
	tmp = filepath.Join(os.TempDir(), base, host)
	shm = tmp
	if shmExists {
		shm = filepath.Join("/dev/shm", base, host)
	}
	return tmp, shm
}

// fakeNodeCommand is what the agent runs for mpirun's `agent HOST WORDS...`
// (ssh's form: options first, then the host, then the remote command as
// words that the remote shell joins and parses): the command through
// /bin/sh, here, with the fake node's directories set.
func fakeNodeCommand(args []string) (host, script string, err error) {
	i := 0
	for i < len(args) && strings.HasPrefix(args[i], "-") {
		i++ // ssh options, such as -x; none takes a value in mpirun's use
	}
	if i+1 >= len(args) {
		return "", "", fmt.Errorf("expected [options] host command..., got %q", args)
	}
	if strings.ContainsAny(args[i], "/ ") {
		return "", "", fmt.Errorf("host %q is not a fake node's name", args[i])
	}
	return args[i], strings.Join(args[i+1:], " "), nil
}

// fakeNodeAgentCommand is `ghost openmpi-fake-node`: mpirun's rsh agent for
// --hosts. It replaces itself with the shell that starts the fake node's
// daemon, whose ranks inherit the directories set here.
func fakeNodeAgentCommand(args []string, stderr io.Writer) int {
	host, script, err := fakeNodeCommand(args)
	if err != nil {
		fmt.Fprintf(stderr, "ghost %s: %v\n", fakeNodeAgent, err)
		return 2
	}
	tmp, shm := fakeNodeDirs(host, os.Getuid(), fileExists("/dev/shm"))
	for _, d := range []string{tmp, shm} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			fmt.Fprintf(stderr, "ghost %s: %v\n", fakeNodeAgent, err)
			return 1
		}
	}
	env := append(os.Environ(), "OMPI_MCA_orte_tmpdir_base="+tmp, "OMPI_MCA_btl_vader_backing_directory="+shm)
	err = syscall.Exec("/bin/sh", []string{"sh", "-c", script}, env)
	fmt.Fprintf(stderr, "ghost %s: exec /bin/sh: %v\n", fakeNodeAgent, err)
	return 1
}
