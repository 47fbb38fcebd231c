package main

// #include "agree.h"
// #include "win.h"
// #include "offload.h"
// #include "counters.h"
import "C"

import (
	"hash/fnv"
	"os"
	"runtime"
	"slices"
	"time"

	"github.com/ghost-mpi/ghost/internal/config"
	"github.com/ghost-mpi/ghost/internal/metrics"
	"github.com/ghost-mpi/ghost/redirect"
)

// abortGrace is how long a rank that reports a fatal configuration error
// waits before aborting, so that its message reaches mpiexec even on a
// loaded machine.
const abortGrace = 500 * time.Millisecond

// job is what the control plane knows about this process after MPI_Init.
type job struct {
	cfg       config.Config
	log       *logger
	worldRank int
	layout    *redirect.Layout
	split     bool // false: pure pass-through (GHOST_NG=0)
	// threadMultiple: MPI_Init_thread provided MPI_THREAD_MULTIPLE.
	threadMultiple bool
	// exporter is the node's metrics when no ghost serves them (GHOST_NG=0:
	// the node's first user does); nil otherwise.
	exporter *nodeMetrics
	node     C.MPI_Comm // processes of this node, users and ghosts
	ctl      C.MPI_Comm // private duplicate of node for commands
	worldDup C.MPI_Comm // private duplicate of the real world, parent of internal communicators
	started  time.Time
	// host: the processes of the job that share this machine.
	host redirect.Host
}

var self job

// ghostRuntimeReady does nothing: a call into Go returns only once the Go
// runtime has started, which is what its caller waits for (c/life.c,
// ghost_unpreload).
//
//export ghostRuntimeReady
func ghostRuntimeReady() {}

// ghostUCXWakeWanted says whether GHOST_UCX_WAKE leaves UCX's wake-up
// events on. c/ucxwake.c asks inside MPI_Init, before ghostAfterInit loads
// the configuration: a value that does not parse keeps the default here,
// and ghostAfterInit reports it.
//
//export ghostUCXWakeWanted
func ghostUCXWakeWanted() C.int {
	cfg, _ := config.Load(environNow())
	return boolInt(!cfg.UCXWakeOff)
}

// ghostAfterInit runs right after PMPI_Init. It reads the configuration,
// agrees job-wide that it is valid (or aborts with one message), and splits
// every node into users and ghosts. A ghost never returns from here.
//
//export ghostAfterInit
func ghostAfterInit(provided C.int) C.int {
	C.ghost_tsc_hz_start() // the setup below pays for measuring the TSC
	world := commWorld
	env := environNow()
	cfg, problems := config.Load(env)
	self = job{cfg: cfg, worldRank: commRank(world), started: time.Now(), threadMultiple: provided == C.MPI_THREAD_MULTIPLE}
	self.log = &logger{level: cfg.Verbose}
	// Every process waits politely in the collectives of the setup below:
	// with more processes than cores, a process that spins in one takes
	// the core of the process it waits for.
	C.ghost_yield_after = C.int(config.DefaultUserYield)
	C.ghost_load_policy = C.int(slices.Index(config.LoadPolicies, cfg.Load))
	if cfg.FaultLockAllWord > 0 {
		C.ghost_fault_lockall_word = C.int(cfg.FaultLockAllWord - 1)
		self.log.warnf("world rank %d: GHOST_TEST_FAULT is set: the first MPI_Win_lock_all that takes lock words fails at target %d",
			self.worldRank, cfg.FaultLockAllWord-1)
	}
	if cfg.FaultQuiesceFlip > 0 {
		self.log.warnf("world rank %d: GHOST_TEST_FAULT is set: under GHOST_ASYNC=auto, windows switch outside collectives at most every %v, whatever the stalls",
			self.worldRank, cfg.FaultQuiesceFlip)
	}

	// Every process reads the same variables; one warning per job is enough.
	var errs []string
	for _, p := range problems {
		switch {
		case p.Severity == config.Error:
			errs = append(errs, p.Msg)
		case self.worldRank == 0:
			self.log.warnf("%s", p.Msg)
		}
	}

	errs = append(errs, metrics.ConfigErrors(cfg)...)
	self.node = commSplitShared(world)
	leader := bcastInt(self.node, self.worldRank, 0)
	// One collective tells each process its node's leader, and which
	// processes share its host and how many CPUs each may use.
	placed := allgatherInts(world, leader, hostKey(), runtime.NumCPU())
	leaders, hosts, cpus := column(placed, 0), column(placed, 1), column(placed, 2)
	cfg.NG = config.ResolveNG(cfg.NG, redirect.CountNodes(leaders), redirect.FewestPerNode(leaders) > 1)
	layout, err := redirect.NewLayout(leaders, cfg.NG)
	if err != nil {
		errs = append(errs, err.Error())
	}
	self.layout = layout
	var userRank []int
	if layout != nil {
		userRank = layout.UserRank
	}
	self.host = redirect.HostOf(hosts, cpus, userRank, self.worldRank)
	if cfg.Wait != config.WaitSpin {
		C.ghost_host_polite_ghosts = C.int(self.host.Ghosts)
	}

	// Rank 0 starts the trace file before the agreement below, which every
	// rank passes before it records anything.
	if cfg.Trace != "" && self.worldRank == 0 {
		if err := createTrace(cfg.Trace); err != nil {
			errs = append(errs, err.Error())
		}
	}

	// Agree that the configuration is valid everywhere. The lowest rank that
	// found a problem reports it and aborts the job; the others wait to be
	// taken down with it, so exactly one message is printed.
	size := commSize(world)
	reporter := size
	if len(errs) > 0 {
		reporter = self.worldRank
	}
	if reporter = allreduceMinInt(world, reporter); reporter < size {
		if reporter == self.worldRank {
			for _, e := range errs {
				self.log.errorf("%s (aborting; see docs/reference.md)", e)
			}
			// hydra forwards a rank's output through its proxy, which the
			// abort may kill before the line above is through: give it time.
			time.Sleep(abortGrace)
			abortWorld(1)
		}
		C.ghost_real_barrier(world)
		select {} // unreachable: the abort ends this process
	}
	cfg = applyThresholds(cfg, env, world, layout)
	self.cfg = cfg
	if rc := setupWindowPaths(cfg, layout); rc != C.MPI_SUCCESS {
		return rc
	}
	if rc := setupArena(layout); rc != C.MPI_SUCCESS {
		return rc
	}

	if cfg.NG == 0 {
		setupProfiling(cfg)
		// Without ghosts, Ghost still serves windows that lie on one node.
		C.ghost_windows_managed = boolInt(!cfg.NodeLocalOff)
		if self.worldRank == 0 {
			self.log.infof("GHOST_NG=0: no ghost processes; node-local windows %s", onOff(!cfg.NodeLocalOff))
		}
		rc := setupNodeMetricsWithoutGhosts(layout, provided)
		// Only now: the node's metrics block above is one more collective
		// in which the processes wait for each other. Busy-polled, that
		// wait made a 4-rank job on 2 cores take 0.16-0.31 s more CPU to
		// start and end, and 0.12-0.16 s more wall time
		// (bench/results/2026-11-27-launch-cost.md).
		C.ghost_yield_after = 0
		return rc
	}

	self.split = true
	isGhost := layout.IsGhost(self.worldRank)
	color := 0
	if isGhost {
		color = 1
	}
	group := commSplit(world, color, self.worldRank)
	self.ctl = commDup(self.node)
	self.worldDup = commDup(world)
	// The parent of every internal communicator, which inherit this.
	C.PMPI_Comm_set_errhandler(self.worldDup, C.MPI_ERRORS_RETURN)
	C.ghost_ctl_setup(self.ctl)
	local := layout.LocalRank[self.worldRank]
	role := C.int(C.GHOST_ROLE_USER)
	if isGhost {
		role = C.GHOST_ROLE_GHOST
	}
	if rc := C.ghost_counters_setup(self.node, C.int(local), role, C.int(local), boolInt(provided == C.MPI_THREAD_MULTIPLE)); rc != C.MPI_SUCCESS {
		return rc
	}
	if rc := C.ghost_doorbell_setup(self.node, C.int(local), self.worldDup); rc != C.MPI_SUCCESS {
		return rc
	}
	if rc := C.ghost_gp_setup(self.node, C.int(local), self.worldDup, boolInt(isGhost && local == 0)); rc != C.MPI_SUCCESS {
		return rc
	}
	node := layout.Nodes[layout.NodeOf[self.worldRank]]
	C.ghost_node_ghosts = C.int(len(node.Ghosts))
	if rc := C.ghost_life_setup(self.node, C.int(local), C.int(len(node.Ghosts)+len(node.Users)), C.int(len(node.Ghosts)), boolInt(isGhost)); rc != C.MPI_SUCCESS {
		return rc
	}
	if rc := setupCreationLock(); rc != C.MPI_SUCCESS {
		return rc
	}
	if rc := setupPooledWin(); rc != C.MPI_SUCCESS {
		return rc
	}
	C.ghost_total_ghosts = C.int(layout.TotalGhosts())
	setupHWBypass(world)

	if isGhost {
		C.ghost_yield_after = 0
		serve(group) // never returns
	}
	C.ghost_yield_after = C.int(cfg.UserYield)
	setupProfiling(cfg)
	commSetName(group, "MPI_COMM_WORLD")
	C.ghost_user_world = group
	if rc := C.ghost_fatal_note_setup(); rc != C.MPI_SUCCESS {
		return rc
	}
	C.ghost_windows_managed = 1
	if self.worldRank == layout.WorldOfUser[0] {
		self.log.infof("%d user rank(s), %d ghost(s) on %d node(s), GHOST_WAIT=%s, thread level %d",
			len(layout.WorldOfUser), layout.TotalGhosts(), len(layout.Nodes), cfg.Wait, int(provided))
	}
	return C.MPI_SUCCESS
}

// ghostBeforeFinalize tells this node's ghosts that one more user is done.
//
//export ghostBeforeFinalize
func ghostBeforeFinalize() {
	closeTrace()
	if self.cfg.Profile {
		var pc C.ghost_prof_counters_t
		C.ghost_prof_read(&pc)
		self.log.infof("user rank %d: %d MPI calls on the main thread, %.3f s inside MPI",
			self.userRank(), uint64(pc.calls), float64(pc.mpi_ticks)/float64(C.ghost_tsc_hz()))
	}
	if !self.split {
		finishNodeMetricsWithoutGhosts()
		return
	}
	node := self.layout.Nodes[self.layout.NodeOf[self.worldRank]]
	C.ghost_life_finalizing() // from here on, exit() is an ordinary one: the ghosts count FINALIZE
	C.ghost_counters_finish() // this process's counters are final: the ghost may record them
	cmd := C.ghost_cmd_t{op: C.GHOST_CMD_FINALIZE}
	for _, g := range node.Ghosts {
		C.ghost_ctl_send(C.int(self.layout.LocalRank[g]), &cmd)
	}
	C.ghost_doorbell_teardown() // collective with the ghosts, once they have every FINALIZE
	C.ghost_gp_teardown()
	freeCreationLock()
	freePooledWin()
	C.ghost_life_teardown()
	C.ghost_counters_teardown()
}

// userRank is this process's rank in the application's MPI_COMM_WORLD.
func (j *job) userRank() int {
	if j.layout == nil {
		return j.worldRank
	}
	return j.layout.UserRank[j.worldRank]
}

func boolInt(b bool) C.int {
	if b {
		return 1
	}
	return 0
}

// hostKey names this process's machine for redirect.HostOf: a hash of
// its host name, which fake nodes on one machine share. Without a name
// every process gets the same key, which counts the whole job as one
// machine's.
func hostKey() int {
	name, _ := os.Hostname()
	h := fnv.New32a()
	h.Write([]byte(name))
	return int(h.Sum32() & 0x7fffffff)
}
