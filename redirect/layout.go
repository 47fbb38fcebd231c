// Package redirect computes, without MPI, where everything goes: which
// processes are ghosts, how user ranks map to world ranks and nodes, and how
// a launcher places users and ghosts on hosts.
package redirect

import (
	"fmt"
	"sort"
)

// Node is one shared-memory domain. Ranks are world ranks, ascending.
type Node struct {
	Index  int
	Ghosts []int // the GHOST_NG lowest local ranks
	Users  []int
}

// Layout is the user/ghost split of a whole job.
type Layout struct {
	NG    int
	Nodes []Node
	// Indexed by world rank.
	NodeOf    []int // node index
	LocalRank []int // rank within the node, ordered by world rank
	UserRank  []int // rank in the user world, or -1 for a ghost
	// Indexed by user rank.
	WorldOfUser []int
}

// CountNodes is the number of nodes in a job, from the same leaderOf as
// NewLayout takes.
func CountNodes(leaderOf []int) int {
	seen := map[int]bool{}
	for _, l := range leaderOf {
		seen[l] = true
	}
	return len(seen)
}

// FewestPerNode is the number of processes on the emptiest node.
func FewestPerNode(leaderOf []int) int {
	count := map[int]int{}
	for _, l := range leaderOf {
		count[l]++
	}
	fewest := 0
	for _, n := range count {
		if fewest == 0 || n < fewest {
			fewest = n
		}
	}
	return fewest
}

// NewLayout splits the processes. leaderOf[r] is any value shared by exactly
// the processes on r's node (the world rank of its local rank 0 is used at
// run time); ng is the number of ghosts per node. Local ranks follow world
// rank order, as MPI_Comm_split_type with key 0 gives, and user ranks follow
// world rank order, as MPI_Comm_split with the world rank as key gives.
func NewLayout(leaderOf []int, ng int) (*Layout, error) {
	if ng < 0 {
		return nil, fmt.Errorf("ghosts per node must not be negative, got %d", ng)
	}
	n := len(leaderOf)
	l := &Layout{
		NG:        ng,
		NodeOf:    make([]int, n),
		LocalRank: make([]int, n),
		UserRank:  make([]int, n),
	}
	nodeIndex := map[int]int{}
	for r, leader := range leaderOf {
		idx, ok := nodeIndex[leader]
		if !ok {
			idx = len(l.Nodes)
			nodeIndex[leader] = idx
			l.Nodes = append(l.Nodes, Node{Index: idx})
		}
		node := &l.Nodes[idx]
		local := len(node.Ghosts) + len(node.Users)
		l.NodeOf[r], l.LocalRank[r] = idx, local
		if local < ng {
			node.Ghosts = append(node.Ghosts, r)
			l.UserRank[r] = -1
		} else {
			node.Users = append(node.Users, r)
			l.UserRank[r] = len(l.WorldOfUser)
			l.WorldOfUser = append(l.WorldOfUser, r)
		}
	}
	for _, node := range l.Nodes {
		if len(node.Users) == 0 {
			return l, &NoUserError{NG: ng, Node: node.Index, Procs: len(node.Ghosts), FirstRank: node.Ghosts[0]}
		}
	}
	return l, nil
}

// NoUserError says that the ghosts took every process of a node.
type NoUserError struct {
	NG, Node, Procs, FirstRank int
}

func (e *NoUserError) Error() string {
	return fmt.Sprintf("GHOST_NG=%d leaves no user process on node %d (it has %d processes, from world rank %d); "+
		"accepted values are 0 to %d here, or start more processes per node",
		e.NG, e.Node, e.Procs, e.FirstRank, e.Procs-1)
}

// IsGhost reports whether world rank r is a ghost.
func (l *Layout) IsGhost(r int) bool { return l.UserRank[r] < 0 }

// TotalGhosts counts the ghosts of the job.
func (l *Layout) TotalGhosts() int { return len(l.NodeOf) - len(l.WorldOfUser) }

// LocalUsers returns the local ranks of the users on r's node, ascending.
func (l *Layout) LocalUsers(r int) []int {
	node := l.Nodes[l.NodeOf[r]]
	out := make([]int, len(node.Users))
	for i, u := range node.Users {
		out[i] = l.LocalRank[u]
	}
	sort.Ints(out)
	return out
}

// Host is what a process knows of the processes of its job that share its
// machine: fake nodes (hydra's -hosts on one machine) are separate nodes to
// MPI but share the machine's cores, so these count by host, not by node.
type Host struct {
	Processes int // users and ghosts
	Ghosts    int
	MostCPUs  int // the most CPUs any of them may run on (its affinity mask)
}

// HostOf gathers Host for rank me from every rank's host key (hostOf),
// CPU count (cpusOf) and user rank (userRank, -1 for a ghost; nil when
// there is no layout: no ghosts counted).
func HostOf(hostOf, cpusOf, userRank []int, me int) Host {
	var h Host
	for r, key := range hostOf {
		if key != hostOf[me] {
			continue
		}
		h.Processes++
		h.MostCPUs = max(h.MostCPUs, cpusOf[r])
		if userRank != nil && userRank[r] < 0 {
			h.Ghosts++
		}
	}
	return h
}

// CoresForAll is whether every process on the host has a core of its own:
// no more processes than the most CPUs any of them may run on. Processes
// bound to one core each count one CPU apiece and so read as crowded: the
// answer errs towards sharing, which is what GHOST_ASYNC=auto assumed of
// every machine before it asked.
func (h Host) CoresForAll() bool { return h.Processes <= h.MostCPUs }
