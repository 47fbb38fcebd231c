package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseSizeMetric(t *testing.T) {
	tests := []struct {
		metric, op string
		want       float64
		ok         bool
	}{
		{"PUT/8B", "PUT", 8, true},
		{"ACC/1048576B", "ACC", 1048576, true},
		{"PUT/8B", "GET", 0, false},
		{"PUT/8", "PUT", 0, false},
		{"PUT/xB", "PUT", 0, false},
		{"PUT/0B", "PUT", 0, false},
		{"PUT/-8B", "PUT", 0, false},
		{"PUTS/8B", "PUT", 0, false},
	}
	for _, tt := range tests {
		got, ok := parseSizeMetric(tt.metric, tt.op)
		if got != tt.want || ok != tt.ok {
			t.Errorf("parseSizeMetric(%q, %q) = %v, %v; want %v, %v", tt.metric, tt.op, got, ok, tt.want, tt.ok)
		}
	}
}

func TestSizeLabel(t *testing.T) {
	tests := []struct {
		b    float64
		want string
	}{
		{8, "8"}, {512, "512"}, {1000, "1000"}, {4096, "4K"}, {1536, "1536"}, {262144, "256K"}, {1 << 20, "1M"}, {3 << 20, "3M"},
	}
	for _, tt := range tests {
		if got := sizeLabel(tt.b); got != tt.want {
			t.Errorf("sizeLabel(%v) = %q, want %q", tt.b, got, tt.want)
		}
	}
	if m := sizeMetric("GET", 4096); m != "GET/4096B" {
		t.Errorf("sizeMetric = %q", m)
	}
}

func TestMetricsOf(t *testing.T) {
	s := SuiteResult{Stats: []Stat{
		{Config: "a", Metric: "ACC/lock/100ms", Unit: "us"},
		{Config: "b", Metric: "ACC/lock/100ms", Unit: "us"},
		{Config: "a", Metric: "rate/lock/100ms", Unit: "steps/ms"},
		{Config: "a", Metric: "PUT/lock/100ms", Unit: "us"},
		{Config: "a", Metric: "PUT/lock/10ms", Unit: "us"},
	}}
	got := metricsOf(s, "us", suffix("/100ms"))
	want := []string{"ACC/lock/100ms", "PUT/lock/100ms"}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("metricsOf = %v, want %v", got, want)
	}
	if !prefixSuffix("rate/", "/100ms")("rate/alone/100ms") || prefixSuffix("rate/", "/100ms")("ACC/alone/100ms") {
		t.Error("prefixSuffix matches wrongly")
	}
}

// A report with data draws a PNG; one with only failed runs, zeros or no
// suites draws nothing and does not panic, whatever the chart kind.
func TestRenderPNG(t *testing.T) {
	cfgs := []ConfigInfo{{Name: "plain"}, {Name: "ghost-ng1"}}
	stats := []Stat{
		{Config: "plain", Metric: "PUT/8B", Unit: "us", Summary: Summary{N: 1, Median: 1}},
		{Config: "ghost-ng1", Metric: "PUT/8B", Unit: "us", Summary: Summary{N: 1, Median: 1.2}},
		{Config: "plain", Metric: "PUT/4096B", Unit: "us", Summary: Summary{N: 1, Median: 2}},
		{Config: "plain", Metric: "ACC/lock/100ms", Unit: "us", Summary: Summary{N: 1, Median: 100000}},
		{Config: "ghost-ng1", Metric: "ACC/lock/100ms", Unit: "us", Summary: Summary{N: 1, Median: 300}},
		{Config: "plain", Metric: "time", Unit: "s", Summary: Summary{N: 1, Median: 0.8}},
	}
	full := Report{Suites: []SuiteResult{
		{Name: "oplat", Configs: cfgs, Stats: stats},
		{Name: "progress", Configs: cfgs, Stats: stats},
		{Name: "gcu", Configs: cfgs, Stats: stats},
	}}
	png, err := renderPNG(full)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Fatalf("not a PNG: %d bytes", len(png))
	}

	zeros := []Stat{{Config: "plain", Metric: "PUT/8B", Unit: "us", Summary: Summary{N: 1}}, {Config: "ghost-ng1", Metric: "ACC/lock/100ms", Unit: "us"}}
	for name, r := range map[string]Report{
		"no suites":     {},
		"failed runs":   {Suites: []SuiteResult{{Name: "oplat", Configs: cfgs}, {Name: "wincost", Configs: cfgs}}},
		"zero medians":  {Suites: []SuiteResult{{Name: "oplat", Configs: cfgs, Stats: zeros}, {Name: "progress", Configs: cfgs, Stats: zeros}}},
		"unknown suite": {Suites: []SuiteResult{{Name: "gone", Configs: cfgs, Stats: stats}}},
	} {
		png, err := renderPNG(r)
		if err != nil || png != nil {
			t.Errorf("%s: renderPNG = %d bytes, %v; want nothing", name, len(png), err)
		}
	}
}

// -render rewrites the markdown and PNG of a run from its JSON alone.
func TestRerender(t *testing.T) {
	dir := t.TempDir()
	r := Report{Suites: []SuiteResult{{Name: "gcu", Baseline: "plain", Configs: []ConfigInfo{{Name: "plain"}},
		Stats: []Stat{{Config: "plain", Metric: "time", Unit: "s", Summary: Summary{N: 1, Min: 1, Median: 1, Max: 1}}}}}}
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "run.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := rerender(options{render: path}); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, "run.md"))
	if err != nil || !strings.Contains(string(md), "| time | s | 1 |") {
		t.Errorf("markdown %q, %v: want the wide gcu table", md, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "run.png")); err != nil {
		t.Error(err)
	}
}
