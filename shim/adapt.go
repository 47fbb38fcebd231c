package main

// #include "agree.h"
// #include "ghost.h"
// #include "win.h"
// #include "offload.h"
// #include "quiesce.h"
import "C"

import (
	"time"

	"github.com/ghost-mpi/ghost/adapt"
	"github.com/ghost-mpi/ghost/internal/config"
	"github.com/ghost-mpi/ghost/profile"
	"github.com/ghost-mpi/ghost/redirect"
)

// predictor is this process's profiling predictor under GHOST_ASYNC=auto.
var predictor *adapt.Predictor

// quiesceWindows is whether this process's windows that span nodes may
// switch outside collectives (adapt.Switches.Quiesce, c/quiesce.c).
var quiesceWindows bool

// applyThresholds takes CR_LOW and CR_HIGH from GHOST_THRESHOLDS for this
// job's user count and ghosts per node (docs/calibrate.md). Every process
// reads the file; a problem is agreed over world, so that the lowest rank
// that met one prints it once, and then every rank keeps the variables'
// values: the job never runs with thresholds that differ by rank. env is
// the environment the configuration was read from (environNow).
func applyThresholds(cfg config.Config, env []string, world C.MPI_Comm, layout *redirect.Layout) config.Config {
	if cfg.Thresholds == "" {
		return cfg
	}
	t, line, err := adapt.Choose(cfg.Thresholds, len(layout.WorldOfUser), cfg.NG,
		adapt.Thresholds{Low: cfg.CRLow, High: cfg.CRHigh},
		config.Explicit(env, "GHOST_CR_LOW"), config.Explicit(env, "GHOST_CR_HIGH"))
	size := commSize(world)
	reporter := size
	if err != nil {
		reporter = self.worldRank
	}
	if reporter = allreduceMinInt(world, reporter); reporter < size {
		if reporter == self.worldRank {
			self.log.warnf("%v; using GHOST_CR_LOW=%g and GHOST_CR_HIGH=%g", err, cfg.CRLow, cfg.CRHigh)
		}
		return cfg
	}
	if self.worldRank == 0 {
		self.log.infof("%s", line)
	}
	cfg.CRLow, cfg.CRHigh = t.Low, t.High
	return cfg
}

// setupProfiling sets the data plane's adaptation switches
// (adapt.SwitchesFor) and, with prediction intervals, their length in TSC
// ticks and the predictor they feed.
func setupProfiling(cfg config.Config) {
	sw := adapt.SwitchesFor(cfg, self.threadMultiple)
	C.ghost_prof_enabled = boolInt(sw.Timers)
	C.ghost_async_auto = boolInt(sw.Auto)
	C.ghost_implicit_points = boolInt(sw.ImplicitPoints)
	if !sw.Intervals {
		return
	}
	predictor = adapt.NewPredictor(adapt.Thresholds{Low: cfg.CRLow, High: cfg.CRHigh})
	ownCores := self.host.CoresForAll()
	predictor.Presume(ownCores)
	// The operation count ends intervals at agreement points only where
	// cores are shared (c/prof.c, POINT_OPS says why).
	C.ghost_prof_point_ops = boolInt(!ownCores)
	C.ghost_vote = C.int(predictor.Ballot())
	C.ghost_prof_use_predictor(predictor.Handle())
	tscHz := float64(C.ghost_tsc_hz())
	C.ghost_predict_ticks = C.uint64_t(cfg.PredictInterval.Seconds() * tscHz)
	C.ghost_gp_enabled = boolInt(sw.GP)
	quiesceWindows = sw.Quiesce
	if sw.Quiesce {
		ticks := func(d time.Duration) C.uint64_t { return C.uint64_t(d.Seconds() * tscHz) }
		q := adapt.Quiescence(cfg.PredictInterval)
		C.ghost_quiesce_evidence_ticks = ticks(q.Evidence)
		C.ghost_quiesce_glimpse_ticks = ticks(q.Glimpse)
		C.ghost_quiesce_early_ticks = ticks(q.Early)
		C.ghost_quiesce_deadline_ticks = ticks(q.Deadline)
		C.ghost_quiesce_backoff_max_ticks = ticks(q.BackoffMax)
		C.ghost_quiesce_stall_permille = C.int(q.StallShare*1000 + 0.5)
		C.ghost_quiesce_flip_ticks = ticks(cfg.FaultQuiesceFlip)
	}
	if cfg.Trace != "" {
		openTrace(cfg.Trace, self.userRank(), tscHz)
	}
	C.ghost_prof_report = boolInt(trace != nil || self.log.level >= config.LevelDebug)
}

// ghostRecordInterval is called by the C timers where an interval ends,
// only when ghost_prof_report is set (a trace, or the debug log): the
// predictor runs in C (adapt/predict.h says why), and this records what it
// saw. The ticks are the interval's communication time (MPI time without
// waits for other ranks and stalls on targets outside MPI), its length
// without the waits, all waits, and the stalls, which are among the waits
// unless overCores says that the cores were oversubscribed and they
// counted as communication; then its operations by path, its CR and the
// ballot that stands after it (c/prof.c).
//
//export ghostRecordInterval
func ghostRecordInterval(commTicks, spanTicks, waitTicks, stallTicks C.uint64_t, overCores C.int,
	ghostOps, directOps C.uint64_t, cr C.double, ballot C.int) {
	t := intervalTicks(commTicks, spanTicks, waitTicks, stallTicks, overCores != 0)
	t.Ops = profile.OpCounts{Ghost: uint64(ghostOps), Direct: uint64(directOps)}
	recordInterval(t, float64(cr), int(ballot))
	self.log.debugf("user rank %d: CR %.3f over the last interval, votes redirection %s (weight %d/%d)",
		self.userRank(), float64(cr), onOff(ballot > 0), abs(int(ballot)), adapt.BallotScale)
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// intervalTicks are the trace's times of an interval from the C timers'
// sums (the span leaves the waits out, and the stalls in unless they were
// counted as communication: over).
func intervalTicks(commTicks, spanTicks, waitTicks, stallTicks C.uint64_t, over bool) profile.Ticks {
	wait, stall := uint64(waitTicks), uint64(stallTicks)
	total := uint64(spanTicks) + wait - stall
	if over {
		total = uint64(spanTicks) + wait
	}
	return profile.Ticks{MPI: uint64(commTicks) + wait, Total: total, Wait: wait, Stall: stall, Over: over}
}

// setInitialState agrees a new window's redirection state, before the
// window is registered: on, unless GHOST_ASYNC=auto and the ranks' votes,
// cast in the ballot every agreement point uses, say off. A window
// allocated with async_config=on (pinned, the same on every rank) casts no
// ballot: the application chose its state.
func setInitialState(w *C.ghost_win_t, pscw C.MPI_Comm) {
	w.redirect, w.ballot = 1, 1
	if C.ghost_async_auto == 0 || w.pinned != 0 {
		return
	}
	var agreed C.int
	if C.ghost_ballot(pscw, -1, &w.ballot, &agreed) == C.MPI_SUCCESS && agreed == 0 {
		w.redirect = 0
	}
}

func onOff(on bool) string {
	if on {
		return "on"
	}
	return "off"
}
