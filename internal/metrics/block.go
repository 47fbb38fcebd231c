// Package metrics turns Ghost's per-process counters (c/counters.h) into
// Prometheus metrics for one node: a collector that sums the node's counter
// blocks, the HTTP exporter the node's first ghost runs, node_exporter
// textfile records for short jobs, and the reader behind `ghost report`.
//
// It is pure Go: the counters reach it through the Source interface, which
// the library (shim/metrics.go) implements by copying the node's shared
// memory. Nothing in this package makes an MPI call, and it may not import
// cgo or the shim (a test checks).
package metrics

// The label values of the counter enums (Ops, Paths, SyncTypes, ...), their
// counts (NOps, ...) and the roles are generated, with the C enums, from
// one definition: zlabels.go, from c/internal/constgen.

// Role is what a process is on its node (RoleNone, RoleUser, RoleGhost).
type Role int

// Block is one process's counters, as c/counters.h lays them out.
type Block struct {
	Role  Role
	Index int // node-local rank; for a ghost, its ghost index
	// StartTicks and EndTicks are TSC readings at setup and at
	// MPI_Finalize (0 while running).
	StartTicks, EndTicks uint64
	Ops, Bytes           [NOps][NPaths]uint64
	Syncs                [NSyncs]uint64
	Transitions          [NPoints][NDirections]uint64
	// Windows and WindowsRedirected count the windows this process leads
	// on its node (each window once per node).
	Windows, WindowsRedirected int64
	ShmBytes                   int64
	MPICalls, MPITicks         uint64
	Polls, BusyNs, IdleNs      uint64 // ghosts only
	// SyncCalls counts synchronization calls by SyncCalls, and
	// InternalOps the internal operations made on their behalf.
	SyncCalls   [NSyncCalls]uint64
	InternalOps [NSyncCalls][NInternal]uint64
}

// Snapshot is every block of one node at one moment.
type Snapshot struct {
	Node     int
	Blocks   []Block
	TSCHz    float64 // TSC ticks per second, to turn ticks into seconds
	NowTicks uint64  // TSC at the snapshot
}

// Source gives snapshots of a node's counters. It must not call MPI.
type Source interface {
	Snapshot() Snapshot
}

// GhostTotals is one ghost's server-loop accounting.
type GhostTotals struct {
	Index                 int
	Polls, BusyNs, IdleNs uint64
}

// BusyRatio is the fraction of the ghost's loop time it was not yielding
// or sleeping; 0 before it has accounted for any time.
func (g GhostTotals) BusyRatio() float64 {
	if g.BusyNs+g.IdleNs == 0 {
		return 0
	}
	return float64(g.BusyNs) / float64(g.BusyNs+g.IdleNs)
}

// Totals is a node's counters summed over its processes.
type Totals struct {
	Node                       int
	Users                      int
	Ops, Bytes                 [NOps][NPaths]uint64
	Syncs                      [NSyncs]uint64
	Transitions                [NPoints][NDirections]uint64
	SyncCalls                  [NSyncCalls]uint64
	InternalOps                [NSyncCalls][NInternal]uint64
	Windows, WindowsRedirected int64
	ShmBytes                   int64
	MPICalls                   uint64
	MPISeconds                 float64
	// UserSeconds is the users' run time summed (to MPI_Finalize, or to
	// the snapshot for a user still running).
	UserSeconds float64
	Ghosts      []GhostTotals
}

// CommunicationRatio is the node's CR: time inside MPI over run time,
// summed over its users. ok is false when nothing was timed (profiling
// off).
func (t Totals) CommunicationRatio() (cr float64, ok bool) {
	if t.MPICalls == 0 || t.UserSeconds <= 0 {
		return 0, false
	}
	return t.MPISeconds / t.UserSeconds, true
}

// Sum adds up a snapshot's blocks.
func Sum(s Snapshot) Totals {
	t := Totals{Node: s.Node}
	seconds := func(ticks uint64) float64 {
		if s.TSCHz <= 0 {
			return 0
		}
		return float64(ticks) / s.TSCHz
	}
	var mpiTicks uint64
	for _, b := range s.Blocks {
		switch b.Role {
		case RoleNone:
			continue
		case RoleGhost:
			t.Ghosts = append(t.Ghosts, GhostTotals{Index: b.Index, Polls: b.Polls, BusyNs: b.BusyNs, IdleNs: b.IdleNs})
		case RoleUser:
			t.Users++
			end := b.EndTicks
			if end == 0 {
				end = s.NowTicks
			}
			if end > b.StartTicks {
				t.UserSeconds += seconds(end - b.StartTicks)
			}
		}
		for op := range NOps {
			for p := range NPaths {
				t.Ops[op][p] += b.Ops[op][p]
				t.Bytes[op][p] += b.Bytes[op][p]
			}
		}
		for i := range NSyncs {
			t.Syncs[i] += b.Syncs[i]
		}
		for p := range NPoints {
			for i := range NDirections {
				t.Transitions[p][i] += b.Transitions[p][i]
			}
		}
		for c := range NSyncCalls {
			t.SyncCalls[c] += b.SyncCalls[c]
			for k := range NInternal {
				t.InternalOps[c][k] += b.InternalOps[c][k]
			}
		}
		t.Windows += b.Windows
		t.WindowsRedirected += b.WindowsRedirected
		t.ShmBytes += b.ShmBytes
		t.MPICalls += b.MPICalls
		mpiTicks += b.MPITicks
	}
	t.MPISeconds = seconds(mpiTicks)
	return t
}
