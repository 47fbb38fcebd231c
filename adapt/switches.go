package adapt

import "github.com/ghost-mpi/ghost/internal/config"

// Switches are the data plane's adaptation switches for one process, as
// the configuration decides them (shim/adapt.go sets the C globals from
// them).
type Switches struct {
	// Timers: the wrappers time every MPI call (GHOST_PROFILE, or for
	// the intervals below).
	Timers bool
	// Intervals: prediction intervals are closed and handed to the
	// predictor. GHOST_ASYNC=auto needs them to vote, and GHOST_TRACE to
	// record them (its records hold the votes, which decide only under
	// auto).
	Intervals bool
	// Auto: windows switch at agreement points (GHOST_ASYNC=auto).
	Auto bool
	// ImplicitPoints: MPI_Barrier is an agreement point too, under auto,
	// except under MPI_THREAD_MULTIPLE, where another thread may be inside
	// an epoch while one thread is in the barrier.
	ImplicitPoints bool
	// GP: the ghosts exchange votes between agreement points (the node's
	// first ghost runs the exchange), under auto with GHOST_GSYNC_INT > 0.
	GP bool
	// Quiesce: windows that span nodes may also switch to redirection
	// outside collectives, when every user is quiet inside an RMA call
	// (c/quiesce.c), under auto with GHOST_QUIESCE on, except under
	// MPI_THREAD_MULTIPLE, where another thread may issue on the old path
	// while one waits for the decision.
	Quiesce bool
}

// SwitchesFor decides the switches from cfg and the thread level.
func SwitchesFor(cfg config.Config, threadMultiple bool) Switches {
	auto := cfg.Async == config.AsyncAuto
	intervals := auto || cfg.Trace != ""
	return Switches{
		Timers:         cfg.Profile || intervals,
		Intervals:      intervals,
		Auto:           auto,
		ImplicitPoints: auto && !threadMultiple,
		GP:             auto && cfg.GSyncInterval > 0,
		Quiesce:        auto && !threadMultiple && !cfg.QuiesceOff,
	}
}
