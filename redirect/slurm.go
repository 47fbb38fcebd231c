package redirect

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ghost-mpi/ghost/internal/textsplit"
)

// SlurmAlloc is what a Slurm allocation tells the processes inside it
// through the environment: salloc's shell, an sbatch script, and every
// command they start.
type SlurmAlloc struct {
	JobID string
	// Nodes are the allocation's node names in Slurm's order, which is the
	// order srun and hydra fill them in; nil when SLURM_JOB_NODELIST is
	// unset.
	Nodes    []string
	NumNodes int
	// Capacity is how many single-CPU tasks each node can run in a job
	// step, one entry per node; nil when Slurm gave no count. CapacityFrom
	// names the variable it came from.
	Capacity     []int
	CapacityFrom string
}

// SlurmFromEnv reads the allocation from Slurm's variables. ok is false
// outside an allocation (SLURM_JOB_ID unset). An error means the
// variables are there but cannot be read, so the job would be placed
// blindly.
func SlurmFromEnv(getenv func(string) string) (a *SlurmAlloc, ok bool, err error) {
	id := getenv("SLURM_JOB_ID")
	if id == "" {
		id = getenv("SLURM_JOBID") // older Slurm releases
	}
	if id == "" {
		return nil, false, nil
	}
	a = &SlurmAlloc{JobID: id}
	if list := first(getenv, "SLURM_JOB_NODELIST", "SLURM_NODELIST"); list != "" {
		if a.Nodes, err = ExpandNodeList(list); err != nil {
			return nil, true, err
		}
	}
	if name, v := firstNamed(getenv, "SLURM_JOB_NUM_NODES", "SLURM_NNODES"); v != "" {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 1 {
			return nil, true, fmt.Errorf("%s=%q is not a node count", name, v)
		}
		a.NumNodes = n
	}
	switch {
	case a.NumNodes == 0 && a.Nodes == nil:
		return nil, true, fmt.Errorf("inside Slurm job %s but neither SLURM_JOB_NUM_NODES nor SLURM_JOB_NODELIST is set", id)
	case a.NumNodes == 0:
		a.NumNodes = len(a.Nodes)
	case a.Nodes != nil && len(a.Nodes) != a.NumNodes:
		return nil, true, fmt.Errorf("SLURM_JOB_NODELIST names %d nodes but the job has %d", len(a.Nodes), a.NumNodes)
	}

	// A job step may start as many tasks on a node as it has CPUs for,
	// which is what srun enforces, not the tasks the allocation was asked
	// with: an exclusive node allocated for one task still runs 64.
	// Each task takes SLURM_CPUS_PER_TASK CPUs, which srun inherits.
	perTask := 1
	if v := getenv("SLURM_CPUS_PER_TASK"); v != "" {
		if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && n > 0 {
			perTask = n
		}
	}
	if name, v := firstNamed(getenv, "SLURM_JOB_CPUS_PER_NODE", "SLURM_TASKS_PER_NODE"); v != "" {
		counts, err := ExpandCounts(v)
		if err != nil {
			return nil, true, fmt.Errorf("%s: %v", name, err)
		}
		if len(counts) != a.NumNodes {
			return nil, true, fmt.Errorf("%s=%q counts %d nodes but the job has %d", name, v, len(counts), a.NumNodes)
		}
		if name == "SLURM_JOB_CPUS_PER_NODE" {
			for i := range counts {
				counts[i] /= perTask
			}
		}
		a.Capacity, a.CapacityFrom = counts, name
	}
	return a, true, nil
}

func first(getenv func(string) string, names ...string) string {
	_, v := firstNamed(getenv, names...)
	return v
}

func firstNamed(getenv func(string) string, names ...string) (string, string) {
	for _, n := range names {
		if v := getenv(n); v != "" {
			return n, v
		}
	}
	return "", ""
}

// ExpandNodeList expands Slurm's compressed host lists: "n[1-3,7],login2"
// is n1 n2 n3 n7 login2. Numeric ranges keep their zero padding
// ("c[08-10]" is c08 c09 c10). Several bracket groups in one name
// ("r[1-2]n[1-2]") expand as a product, the last group varying fastest.
func ExpandNodeList(s string) ([]string, error) {
	var out []string
	for _, item := range textsplit.SplitOutside(s, '[', ']') {
		item = strings.TrimSpace(item)
		if item == "" {
			return nil, fmt.Errorf("node list %q has an empty entry", s)
		}
		names, err := expandName(item)
		if err != nil {
			return nil, fmt.Errorf("node list %q: %v", s, err)
		}
		out = append(out, names...)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("node list %q is empty", s)
	}
	return out, nil
}

// expandName expands one entry that may hold bracket groups.
func expandName(item string) ([]string, error) {
	open := strings.IndexByte(item, '[')
	if open < 0 {
		if strings.ContainsRune(item, ']') {
			return nil, fmt.Errorf("%q has a ']' without '['", item)
		}
		return []string{item}, nil
	}
	end := strings.IndexByte(item[open:], ']')
	if end < 0 {
		return nil, fmt.Errorf("%q has an unclosed '['", item)
	}
	end += open
	prefix, body, rest := item[:open], item[open+1:end], item[end+1:]
	if strings.ContainsRune(prefix, ']') {
		return nil, fmt.Errorf("%q has a ']' without '['", item)
	}
	suffixes, err := expandName(rest)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, r := range strings.Split(body, ",") {
		lo, hi, isRange := strings.Cut(r, "-")
		if !isRange {
			hi = lo
		}
		a, errA := strconv.Atoi(lo)
		b, errB := strconv.Atoi(hi)
		if lo == "" || hi == "" || errA != nil || errB != nil || a < 0 || b < a {
			return nil, fmt.Errorf("%q: %q is not a number or an ascending range", item, r)
		}
		if b-a > 1<<16 {
			return nil, fmt.Errorf("%q: range %q is too large", item, r)
		}
		width := 0
		if len(lo) > 1 && lo[0] == '0' {
			width = len(lo)
		}
		for n := a; n <= b; n++ {
			for _, s := range suffixes {
				out = append(out, fmt.Sprintf("%s%0*d%s", prefix, width, n, s))
			}
		}
	}
	return out, nil
}

// ExpandCounts expands Slurm's per-node counts: "3(x2),1" is 3 3 1.
func ExpandCounts(s string) ([]int, error) {
	var out []int
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		value, times := item, 1
		if i := strings.IndexByte(item, '('); i >= 0 {
			rep := item[i:]
			if !strings.HasPrefix(rep, "(x") || !strings.HasSuffix(rep, ")") {
				return nil, fmt.Errorf("%q is not a count or count(xN)", item)
			}
			n, err := strconv.Atoi(rep[2 : len(rep)-1])
			if err != nil || n < 1 {
				return nil, fmt.Errorf("%q is not a count or count(xN)", item)
			}
			value, times = item[:i], n
		}
		v, err := strconv.Atoi(value)
		if err != nil || v < 0 {
			return nil, fmt.Errorf("%q is not a count or count(xN)", item)
		}
		for range times {
			out = append(out, v)
		}
	}
	return out, nil
}

// SlurmPlan is how `ghost run` places a job in an allocation: users spread
// as evenly as the node count allows, the extra ones on the first nodes,
// and NG ghosts on every node used. That is the layout srun's default
// block distribution gives for Total tasks on Nodes nodes, and Ghost's
// split (NewLayout) then makes each node's first NG processes its ghosts.
type SlurmPlan struct {
	NG    int
	Nodes []HostSlots // the nodes used, in order; Slots: users plus ghosts
	Total int         // processes to start
	// Users per node: every node has UsersPerNode or UsersPerNode-1.
	UsersPerNode int
	// Even is true when every node gets the same count, which srun's
	// --ntasks-per-node can then state.
	Even bool
}

// MaxSlots is the most processes the plan puts on one node.
func (p SlurmPlan) MaxSlots() int { return p.UsersPerNode + p.NG }

// PlanSlurm places users user ranks and ng ghosts per node (already
// resolved from auto, see SlurmNodesUsed) on the allocation. nodes caps
// the nodes used (0: all of the allocation's). It fails when a node would
// hold more processes than its capacity, and the error says what to ask
// Slurm for.
func PlanSlurm(a *SlurmAlloc, users, ng, nodes int) (SlurmPlan, error) {
	if users < 1 {
		return SlurmPlan{}, fmt.Errorf("-n must be at least 1, got %d", users)
	}
	if ng < 0 {
		return SlurmPlan{}, fmt.Errorf("-g must not be negative, got %d", ng)
	}
	avail := a.NumNodes
	if nodes > 0 {
		if nodes > avail {
			return SlurmPlan{}, fmt.Errorf("%d nodes wanted but Slurm job %s has %d", nodes, a.JobID, avail)
		}
		avail = nodes
	}
	used := SlurmNodesUsed(users, avail)
	per := (users + used - 1) / used
	p := SlurmPlan{NG: ng, UsersPerNode: per, Even: users%used == 0}
	extra := users % used // nodes that get per users; the rest get per-1
	for i := range used {
		u := per
		if !p.Even && i >= extra {
			u = per - 1
		}
		name := fmt.Sprintf("node%d", i)
		if a.Nodes != nil {
			name = a.Nodes[i]
		}
		p.Nodes = append(p.Nodes, HostSlots{Host: name, Slots: u + ng})
		p.Total += u + ng
	}
	if a.Capacity != nil {
		for i, h := range p.Nodes {
			if h.Slots > a.Capacity[i] {
				return p, &SlurmFitError{JobID: a.JobID, Node: h.Host, Capacity: a.Capacity[i], From: a.CapacityFrom,
					Users: users, NG: ng, Nodes: used, Need: p.MaxSlots(), MinCapacity: minInts(a.Capacity[:used])}
			}
		}
	}
	return p, nil
}

// SlurmNodesUsed is how many of avail nodes a job of users user ranks
// uses: all of them, unless there are fewer users than nodes, since a node
// with ghosts alone would serve nobody.
func SlurmNodesUsed(users, avail int) int {
	return max(1, min(users, avail))
}

func minInts(v []int) int {
	m := v[0]
	for _, x := range v[1:] {
		m = min(m, x)
	}
	return m
}

// SlurmFitError says that the allocation cannot hold users plus ghosts,
// and what to ask Slurm for instead.
type SlurmFitError struct {
	JobID       string
	Node        string
	Capacity    int
	From        string
	Users, NG   int
	Nodes       int // nodes used
	Need        int // processes on the fullest node
	MinCapacity int
}

func (e *SlurmFitError) Error() string {
	msg := fmt.Sprintf("Slurm job %s cannot hold %d user ranks plus %d ghost(s) per node: that needs %d tasks on node %s, "+
		"which has room for %d (from %s); ask Slurm for --ntasks-per-node=%d (e.g. salloc -N%d --ntasks-per-node=%d)",
		e.JobID, e.Users, e.NG, e.Need, e.Node, e.Capacity, e.From, e.Need, e.Nodes, e.Need)
	if room := e.MinCapacity - e.NG; room >= 1 {
		more := (e.Users + room - 1) / room
		if more > e.Nodes {
			msg += fmt.Sprintf(", or for %d nodes (-N%d) with %d tasks each", more, more, e.MinCapacity)
		}
	}
	return msg + ", or lower -n or -g"
}
