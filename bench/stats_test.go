package main

import (
	"reflect"
	"testing"
)

func TestSummarize(t *testing.T) {
	tests := []struct {
		name   string
		values []float64
		want   Summary
	}{
		{"empty", nil, Summary{}},
		{"one", []float64{3}, Summary{N: 1, Min: 3, Median: 3, Max: 3}},
		{"odd count, unsorted", []float64{5, 1, 3}, Summary{N: 3, Min: 1, Median: 3, Max: 5}},
		{"even count averages the middle two", []float64{4, 1, 2, 3}, Summary{N: 4, Min: 1, Median: 2.5, Max: 4}},
		{"one preempted repetition does not move the median", []float64{2, 2.25, 2.75, 900}, Summary{N: 4, Min: 2, Median: 2.5, Max: 900}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := summarize(tt.values); got != tt.want {
				t.Errorf("summarize(%v) = %+v, want %+v", tt.values, got, tt.want)
			}
		})
	}
}

func TestSummarizeKeepsInput(t *testing.T) {
	in := []float64{3, 1, 2}
	summarize(in)
	if !reflect.DeepEqual(in, []float64{3, 1, 2}) {
		t.Errorf("summarize sorted its argument: %v", in)
	}
}

func TestStatsOf(t *testing.T) {
	samples := []Sample{
		{Config: "plain", Metric: "a", Unit: "ns", Value: 1},
		{Config: "plain", Metric: "b", Unit: "ns", Value: 10},
		{Config: "plain", Metric: "a", Unit: "ns", Value: 3},
		{Config: "g", Metric: "a", Unit: "ns", Value: 5},
	}
	want := []Stat{
		{Config: "plain", Metric: "a", Unit: "ns", Summary: Summary{N: 2, Min: 1, Median: 2, Max: 3}},
		{Config: "plain", Metric: "b", Unit: "ns", Summary: Summary{N: 1, Min: 10, Median: 10, Max: 10}},
		{Config: "g", Metric: "a", Unit: "ns", Summary: Summary{N: 1, Min: 5, Median: 5, Max: 5}},
	}
	if got := statsOf(samples); !reflect.DeepEqual(got, want) {
		t.Errorf("statsOf:\n got %+v\nwant %+v", got, want)
	}
}

func stat(config, metric string, median float64) Stat {
	return Stat{Config: config, Metric: metric, Unit: "ns", Summary: Summary{N: 1, Min: median, Median: median, Max: median}}
}

func TestCompare(t *testing.T) {
	tests := []struct {
		name   string
		stats  []Stat
		budget float64
		want   []Delta
	}{
		{
			name:   "rows grouped by metric, baseline first",
			stats:  []Stat{stat("plain", "a", 2), stat("plain", "b", 10), stat("g", "a", 3), stat("g", "b", 10)},
			budget: 5,
			want: []Delta{
				{Config: "plain", Metric: "a", Unit: "ns", Median: 2, Baseline: 2, Added: 0, Ratio: 1},
				{Config: "g", Metric: "a", Unit: "ns", Median: 3, Baseline: 2, Added: 1, Ratio: 1.5},
				{Config: "plain", Metric: "b", Unit: "ns", Median: 10, Baseline: 10, Added: 0, Ratio: 1},
				{Config: "g", Metric: "b", Unit: "ns", Median: 10, Baseline: 10, Added: 0, Ratio: 1},
			},
		},
		{
			name:   "over budget is flagged, exactly at budget is not",
			stats:  []Stat{stat("plain", "a", 2), stat("g", "a", 7), stat("h", "a", 7.5)},
			budget: 5,
			want: []Delta{
				{Config: "plain", Metric: "a", Unit: "ns", Median: 2, Baseline: 2, Ratio: 1},
				{Config: "g", Metric: "a", Unit: "ns", Median: 7, Baseline: 2, Added: 5, Ratio: 3.5},
				{Config: "h", Metric: "a", Unit: "ns", Median: 7.5, Baseline: 2, Added: 5.5, Ratio: 3.75, Over: true},
			},
		},
		{
			name:  "no budget flags nothing",
			stats: []Stat{stat("plain", "a", 2), stat("g", "a", 700)},
			want: []Delta{
				{Config: "plain", Metric: "a", Unit: "ns", Median: 2, Baseline: 2, Ratio: 1},
				{Config: "g", Metric: "a", Unit: "ns", Median: 700, Baseline: 2, Added: 698, Ratio: 350},
			},
		},
		{
			name:   "baseline failed: rows stay, marked",
			stats:  []Stat{stat("g", "a", 3)},
			budget: 5,
			want:   []Delta{{Config: "g", Metric: "a", Unit: "ns", Median: 3, NoBaseline: true}},
		},
		{
			name:  "zero baseline gives ratio 0, not Inf",
			stats: []Stat{stat("plain", "a", 0), stat("g", "a", 1)},
			want: []Delta{
				{Config: "plain", Metric: "a", Unit: "ns"},
				{Config: "g", Metric: "a", Unit: "ns", Median: 1, Added: 1},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := compare(tt.stats, "plain", tt.budget)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("compare:\n got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}
