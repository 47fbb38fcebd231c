package main

import (
	"fmt"
	"strings"

	"github.com/ghost-mpi/ghost/internal/config"
)

// SlurmReport is the Slurm allocation doctor runs in, and how `ghost run`
// would launch there.
type SlurmReport struct {
	JobID    string   `json:"job_id"`
	Nodes    []string `json:"nodes"`
	NumNodes int      `json:"num_nodes"`
	// Capacity is the tasks each node can run (CPUs over CPUs per task),
	// as CapacityFrom says; empty when Slurm gave no count.
	Capacity     []int  `json:"capacity"`
	CapacityFrom string `json:"capacity_from,omitempty"`
	Launcher     string `json:"launcher"`
	// Command is what `ghost run -n N -- PROGRAM` would execute.
	Command string `json:"command,omitempty"`
	Error   string `json:"error,omitempty"`
}

// slurmSection describes the allocation and the layout ghost run would
// use in it; getenv and lookPath are the process's own outside tests.
func slurmSection(o doctorOptions, getenv func(string) string, lookPath func(string) (string, error), lib string, cores int, wait config.WaitMode) (*SlurmReport, LayoutReport) {
	s := &SlurmReport{JobID: firstEnv(getenv, "SLURM_JOB_ID", "SLURM_JOBID"), Nodes: []string{}, Capacity: []int{}}
	layout := LayoutReport{Users: o.users, GhostsPerNode: o.ghosts, Cores: cores, Wait: string(wait), Nodes: []NodeReport{}}
	s.Launcher, _ = slurmLauncher(getenv)
	if lib == "" {
		lib = "libghost.so"
	}
	ro := runOptions{users: o.users, ghosts: o.ghosts, program: []string{"PROGRAM"}}
	cmd, plan, a, err := slurmLaunchCommand(ro, getenv, lookPath, lib)
	if a != nil {
		s.NumNodes, s.CapacityFrom = a.NumNodes, a.CapacityFrom
		if a.Nodes != nil {
			s.Nodes = a.Nodes
		}
		if a.Capacity != nil {
			s.Capacity = a.Capacity
		}
	}
	if err != nil {
		s.Error = err.Error()
		layout.Error = s.Error
		return s, layout
	}
	s.Command = shellJoin(cmd)
	names := make([]string, len(plan.Nodes))
	slots := make([]int, len(plan.Nodes))
	for i, h := range plan.Nodes {
		names[i], slots[i] = h.Host, h.Slots
	}
	layout = layoutOfSlots(o.users, o.ghosts, names, slots, cores, wait)
	// Slurm checked the plan against each node's own CPUs; this machine's
	// core count says nothing about them.
	layout.Oversubscribed = false
	return s, layout
}

// writeSlurm prints the allocation's section of the text report.
func writeSlurm(row func(label, format string, args ...any), s *SlurmReport) {
	row("Slurm job", "%s (inside an allocation: ghost run launches with %s)", s.JobID, orNone(s.Launcher, "an invalid GHOST_LAUNCHER"))
	nodes := strings.Join(s.Nodes, ", ")
	row("nodes", "%d%s", s.NumNodes, prefixed(": ", nodes))
	if len(s.Capacity) > 0 {
		counts := make([]string, len(s.Capacity))
		for i, c := range s.Capacity {
			counts[i] = fmt.Sprint(c)
		}
		row("tasks per node", "%s (from %s)", strings.Join(counts, ", "), s.CapacityFrom)
	} else {
		row("tasks per node", "unknown: Slurm set neither SLURM_JOB_CPUS_PER_NODE nor SLURM_TASKS_PER_NODE")
	}
	if s.Error != "" {
		row("error", "%s", s.Error)
	} else {
		row("command", "%s", s.Command)
	}
}

// slurmAlloc reports whether doctor runs inside an allocation that ghost
// run would use (no --hosts).
func slurmAlloc(o doctorOptions, getenv func(string) string) bool {
	return inSlurm(runOptions{hosts: o.hosts}, getenv)
}
