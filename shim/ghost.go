package main

// #include <stdlib.h>
// #include <unistd.h>
// #include "win.h"
// #include "doorbell.h"
// #include "offload.h"
// #include "counters.h"
import "C"

import (
	"runtime"
	"runtime/debug"
	"syscall"
	"time"
	"unsafe"

	"github.com/ghost-mpi/ghost/adapt"
	"github.com/ghost-mpi/ghost/shim/internal/wait"
)

// serve is the life of a ghost process after MPI_Init: it polls the command
// channel, which also drives MPI progress for RMA aimed at it, until every
// user of its node has finalized. Then it finalizes and exits with 0.
//
// It runs on the thread that called MPI_Init, inside the cgo callback, so
// every MPI call it makes comes from that thread whatever the thread level.
func serve(ghosts C.MPI_Comm) {
	l := self.layout
	node := l.Nodes[l.NodeOf[self.worldRank]]
	users := len(node.Users)
	policy := wait.New(self.cfg.Wait)
	load := wait.NewLoadWatch(runtime.NumCPU(), func() int { return int(C.ghost_runnable()) }, time.Now)
	cpu0 := C.ghost_cpu_ns()
	commands, finalized, polls, wakes, exchanges := 0, 0, 0, 0, 0
	// The node's first ghost runs the GP exchange.
	gsync := adapt.SwitchesFor(self.cfg, self.threadMultiple).GP && l.LocalRank[self.worldRank] == 0
	nextSync := time.Now().Add(self.cfg.GSyncInterval)
	myIndex := l.LocalRank[self.worldRank] // ghosts are the lowest local ranks
	clock := newLoopClock()
	C.ghost_count_progress = 1
	var exporter *nodeMetrics // the node's first ghost serves its metrics
	if myIndex == 0 {
		exporter = startMetrics(l.NodeOf[self.worldRank])
	}

	// Traffic from another node ends this ghost's dozes as a local
	// origin's doorbell does, where MPICH runs over UCX. On one node there
	// is no such traffic, and what UCX would signal is a local origin's
	// operation, which rings the doorbell already: a second wake, through
	// the thread that watches UCX, on the cores the ranks share.
	// GHOST_UCX_WAKE=off left MPICH's UCX without wake-up events
	// (ghostUCXWakeWanted), and then the setup finds no worker.
	remoteWakes := len(l.Nodes) > 1 && C.ghost_ucx_wake_setup(C.int(myIndex)) != 0
	self.log.debugf("ghost at world rank %d: traffic from other nodes wakes it: %v", self.worldRank, remoteWakes)
	// On one node every origin rings the doorbell; on several, traffic
	// from the other nodes wakes the ghost only through UCX.
	policy.SetWakeable(len(l.Nodes) == 1 || remoteWakes)

	turn := newSchedulerTurn()
	for finalized < users {
		var cmd C.ghost_cmd_t
		var from C.int
		polls++
		clock.pass()
		if polls%turnChecks == 0 {
			turn.maybe()
		}
		gpStart := int64(-1)
		if gsync {
			if now := time.Now(); now.After(nextSync) {
				// An agreement within the last half interval already
				// brought every window in line: skip this round.
				gpStart = self.cfg.GSyncInterval.Nanoseconds() / 2
				nextSync = now.Add(self.cfg.GSyncInterval)
			}
		}
		got := C.ghost_poll_pass(boolInt(gsync), C.int64_t(gpStart), &cmd, &from)
		if got&C.GHOST_PASS_GONE != 0 {
			leave(exporter)
		}
		if got&C.GHOST_PASS_EXCHANGED != 0 {
			exchanges++
		}
		if got&C.GHOST_PASS_WOKEN != 0 {
			policy.Worked()
			wakes++
		}
		// The pass drove MPI's progress: traffic from another node that it
		// served is work as much as a wake message is.
		if got&C.GHOST_PASS_PROGRESSED != 0 {
			policy.Worked()
		}
		if got&C.GHOST_PASS_COMMAND != 0 {
			policy.Worked()
			commands++
			// Serving a command means blocking MPI calls with the users;
			// yield inside them like a user would, so that on shared cores
			// the participants that still have to arrive get the CPU.
			C.ghost_yield_after = C.int(self.cfg.UserYield)
			switch cmd.op {
			case C.GHOST_CMD_FINALIZE:
				finalized++
				if finalized == users {
					// Garbage the collector has not yet returned
					// would make the size vary by a megabyte
					// from job to job; the report is there to
					// compare jobs (a leak check), so it counts
					// live memory only.
					debug.FreeOSMemory()
					self.log.debugf("ghost at world rank %d: every user finalized; rss_kb %d", self.worldRank, int64(C.ghost_rss_kb()))
				}
			case C.GHOST_CMD_WIN_ALLOCATE:
				serveWinAllocate(&cmd, from)
			case C.GHOST_CMD_WIN_FREE:
				serveWinFree(&cmd)
			default:
				self.log.errorf("ghost at world rank %d: unknown command %d from local rank %d",
					self.worldRank, int64(cmd.op), int(from))
			}
			C.ghost_yield_after = 0
			continue
		}
		clock.idleStart()
		switch a := policy.Idle(); a.Kind {
		case wait.Yield:
			yieldCore()
		case wait.Sleep:
			// A job on one node serves its windows in shared memory, with
			// no pooled window: then no window goes through this ghost.
			serving := len(ghostWindows) > 0 || gsync || pooledWin != winNull
			d := wait.SleepFor(a, serving)
			if gsync { // the GP exchange's turn comes at its time, not at the next wake
				d = max(min(d, time.Until(nextSync)), wait.MinSleep)
			}
			woken := doze(myIndex, d, remoteWakes && policy.WakeOnRemote(d))
			turn.maybe() // a doze is long: look at the clock after each
			if woken {
				policy.Worked()
				wakes++
				// An origin woke this ghost: read the load that the
				// coming spin would compete with.
				if over, ok := load.Oversubscribed(); ok {
					policy.SetOversubscribed(over)
				}
			}
		}
		clock.idleEnd()
	}
	// Every user of the node has finalized: their counters are final.
	exporter.finish()
	// What is left is collective with the node's users (the frees below)
	// and with every process (MPICH's finalize): wait in it as politely
	// as they do, or a ghost that spins on a shared core holds back the
	// very processes its barriers wait for.
	C.ghost_yield_after = C.int(self.cfg.UserYield)

	wall := time.Since(self.started)
	cpu := time.Duration(C.ghost_cpu_ns() - cpu0)
	self.log.infof("ghost %d of node %d (world rank %d): %d commands, %d polls, %d wakes; cpu %.1f ms over %.3f s wall (%.2f%% of a core); GHOST_WAIT=%s",
		l.LocalRank[self.worldRank], l.NodeOf[self.worldRank], self.worldRank, commands, polls, wakes,
		cpu.Seconds()*1e3, wall.Seconds(), 100*cpu.Seconds()/wall.Seconds(), self.cfg.Wait)

	if remoteWakes {
		self.log.debugf("ghost at world rank %d: traffic from other nodes rang its doorbell %d times",
			self.worldRank, uint64(C.ghost_ucx_wake_rings()))
	}
	C.ghost_ctl_teardown()
	C.ghost_ucx_wake_teardown()
	C.ghost_doorbell_teardown()
	C.ghost_gp_teardown()
	freeCreationLock()
	freePooledWin()
	C.ghost_life_teardown()
	C.ghost_counters_teardown()
	if gsync {
		self.log.infof("ghost at world rank %d: %d GP exchanges", self.worldRank, exchanges)
	}
	C.PMPI_Comm_free(&ghosts)
	C.ghost_real_finalize()
	// _exit, not exit: the ghost is a copy of the application's process, and
	// exit would run its atexit handlers and static destructors and flush
	// the stdio it buffered before MPI_Init, none of which is the ghost's.
	C._exit(0)
}

// leave ends a ghost whose node's users went away without MPI_Finalize
// (exit, a return from main, a signal) or whose launcher is gone. No
// collective can complete any more, so it finalizes nothing through MPI:
// it writes what its node's counters hold, tells the launcher it is done,
// and ends with status 0 so that the job's status stays the application's.
func leave(exporter *nodeMetrics) {
	l := self.layout
	self.log.infof("ghost at world rank %d (node %d): %s; leaving", self.worldRank,
		l.NodeOf[self.worldRank], C.GoString(C.ghost_life_reason()))
	exporter.finish()
	C.ghost_life_leave()
}

// doze sleeps up to d unless an origin rings this ghost's doorbell, or,
// with remote, traffic from another node arrives, and reports whether
// something woke it. The wait itself is a raw system call,
// not a cgo call: the Go runtime sees no system call, so its monitor thread
// does not take the ghost's P away during the sleep and hand it to another
// thread. A cgo call that slept did exactly that, at every doze: the
// monitor's wakes and the handoff cost three thread switches per doze on
// cores the ranks need, about 3,000 a second for an idle ghost against
// about 155 with the raw wait, and 3.2-4.3% of a core against 1.4-1.7%
// (bench/results/2026-11-26-idle-ghost-raw-doze.md). The price is that
// the goroutine keeps its P: see schedulerTurn.
func doze(index int, d time.Duration, remote bool) bool {
	var seen C.uint32_t
	bell := C.ghost_doze_begin(C.int(index), &seen, C.int(boolInt(remote)))
	if bell == nil {
		return true
	}
	ts := syscall.NsecToTimespec(d.Nanoseconds())
	syscall.RawSyscall6(syscall.SYS_FUTEX, uintptr(unsafe.Pointer(bell)), futexWait, uintptr(seen),
		uintptr(unsafe.Pointer(&ts)), 0, 0)
	return C.ghost_doze_end(C.int(index), seen) != 0
}

const futexWait = 0 // FUTEX_WAIT on a shared (not process-private) word

// schedulerTurn hands the loop's goroutine to Go's scheduler now and then.
// The loop never gives its P back otherwise (its waits are raw system
// calls, see doze), and after 10 ms on one scheduling tick the runtime's
// monitor preempts it with a signal (SIGURG), about 50 a second per idle
// ghost. A signal lands wherever the thread is, in MPI's own system calls
// too, which it can cut short; and two CI runs with the signals failed on
// a hang (TestRMA/g2-byte) and on a job's exit status
// (TestApplicationSignalHandlers), neither seen before. A turn every
// turnEvery resets the tick, so no signal is needed (2 in a 2 s job
// instead of 201), and lets the metrics goroutine run; it costs a few
// thread switches, the goroutine being locked to its thread
// (bench/results/2026-11-26-scheduler-turns.md).
type schedulerTurn struct{ last time.Time }

const (
	turnEvery  = 5 * time.Millisecond // under the runtime's 10 ms
	turnChecks = 256                  // busy passes between two looks at the clock, besides one after each doze
)

func newSchedulerTurn() *schedulerTurn { return &schedulerTurn{last: time.Now()} }

func (t *schedulerTurn) maybe() {
	if now := time.Now(); now.Sub(t.last) >= turnEvery {
		runtime.Gosched()
		t.last = time.Now()
	}
}

// yieldCore gives the core up once (sched_yield), as a raw system call for
// the reason doze gives: on a shared core the yield can last as long as
// another process runs, and a cgo call that long lost the P to the
// runtime's monitor, waking its threads on the very cores being shared.
func yieldCore() { syscall.RawSyscall(syscall.SYS_SCHED_YIELD, 0, 0, 0) }
