package main

import (
	"fmt"
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
	// Budget is the largest acceptable added cost per metric over the
	// baseline, in the metric's unit; 0 means none.
	Budget float64
}

var suites = []Suite{
	{
		Name:    "intercept",
		Program: "intercept.c",
		About: "ns per call of cheap MPI calls on MPI_COMM_WORLD. MPI_Comm_rank and MPI_Comm_size go " +
			"through Ghost's COMM_WORLD swap; MPI_Initialized and MPI_Wtime are never wrapped and are " +
			"controls: what they move is the machine, not Ghost.",
		Args: func(smoke bool) []string {
			// Repetitions of 200 µs are rarely preempted, so the median of
			// many short ones stays steady on a busy box.
			if smoke {
				return []string{"-t", "100", "-r", "20", "-w", "2"}
			}
			return []string{"-t", "200", "-r", "200", "-w", "5"}
		},
		Configs: []string{"plain", "ghost-ng0", "ghost-ng1"},
		// The foundation's budget for a non-RMA wrapped call.
		Budget: 5,
	},
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
}

var configs = []Config{
	{
		Name:  "plain",
		About: "MPICH alone: mpiexec -n N prog",
		Command: func(l Launch, prog []string) []string {
			return append([]string{l.Mpiexec, "-n", strconv.Itoa(l.Users)}, prog...)
		},
	},
	ghostConfig(0),
	ghostConfig(1),
	// Not in the intercept suite's default list: profiling is opt-in today,
	// but the adaptive policy will turn it on, and this shows what every
	// wrapped call then pays (two clock reads).
	withEnv(ghostConfig(1), "-prof", "GHOST_PROFILE=1"),
}

// withEnv derives a configuration that also sets env, named c.Name+suffix.
func withEnv(c Config, suffix string, env ...string) Config {
	c.Name += suffix
	c.About += ", with " + strings.Join(env, " ")
	c.Env = append(slices.Clone(c.Env), env...)
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

func configByName(name string) (Config, error) {
	for _, c := range configs {
		if c.Name == name {
			return c, nil
		}
	}
	return Config{}, fmt.Errorf("unknown configuration %q", name)
}
