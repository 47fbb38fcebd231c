package main

import (
	"strings"
	"testing"
	"time"
)

func TestBaseName(t *testing.T) {
	paris := time.FixedZone("CET", 3600)
	tests := []struct {
		name    string
		started time.Time
		host    string
		want    string
	}{
		{"UTC", time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC), "vm", "2025-03-04T050607Z-vm"},
		{"local time converted", time.Date(2025, 3, 4, 0, 30, 0, 0, paris), "vm", "2025-03-03T233000Z-vm"},
		{"odd host characters", time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), "a b/c.d", "2025-01-01T000000Z-a_b_c.d"},
		{"no host", time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), "", "2025-01-01T000000Z-unknown"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := baseName(tt.started, tt.host); got != tt.want {
				t.Errorf("baseName = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestMarkdown(t *testing.T) {
	stats := []Stat{stat("plain", "MPI_Comm_rank", 2), stat("ghost", "MPI_Comm_rank", 8.5)}
	suite := SuiteResult{
		Name: "intercept", About: "about it", Program: "intercept.c", Args: []string{"-r", "3"},
		Users: 2, Rounds: 1, Baseline: "plain", Budget: 5,
		Configs: []ConfigInfo{{Name: "plain", About: "MPICH alone"}, {Name: "ghost", About: "with Ghost"}},
		Runs: []Run{
			{Config: "plain", Meta: map[string]any{"mpi": "MPICH 4"}},
			{Config: "ghost"},
			{Config: "ghost", Round: 1, Error: "timed out\nafter 1s"},
		},
		Stats:  stats,
		Deltas: compare(stats, "plain", 5),
	}
	md := markdown(Report{Started: time.Date(2025, 1, 2, 3, 4, 0, 0, time.UTC), Env: Environment{Host: "vm"}, Suites: []SuiteResult{suite}})
	for _, want := range []string{
		"# Ghost benchmarks, 2025-01-02 03:04 UTC on vm\n",
		"## intercept\n\nabout it\n",
		"MPI: MPICH 4.",
		"- `ghost`: with Ghost\n",
		"| metric | config | median | min | max | n | added vs plain | ratio | budget +5.00 |\n",
		"| MPI_Comm_rank | plain | 2.00 | 2.00 | 2.00 | 1 | +0.00 | 1.00 |  |\n",
		"| MPI_Comm_rank | ghost | 8.50 | 8.50 | 8.50 | 1 | +6.50 | 4.25 | **OVER** |\n",
		"Units: ns.",
		"**FAILED** `ghost` round 1: timed out after 1s\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
}

func TestMarkdownWithoutBudgetOrBaseline(t *testing.T) {
	stats := []Stat{stat("ghost", "m", 3)}
	suite := SuiteResult{Name: "s", Baseline: "plain", Stats: stats, Deltas: compare(stats, "plain", 0)}
	md := markdown(Report{Smoke: true, Suites: []SuiteResult{suite}})
	for _, want := range []string{
		"(smoke run: too short to quote)",
		"| metric | config | median | min | max | n | added vs plain | ratio |\n|---|",
		"| m | ghost | 3.00 | 3.00 | 3.00 | 1 | n/a | n/a |\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
}

func TestShortAndRatioText(t *testing.T) {
	tests := []struct {
		v           float64
		short, frac string
	}{
		{0, "0", "0×"},
		{0.00408, "0.00408", "1/245"},
		{0.05, "0.05", "1/20"},
		{0.1, "0.1", "0.1×"},
		{1.034, "1.03", "1.03×"},
		{12.345, "12.35", "12.35×"},
		{123.45, "123.5", "123.5×"},
		{24480.2, "24480", "24480×"},
	}
	for _, tt := range tests {
		if got := short(tt.v); got != tt.short {
			t.Errorf("short(%v) = %q, want %q", tt.v, got, tt.short)
		}
		if got := ratioText(tt.v); got != tt.frac {
			t.Errorf("ratioText(%v) = %q, want %q", tt.v, got, tt.frac)
		}
	}
}

func TestWideTable(t *testing.T) {
	suite := SuiteResult{
		Name: "oplat", Baseline: "plain", Wide: true,
		Configs: []ConfigInfo{{Name: "plain"}, {Name: "ghost"}, {Name: "broken"}},
		Stats: []Stat{
			{Config: "plain", Metric: "PUT/8B", Unit: "us", Summary: Summary{N: 3, Median: 0.8}},
			{Config: "ghost", Metric: "PUT/8B", Unit: "us", Summary: Summary{N: 3, Median: 1}},
			{Config: "ghost", Metric: "GET/8B", Unit: "us", Summary: Summary{N: 3, Median: 2}},
		},
	}
	var b strings.Builder
	writeSuite(&b, suite)
	for _, want := range []string{
		"| metric | unit | plain | ghost | broken |\n|---|---|--:|--:|--:|\n",
		"| PUT/8B | us | 0.8 | 1 (1.25×) | — |\n",
		"| GET/8B | us | — | 2 | — |\n",
		"ratio to `plain`",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("wide table lacks %q:\n%s", want, b.String())
		}
	}
}

func TestWriteChecks(t *testing.T) {
	tests := []struct {
		name string
		runs []Run
		want string
	}{
		{"all correct", []Run{{Checked: true}, {Checked: true}, {Error: "timed out"}}, "Value checks: every value correct in all 2 completed runs.\n\n"},
		{"one wrong", []Run{{Checked: true}, {Config: "plain", Round: 2, Checked: true, WrongValues: 3}}, "**WRONG VALUES** `plain` round 2: 3 value(s) wrong\n\n"},
		{"nothing checked", []Run{{}, {}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			writeChecks(&b, tt.runs)
			if b.String() != tt.want {
				t.Errorf("writeChecks = %q, want %q", b.String(), tt.want)
			}
		})
	}
}
