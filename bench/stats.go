package main

import (
	"math"
	"slices"
)

// Summary condenses the repetitions of one (config, metric) pair. The median
// is the headline number: on a shared 2-core box a few repetitions are always
// preempted, and the median ignores them where the mean would not.
type Summary struct {
	N      int     `json:"n"`
	Min    float64 `json:"min"`
	Median float64 `json:"median"`
	Max    float64 `json:"max"`
}

// summarize returns the summary of values; every field is NaN-free and zero
// when values is empty.
func summarize(values []float64) Summary {
	if len(values) == 0 {
		return Summary{}
	}
	s := slices.Clone(values)
	slices.Sort(s)
	return Summary{N: len(s), Min: s[0], Median: median(s), Max: s[len(s)-1]}
}

// median of sorted, which must not be empty.
func median(sorted []float64) float64 {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

// Stat is the summary of one (config, metric) pair.
type Stat struct {
	Config string `json:"config"`
	Metric string `json:"metric"`
	Unit   string `json:"unit"`
	Summary
}

// statsOf groups samples by (config, metric) and summarizes each group. The
// order is that of first appearance, which keeps tables in the order the
// configurations ran and the program printed its metrics.
func statsOf(samples []Sample) []Stat {
	type key struct{ config, metric string }
	var order []key
	values := map[key][]float64{}
	units := map[key]string{}
	for _, s := range samples {
		k := key{s.Config, s.Metric}
		if _, seen := values[k]; !seen {
			order = append(order, k)
			units[k] = s.Unit
		}
		values[k] = append(values[k], s.Value)
	}
	stats := make([]Stat, 0, len(order))
	for _, k := range order {
		stats = append(stats, Stat{Config: k.config, Metric: k.metric, Unit: units[k], Summary: summarize(values[k])})
	}
	return stats
}

// Delta compares one configuration's median with the baseline's for the same
// metric.
type Delta struct {
	Config   string  `json:"config"`
	Metric   string  `json:"metric"`
	Unit     string  `json:"unit"`
	Median   float64 `json:"median"`
	Baseline float64 `json:"baseline_median"`
	Added    float64 `json:"added"`
	Ratio    float64 `json:"ratio"`
	// NoBaseline is set when the baseline has no samples of the metric
	// (its runs failed); Baseline, Added and Ratio are then 0.
	NoBaseline bool `json:"no_baseline,omitempty"`
	// Over is set when a budget applies and Added exceeds it.
	Over bool `json:"over_budget"`
}

// compare returns one Delta per stat, the baseline's own rows included
// (Added 0, Ratio 1), ordered by metric and then by configuration, both in
// order of first appearance: the rows a reader compares sit together.
// budget <= 0 means none.
func compare(stats []Stat, baseline string, budget float64) []Delta {
	base := map[string]float64{}
	var metrics []string
	byMetric := map[string][]Stat{}
	for _, s := range stats {
		if s.Config == baseline {
			base[s.Metric] = s.Median
		}
		if _, seen := byMetric[s.Metric]; !seen {
			metrics = append(metrics, s.Metric)
		}
		byMetric[s.Metric] = append(byMetric[s.Metric], s)
	}
	var out []Delta
	for _, m := range metrics {
		for _, s := range byMetric[m] {
			out = append(out, delta(s, base, budget))
		}
	}
	return out
}

func delta(s Stat, base map[string]float64, budget float64) Delta {
	d := Delta{Config: s.Config, Metric: s.Metric, Unit: s.Unit, Median: s.Median}
	b, ok := base[s.Metric]
	if !ok {
		d.NoBaseline = true
		return d
	}
	d.Baseline, d.Added, d.Ratio = b, s.Median-b, ratio(s.Median, b)
	d.Over = budget > 0 && d.Added > budget
	return d
}

// ratio is a/b, or NaN-free 0 when b is 0 (JSON cannot carry NaN or Inf).
func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	r := a / b
	if math.IsInf(r, 0) || math.IsNaN(r) {
		return 0
	}
	return r
}
