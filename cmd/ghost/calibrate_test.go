package main

import (
	"fmt"
	"io"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/ghost-mpi/ghost/adapt"
)

func TestParseCalibrateArgs(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want calibrateOptions
		err  string
	}{
		{name: "defaults", want: calibrateOptions{users: []int{2, 4}, ghosts: []int{1, 2}, output: "thresholds.json", steps: 5, probeSeconds: 0.5}},
		{name: "quick", args: []string{"--quick"},
			want: calibrateOptions{users: []int{2, 3}, ghosts: []int{1}, quick: true, output: "thresholds.json", steps: 4, probeSeconds: 0.4}},
		{name: "quick with overrides", args: []string{"--quick", "-n", "3", "-g", "2", "--steps", "0", "--probe-seconds", "1", "-o", "x.json"},
			want: calibrateOptions{users: []int{3}, ghosts: []int{2}, quick: true, output: "x.json", steps: 0, probeSeconds: 1}},
		{name: "hosts", args: []string{"--hosts", "a:3,b:3", "-n", "4", "-g", "1"},
			want: calibrateOptions{users: []int{4}, ghosts: []int{1}, hosts: "a:3,b:3", output: "thresholds.json", steps: 5, probeSeconds: 0.5}},
		{name: "one user", args: []string{"-n", "1"}, err: `-n "1" is not valid: accepted values are comma-separated integers from 2`},
		{name: "no ghosts", args: []string{"-g", "0"}, err: `-g "0" is not valid`},
		{name: "too many ghosts", args: []string{"-g", "9"}, err: "from 1 to 8"},
		{name: "repeated count", args: []string{"-n", "2,2"}, err: "names 2 twice"},
		{name: "bad list", args: []string{"-n", "2,,4"}, err: `-n "2,,4" is not valid`},
		{name: "bad seconds", args: []string{"--probe-seconds", "-1"}, err: "--probe-seconds -1 is not valid"},
		{name: "too many steps", args: []string{"--steps", "50"}, err: "--steps 50 is not valid"},
		{name: "bad hosts", args: []string{"--hosts", "a"}, err: `--hosts entry "a" is not valid`},
		{name: "stray argument", args: []string{"now"}, err: `unexpected argument "now"`},
		{name: "empty output", args: []string{"-o", ""}, err: "-o needs a file name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseCalibrateArgs(tt.args, io.Discard)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestPlanPatterns(t *testing.T) {
	count := func(ps []adapt.Pattern, f func(adapt.Pattern) bool) int {
		n := 0
		for _, p := range ps {
			if f(p) {
				n++
			}
		}
		return n
	}
	tests := []struct {
		name             string
		quick, multiNode bool
		total, oneNode   int
	}{
		// put, get, acc, get_acc: 2 datatypes x 2 blockings; fop, cas: 2 blockings.
		{"one node", false, false, 20, 0},
		{"several nodes", false, true, 40, 20},
		{"quick", true, false, 7, 0},
		{"quick ignores nodes", true, true, 7, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ps := planPatterns(tt.quick, tt.multiNode)
			if len(ps) != tt.total {
				t.Errorf("%d patterns, want %d", len(ps), tt.total)
			}
			if n := count(ps, func(p adapt.Pattern) bool { return p.Target == "all-to-one-node" }); n != tt.oneNode {
				t.Errorf("%d all-to-one-node patterns, want %d", n, tt.oneNode)
			}
			seen := map[string]bool{}
			for _, p := range ps {
				if err := p.Validate(); err != nil {
					t.Errorf("%v: %v", p, err)
				}
				if seen[p.String()] {
					t.Errorf("%v planned twice", p)
				}
				seen[p.String()] = true
			}
		})
	}
	// The quick subset still covers every value of op, datatype and
	// blocking.
	for _, dim := range []struct {
		values []string
		of     func(adapt.Pattern) string
	}{
		{adapt.PatternOps, func(p adapt.Pattern) string { return p.Op }},
		{adapt.PatternDatatypes, func(p adapt.Pattern) string { return p.Datatype }},
		{adapt.PatternBlockings, func(p adapt.Pattern) string { return p.Blocking }},
	} {
		for _, v := range dim.values {
			if count(quickPatterns, func(p adapt.Pattern) bool { return dim.of(p) == v }) == 0 {
				t.Errorf("quick patterns never use %s", v)
			}
		}
	}
}

func TestPlanDeployments(t *testing.T) {
	tests := []struct {
		name          string
		users, ghosts []int
		hosts         string
		want          []deployment
		multi         []bool
		err           string
	}{
		{name: "cross product", users: []int{2, 4}, ghosts: []int{1, 2},
			want: []deployment{{2, 1}, {2, 2}, {4, 1}, {4, 2}}, multi: []bool{false, false, false, false}},
		{name: "fake nodes: 2 users fit on one host, 4 do not", users: []int{2, 4}, ghosts: []int{1}, hosts: "a:3,b:3",
			want: []deployment{{2, 1}, {4, 1}}, multi: []bool{false, true}},
		{name: "does not fit", users: []int{6}, ghosts: []int{1}, hosts: "a:3,b:3", err: "n=6 g=1 does not fit --hosts a:3,b:3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			deps, multi, err := planDeployments(tt.users, tt.ghosts, tt.hosts)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(deps) != fmt.Sprint(tt.want) || fmt.Sprint(multi) != fmt.Sprint(tt.multi) {
				t.Errorf("got %v %v, want %v %v", deps, multi, tt.want, tt.multi)
			}
		})
	}
}

func TestProbeCrossingRule(t *testing.T) {
	tests := []struct {
		on, off float64
		same    bool
	}{
		{100, 100, true},
		{105, 100, true},
		{95, 100, true},
		{105.1, 100, false},
		{94.9, 100, false},
		{200, 100, false},
	}
	for _, tt := range tests {
		p := probe{On: measurement{IterSeconds: tt.on}, Off: measurement{IterSeconds: tt.off}}
		if got := p.same(0.05); got != tt.same {
			t.Errorf("on %g off %g: same = %v, want %v", tt.on, tt.off, got, tt.same)
		}
	}
}

// fakeMachine models one pattern: an iteration is the computation plus the
// communication, and communication costs base + waited*compute, where
// waited is the share of a target's computation an origin waits out (large
// without ghosts, small with them). It returns measurements as the C
// program would.
type fakeMachine struct {
	offBase, offWaited float64 // microseconds, fraction
	onBase, onWaited   float64
}

func (m fakeMachine) measure(async string, computeUS float64) measurement {
	base, waited := m.offBase, m.offWaited
	if async == "on" {
		base, waited = m.onBase, m.onWaited
	}
	comm := base + waited*computeUS
	return measurement{CR: comm / (comm + computeUS), IterSeconds: (comm + computeUS) / 1e6}
}

// crossing is the computation at which on and off cost the same, and the
// CR there.
func (m fakeMachine) crossing() (computeUS, cr float64) {
	c := (m.onBase - m.offBase) / (m.offWaited - m.onWaited)
	return c, m.measure("off", c).CR
}

func runSearch(s *search, m fakeMachine) int {
	rounds := 0
	for {
		load, ok := s.next()
		if !ok {
			return rounds
		}
		c := s.computeMicros(load)
		s.record(probe{Load: load, On: m.measure("on", c), Off: m.measure("off", c)})
		rounds++
	}
}

func TestSearch(t *testing.T) {
	pattern := adapt.Pattern{Op: "acc", Datatype: "contig", Blocking: "per-op", Target: "all-to-all"}
	tests := []struct {
		name   string
		m      fakeMachine
		steps  int
		kind   string
		load   float64 // wanted load, when the search ends at an edge
		rounds int
	}{
		// Ghosts cost 20 us more per batch and save most of the waiting:
		// the crossing is at 28.6 us of computation, load 0.259.
		{name: "bisection finds the crossing", m: fakeMachine{10, 0.8, 30, 0.1}, steps: 8, kind: adapt.KindCrossing},
		{name: "out of steps: interpolated", m: fakeMachine{10, 0.8, 30, 0.1}, steps: 1, kind: adapt.KindInterpolated, rounds: 3},
		{name: "ghosts always cheaper", m: fakeMachine{10, 0.8, 9, 0.1}, steps: 5, kind: adapt.KindOnWins, load: 1, rounds: 2},
		{name: "ghosts always dearer", m: fakeMachine{10, 0.1, 300, 0.1}, steps: 5, kind: adapt.KindOffWins, load: minLoad, rounds: 2},
		{name: "equal at load 1", m: fakeMachine{10, 0.8, 10.2, 0.1}, steps: 5, kind: adapt.KindCrossing, load: 1, rounds: 1},
		{name: "no steps: interpolated between the edges", m: fakeMachine{10, 0.8, 30, 0.1}, steps: 0, kind: adapt.KindInterpolated, rounds: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSearch(pattern, 0.05, tt.steps)
			rounds := runSearch(s, tt.m)
			b := s.result
			if b == nil || b.Kind != tt.kind {
				t.Fatalf("result %+v, want kind %s", b, tt.kind)
			}
			if tt.rounds != 0 && rounds != tt.rounds {
				t.Errorf("%d rounds, want %d", rounds, tt.rounds)
			}
			if rounds > tt.steps+2 {
				t.Errorf("%d rounds for %d steps", rounds, tt.steps)
			}
			if b.Pattern != pattern {
				t.Errorf("pattern %v", b.Pattern)
			}
			switch tt.kind {
			case adapt.KindOnWins, adapt.KindOffWins:
				if b.Load != tt.load {
					t.Errorf("load %g, want the edge %g", b.Load, tt.load)
				}
			default:
				if tt.load != 0 && b.Load != tt.load {
					t.Errorf("load %g, want %g", b.Load, tt.load)
				}
				if tt.load != 0 {
					return
				}
				// A crossing within ±5% of cost, or the interpolation, lies
				// near the model's exact crossing.
				_, cr := tt.m.crossing()
				if math.Abs(b.CR-cr) > 0.1 {
					t.Errorf("CR %g, the model crosses at %g", b.CR, cr)
				}
			}
		})
	}
}

func TestInterpolate(t *testing.T) {
	a := probe{Load: 0.2, On: measurement{CR: 0.2, IterSeconds: 0.5}, Off: measurement{CR: 0.2, IterSeconds: 1}}
	b := probe{Load: 0.6, On: measurement{CR: 0.6, IterSeconds: 2}, Off: measurement{CR: 0.6, IterSeconds: 1}}
	cr, load := interpolate(a, b)
	if math.Abs(cr-0.4) > 1e-9 || math.Abs(load-0.4) > 1e-9 {
		t.Errorf("interpolate = %g, %g; want the middle (log ratios -ln2 and +ln2)", cr, load)
	}
}

func TestSweep(t *testing.T) {
	// Two patterns on one fake machine each; the runner checks the job
	// shape and counts jobs.
	machines := map[string]fakeMachine{
		"put": {10, 0.8, 30, 0.1},
		"fop": {10, 0.8, 9, 0.1},
	}
	patterns := []adapt.Pattern{
		{Op: "put", Datatype: "contig", Blocking: "per-op", Target: "all-to-all"},
		{Op: "fop", Datatype: "contig", Blocking: "per-batch", Target: "all-to-all"},
	}
	jobs := map[string]int{}
	var order []string
	run := func(d deployment, async string, probes []probeSpec) ([]measurement, error) {
		jobs[async]++
		order = append(order, async)
		var out []measurement
		for _, p := range probes {
			out = append(out, machines[p.pattern.Op].measure(async, p.computeUS))
		}
		return out, nil
	}
	var progress strings.Builder
	bs, err := sweep(deployment{3, 2}, patterns, 0.05, 4, run, &progress)
	if err != nil {
		t.Fatal(err)
	}
	if len(bs) != 2 || bs[0].Kind == adapt.KindOnWins || bs[1].Kind != adapt.KindOnWins {
		t.Fatalf("boundaries %+v", bs)
	}
	for _, b := range bs {
		if b.N != 3 || b.G != 2 {
			t.Errorf("boundary %+v lacks the deployment", b)
		}
	}
	if jobs["on"] != jobs["off"] || jobs["on"] > 6 {
		t.Errorf("jobs %v: want one per mode per round, at most steps+2 rounds", jobs)
	}
	if len(order) < 4 || strings.Join(order[:4], " ") != "off on on off" {
		t.Errorf("job order %v: the first mode should alternate by round", order)
	}
	if !strings.Contains(progress.String(), "n=3 g=2: round 1, 2 pattern(s)") {
		t.Errorf("progress %q", progress.String())
	}

	failing := func(deployment, string, []probeSpec) ([]measurement, error) { return nil, fmt.Errorf("timed out") }
	if _, err := sweep(deployment{2, 1}, patterns, 0.05, 4, failing, io.Discard); err == nil {
		t.Error("a failing job did not fail the sweep")
	}
}

func TestBuildThresholds(t *testing.T) {
	p := adapt.Pattern{Op: "put", Datatype: "contig", Blocking: "per-op", Target: "all-to-all"}
	q := adapt.Pattern{Op: "get", Datatype: "contig", Blocking: "per-op", Target: "all-to-all"}
	bs := []adapt.Boundary{
		{N: 2, G: 1, Pattern: p, CR: 0.3, Kind: adapt.KindCrossing, Load: 0.5},
		{N: 2, G: 1, Pattern: q, CR: 0.7, Kind: adapt.KindCrossing, Load: 0.5},
		{N: 4, G: 1, Pattern: p, CR: 0.5, Kind: adapt.KindOnWins, Load: 1},
	}
	created := time.Date(2025, 1, 2, 3, 4, 5, 600, time.FixedZone("x", 3600))
	f, err := buildThresholds(bs, []deployment{{2, 1}, {4, 1}}, adapt.Machine{Hostname: "h", Cores: 2},
		adapt.Sweep{Tolerance: 0.05, ProbeSeconds: 0.2, Steps: 3}, created)
	if err != nil {
		t.Fatal(err)
	}
	want := []adapt.Average{{N: 2, G: 1, CR: 0.5, Low: 0.3, High: 0.7}, {N: 4, G: 1, CR: 0.5, Low: 0.45, High: 0.55}}
	if fmt.Sprint(f.Averages) != fmt.Sprint(want) {
		t.Errorf("averages %+v, want %+v", f.Averages, want)
	}
	data, err := f.Encode()
	if err != nil {
		t.Fatal(err)
	}
	g, err := adapt.ParseThresholds("built", data)
	if err != nil {
		t.Fatalf("built file does not parse: %v\n%s", err, data)
	}
	if g.Created.Format(time.RFC3339) != "2025-01-02T02:04:05Z" {
		t.Errorf("created %v", g.Created)
	}
	if _, err := buildThresholds(bs, []deployment{{8, 1}}, adapt.Machine{}, adapt.Sweep{}, created); err == nil {
		t.Error("a deployment without boundaries was averaged")
	}
}

func TestParseProbeOutput(t *testing.T) {
	good := "users 2 nodes 1\nlibrary MPICH Version:\t4.0.2\nprobe 0 cr 0.9989 iter_us 28.421 iters 17818 targets 1\n" +
		"probe 1 cr 0.5 iter_us 100 iters 10 targets 1\n"
	tests := []struct {
		name, out string
		probes    int
		err       string
	}{
		{"good", good, 2, ""},
		{"missing probe", good, 3, "2 probe results for 3 probes"},
		{"out of order", "probe 1 cr 0.5 iter_us 1 iters 1 targets 1\n", 1, "probe 1 where probe 0 was due"},
		{"cr above 1", "probe 0 cr 1.5 iter_us 1 iters 1 targets 1\n", 1, "implausible"},
		{"zero time", "probe 0 cr 0.5 iter_us 0 iters 1 targets 1\n", 1, "implausible"},
		{"stray line", "hello\n", 0, `unknown line "hello"`},
		{"bad number", "probe 0 cr x iter_us 1 iters 1 targets 1\n", 1, "unreadable line"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lib, ms, err := parseProbeOutput([]byte(tt.out), tt.probes)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if lib != "MPICH Version: 4.0.2" || len(ms) != 2 || ms[0].CR != 0.9989 || math.Abs(ms[0].IterSeconds-28.421e-6) > 1e-12 {
				t.Errorf("got %q %+v", lib, ms)
			}
		})
	}
}

func TestProbeSpecArg(t *testing.T) {
	p := probeSpec{adapt.Pattern{Op: "get_acc", Datatype: "subarray", Blocking: "per-batch", Target: "all-to-one-node"}, 12.345}
	if got := p.arg(); got != "get_acc:subarray:per-batch:all-to-one-node:12.3" {
		t.Errorf("arg = %q", got)
	}
}
