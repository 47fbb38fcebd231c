package main

// #include <stdlib.h>
// #include "agree.h"
// #include "counters.h"
// #include "ghost.h"
// #include "localcalls.h"
import "C"

import (
	"fmt"
	"strings"
	"time"
	"unsafe"

	"github.com/ghost-mpi/ghost/internal/config"
	"github.com/ghost-mpi/ghost/internal/metrics"
	"github.com/ghost-mpi/ghost/redirect"
	"github.com/prometheus/client_golang/prometheus"
)

// version is Ghost's version in ghost_build_info; release builds set it
// with -ldflags "-X main.version=...".
var version = "dev"

// shmSource reads the counter blocks of this node (c/counters.c) for the
// exporter. It makes no MPI call: each block is copied word by word from
// shared memory.
//
// The TSC rate is asked for at the first snapshot, not at start: measuring
// it takes 5 ms from MPI_Init, which a short job's setup would wait for.
type shmSource struct {
	node int
}

func (s shmSource) Snapshot() metrics.Snapshot {
	snap := metrics.Snapshot{Node: s.node, TSCHz: float64(C.ghost_tsc_hz()), NowTicks: uint64(C.ghost_ticks())}
	n := int(C.ghost_counters_count())
	snap.Blocks = make([]metrics.Block, 0, n)
	for i := 0; i < n; i++ {
		var c C.ghost_counters_t
		if C.ghost_counters_read(C.int(i), &c) == 0 {
			break
		}
		snap.Blocks = append(snap.Blocks, blockOf(&c))
	}
	return snap
}

func blockOf(c *C.ghost_counters_t) metrics.Block {
	b := metrics.Block{
		Role: metrics.Role(c.role), Index: int(c.index),
		StartTicks: uint64(c.start_ticks), EndTicks: uint64(c.end_ticks),
		Windows: int64(c.windows), WindowsRedirected: int64(c.windows_redirected), ShmBytes: int64(c.shm_bytes),
		MPICalls: uint64(c.mpi_calls), MPITicks: uint64(c.mpi_ticks),
		Polls: uint64(c.polls), BusyNs: uint64(c.busy_ns), IdleNs: uint64(c.idle_ns),
	}
	for op := range metrics.NOps {
		for p := range metrics.NPaths {
			b.Ops[op][p] = uint64(c.ops[op][p])
			b.Bytes[op][p] = uint64(c.bytes[op][p])
		}
	}
	for i := range metrics.NSyncs {
		b.Syncs[i] = uint64(c.syncs[i])
	}
	for p := range metrics.NPoints {
		for i := range metrics.NDirections {
			b.Transitions[p][i] = uint64(c.transitions[p][i])
		}
	}
	for i := range metrics.NSyncCalls {
		b.SyncCalls[i] = uint64(c.sync_calls[i])
		for k := range metrics.NInternal {
			b.InternalOps[i][k] = uint64(c.internal_ops[i][k])
		}
	}
	return b
}

// nodeMetrics is what the first ghost of a node runs: the collector over
// the node's blocks, the HTTP endpoint and the textfile at the end.
type nodeMetrics struct {
	node     int
	source   *metrics.Freezer
	registry *prometheus.Registry
	exporter *metrics.Exporter // nil: no endpoint
}

// startMetrics starts the node's exporter unless GHOST_METRICS_ADDR=off
// and no textfile is asked for (metrics.Outputs). It runs on the ghost's
// thread, so the one MPI query it needs (the library version) is made
// here, never by the exporter. A port conflict is logged and the job goes
// on.
func startMetrics(node int) *nodeMetrics {
	wanted, addr := metrics.Outputs(self.cfg)
	if !wanted {
		return nil
	}
	m := &nodeMetrics{node: node, source: metrics.NewFreezer(shmSource{node: node})}
	m.registry = prometheus.NewRegistry()
	m.registry.MustRegister(metrics.NewCollector(node, m.source, buildInfo()))
	if addr == "" {
		return m
	}
	ln, err := metrics.Listen(addr, metrics.PortTries)
	if err != nil {
		self.log.warnf("node %d: %v; running without a metrics endpoint", node, err)
		return m
	}
	m.exporter = metrics.Serve(ln, metrics.Handler(m.registry, self.cfg.Pprof))
	self.log.infof("metrics of node %d at http://%s/metrics", node, m.exporter.Addr)
	return m
}

// setupNodeMetricsWithoutGhosts gives a job without ghosts the same
// metrics as one with: the counters move into node shared memory and the
// node's first user runs the exporter (a goroutine, which uses the CPU only
// when scraped). Without an endpoint or a textfile to feed, the counters
// stay in each process and the node communicator is freed.
func setupNodeMetricsWithoutGhosts(layout *redirect.Layout, provided C.int) C.int {
	if !metricsWanted() {
		C.PMPI_Comm_free(&self.node)
		return C.MPI_SUCCESS
	}
	local := layout.LocalRank[self.worldRank]
	if rc := C.ghost_counters_setup(self.node, C.int(local), C.GHOST_ROLE_USER, C.int(local),
		boolInt(provided == C.MPI_THREAD_MULTIPLE)); rc != C.MPI_SUCCESS {
		return rc
	}
	if local == 0 {
		self.exporter = startMetrics(layout.NodeOf[self.worldRank])
	}
	return C.MPI_SUCCESS
}

// finishNodeMetricsWithoutGhosts is the end of the above, at MPI_Finalize,
// collective over the node: once every user's counters are final, the
// first user freezes them and writes the textfile.
func finishNodeMetricsWithoutGhosts() {
	if self.split || !metricsWanted() {
		return
	}
	// The application's calls poll as plain MPI does (GHOST_NG=0), but the
	// waits of these collectives are Ghost's, and polite like its setup.
	defer func(polls C.int) { C.ghost_yield_after = polls }(C.ghost_yield_after)
	C.ghost_yield_after = C.int(config.DefaultUserYield)
	C.ghost_counters_finish()
	C.ghost_real_barrier(self.node)
	self.exporter.finish()
	C.ghost_counters_teardown()
	C.PMPI_Comm_free(&self.node)
}

// metricsWanted says whether a node exporter or textfile is asked for.
func metricsWanted() bool {
	wanted, _ := metrics.Outputs(self.cfg)
	return wanted
}

// finish runs once every user of the node has finalized: it freezes the
// counters (the shared block is freed next), writes the textfile record if
// asked, and stops the endpoint.
func (m *nodeMetrics) finish() {
	if m == nil {
		return
	}
	m.source.Freeze()
	if dir := self.cfg.MetricsTextfile; dir != "" {
		if path, err := metrics.WriteTextfile(dir, m.node, m.registry); err != nil {
			self.log.errorf("node %d: %v", m.node, err)
		} else {
			self.log.infof("metrics of node %d written to %s", m.node, path)
		}
	}
	if m.exporter != nil {
		m.exporter.Close()
	}
}

// buildInfo labels ghost_build_info: Ghost's version, the MPI library's
// version line and the MPI standard version Ghost was built against.
func buildInfo() metrics.BuildInfo {
	buf := make([]byte, C.MPI_MAX_LIBRARY_VERSION_STRING)
	var n C.int
	C.ghost_library_version((*C.char)(unsafe.Pointer(&buf[0])), &n)
	lib := string(buf[:max(0, min(int(n), len(buf)))])
	// Open MPI counts the terminating NUL in the length; MPICH does not.
	lib, _, _ = strings.Cut(lib, "\x00")
	lib, _, _ = strings.Cut(lib, "\n")
	lib = strings.Join(strings.Fields(lib), " ")
	return metrics.BuildInfo{
		Version:    version,
		MPIVersion: lib,
		ABI:        fmt.Sprintf("MPI %d.%d (%s)", C.MPI_VERSION, C.MPI_SUBVERSION, abiHandles),
	}
}

// loopClock accounts a ghost's server loop in its counter block: passes,
// and time busy (polling, serving) against idle (yielding, sleeping).
type loopClock struct {
	blk  *C.ghost_counters_t
	last time.Time
}

func newLoopClock() *loopClock {
	return &loopClock{blk: C.ghost_counters_self(), last: time.Now()}
}

func (l *loopClock) pass() { l.blk.polls++ }

// idleStart ends a busy stretch; idleEnd closes the idle one that follows.
func (l *loopClock) idleStart() {
	now := time.Now()
	l.blk.busy_ns += C.uint64_t(now.Sub(l.last))
	l.last = now
}

func (l *loopClock) idleEnd() {
	now := time.Now()
	l.blk.idle_ns += C.uint64_t(now.Sub(l.last))
	l.last = now
}
