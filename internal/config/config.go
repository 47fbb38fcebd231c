// Package config reads Ghost's GHOST_* environment variables into a typed
// Config. Every bad value becomes a Problem that names the variable, the
// value and what is accepted; unknown GHOST_* names get a warning with the
// nearest known name. Parsing is pure: the caller decides who prints.
package config

import (
	"fmt"
	"net"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// WaitMode is how an idle ghost waits for work (GHOST_WAIT).
type WaitMode string

const (
	WaitSpin     WaitMode = "spin"
	WaitYield    WaitMode = "yield"
	WaitAdaptive WaitMode = "adaptive"
)

// AsyncMode is how windows decide to redirect (GHOST_ASYNC).
type AsyncMode string

const (
	AsyncOn   AsyncMode = "on"   // every window redirected
	AsyncOff  AsyncMode = "off"  // plain MPICH windows
	AsyncAuto AsyncMode = "auto" // redirected, switched by profiling
)

// LoadPolicy is how PUT/GET spread over a node's ghosts (GHOST_LOAD).
// Accumulate-type operations always go to the target's bound ghost.
type LoadPolicy string

const (
	LoadStatic LoadPolicy = "static" // everything to the bound ghost
	LoadRandom LoadPolicy = "random"
	LoadOp     LoadPolicy = "op"   // round robin by operation count
	LoadByte   LoadPolicy = "byte" // to the ghost that was sent the fewest bytes
)

// HWBypass is whether contiguous PUT/GET of predefined datatypes may skip
// the ghosts and go straight to the target's NIC (GHOST_HW_BYPASS).
type HWBypass string

const (
	HWBypassAuto HWBypass = "auto" // where an RDMA device offloads PUT/GET (redirect.DecideBypass)
	HWBypassOn   HWBypass = "on"   // always, even with no such device
	HWBypassOff  HWBypass = "off"  // never
)

// LoadPolicies lists the policies in the order the C data plane numbers
// them: GHOST_LOAD_* in c/zconst.h, generated from this list
// (c/internal/constgen).
var LoadPolicies = []LoadPolicy{LoadStatic, LoadRandom, LoadOp, LoadByte}

// DefaultUserYield is GHOST_USER_YIELD's default: about 5 us of spinning
// between yields, which on dedicated cores costs one cheap system call per
// that many polls and on shared cores hands the core to the ghost quickly.
const DefaultUserYield = 64

// MaxNG is the most ghosts per node. It is the one definition: the C data
// plane's GHOST_MAX_NG (c/zconst.h, which sizes its per-node ghost tables) is
// generated from it by c/internal/constgen; run `make generate` after a change.
const MaxNG = 8

// NGAuto is GHOST_NG=auto, the default: one ghost per node when the job
// spans several nodes, none when it lies on one. On one node every window
// of Ghost's is served in shared memory without a ghost (the node-local
// path), so a ghost there would only hold a core the application could use.
const NGAuto = -1

// ResolveNG turns NGAuto into a ghost count for a job on nodes nodes; an
// explicit count is returned unchanged. room says whether every node can
// give a process to a ghost and keep a user: a launcher adds the ghost
// processes itself, but processes started without `ghost run` (for
// instance with MPIR_CVAR_NOLOCAL=1, where every process is a node of its
// own) may hold one process per node, and auto then means no ghost rather
// than an error.
func ResolveNG(ng, nodes int, room bool) int {
	if ng != NGAuto {
		return ng
	}
	if nodes > 1 && room {
		return 1
	}
	return 0
}

// Level is the verbosity of Ghost's own messages (GHOST_VERBOSE).
type Level int

const (
	LevelError Level = iota
	LevelWarn
	LevelInfo
	LevelDebug
)

var levelNames = []string{"error", "warn", "info", "debug"}

func (l Level) String() string {
	if l >= 0 && int(l) < len(levelNames) {
		return levelNames[l]
	}
	return fmt.Sprintf("Level(%d)", int(l))
}

// Config is the runtime configuration of one process.
type Config struct {
	NG   int        // ghosts per node, or NGAuto; 0: no ghost processes
	Wait WaitMode   // idle policy of the ghost server loop
	Load LoadPolicy // how PUT/GET spread over several ghosts
	// HWBypass is the hardware-bypass mode for PUT/GET (GHOST_HW_BYPASS).
	HWBypass HWBypass
	// Async is the global redirection mode (GHOST_ASYNC).
	Async AsyncMode
	// PredictInterval is the profiling interval of GHOST_ASYNC=auto.
	PredictInterval time.Duration
	// CRLow and CRHigh bound the communication-ratio hysteresis.
	CRLow, CRHigh float64
	// Thresholds is the calibration file that chooses CRLow and CRHigh
	// for the deployment (GHOST_THRESHOLDS); empty: none.
	Thresholds string
	// GSyncInterval is how often the ghosts exchange the users' votes for
	// ghost-offloaded PUT/GET switching; 0 turns that strategy off.
	GSyncInterval time.Duration
	// QuiesceOff turns off switching outside collectives under
	// GHOST_ASYNC=auto (GHOST_QUIESCE=off).
	QuiesceOff bool
	// UCXWakeOff leaves MPICH's UCX context as MPICH asks for it: no
	// wake-up events, so a dozing ghost serves origins on other nodes at
	// its next timed wake (GHOST_UCX_WAKE=off). It takes effect inside
	// MPI_Init, before the shim's own Load after it (shim's
	// ghostUCXWakeWanted loads the configuration there for it).
	UCXWakeOff bool
	// UserYield is how many empty progress polls a waiting user process
	// makes before it yields its core; 0 never yields.
	UserYield int
	Verbose   Level // messages at or above this level are printed
	Profile   bool  // time every wrapped MPI call
	// Trace is the file that records every prediction interval of every
	// rank (GHOST_TRACE); empty: no trace.
	Trace string
	// MetricsAddr is where the node's first ghost serves Prometheus
	// metrics (GHOST_METRICS_ADDR); "off": no exporter; empty:
	// DefaultMetricsAddr.
	MetricsAddr string
	// MetricsTextfile is the directory for the nodes' final metrics
	// (GHOST_METRICS_TEXTFILE); empty: none written.
	MetricsTextfile string
	// Pprof adds Go's /debug/pprof/ to the metrics endpoint (GHOST_PPROF).
	Pprof bool
	// NodeLocalOff turns the node-local path off (GHOST_NODE_LOCAL=off):
	// windows on one node are then built like windows that span nodes.
	NodeLocalOff bool
	// FaultLockAllWord is K+1 for GHOST_TEST_FAULT=lock_all_word:K: the
	// first MPI_Win_lock_all of each process that takes lock words fails
	// at target K (Ghost's own tests of that path); 0: no fault, so that
	// the zero Config has none.
	FaultLockAllWord int
	// FaultQuiesceFlip is D for GHOST_TEST_FAULT=quiesce_flip:D: every
	// process coordinates a switch of its windows outside collectives, to
	// the other state, at most every D after its flushes (Ghost's own
	// tests of that protocol); 0: none.
	FaultQuiesceFlip time.Duration
}

// DefaultMetricsAddr is GHOST_METRICS_ADDR's default: loopback only.
const DefaultMetricsAddr = "127.0.0.1:9464"

// Default is the configuration with no GHOST_* variable set.
func Default() Config {
	return Config{NG: NGAuto, Wait: WaitAdaptive, Load: LoadStatic, HWBypass: HWBypassAuto, Async: AsyncOn, PredictInterval: time.Second,
		CRLow: 0.3, CRHigh: 0.6, GSyncInterval: 2 * time.Second, UserYield: DefaultUserYield, Verbose: LevelWarn}
}

// Severity says whether a Problem stops the job.
type Severity int

const (
	Warning Severity = iota
	Error
)

// Problem is one finding about the environment.
type Problem struct {
	Severity Severity
	Var      string
	Msg      string
}

func (p Problem) String() string { return p.Msg }

// Var describes one variable that Ghost reads.
type Var struct {
	Name     string
	Aliases  []string // accepted spellings from Casper
	Accepted string   // what the reference and the error messages say is accepted
	Default  string
	Doc      string
	// ReadBy says which processes read it (markdown, for the reference).
	ReadBy string
	set    func(c *Config, value string) bool // false: the value is rejected
}

// Vars lists every variable read at MPI_Init, in the order docs/reference.md
// presents them. The launcher's own variables are in LauncherVars. The
// reference's summary table is generated from both (internal/refdoc), and
// docs_test.go keeps its prose in step.
var Vars = []Var{
	{
		Name: "GHOST_NG", ReadBy: "library, `ghost run`", Aliases: []string{"CSP_NG"},
		Accepted: "auto, or an integer from 0 to " + strconv.Itoa(MaxNG) + ", smaller than the processes on every node", Default: "auto",
		Doc: "Ghost processes per node. auto: 1 when the job spans several nodes that each hold at least 2 processes, 0 when it lies on one node (or a node holds one process), where every window is served in shared memory without a ghost. 0: no ghost process; windows on one node still take the node-local path, and windows that span nodes are MPICH's own (with segments realigned).",
		set: func(c *Config, v string) bool {
			if strings.TrimSpace(v) == "auto" {
				c.NG = NGAuto
				return true
			}
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil || n < 0 || n > MaxNG {
				return false
			}
			c.NG = n
			return true
		},
	},
	{
		Name: "GHOST_NODE_LOCAL", ReadBy: "library (users)", Accepted: "on or off (also 1/0, true/false, yes/no)", Default: "on",
		Doc: "on: an MPI_Win_allocate window whose processes all lie on one node is served in the node's shared memory by the origins themselves, with no ghost and no MPI progress involved (docs/design.md, the node-local path). off: such windows are built like windows that span nodes: through the ghosts, or MPICH's own when there are none. For comparisons and as an escape hatch.",
		set: func(c *Config, v string) bool { return parseOff(v, &c.NodeLocalOff) },
	},
	{
		Name: "GHOST_WAIT", ReadBy: "library (ghosts)", Accepted: "spin, yield or adaptive", Default: "adaptive",
		Doc: "How an idle ghost waits: spin polls MPI without pause, yield gives up the core between polls, adaptive spins while work arrives and then backs off to short sleeps.",
		set: func(c *Config, v string) bool {
			switch m := WaitMode(strings.ToLower(strings.TrimSpace(v))); m {
			case WaitSpin, WaitYield, WaitAdaptive:
				c.Wait = m
				return true
			}
			return false
		},
	},
	{
		Name: "GHOST_ASYNC", ReadBy: "library (users)", Aliases: []string{"CSP_ASYNC_CONFIG"}, Accepted: "on, off or auto", Default: "on",
		Doc: "How MPI_Win_allocate windows use the ghosts: on redirects them, off makes them plain MPICH windows (still cache-line aligned), auto starts them direct (operations straight to their targets) and switches redirection on and off from profiling, agreed window-wide at allocation, fences, MPI_Win_set_info(symmetric=true) and implicit points (MPI_Barrier). A window's async_config info key wins at allocation.",
		set: func(c *Config, v string) bool {
			switch m := AsyncMode(strings.ToLower(strings.TrimSpace(v))); m {
			case AsyncOn, AsyncOff, AsyncAuto:
				c.Async = m
				return true
			}
			return false
		},
	},
	{
		Name: "GHOST_PREDICT_INT", ReadBy: "library (users)", Accepted: "a positive duration such as 1s or 250ms", Default: "1s",
		Doc: "Under GHOST_ASYNC=auto, the interval over which each process measures its communication ratio CR = T_mpi/T_total and makes a new prediction.",
		set: func(c *Config, v string) bool { return parseDuration(v, false, &c.PredictInterval) },
	},
	{
		Name: "GHOST_GSYNC_INT", ReadBy: "library (ghosts, users)", Accepted: "a duration such as 2s or 500ms, or 0 to turn it off", Default: "2s",
		Doc: "Under GHOST_ASYNC=auto, how often each node's first ghost exchanges its users' latest predictions with the other nodes (MPI_Iallgather), so that every origin can send each PUT/GET by the path its target's own prediction calls for (ghost-offloaded switching). 0 leaves only the window-wide agreement.",
		set: func(c *Config, v string) bool { return parseDuration(v, true, &c.GSyncInterval) },
	},
	{
		Name: "GHOST_QUIESCE", ReadBy: "library (users)", Accepted: "on or off (also 1/0, true/false, yes/no)", Default: "on",
		Doc: "Under GHOST_ASYNC=auto, whether a window may switch outside collectives: a process whose completions on the direct path keep waiting for a target that computes (10% of the time over 1/20 of GHOST_PREDICT_INT without a barrier) asks for redirection, and one whose operations through the ghosts cost 10% of that time more than the direct path would, or that spends more of it in RMA calls than GHOST_CR_HIGH, asks for the direct path. It asks every user of the window, at their next RMA call, to be quiet (all their operations on it completed), and switches the window when all are. For programs that never meet between their allocations and their end, such as a task loop over a shared counter, and for long stretches between barriers. off leaves switching to the collective points.",
		set: func(c *Config, v string) bool { return parseOff(v, &c.QuiesceOff) },
	},
	{
		Name: "GHOST_UCX_WAKE", ReadBy: "library (MPI_Init, ghosts)", Accepted: "on or off (also 1/0, true/false, yes/no)", Default: "on",
		Doc: "With MPICH over UCX, whether a dozing ghost wakes at once on traffic from other nodes: Ghost adds UCX's wake-up feature (UCP_FEATURE_WAKEUP) to the context MPICH creates in MPI_Init, and in jobs on more than one node a thread of each ghost rings its doorbell when that traffic arrives. off leaves MPICH's UCX context as MPICH asked for it (for a UCX whose transports misbehave with the feature), and a dozing ghost then serves an origin on another node at its next timed wake, at most 1 ms later (GHOST_WAIT=adaptive).",
		set: func(c *Config, v string) bool { return parseOff(v, &c.UCXWakeOff) },
	},
	{
		Name: "GHOST_CR_LOW", ReadBy: "library (users)", Accepted: "a number from 0 to 1, below GHOST_CR_HIGH", Default: "0.3",
		Doc: "Under GHOST_ASYNC=auto, a process whose CR falls below this votes for redirection (its targets compute). Wins over GHOST_THRESHOLDS.",
		set: func(c *Config, v string) bool { return parseRatio(v, &c.CRLow) },
	},
	{
		Name: "GHOST_CR_HIGH", ReadBy: "library (users)", Accepted: "a number from 0 to 1, above GHOST_CR_LOW", Default: "0.6",
		Doc: "Under GHOST_ASYNC=auto, a process whose CR rises above this votes against redirection (communication dominates). Between the two thresholds it keeps its vote. Wins over GHOST_THRESHOLDS.",
		set: func(c *Config, v string) bool { return parseRatio(v, &c.CRHigh) },
	},
	{
		Name: "GHOST_THRESHOLDS", ReadBy: "library (users)", Accepted: "a path to a thresholds file written by ghost calibrate", Default: "unset (GHOST_CR_LOW and GHOST_CR_HIGH)",
		Doc: "Under GHOST_ASYNC=auto, take GHOST_CR_LOW and GHOST_CR_HIGH from this calibration file, for the calibrated deployment nearest to the job's user count and GHOST_NG (docs/calibrate.md). A variable set explicitly wins over the file. A missing or malformed file is a warning, printed once per job, and the defaults apply.",
		set: func(c *Config, v string) bool { return parsePath(v, &c.Thresholds) },
	},
	{
		Name: "GHOST_LOAD", ReadBy: "library (users)", Accepted: "static, random, op or byte", Default: "static",
		Doc: "How PUT and GET spread over a node's ghosts when GHOST_NG >= 2, in every kind of epoch: static sends everything to the target's bound ghost, random picks one at random, op rotates per operation, byte picks the ghost sent the fewest bytes. Accumulate-type operations always use the bound ghost.",
		set: func(c *Config, v string) bool {
			p := LoadPolicy(strings.ToLower(strings.TrimSpace(v)))
			for _, known := range LoadPolicies {
				if p == known {
					c.Load = p
					return true
				}
			}
			return false
		},
	},
	{
		Name: "GHOST_HW_BYPASS", ReadBy: "library (users), `ghost doctor`", Accepted: "auto, on or off", Default: "auto",
		Doc: "Whether contiguous MPI_Put/MPI_Get (and Rput/Rget) of predefined datatypes skip the ghosts and go straight to the target, where the NIC completes them without the target's help. auto does so when every process found an RDMA device with an active port that does RDMA read and write (InfiniBand, RoCE or iWARP; `ghost doctor` shows what was found), on always does, off never does. Only in fence, PSCW and lock_all epochs; lock epochs and accumulate-type operations always stay on the ghosts. The decision is agreed job-wide at MPI_Init.",
		set: func(c *Config, v string) bool {
			switch m := HWBypass(strings.ToLower(strings.TrimSpace(v))); m {
			case HWBypassAuto, HWBypassOn, HWBypassOff:
				c.HWBypass = m
				return true
			}
			return false
		},
	},
	{
		Name: "GHOST_USER_YIELD", ReadBy: "library (users)", Accepted: "a non-negative integer (0 never yields)", Default: "64",
		Doc: "How many empty MPICH progress polls a user process makes, while it waits inside a blocking MPI call, before it yields its core with sched_yield; after 128 yields in a row within one call, while a ghost of its node is awake on a host with more runnable tasks than CPUs, it sleeps instead (20 us, doubling up to 160 us). Keeps waiting users from starving the ghosts and ranks they wait for when cores are shared.",
		set: func(c *Config, v string) bool {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil || n < 0 {
				return false
			}
			c.UserYield = n
			return true
		},
	},
	{
		Name: "GHOST_VERBOSE", ReadBy: "library", Accepted: "error, warn, info or debug (or 0-3)", Default: "warn",
		Doc: "Which of Ghost's own messages are printed. Errors always are.",
		set: func(c *Config, v string) bool {
			v = strings.ToLower(strings.TrimSpace(v))
			for i, name := range levelNames {
				if v == name || v == strconv.Itoa(i) {
					c.Verbose = Level(i)
					return true
				}
			}
			return false
		},
	},
	{
		Name: "GHOST_PROFILE", ReadBy: "library", Accepted: "0 or 1 (also off/on, false/true, no/yes)", Default: "0",
		Doc: "Time every wrapped MPI call; the totals are printed at finalize at verbosity info.",
		set: func(c *Config, v string) bool {
			b, ok := ParseBool(v)
			if ok {
				c.Profile = b
			}
			return ok
		},
	},
	{
		Name: "GHOST_TRACE", ReadBy: "library (users)", Accepted: "a path to a file that can be created", Default: "unset (no trace)",
		Doc: "Record every prediction interval of every rank as a JSON line in this file: the time, the rank, the interval's length, its time inside MPI and CR, the rank's prediction, the agreed state of every window, and the RMA operations that went through a ghost and straight to the target. Rank 0 truncates the file at MPI_Init. Timing is switched on for it, with GHOST_PREDICT_INT as the interval, whatever GHOST_ASYNC says. `ghost report FILE` prints and plots the timeline (docs/guide.md).",
		set: func(c *Config, v string) bool { return parsePath(v, &c.Trace) },
	},
	{
		Name: "GHOST_METRICS_ADDR", ReadBy: "library (first ghost of each node)", Accepted: "host:port (port 0 to 65535), or off", Default: DefaultMetricsAddr,
		Doc: "Where the first ghost of each node serves Prometheus metrics (/metrics). When the port is taken, for instance by another fake node on the same host, the next free port is used; the address bound is logged at verbosity info. A port conflict never stops the job. Binding to an external interface takes an explicit address. `off` turns the exporter off.",
		set: func(c *Config, v string) bool {
			v = strings.TrimSpace(v)
			if strings.EqualFold(v, "off") {
				c.MetricsAddr = "off"
				return true
			}
			_, port, err := net.SplitHostPort(v)
			if err != nil {
				return false
			}
			if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
				return false
			}
			c.MetricsAddr = v
			return true
		},
	},
	{
		Name: "GHOST_METRICS_TEXTFILE", ReadBy: "library (first ghost of each node)", Accepted: "an existing directory the job may create files in", Default: "unset (no record)",
		Doc: "At finalize, the first ghost of each node writes the node's final metrics to ghost_node<N>.prom in this directory, in node_exporter's textfile format, atomically (a temporary file, then a rename). `ghost report DIR` summarizes them.",
		set: func(c *Config, v string) bool { return parsePath(v, &c.MetricsTextfile) },
	},
	{
		Name: "GHOST_PPROF", ReadBy: "library (first ghost of each node)", Accepted: "0 or 1 (also off/on, false/true, no/yes)", Default: "0",
		Doc: "Also serve Go's runtime profiles under /debug/pprof/ on the metrics endpoint.",
		set: func(c *Config, v string) bool {
			b, ok := ParseBool(v)
			if ok {
				c.Pprof = b
			}
			return ok
		},
	},
	{
		Name: "GHOST_TEST_FAULT", ReadBy: "library (users)", Accepted: "lock_all_word:K, K a target rank from 0; or quiesce_flip:D, D a positive duration", Default: "unset (no fault)",
		Doc: "For Ghost's own tests only. lock_all_word:K makes the first MPI_Win_lock_all of each process that takes lock words fail at target K, after it took the words of targets 0 to K-1, as if the atomic on K's word had failed. No erroneous MPI program reaches that failure path, whose duty is to give back the words taken. quiesce_flip:D makes every process, under GHOST_ASYNC=auto, coordinate a switch of its windows outside collectives to the other state at most every D after its flushes, whatever its stalls, so that the protocol runs often. Every process that has it set says so at MPI_Init.",
		set: func(c *Config, v string) bool {
			v = strings.TrimSpace(v)
			if d, ok := strings.CutPrefix(v, "quiesce_flip:"); ok {
				var flip time.Duration
				if !parseDuration(d, false, &flip) {
					return false
				}
				c.FaultQuiesceFlip = flip
				return true
			}
			k, ok := strings.CutPrefix(v, "lock_all_word:")
			n, err := strconv.Atoi(k)
			if !ok || err != nil || n < 0 {
				return false
			}
			c.FaultLockAllWord = n + 1
			return true
		},
	},
}

// LauncherVars are read by `ghost run`, not by the library.
var LauncherVars = []Var{
	{Name: "GHOST_LIB", ReadBy: "`ghost run`", Accepted: "a path to libghost.so", Default: "libghost.so beside the ghost binary, then ../lib/libghost.so", Doc: "The library `ghost run` preloads, instead of the one beside the ghost binary."},
	{Name: "GHOST_LIB_OPENMPI", ReadBy: "`ghost run`", Accepted: "a path to libghost-openmpi.so", Default: "libghost-openmpi.so beside the ghost binary, then ../lib/libghost-openmpi.so", Doc: "The library `ghost run` preloads into Open MPI programs, instead of the one beside the ghost binary."},
	{Name: "GHOST_MPIEXEC", ReadBy: "`ghost run`", Accepted: "a path to a hydra mpiexec", Default: "mpiexec.hydra, then mpiexec.mpich, then mpiexec", Doc: "The mpiexec `ghost run` uses."},
	{Name: "GHOST_MPIRUN", ReadBy: "`ghost run` for Open MPI programs", Accepted: "a path or command name of Open MPI's mpirun", Default: "mpirun.openmpi, then orterun", Doc: "The Open MPI mpirun `ghost run` uses for Open MPI programs."},
	{Name: "GHOST_LAUNCHER", ReadBy: "`ghost run` inside a Slurm allocation", Accepted: "srun or hydra", Default: "srun", Doc: "What starts the processes when `ghost run` runs inside a Slurm allocation: srun --mpi=pmi2, or hydra's mpiexec with its Slurm launcher."},
	{Name: "GHOST_SRUN", ReadBy: "`ghost run` inside a Slurm allocation", Accepted: "a path or command name of srun", Default: "srun", Doc: "The srun `ghost run` uses inside a Slurm allocation."},
}

// parsePath reads a file or directory name; empty is rejected. Whether it
// exists is for its user to check, where it can say what it tried.
func parsePath(v string, out *string) bool {
	*out = strings.TrimSpace(v)
	return *out != ""
}

// parseDuration reads a Go duration ("250ms", "2s"); "0" is accepted when
// zero is, since it needs no unit.
func parseDuration(v string, zeroOK bool, out *time.Duration) bool {
	v = strings.TrimSpace(v)
	d, err := time.ParseDuration(v)
	if v == "0" {
		d, err = 0, nil
	}
	if err != nil || d < 0 || (d == 0 && !zeroOK) {
		return false
	}
	*out = d
	return true
}

// parseOff reads an on/off switch whose field says "off": *off is the
// negation of the boolean v.
func parseOff(v string, off *bool) bool {
	b, ok := ParseBool(v)
	if ok {
		*off = !b
	}
	return ok
}

func parseRatio(v string, out *float64) bool {
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || f < 0 || f > 1 {
		return false
	}
	*out = f
	return true
}

// Explicit reports whether the variable name, or one of its aliases, is set
// in environ ("NAME=value" entries): an explicit GHOST_CR_LOW/GHOST_CR_HIGH
// wins over a thresholds file, a default does not.
func Explicit(environ []string, name string) bool {
	names := []string{name}
	for _, v := range Vars {
		if v.Name == name {
			names = append(names, v.Aliases...)
		}
	}
	for _, kv := range environ {
		if k, _, ok := strings.Cut(kv, "="); ok && slices.Contains(names, k) {
			return true
		}
	}
	return false
}

// ParseBool accepts the usual spellings of a switch.
func ParseBool(v string) (value, ok bool) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "1", "on", "true", "yes":
		return true, true
	case "0", "off", "false", "no":
		return false, true
	}
	return false, false
}

// Load reads the configuration from environment entries ("NAME=value").
// It returns the configuration, with defaults where a value was bad, and
// every problem found, sorted by variable name.
func Load(environ []string) (Config, []Problem) {
	env := map[string]string{}
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	cfg := Default()
	var problems []Problem
	known := map[string]bool{}
	for _, lv := range LauncherVars {
		known[lv.Name] = true
	}
	for _, v := range Vars {
		known[v.Name] = true
		names := append([]string{v.Name}, v.Aliases...)
		for _, a := range v.Aliases {
			known[a] = true
		}
		// The GHOST_ name wins over a Casper alias when both are set.
		for i := len(names) - 1; i >= 0; i-- {
			value, set := env[names[i]]
			if !set {
				continue
			}
			if !v.set(&cfg, value) {
				problems = append(problems, Problem{Error, names[i], fmt.Sprintf(
					"%s=%q is not valid: accepted values are %s (default %s)",
					names[i], value, v.Accepted, v.Default)})
			}
		}
	}
	if cfg.CRLow >= cfg.CRHigh {
		problems = append(problems, Problem{Error, "GHOST_CR_LOW", fmt.Sprintf(
			"GHOST_CR_LOW=%g must be lower than GHOST_CR_HIGH=%g", cfg.CRLow, cfg.CRHigh)})
	}
	for name := range env {
		if strings.HasPrefix(name, "GHOST_") && !known[name] {
			msg := name + unknownVariable
			if near := Nearest(name, knownNames(known)); near != "" {
				msg += fmt.Sprintf("; did you mean %s?", near)
			}
			problems = append(problems, Problem{Warning, name, msg})
		}
	}
	sort.Slice(problems, func(i, j int) bool { return problems[i].Var < problems[j].Var })
	return cfg, problems
}

func knownNames(known map[string]bool) []string {
	var names []string
	for n := range known {
		if strings.HasPrefix(n, "GHOST_") {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

// unknownVariable follows the name of a GHOST_* variable that Ghost does
// not know, in the warning about it.
const unknownVariable = " is not a Ghost variable and is ignored"

// Nearest returns the candidate closest to name by edit distance, or "" when
// none is close enough to be a plausible typo.
func Nearest(name string, candidates []string) string {
	best, bestDist := "", -1
	for _, c := range candidates {
		d := editDistance(name, c)
		if bestDist < 0 || d < bestDist {
			best, bestDist = c, d
		}
	}
	// Allow about one edit per three characters of the suffix after GHOST_.
	limit := (len(strings.TrimPrefix(name, "GHOST_")) + 2) / 3
	if limit < 2 {
		limit = 2
	}
	if bestDist < 0 || bestDist > limit {
		return ""
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
