package main

import "fmt"

// Target is one goal the benchmarks check: the ratio of two medians from the
// same run, Config's Metric over Versus's VersusMetric, must stay at or below
// Limit (below it when Strict). A Limit of 0 makes the row informational: the
// ratio is reported and judged by a reader.
type Target struct {
	Goal         string
	Suite        string
	Metric       string
	Config       string
	VersusMetric string // default Metric
	Versus       string
	// OrVersus are further references: the ratio is taken against the best
	// (lowest) of Versus and these, separately for medians and for mins.
	OrVersus []string `json:",omitempty"`
	Limit    float64
	Strict   bool
	// Max, without Versus, bounds Config's median itself, in the metric's
	// unit. Plus bounds how much Config's median may exceed Versus's, in
	// the metric's unit (the ratio is still reported).
	Max  float64 `json:",omitempty"`
	Plus float64 `json:",omitempty"`
}

// TargetResult is a Target evaluated on one report. The verdict is on the
// ratio of medians; MinRatio, the ratio of the fastest samples, is printed
// beside it because on a shared machine the minimum is the better estimate
// of what a path costs when nothing else runs.
type TargetResult struct {
	Target
	Value    float64 `json:"value"`
	Against  float64 `json:"against"`
	Ratio    float64 `json:"ratio"`
	MinRatio float64 `json:"min_ratio"`
	Verdict  string  `json:"verdict"` // met, missed, info or "no data"
	// MinVerdict judges MinRatio against the same limit.
	MinVerdict string `json:"min_verdict"`
	// Best is the reference the median ratio used, when OrVersus gave a
	// choice.
	Best string `json:"best,omitempty"`
}

const (
	verdictMet    = "met"
	verdictMissed = "missed"
	verdictInfo   = "info"
	verdictNoData = "no data"
)

// targets are the goals the benchmarks judge: issue 12's (Ghost's defaults
// against plain MPICH, the node-local path), then those of issue 4 that
// concern the ghost path, then issue 6's (adaptation, on the ghost path).
var targets = []Target{
	// Issue 12: a target on the origin's node, with Ghost's defaults.
	{Goal: "same node, target idle in MPI_Barrier: 8-byte PUT+flush ≤ 1.25× plain", Suite: "rma-intercept", Metric: "PUT/8B", Config: "ghost", Versus: "plain", Limit: 1.25},
	{Goal: "same node, target idle in MPI_Barrier: 8-byte ACC+flush ≤ 1.25× plain", Suite: "rma-intercept", Metric: "ACC/8B", Config: "ghost", Versus: "plain", Limit: 1.25},
	{Goal: "same node, target busy 100 ms, lock/unlock: ACC ≥ 50× faster than plain", Suite: "progress", Metric: "ACC/lock/100ms", Config: "ghost", Versus: "plain", Limit: 0.02},
	{Goal: "same node, target busy 100 ms, lock/unlock: PUT ≥ 50× faster than plain", Suite: "progress", Metric: "PUT/lock/100ms", Config: "ghost", Versus: "plain", Limit: 0.02},
	{Goal: "same node, target busy 100 ms, lock_all+flush: ACC ≥ 50× faster than plain", Suite: "progress", Metric: "ACC/lockall/100ms", Config: "ghost", Versus: "plain", Limit: 0.02},
	{Goal: "same node, target busy 100 ms, lock_all+flush: PUT ≥ 50× faster than plain", Suite: "progress", Metric: "PUT/lockall/100ms", Config: "ghost", Versus: "plain", Limit: 0.02},
	{Goal: "same node, target busy 100 ms, lock/unlock: ACC median below 0.1 ms", Suite: "progress", Metric: "ACC/lock/100ms", Config: "ghost", Max: 100},
	{Goal: "same node, target busy 100 ms, lock/unlock: PUT median below 0.1 ms", Suite: "progress", Metric: "PUT/lock/100ms", Config: "ghost", Max: 100},
	{Goal: "same node, target busy 100 ms: ACC below MPICH's progress thread", Suite: "progress", Metric: "ACC/lock/100ms", Config: "ghost", Versus: "mpich-thread", Limit: 1, Strict: true},
	{Goal: "same node, busy target: what the node-local path gains over the ghost path (ACC, lock)", Suite: "progress", Metric: "ACC/lock/100ms", Config: "ghost", Versus: "ghost-ghostpath"},
	{Goal: "other node, target busy 100 ms, lock/unlock: ACC ≥ 50× faster than plain (cross-node progress)", Suite: "progress", Metric: "ACC/lock/100ms", Config: "ghost-2nodes", Versus: "plain-2nodes", Limit: 0.02},
	{Goal: "other node, target busy 100 ms, lock_all+flush: PUT ≥ 50× faster than plain (cross-node progress)", Suite: "progress", Metric: "PUT/lockall/100ms", Config: "ghost-2nodes", Versus: "plain-2nodes", Limit: 0.02},
	{Goal: "target compute rate during lock_all ops, Ghost vs plain computing alone", Suite: "progress", Metric: "rate/lockall/100ms", Config: "ghost", VersusMetric: "rate/alone/100ms", Versus: "plain"},
	{Goal: "target compute rate during lock_all ops, progress thread vs plain computing alone", Suite: "progress", Metric: "rate/lockall/100ms", Config: "mpich-thread", VersusMetric: "rate/alone/100ms", Versus: "plain"},
	{Goal: "MPI_Init ≤ plain + 0.1 s (2 users, no ghost on one node)", Suite: "wincost", Metric: "MPI_Init", Config: "ghost", Versus: "plain", Plus: 100000},
	{Goal: "MPI_Init ≤ plain + 0.1 s with 3 processes on 2 cores (2 users + 1 ghost)", Suite: "wincost", Metric: "MPI_Init", Config: "ghost-ng1", Versus: "plain", Plus: 100000},
	{Goal: "Win_allocate+Win_free, 4 KiB: ≤ 2× plain (dedicated cores)", Suite: "wincost", Metric: "Win_allocate+free/4096B", Config: "ghost", Versus: "plain", Limit: 2},
	{Goal: "Win_allocate+Win_free, 1 MiB: ≤ 2× plain (dedicated cores)", Suite: "wincost", Metric: "Win_allocate+free/1048576B", Config: "ghost", Versus: "plain", Limit: 2},
	{Goal: "Win_allocate+Win_free, 4 KiB: ≤ 10× plain with 3 processes on 2 cores", Suite: "wincost", Metric: "Win_allocate+free/4096B", Config: "ghost-ng1", Versus: "plain", Limit: 10},
	{Goal: "Win_allocate+Win_free, 4 KiB, through the ghost (before the node-local path) vs plain", Suite: "wincost", Metric: "Win_allocate+free/4096B", Config: "ghost-ghostpath", Versus: "plain"},
	{Goal: "get-compute-update: Ghost faster than plain", Suite: "gcu", Metric: "time", Config: "ghost", Versus: "plain", Limit: 1, Strict: true},
	{Goal: "get-compute-update: Ghost vs plain with NOLOCAL (right results)", Suite: "gcu", Metric: "time", Config: "ghost", Versus: "plain-nolocal"},
	{Goal: "get-compute-update: Ghost vs MPICH's progress thread", Suite: "gcu", Metric: "time", Config: "ghost", Versus: "mpich-thread"},
	// Issue 12: the scoreboard (real applications, Ghost's defaults against
	// plain MPICH made correct with NOLOCAL).
	{Goal: "NWChem water SCF: Ghost ≤ 1.10× plain + NOLOCAL", Suite: "apps", Metric: "nwchem/water_scf", Config: "ghost", Versus: "plain-nolocal", Limit: 1.10},
	{Goal: "NWChem water DFT: Ghost ≤ 1.10× plain + NOLOCAL", Suite: "apps", Metric: "nwchem/water_dft", Config: "ghost", Versus: "plain-nolocal", Limit: 1.10},
	{Goal: "NWChem ethanol SCF: Ghost ≤ 1.10× plain + NOLOCAL", Suite: "apps", Metric: "nwchem/ethanol_scf", Config: "ghost", Versus: "plain-nolocal", Limit: 1.10},
	{Goal: "NWChem ethanol DFT: Ghost ≤ 1.10× plain + NOLOCAL", Suite: "apps", Metric: "nwchem/ethanol_dft", Config: "ghost", Versus: "plain-nolocal", Limit: 1.10},
	{Goal: "ARMCI-MPI NXTASK: Ghost ≤ 1.2× plain + NOLOCAL", Suite: "apps", Metric: "armci/nxtask", Config: "ghost", Versus: "plain-nolocal", Limit: 1.2},
	{Goal: "OpenCoarrays event_compute: Ghost ≤ 1.2× plain + NOLOCAL", Suite: "apps", Metric: "coarray/event_compute", Config: "ghost", Versus: "plain-nolocal", Limit: 1.2},
	{Goal: "OpenCoarrays alloc_comp_multidim_shape: Ghost ≤ 1.2× plain + NOLOCAL", Suite: "apps", Metric: "coarray/alloc_comp_multidim_shape", Config: "ghost", Versus: "plain-nolocal", Limit: 1.2},
	{Goal: "OpenCoarrays allocate_as_barrier: Ghost ≤ 1.2× plain + NOLOCAL", Suite: "apps", Metric: "coarray/allocate_as_barrier", Config: "ghost", Versus: "plain-nolocal", Limit: 1.2},
	{Goal: "OpenCoarrays allocate_as_barrier_proc: Ghost ≤ 1.2× plain + NOLOCAL", Suite: "apps", Metric: "coarray/allocate_as_barrier_proc", Config: "ghost", Versus: "plain-nolocal", Limit: 1.2},
	{Goal: "NWChem ethanol DFT: GHOST_ASYNC=auto vs plain + NOLOCAL", Suite: "apps", Metric: "nwchem/ethanol_dft", Config: "ghost-auto", Versus: "plain-nolocal"},
	{Goal: "2 fake nodes, NWChem water SCF: GHOST_ASYNC=auto within 10% of the better of on and off", Suite: "apps-2nodes", Metric: "nwchem/water_scf", Config: "ghost-2nodes-auto", Versus: "ghost-2nodes", OrVersus: []string{"ghost-2nodes-off"}, Limit: 1.10},
	{Goal: "2 fake nodes, NWChem water DFT: GHOST_ASYNC=auto within 10% of the better of on and off", Suite: "apps-2nodes", Metric: "nwchem/water_dft", Config: "ghost-2nodes-auto", Versus: "ghost-2nodes", OrVersus: []string{"ghost-2nodes-off"}, Limit: 1.10},
	{Goal: "2 fake nodes, NWChem ethanol SCF: GHOST_ASYNC=auto within 10% of the better of on and off", Suite: "apps-2nodes", Metric: "nwchem/ethanol_scf", Config: "ghost-2nodes-auto", Versus: "ghost-2nodes", OrVersus: []string{"ghost-2nodes-off"}, Limit: 1.10},
	{Goal: "2 fake nodes, NWChem ethanol DFT: GHOST_ASYNC=auto within 10% of the better of on and off", Suite: "apps-2nodes", Metric: "nwchem/ethanol_dft", Config: "ghost-2nodes-auto", Versus: "ghost-2nodes", OrVersus: []string{"ghost-2nodes-off"}, Limit: 1.10},
	{Goal: "2 fake nodes, ARMCI-MPI NXTASK: GHOST_ASYNC=auto within 10% of the better of on and off", Suite: "apps-2nodes", Metric: "armci/nxtask", Config: "ghost-2nodes-auto", Versus: "ghost-2nodes", OrVersus: []string{"ghost-2nodes-off"}, Limit: 1.10},
	{Goal: "2 fake nodes, NWChem ethanol DFT: GHOST_ASYNC=auto vs plain", Suite: "apps-2nodes", Metric: "nwchem/ethanol_dft", Config: "ghost-2nodes-auto", Versus: "plain-2nodes"},
	{Goal: "NWChem ethanol DFT: Ghost vs Debian's advice (ARMCI_USE_WIN_ALLOCATE=0)", Suite: "apps", Metric: "nwchem/ethanol_dft", Config: "ghost", Versus: "plain-armci-nowinalloc"},
	// Issue 4, on the ghost path.
	{Goal: "ghost path, target asleep outside MPI: 8-byte PUT ≤ 1.25× plain", Suite: "rma-intercept", Metric: "PUT/8B", Config: "ghost-ng1-sleep", Versus: "plain", Limit: 1.25},
	{Goal: "ghost path, target asleep outside MPI: 8-byte ACC ≤ 1.25× plain", Suite: "rma-intercept", Metric: "ACC/8B", Config: "ghost-ng1-sleep", Versus: "plain", Limit: 1.25},
	{Goal: "ghost path, target idle in MPI_Barrier: 8-byte ACC vs plain", Suite: "rma-intercept", Metric: "ACC/8B", Config: "ghost-ghostpath", Versus: "plain"},
	{Goal: "ghost path, target asleep, ghost busy-polling: 8-byte ACC vs plain", Suite: "rma-intercept", Metric: "ACC/8B", Config: "ghost-ng1-sleep-spin", Versus: "plain"},
}

func init() {
	// Issue 6: switching phase by phase pays off (on the ghost path), and
	// issue 13: the passive-target variant, where auto switches only at
	// implicit points (flush_all + MPI_Barrier). Each on one node, where
	// only GHOST_NODE_LOCAL=off makes the state matter, and on 2 fake
	// nodes, where every target is on the other node.
	for _, suffix := range []string{"", multiphaseTwoNodes} {
		targets = append(targets, multiphaseTargets("multiphase"+suffix, suffix, true)...)
		targets = append(targets, multiphaseTargets("multiphase-passive"+suffix, suffix, false)...)
	}
}

// multiphaseTargets are suite's goals: U at or below the better static
// configuration, P (and GP, where the suite's goals include it) within 15%
// of U; suffix names the suite's configurations.
func multiphaseTargets(suite, suffix string, gp bool) []Target {
	u := "U" + suffix
	out := []Target{
		{Goal: suite + ": U at or below the better static configuration", Suite: suite, Metric: totalMetric,
			Config: u, Versus: "static-on" + suffix, OrVersus: []string{"static-off" + suffix}, Limit: 1},
		{Goal: suite + ": P within 15% of U", Suite: suite, Metric: totalMetric, Config: "P" + suffix, Versus: u, Limit: 1.15},
	}
	if gp {
		out = append(out, Target{Goal: suite + ": GP within 15% of U", Suite: suite, Metric: totalMetric,
			Config: "GP" + suffix, Versus: u, Limit: 1.15})
	}
	return out
}

// evaluate judges every target against the suites of one report; a target
// whose suite did not run, or whose medians are missing, is "no data".
func evaluate(ts []Target, suites []SuiteResult) []TargetResult {
	summaries := map[[3]string]Summary{}
	for _, s := range suites {
		for _, st := range s.Stats {
			if st.N > 0 {
				summaries[[3]string{s.Name, st.Config, st.Metric}] = st.Summary
			}
		}
	}
	out := make([]TargetResult, 0, len(ts))
	for _, t := range ts {
		out = append(out, judge(t, summaries))
	}
	return out
}

func judge(t Target, summaries map[[3]string]Summary) TargetResult {
	r := TargetResult{Target: t, Verdict: verdictNoData, MinVerdict: verdictNoData}
	if t.Versus == "" {
		v, ok := summaries[[3]string{t.Suite, t.Config, t.Metric}]
		if ok {
			r.Value = v.Median
			r.Verdict, r.MinVerdict = t.bound(v.Median, 0), t.bound(v.Min, 0)
		}
		return r
	}
	vm := t.VersusMetric
	if vm == "" {
		vm = t.Metric
	}
	v, ok1 := summaries[[3]string{t.Suite, t.Config, t.Metric}]
	// a holds the lowest median and the lowest min of the references.
	var a Summary
	ok2 := false
	for _, name := range append([]string{t.Versus}, t.OrVersus...) {
		s, ok := summaries[[3]string{t.Suite, name, vm}]
		if !ok {
			return r // a missing reference could have been the best
		}
		if !ok2 || s.Median < a.Median {
			a.Median, r.Best = s.Median, name
		}
		if !ok2 || s.Min < a.Min {
			a.Min = s.Min
		}
		ok2 = true
	}
	if len(t.OrVersus) == 0 {
		r.Best = ""
	}
	if !ok1 || a.Median == 0 {
		return r
	}
	r.Value, r.Against, r.Ratio = v.Median, a.Median, ratio(v.Median, a.Median)
	r.MinRatio = ratio(v.Min, a.Min)
	r.Verdict, r.MinVerdict = t.verdict(r.Ratio), t.verdict(r.MinRatio)
	if t.Plus > 0 {
		r.Verdict, r.MinVerdict = t.bound(v.Median, a.Median), t.bound(v.Min, a.Min)
	}
	return r
}

// bound judges an absolute limit: value ≤ Max, or value ≤ against + Plus.
func (t Target) bound(value, against float64) string {
	limit := t.Max
	if t.Plus > 0 {
		limit = against + t.Plus
	}
	if value <= limit {
		return verdictMet
	}
	return verdictMissed
}

// verdict judges one ratio against the target's limit.
func (t Target) verdict(ratio float64) string {
	switch {
	case t.Limit == 0:
		return verdictInfo
	case ratio < t.Limit || (!t.Strict && ratio == t.Limit):
		return verdictMet
	}
	return verdictMissed
}

// limitText is how a target's limit reads in the table.
func limitText(t Target) string {
	switch {
	case t.Max > 0:
		return fmt.Sprintf("median ≤ %g", t.Max)
	case t.Plus > 0:
		return fmt.Sprintf("≤ ref + %g", t.Plus)
	case t.Limit == 0:
		return ""
	case t.Strict:
		return fmt.Sprintf("< %.2f", t.Limit)
	}
	return fmt.Sprintf("≤ %.2f", t.Limit)
}
