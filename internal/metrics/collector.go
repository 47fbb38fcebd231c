package metrics

import (
	"strconv"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
)

// BuildInfo labels ghost_build_info.
type BuildInfo struct {
	Version    string // Ghost's version
	MPIVersion string // the MPI library's version
	ABI        string // the MPI standard and handle ABI Ghost was built for
}

// Collector is a prometheus.Collector over one node's counters. Every
// metric carries the node label; the other labels take a fixed, small set
// of values (op, path, type, direction, state, ghost index), never one per
// rank or per operation.
type Collector struct {
	src  Source
	info BuildInfo

	ops, bytes, syncs, transitions       *prometheus.Desc
	syncCalls, internalOps               *prometheus.Desc
	state, windows, shm, users           *prometheus.Desc
	mpiCalls, mpiTime, cr                *prometheus.Desc
	polls, busySeconds, busyRatio, build *prometheus.Desc
}

// NewCollector describes node's metrics; src is read at every collection.
func NewCollector(node int, src Source, info BuildInfo) *Collector {
	labels := prometheus.Labels{"node": strconv.Itoa(node)}
	d := func(name, help string, varLabels ...string) *prometheus.Desc {
		return prometheus.NewDesc(name, help, varLabels, labels)
	}
	return &Collector{
		src: src, info: info,
		ops:         d("ghost_rma_operations_total", "RMA operations on Ghost's windows, by operation and by path (ghost: through a ghost; direct: to the target itself through MPICH; local: by the origin in shared memory).", "op", "path"),
		bytes:       d("ghost_rma_bytes_total", "Bytes of target memory the RMA operations accessed, by operation and path.", "op", "path"),
		syncs:       d("ghost_epochs_total", "Synchronization calls on redirected windows, by type (lock, lock_all, fence, pscw_start, pscw_post, flush).", "type"),
		syncCalls:   d("ghost_sync_calls_total", "Synchronization calls on redirected windows that span nodes, by call (lock, unlock, lock_all, unlock_all, flush, flush_all, fence, pscw, win_allocate, win_free, and barrier: MPI_Barrier under GHOST_ASYNC=auto); allocations and frees count on ghosts too.", "call"),
		internalOps: d("ghost_sync_internal_operations_total", "Internal MPI operations Ghost made on behalf of those calls, by call and kind (p2p: an atomic on a lock word or a flush on an internal window, a command or PSCW message; wake: a rate-limited wake message to a ghost of another node; collective: one per collective call by each process making it).", "call", "kind"),
		transitions: d("ghost_adaptation_transitions_total", "Changes of a window's agreed redirection state, by direction and by the agreement point where they happened (allocation, fence, set_info, implicit), counted once per window and node.", "direction", "point"),
		state:       d("ghost_adaptation_state", "Redirected windows alive on the node whose redirection is on, and off.", "state"),
		windows:     d("ghost_active_windows", "Redirected windows alive on the node."),
		shm:         d("ghost_shm_bytes", "Node shared memory held by Ghost: window segments and the counter blocks."),
		users:       d("ghost_user_processes", "Application processes on the node."),
		mpiCalls:    d("ghost_mpi_calls_total", "MPI calls the users made, when profiling times them (GHOST_PROFILE=1 or GHOST_ASYNC=auto)."),
		mpiTime:     d("ghost_mpi_time_seconds_total", "Time the users spent inside MPI, summed over them, when profiling is on."),
		cr:          d("ghost_communication_ratio", "The node's communication ratio: time inside MPI over run time, summed over its users (profiling on only)."),
		polls:       d("ghost_poll_loops_total", "Passes of a ghost's server loop.", "ghost"),
		busySeconds: d("ghost_busy_seconds_total", "Time a ghost's server loop spent polling or serving rather than yielding or sleeping.", "ghost"),
		busyRatio:   d("ghost_busy_ratio", "Fraction of a ghost's life spent busy (ghost_busy_seconds_total over its loop time).", "ghost"),
		build:       d("ghost_build_info", "Always 1: Ghost's version, the MPI library's version and the MPI ABI.", "version", "mpi_version", "abi"),
	}
}

// Describe implements prometheus.Collector.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.ops, c.bytes, c.syncs, c.syncCalls, c.internalOps, c.transitions, c.state, c.windows, c.shm,
		c.users, c.mpiCalls, c.mpiTime, c.cr, c.polls, c.busySeconds, c.busyRatio, c.build} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	t := Sum(c.src.Snapshot())
	counter := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v, labels...)
	}
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	for op, name := range Ops {
		for p, path := range Paths {
			counter(c.ops, float64(t.Ops[op][p]), name, path)
			counter(c.bytes, float64(t.Bytes[op][p]), name, path)
		}
	}
	for i, name := range SyncTypes {
		counter(c.syncs, float64(t.Syncs[i]), name)
	}
	for i, call := range SyncCalls {
		counter(c.syncCalls, float64(t.SyncCalls[i]), call)
		for k, kind := range InternalKinds {
			counter(c.internalOps, float64(t.InternalOps[i][k]), call, kind)
		}
	}
	for p, point := range Points {
		for i, name := range Directions {
			counter(c.transitions, float64(t.Transitions[p][i]), name, point)
		}
	}
	gauge(c.state, float64(t.WindowsRedirected), "on")
	gauge(c.state, float64(t.Windows-t.WindowsRedirected), "off")
	gauge(c.windows, float64(t.Windows))
	gauge(c.shm, float64(t.ShmBytes))
	gauge(c.users, float64(t.Users))
	counter(c.mpiCalls, float64(t.MPICalls))
	counter(c.mpiTime, t.MPISeconds)
	if cr, ok := t.CommunicationRatio(); ok {
		gauge(c.cr, cr)
	}
	for _, g := range t.Ghosts {
		idx := strconv.Itoa(g.Index)
		counter(c.polls, float64(g.Polls), idx)
		counter(c.busySeconds, float64(g.BusyNs)/1e9, idx)
		gauge(c.busyRatio, g.BusyRatio(), idx)
	}
	gauge(c.build, 1, c.info.Version, c.info.MPIVersion, c.info.ABI)
}

// Freezer is a Source that serves its live source until Freeze, and the
// snapshot taken then afterwards: the live memory may go away at finalize
// while a scrape is still possible.
type Freezer struct {
	mu     sync.Mutex
	live   Source
	frozen *Snapshot
}

// NewFreezer wraps live.
func NewFreezer(live Source) *Freezer { return &Freezer{live: live} }

// Snapshot implements Source.
func (f *Freezer) Snapshot() Snapshot {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.frozen != nil {
		return *f.frozen
	}
	return f.live.Snapshot()
}

// Freeze takes a last snapshot of the live source and stops reading it.
// When Freeze returns, no reader touches the live source any more.
func (f *Freezer) Freeze() Snapshot {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.frozen == nil {
		s := f.live.Snapshot()
		f.frozen = &s
	}
	return *f.frozen
}
