package main

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// Suite is one benchmark: a C program under bench/programs and how to run
// it. A new benchmark is a new entry in suites.
type Suite struct {
	Name    string
	Program string // file under bench/programs
	About   string // one line for the markdown summary
	// Args returns the program's arguments; smoke asks for a run that only
	// proves the benchmark works, in seconds.
	Args func(smoke bool) []string
	// Configs are the configurations compared, in run order. The first one
	// is the baseline of the comparison table.
	Configs []string
	// Rounds is how many times each configuration runs in a full run
	// (default 5); -rounds overrides it and a smoke run uses 1.
	Rounds int
	// Budget is the largest acceptable added cost per metric over the
	// baseline, in the metric's unit; 0 means none.
	Budget float64
	// Wide renders the markdown table with one row per metric and one
	// column per configuration, for suites with many metrics.
	Wide bool
	// Charts are the suite's panels in the PNG.
	Charts []Chart
	// Parse reads the program's stdout; nil means the JSON lines of
	// bench.h (parseOutput).
	Parse func(io.Reader) (programOutput, error)
	// Section, when set, writes the suite's tables in the markdown instead
	// of the table of medians against the baseline.
	Section func(b *strings.Builder, s SuiteResult)
	// Workloads, when set, replace Program: each one is an application
	// run whose wall time is the sample (apps.go).
	Workloads []Workload
}

// fixed returns an Args function for a suite whose arguments only depend on
// the run's length.
func fixed(full, smoke []string) func(bool) []string {
	return func(s bool) []string {
		if s {
			return smoke
		}
		return full
	}
}

var suites = []Suite{
	{
		Name:    "intercept",
		Program: "intercept.c",
		About: "ns per call of cheap MPI calls on MPI_COMM_WORLD. MPI_Comm_rank and MPI_Comm_size go " +
			"through Ghost's COMM_WORLD swap; MPI_Initialized and MPI_Wtime are never wrapped and are " +
			"controls: what they move is the machine, not Ghost. MPI_Type_size is a local call and " +
			"MPI_Win_flush_all/idle a flush with nothing issued (a window of MPI_Win_allocate under " +
			"lock_all): profiling times neither. On 2 fake nodes the window is redirected; on one node " +
			"it takes the node-local path.",
		// Repetitions of 200 µs are rarely preempted, so the median of many
		// short ones stays steady on a busy box.
		Args: fixed([]string{"-t", "200", "-r", "200", "-w", "5"}, []string{"-t", "100", "-r", "20", "-w", "2"}),
		Configs: []string{"plain", "ghost-ng0", "ghost-ng1", "ghost-ng1-prof",
			"plain-2nodes", "ghost-2nodes", "ghost-2nodes-prof", "ghost-2nodes-auto"},
		// The foundation's budget for a non-RMA wrapped call.
		Budget: 5,
		Charts: []Chart{categoryChart{Title: "intercept: ns per call", Unit: "ns/call"}},
	},
	{
		Name:    "progress",
		Program: "progress.c",
		About: "Asynchronous progress: the origin's completion time (us) for one 8-byte operation to a " +
			"target that computes outside MPI for 1, 10 or 100 ms, under lock/unlock (shared) and under " +
			"lock_all+flush; rate/* is the target's compute rate (kernel steps per ms) alone and while " +
			"the operations run; landed/* the fraction of ACC, PUT, FOP and CAS values already in the " +
			"target's memory when its computation ended.",
		// The smoke run keeps 100 ms, the duration the targets and plots use.
		Args:    fixed([]string{"-c", "1,10,100", "-r", "3"}, []string{"-c", "1,100", "-r", "1"}),
		Configs: []string{"plain", "mpich-thread", "ghost", "ghost-ghostpath", "plain-2nodes", "ghost-2nodes"},
		Rounds:  3,
		Wide:    true,
		Charts: []Chart{
			categoryChart{Title: "progress: completion time, target busy 100 ms, lock/unlock", Unit: "us", Log: true,
				Match: suffix("/lock/100ms")},
			categoryChart{Title: "progress: completion time, target busy 100 ms, lock_all+flush", Unit: "us", Log: true,
				Match: suffix("/lockall/100ms")},
			categoryChart{Title: "progress: target compute rate, 100 ms", Unit: "steps/ms",
				Match: prefixSuffix("rate/", "/100ms")},
		},
	},
	{
		Name:    "oplat",
		Program: "oplat.c",
		About: "OSU-style latency (us per operation) of lock_all + op + flush with an idle target, 8 B " +
			"to 1 MiB. The target idles in MPI_Barrier (busy-polling inside MPI) except in the -sleep " +
			"configurations, where it sleeps outside MPI until a flag lands in its window; plain MPICH " +
			"cannot finish that way, so those exist only where something else makes progress.",
		Args: fixed([]string{"-t", "2000", "-r", "10"},
			[]string{"-s", "8,4096,1048576", "-t", "300", "-r", "3"}),
		Configs: []string{"plain", "mpich-thread", "ghost", "ghost-ghostpath", "ghost-ng1-sleep", "mpich-thread-sleep"},
		Rounds:  3,
		Wide:    true,
		Charts: []Chart{
			sizeChart{Op: "PUT"}, sizeChart{Op: "GET"}, sizeChart{Op: "ACC"},
		},
	},
	{
		Name:    "rma-intercept",
		Program: "oplat.c",
		About: "Interception overhead on the data path: 8-byte PUT+flush and ACC+flush (us per " +
			"operation, lock_all epoch), plain MPICH against Ghost as a pure pass-through (ghost-ng0), " +
			"with redirection off (ghost-off) and on (ghost-ng1: target idle in MPI_Barrier; " +
			"ghost-ng1-sleep: target asleep outside MPI, leaving the ghost a core; ghost-ng1-sleep-spin: " +
			"the same with a busy-polling ghost).",
		Args: fixed([]string{"-s", "8", "-o", "put,acc", "-t", "500", "-r", "100"},
			[]string{"-s", "8", "-o", "put,acc", "-t", "200", "-r", "10"}),
		Configs: []string{"plain", "ghost", "ghost-ng0", "ghost-off", "ghost-ng1", "ghost-ghostpath", "ghost-ng1-sleep", "ghost-ng1-sleep-spin"},
		Wide:    true,
		Charts:  []Chart{categoryChart{Title: "rma-intercept: 8-byte op+flush, us", Unit: "us"}},
	},
	{
		Name:    "wincost",
		Program: "wincost.c",
		About: "Collective window calls, us per call on the slowest rank: MPI_Win_allocate and " +
			"MPI_Win_free (4 KiB and 1 MiB per rank), an empty MPI_Win_fence, MPI_Win_set_info " +
			"(async_config, alternately on and off) alone and followed by a fence; under Ghost the " +
			"change takes effect at that fence, which switches the window's redirection.",
		Args: fixed([]string{"-b", "4096,1048576", "-a", "30", "-f", "100", "-r", "10", "-T", "20"},
			[]string{"-b", "4096", "-a", "3", "-f", "10", "-r", "2", "-T", "5"}),
		Configs: []string{"plain", "mpich-thread", "ghost", "ghost-ng1", "ghost-ghostpath"},
		Rounds:  3,
		Wide:    true,
		Charts:  []Chart{categoryChart{Title: "wincost: us per call (slowest rank)", Unit: "us", Log: true}},
	},
	{
		Name:    "gcu",
		Program: "gcu.c",
		About: "Get-compute-update (NWChem DFT load balancing): claim a task with Fetch_and_op on a " +
			"shared counter, Get its block, compute 2 ms outside MPI, Accumulate the result; 200 tasks. " +
			"time is the slowest rank's wall time; the others are mean completion times per operation.",
		// -a pads every window to 64 bytes so that plain MPICH's numbers are
		// not invalidated by its alignment bug.
		Args:    fixed([]string{"-j", "-a", "200", "2000"}, []string{"-j", "-a", "40", "500"}),
		Configs: []string{"plain", "plain-nolocal", "mpich-thread", "ghost", "ghost-ghostpath"},
		Wide:    true,
		Charts:  []Chart{categoryChart{Title: "gcu: total time, s", Unit: "s"}},
	},
	{
		Name:    "polling",
		Program: "polling.c",
		About: "Polling loops of atomic reads (issue 14): every rank loops over Fetch_and_op(MPI_NO_OP) on " +
			"rank 0's counter + flush and Get_accumulate(MPI_NO_OP) on its right neighbour + flush, adding 1 " +
			"to the counter once in 100 iterations; us per iteration of the slowest rank. Run with -n 3: " +
			"2 users on one fake node, 1 on the other.",
		Args:    fixed([]string{"-i", "2000", "-r", "10"}, []string{"-i", "200", "-r", "2"}),
		Configs: []string{"plain-2nodes", "ghost-2nodes"},
		Charts:  []Chart{categoryChart{Title: "polling: us per iteration", Unit: "us"}},
	},
	{
		Name:    "wait",
		Program: "progress.c",
		About: "Ghost polling under oversubscription (2 users + 1 ghost on this machine's cores): " +
			"completion time of 8-byte ACC and GET while the target computes, and the target's compute " +
			"rate, for each GHOST_WAIT policy.",
		Args: fixed([]string{"-c", "1,10,100", "-r", "3", "-o", "acc,get"},
			[]string{"-c", "1,10", "-r", "1", "-o", "acc,get", "-s", "lockall"}),
		Configs: []string{"ghost-ng1-adaptive", "ghost-ng1-spin", "ghost-ng1-yield"},
		Rounds:  3,
		Wide:    true,
		Charts: []Chart{
			categoryChart{Title: "wait: completion time, target busy", Unit: "us", Log: true,
				Match: func(m string) bool { return strings.HasPrefix(m, "ACC/") || strings.HasPrefix(m, "GET/") }},
			categoryChart{Title: "wait: target compute rate", Unit: "steps/ms", Match: prefixSuffix("rate/", "")},
		},
	},
	{
		Name:    "wait-idle",
		Program: "oplat.c",
		About: "Ghost polling with an idle target: 8-byte PUT+flush and ACC+flush (us per operation) " +
			"for each GHOST_WAIT policy, while the target busy-polls in MPI_Barrier, so that user ranks " +
			"and the ghost contend for the cores, and (-sleep) while it sleeps outside MPI, leaving the " +
			"ghost a core; plain MPICH for reference.",
		Args: fixed([]string{"-s", "8", "-o", "put,acc", "-t", "1000", "-r", "30"},
			[]string{"-s", "8", "-o", "put,acc", "-t", "200", "-r", "5"}),
		Configs: []string{"ghost-ng1-adaptive", "ghost-ng1-spin", "ghost-ng1-yield",
			"ghost-ng1-sleep", "ghost-ng1-sleep-spin", "ghost-ng1-sleep-yield", "plain"},
		Rounds: 3,
		Wide:   true,
		Charts: []Chart{categoryChart{Title: "wait-idle: 8-byte op+flush, idle target, us", Unit: "us", Log: true}},
	},
	multiphaseSuite("multiphase", "fence", "16 fenced steps per phase", ""),
	multiphaseSuite("multiphase-passive", "passive", passiveSteps, ""),
	multiphaseSuite("multiphase-2nodes", "fence", "16 fenced steps per phase", multiphaseTwoNodes),
	multiphaseSuite("multiphase-passive-2nodes", "passive", passiveSteps, multiphaseTwoNodes),
	countingSuite(),
	appsSuite(),
	appsTwoNodesSuite(),
}

const passiveSteps = "the window in one lock_all(MPI_MODE_NOCHECK) epoch for the whole run and 16 " +
	"steps per phase, each closed by flush_all and MPI_Barrier as Global Arrays' sync does, so that " +
	"Ghost can switch only at implicit points"

// multiphaseTwoNodes is the suffix of the multiphase configurations that
// run on 2 fake nodes.
const multiphaseTwoNodes = "-2nodes"

// multiphaseSuite is the adaptive Casper paper's 8-phase pattern with the
// given synchronization between steps (the program's fence|passive),
// described by steps, in the configurations named with suffix: on one node
// with the node-local path off (""), or on 2 fake nodes (multiphaseTwoNodes),
// where a window spans nodes and the node-local path leaves the ghost path
// to every target, as on real nodes.
func multiphaseSuite(name, sync, steps, suffix string) Suite {
	where := "one node, every window on the ghost path (GHOST_NODE_LOCAL=off: the node-local path " +
		"would serve it without the ghosts, whatever its state)"
	if suffix == multiphaseTwoNodes {
		where = "2 fake nodes, 1 rank and 1 ghost on each, so that every target is on the other node"
	}
	var configs []string
	for _, st := range multiphaseStrategies {
		configs = append(configs, st.name+suffix)
	}
	return Suite{
		Name:    name,
		Program: "multiphase.c",
		About: "The adaptive Casper paper's 8-phase pattern (COMP, COMP, COMM, COMM, twice), scaled to " +
			"this machine: in COMP phases each rank computes 40 ms in chunks (1 ms on even ranks, 2 ms on " +
			"odd ones, as ranks rarely compute in step) and accumulates into its neighbour between them; " +
			"in COMM phases every rank accumulates into every rank in a tight loop; " + steps + "; on " +
			where + ". Redirection fixed on or off, switched by the program before each phase (U), or " +
			"chosen by Ghost from its profile (P, and GP with the ghosts' exchange, which steers only " +
			"PUT/GET: the program issues accumulates).",
		// Work per phase, chunk_us and the synchronization; the
		// configuration puts the mode (static|user) first.
		Args:    fixed([]string{"40", "1000", sync}, []string{"16", "1000", sync}),
		Configs: configs,
		// A run is half a second; at 5 rounds, chance alone put the
		// median P or GP past 1.15 x U in 16-36% of runs on the 2-core
		// VM, where the true ratio was 1.10-1.11
		// (bench/results/2026-11-27-session33-checks.md section 3).
		Rounds:  15,
		Parse:   parsePhases,
		Section: writeMultiphase,
		Charts: []Chart{
			categoryChart{Title: name + ": median time per phase, s", Unit: "s",
				Match: func(m string) bool { return m != totalMetric }},
			categoryChart{Title: name + ": median total time, s", Unit: "s",
				Match: func(m string) bool { return m == totalMetric }},
		},
	}
}

// findSuites resolves a comma-separated list of suite names; "all" selects
// every suite.
func findSuites(list string) ([]Suite, error) {
	if list == "all" {
		return suites, nil
	}
	var out []Suite
	for _, name := range strings.Split(list, ",") {
		s, ok := suiteByName(strings.TrimSpace(name))
		if !ok {
			return nil, fmt.Errorf("unknown suite %q (known: %s)", name, strings.Join(suiteNames(), ", "))
		}
		out = append(out, s)
	}
	return out, nil
}

func suiteByName(name string) (Suite, bool) {
	for _, s := range suites {
		if s.Name == name {
			return s, true
		}
	}
	return Suite{}, false
}

func suiteNames() []string {
	names := make([]string, len(suites))
	for i, s := range suites {
		names[i] = s.Name
	}
	return names
}

// Launch is what a configuration needs to start a job.
type Launch struct {
	Mpiexec string // hydra's mpiexec, also handed to ghost run
	Ghost   string // the ghost CLI
	Users   int    // ranks the application sees in MPI_COMM_WORLD
}

// Config is a way to run a benchmark program. Every configuration gives the
// program the same number of user ranks, so only the way MPI is reached
// differs.
type Config struct {
	Name  string
	About string
	// Command returns the command line that runs prog with l.Users ranks.
	Command func(l Launch, prog []string) []string
	// Env is added to the job's environment; hydra hands it to the ranks.
	Env []string
	// ProgArgs are added to the program's own arguments: the benchmark
	// programs take -O (window info async_config=off) and -i sleep (the
	// target idles outside MPI).
	ProgArgs []string
}

var configs = []Config{
	plainConfig(),
	withEnv(plainConfig(), "mpich-thread", "MPICH's progress thread", "MPIR_CVAR_ASYNC_PROGRESS=1"),
	withEnv(plainConfig(), "plain-nolocal", "MPICH's shared-memory path off (hides its alignment bug)", "MPIR_CVAR_NOLOCAL=1"),
	// The progress thread made correct the same way, for the applications
	// that MPICH's alignment bug breaks.
	withEnv(plainConfig(), "mpich-thread-nolocal", "MPICH's progress thread, shared-memory path off",
		"MPIR_CVAR_ASYNC_PROGRESS=1", "MPIR_CVAR_NOLOCAL=1"),
	defaultGhostConfig(),
	ghostConfig(0),
	ghostConfig(1),
	// What one-node windows cost before the node-local path: through the
	// ghost, as windows that span nodes still go.
	named(ghostPath(ghostConfig(1)), "ghost-ghostpath"),
	// Two fake nodes, one user rank on each: every operation crosses nodes.
	fakeNodes(plainConfig(), "plain-2nodes"),
	fakeNodes(ghostConfig(1), "ghost-2nodes"),
	withEnv(fakeNodes(ghostConfig(1), "ghost-2nodes"), "ghost-2nodes-off", "redirection off", "GHOST_ASYNC=off"),
	withEnv(fakeNodes(ghostConfig(1), "ghost-2nodes"), "ghost-2nodes-auto", "adaptation on", "GHOST_ASYNC=auto"),
	// What Debian's NWChem README tells MPICH 4.0.2 users to set.
	withEnv(plainConfig(), "plain-armci-nowinalloc", "ARMCI-MPI without MPI_Win_allocate", "ARMCI_USE_WIN_ALLOCATE=0"),
	withEnv(defaultGhostConfig(), "ghost-auto", "adaptation on", "GHOST_ASYNC=auto"),
	// Profiling, which GHOST_ASYNC=auto turns on: what a timed call pays
	// (two clock reads), and that local calls and idle flushes pay nothing.
	withEnv(ghostConfig(1), "ghost-ng1-prof", "profiling on", "GHOST_PROFILE=1"),
	withEnv(fakeNodes(ghostConfig(1), "ghost-2nodes"), "ghost-2nodes-prof", "profiling on", "GHOST_PROFILE=1"),
	withArgs(ghostConfig(1), "ghost-off", "redirection off: windows allocated with info async_config=off", "-O"),
	sleepingTarget(ghostPath(ghostConfig(1))),
	sleepingTarget(withEnv(plainConfig(), "mpich-thread", "MPICH's progress thread", "MPIR_CVAR_ASYNC_PROGRESS=1")),
	// The ghost's wait policies, on the ghost path (on one node a window
	// would otherwise be node-local and leave the ghost idle).
	withEnv(ghostPath(ghostConfig(1)), "ghost-ng1-spin", "the ghost busy-polls", "GHOST_WAIT=spin"),
	withEnv(ghostPath(ghostConfig(1)), "ghost-ng1-yield", "the ghost yields between polls", "GHOST_WAIT=yield"),
	withEnv(ghostPath(ghostConfig(1)), "ghost-ng1-adaptive", "the ghost spins, yields, then sleeps (the default)", "GHOST_WAIT=adaptive"),
	withEnv(sleepingTarget(ghostPath(ghostConfig(1))), "ghost-ng1-sleep-spin", "the ghost busy-polls", "GHOST_WAIT=spin"),
	withEnv(sleepingTarget(ghostPath(ghostConfig(1))), "ghost-ng1-sleep-yield", "the ghost yields between polls", "GHOST_WAIT=yield"),
	// The strategies of issue 6, for programs that take the mode static or
	// user first (multiphase).
}

// multiphaseStrategies are the ways a multiphase configuration chooses each
// phase's redirection state: the program's mode (static: it never
// switches; user: it switches before each phase) and Ghost's variables.
var multiphaseStrategies = []struct {
	name, mode string
	env        []string
}{
	{"static-on", "static", []string{"GHOST_ASYNC=on"}},
	{"static-off", "static", []string{"GHOST_ASYNC=off"}},
	{"U", "user", []string{"GHOST_ASYNC=on"}},
	{"P", "static", []string{"GHOST_ASYNC=auto", "GHOST_PREDICT_INT=10ms", "GHOST_GSYNC_INT=0"}},
	{"GP", "static", []string{"GHOST_ASYNC=auto", "GHOST_PREDICT_INT=10ms", "GHOST_GSYNC_INT=10ms"}},
}

func init() {
	for _, suffix := range []string{"", multiphaseTwoNodes} {
		for _, st := range multiphaseStrategies {
			configs = append(configs, multiphaseConfig(st.name, suffix, st.mode, st.env...))
		}
	}
}

// multiphaseConfig is ghost-ng1 with env, running the program in mode
// (static: it never switches; user: it switches before each phase): on
// the ghost path of one node, or on 2 fake nodes for multiphaseTwoNodes.
func multiphaseConfig(name, suffix, mode string, env ...string) Config {
	base := ghostPath(ghostConfig(1))
	if suffix == multiphaseTwoNodes {
		base = fakeNodes(ghostConfig(1), name+suffix)
	}
	name += suffix
	return withArgs(withEnv(base, name, "redirection", env...), name, "program mode", mode)
}

func named(c Config, name string) Config {
	c.Name = name
	return c
}

// ghostPath keeps c's windows on the ghost path even on one node (the
// node-local path off), for what concerns the ghosts: their wait policies,
// redirection switching.
func ghostPath(c Config) Config {
	return withEnv(c, c.Name, "windows through the ghosts", "GHOST_NODE_LOCAL=off")
}

// sleepingTarget derives the configuration whose idle target sleeps outside
// MPI (programs that have an idle target take -i sleep).
func sleepingTarget(c Config) Config {
	return withArgs(c, c.Name+"-sleep", "the idle target sleeps outside MPI", "-i", "sleep")
}

func plainConfig() Config {
	return Config{
		Name:  "plain",
		About: "MPICH: mpiexec -n N prog",
		Command: func(l Launch, prog []string) []string {
			return append([]string{l.Mpiexec, "-n", strconv.Itoa(l.Users)}, prog...)
		},
	}
}

// withEnv derives a configuration named name that also sets env.
func withEnv(c Config, name, why string, env ...string) Config {
	c.Name = name
	c.About += "; " + why + ": " + strings.Join(env, " ")
	c.Env = append(slices.Clone(c.Env), env...)
	return c
}

// withArgs derives a configuration named name that also passes args to the
// program.
func withArgs(c Config, name, why string, args ...string) Config {
	c.Name = name
	c.About += "; " + why + ": prog " + strings.Join(args, " ")
	c.ProgArgs = append(slices.Clone(c.ProgArgs), args...)
	return c
}

// ghostConfig runs through `ghost run` with g ghosts per node. With g = 0
// the library is loaded and every wrapper runs, but no rank is hidden.
func ghostConfig(g int) Config {
	return Config{
		Name:  fmt.Sprintf("ghost-ng%d", g),
		About: fmt.Sprintf("libghost.so with GHOST_NG=%d: ghost run -n N -g %d -- prog", g, g),
		Command: func(l Launch, prog []string) []string {
			cmd := []string{l.Ghost, "run", "-n", strconv.Itoa(l.Users), "-g", strconv.Itoa(g), "--"}
			return append(cmd, prog...)
		},
	}
}

// defaultGhostConfig is `ghost run` with nothing but -n: what a user gets
// (GHOST_NG=auto: no ghost on one node).
func defaultGhostConfig() Config {
	return Config{
		Name:  "ghost",
		About: "Ghost's defaults: ghost run -n N -- prog",
		Command: func(l Launch, prog []string) []string {
			return append([]string{l.Ghost, "run", "-n", strconv.Itoa(l.Users), "--"}, prog...)
		},
	}
}

// fakeNodes runs c on two fake nodes of this machine (hydra's fork
// launcher), the users spread evenly: every rank's peers are on the other
// node.
func fakeNodes(c Config, name string) Config {
	inner := c.Command
	c.Name = name
	c.About += "; on 2 fake nodes, users spread over them"
	c.Command = func(l Launch, prog []string) []string {
		cmd := inner(l, prog)
		per := (l.Users + 1) / 2
		if cmd[0] == l.Ghost { // ghost run places its ghosts itself
			hosts := fmt.Sprintf("nodeA:%d,nodeB:%d", per+1, per+1)
			return append([]string{cmd[0], cmd[1], "--hosts", hosts}, cmd[2:]...)
		}
		hosts := fmt.Sprintf("nodeA:%d,nodeB:%d", per, l.Users-per)
		return append([]string{cmd[0], "-launcher", "fork", "-hosts", hosts}, cmd[1:]...)
	}
	return c
}

func configByName(name string) (Config, error) {
	for _, c := range configs {
		if c.Name == name {
			return c, nil
		}
	}
	return Config{}, fmt.Errorf("unknown configuration %q", name)
}
