package main

import (
	"reflect"
	"strings"
	"testing"
)

func TestJudge(t *testing.T) {
	med := map[[3]string]Summary{
		{"s", "plain", "lat"}:   {N: 1, Min: 50, Median: 100},
		{"s", "ghost", "lat"}:   {N: 1, Min: 1, Median: 2},
		{"s", "slow", "lat"}:    {N: 1, Median: 103},
		{"s", "slower", "lat"}:  {N: 1, Median: 104},
		{"s", "plain", "alone"}: {N: 1, Median: 50},
		{"s", "ghost", "rate"}:  {N: 1, Median: 40},
		{"s", "zero", "lat"}:    {N: 1},
	}
	tests := []struct {
		name      string
		target    Target
		verdict   string
		wantRatio float64
	}{
		{"well under the limit", Target{Suite: "s", Metric: "lat", Config: "ghost", Versus: "plain", Limit: 0.02}, verdictMet, 0.02},
		{"exactly at a non-strict limit", Target{Suite: "s", Metric: "lat", Config: "slow", Versus: "plain", Limit: 1.03}, verdictMet, 1.03},
		{"over the limit", Target{Suite: "s", Metric: "lat", Config: "slower", Versus: "plain", Limit: 1.03}, verdictMissed, 1.04},
		{"at a strict limit is a miss", Target{Suite: "s", Metric: "lat", Config: "plain", Versus: "plain", Limit: 1, Strict: true}, verdictMissed, 1},
		{"no limit is information", Target{Suite: "s", Metric: "lat", Config: "slow", Versus: "plain"}, verdictInfo, 1.03},
		{"another metric as reference", Target{Suite: "s", Metric: "rate", Config: "ghost", Versus: "plain", VersusMetric: "alone"}, verdictInfo, 0.8},
		{"config missing", Target{Suite: "s", Metric: "lat", Config: "nope", Versus: "plain", Limit: 2}, verdictNoData, 0},
		{"suite missing", Target{Suite: "t", Metric: "lat", Config: "ghost", Versus: "plain", Limit: 2}, verdictNoData, 0},
		{"zero reference", Target{Suite: "s", Metric: "lat", Config: "ghost", Versus: "zero", Limit: 2}, verdictNoData, 0},
		{"best of several references", Target{Suite: "s", Metric: "lat", Config: "slow", Versus: "slower", OrVersus: []string{"plain"}, Limit: 1}, verdictMissed, 1.03},
		{"one of several references missing", Target{Suite: "s", Metric: "lat", Config: "slow", Versus: "plain", OrVersus: []string{"nope"}, Limit: 1}, verdictNoData, 0},
		{"absolute bound met", Target{Suite: "s", Metric: "lat", Config: "ghost", Max: 2}, verdictMet, 0},
		{"absolute bound missed", Target{Suite: "s", Metric: "lat", Config: "slow", Max: 100}, verdictMissed, 0},
		{"absolute bound, config missing", Target{Suite: "s", Metric: "lat", Config: "nope", Max: 100}, verdictNoData, 0},
		{"within the reference plus a margin", Target{Suite: "s", Metric: "lat", Config: "slow", Versus: "plain", Plus: 3}, verdictMet, 1.03},
		{"beyond the reference plus a margin", Target{Suite: "s", Metric: "lat", Config: "slower", Versus: "plain", Plus: 3}, verdictMissed, 1.04},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := judge(tt.target, med)
			if got.Verdict != tt.verdict {
				t.Errorf("verdict %q, want %q", got.Verdict, tt.verdict)
			}
			if d := got.Ratio - tt.wantRatio; d > 1e-9 || d < -1e-9 {
				t.Errorf("ratio %v, want %v", got.Ratio, tt.wantRatio)
			}
			if tt.name == "well under the limit" && (got.MinRatio != 0.02 || got.MinVerdict != verdictMet) {
				t.Errorf("ratio of mins %v (%s), want 0.02 (met)", got.MinRatio, got.MinVerdict)
			}
			if tt.name == "best of several references" && got.Best != "plain" {
				t.Errorf("best reference %q, want plain", got.Best)
			}
		})
	}
}

// With several references, medians and mins each compare with their own
// lowest, and each ratio gets its verdict.
func TestJudgeBestOf(t *testing.T) {
	med := map[[3]string]Summary{
		{"s", "a", "t"}: {N: 5, Min: 8, Median: 10},
		{"s", "b", "t"}: {N: 5, Min: 5, Median: 12},
		{"s", "u", "t"}: {N: 5, Min: 4, Median: 10.5},
	}
	got := judge(Target{Suite: "s", Metric: "t", Config: "u", Versus: "b", OrVersus: []string{"a"}, Limit: 1}, med)
	want := TargetResult{Value: 10.5, Against: 10, Ratio: 1.05, MinRatio: 0.8, Verdict: verdictMissed, MinVerdict: verdictMet, Best: "a"}
	want.Target = got.Target
	if !reflect.DeepEqual(got, want) {
		t.Errorf("judge = %+v, want %+v", got, want)
	}
}

func TestEvaluateIgnoresEmptyStats(t *testing.T) {
	suites := []SuiteResult{{Name: "s", Stats: []Stat{
		{Config: "plain", Metric: "m", Summary: Summary{N: 3, Median: 10}},
		{Config: "ghost", Metric: "m"}, // every run failed
	}}}
	got := evaluate([]Target{{Suite: "s", Metric: "m", Config: "ghost", Versus: "plain", Limit: 2}}, suites)
	if len(got) != 1 || got[0].Verdict != verdictNoData {
		t.Fatalf("evaluate = %+v, want one no-data result", got)
	}
}

// Every target must name a suite, configurations that suite runs, and a
// metric it can produce, or it silently stays "no data".
func TestTargetsPointAtRealSuites(t *testing.T) {
	for _, tg := range targets {
		s, ok := suiteByName(tg.Suite)
		if !ok {
			t.Errorf("%q: unknown suite %q", tg.Goal, tg.Suite)
			continue
		}
		for _, c := range append([]string{tg.Config, tg.Versus}, tg.OrVersus...) {
			if c == "" && tg.Max > 0 && c != tg.Config {
				continue // an absolute bound has no reference
			}
			if !containsString(s.Configs, c) {
				t.Errorf("%q: suite %s does not run %q", tg.Goal, s.Name, c)
			}
		}
		if tg.Goal == "" || tg.Metric == "" {
			t.Errorf("incomplete target %+v", tg)
		}
	}
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestLimitText(t *testing.T) {
	tests := []struct {
		t    Target
		want string
	}{
		{Target{}, ""},
		{Target{Limit: 1.25}, "≤ 1.25"},
		{Target{Limit: 1, Strict: true}, "< 1.00"},
	}
	for _, tt := range tests {
		if got := limitText(tt.t); got != tt.want {
			t.Errorf("limitText(%+v) = %q, want %q", tt.t, got, tt.want)
		}
	}
}

func TestWriteTargets(t *testing.T) {
	var b strings.Builder
	writeTargets(&b, []TargetResult{
		{Target: Target{Goal: "g1", Suite: "s", Metric: "m", Config: "c", Versus: "plain", Limit: 1.03}, Value: 2, Against: 1, Ratio: 2, MinRatio: 1.5, Verdict: verdictMissed},
		{Target: Target{Goal: "g2", Suite: "s", Metric: "rate", Config: "c", Versus: "plain", VersusMetric: "alone"}, Value: 1, Against: 2, Ratio: 0.5, MinRatio: 0.25, Verdict: verdictInfo},
		{Target: Target{Goal: "g3", Suite: "s", Metric: "m", Config: "c", Versus: "plain", Limit: 2}, Verdict: verdictNoData, MinVerdict: verdictNoData},
		{Target: Target{Goal: "g4", Suite: "s", Metric: "t", Config: "U", Versus: "on", OrVersus: []string{"off"}, Limit: 1},
			Value: 1, Against: 2, Ratio: 0.5, MinRatio: 1.5, Verdict: verdictMet, MinVerdict: verdictMissed, Best: "off"},
	})
	for _, want := range []string{
		"| g1 | s | c `m` / plain | 2.00 | 1.00 | 2.000 | 1.500 | ≤ 1.03 | **missed** |  |\n",
		"| g2 | s | c `rate` / plain alone | 1.00 | 2.00 | 0.500 | 0.250 |  | info |  |\n",
		"| g3 | s | c `m` / plain |  |  |  |  | ≤ 2.00 | no data | no data |\n",
		"| g4 | s | U `t` / best of on, off: off | 1.00 | 2.00 | 0.500 | 1.500 | ≤ 1.00 | met | **missed** |\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("targets table lacks %q:\n%s", want, b.String())
		}
	}
}
