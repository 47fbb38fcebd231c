package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Report is everything one driver run measured; it is written whole as JSON.
type Report struct {
	Started time.Time      `json:"started"`
	Seconds float64        `json:"seconds"`
	Smoke   bool           `json:"smoke"`
	Env     Environment    `json:"environment"`
	Targets []TargetResult `json:"targets"`
	Suites  []SuiteResult  `json:"suites"`
}

// SuiteResult holds one suite's raw samples and what was derived from them.
type SuiteResult struct {
	Name     string   `json:"name"`
	About    string   `json:"about"`
	Program  string   `json:"program"`
	Args     []string `json:"args"`
	Users    int      `json:"users"`
	Rounds   int      `json:"rounds"`
	Baseline string   `json:"baseline"`
	Budget   float64  `json:"budget,omitempty"`
	Wide     bool     `json:"-"`
	// LoadBefore is the load average when the suite started: on a shared
	// box it says how far to trust the suite's numbers.
	LoadBefore string       `json:"load_before"`
	Seconds    float64      `json:"seconds"`
	Configs    []ConfigInfo `json:"configs"`
	Runs       []Run        `json:"runs"`
	Stats      []Stat       `json:"stats"`
	Deltas     []Delta      `json:"deltas"`
	Samples    []Sample     `json:"samples"`
}

// ConfigInfo names a configuration in the report.
type ConfigInfo struct {
	Name     string   `json:"name"`
	About    string   `json:"about"`
	ProgArgs []string `json:"prog_args,omitempty"`
}

// failed reports whether any run of the suite failed.
func (s SuiteResult) failed() bool {
	for _, r := range s.Runs {
		if r.Error != "" {
			return true
		}
	}
	return false
}

// baseName is the results file name without extension: the UTC start time,
// to the second so that two runs on one day do not overwrite each other,
// and the host.
func baseName(started time.Time, host string) string {
	return started.UTC().Format("2006-01-02T150405Z") + "-" + safeName(host)
}

// safeName keeps a host name usable as a file name.
func safeName(s string) string {
	s = strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '.' {
			return r
		}
		return '_'
	}, s)
	if s == "" {
		return "unknown"
	}
	return s
}

// writeReport writes dir/<base>.json, dir/<base>.md and dir/<base>.png and
// returns their paths. Each file is written beside its final name and
// renamed into place, so a reader never sees half a result. The numbers
// come first: a plot that fails to render is reported, and costs only the
// PNG.
func writeReport(dir string, r Report, markdown string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	js, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, err
	}
	base := filepath.Join(dir, baseName(r.Started, r.Env.Host))
	var paths []string
	for _, f := range []struct {
		path string
		data []byte
	}{{base + ".json", append(js, '\n')}, {base + ".md", []byte(markdown)}} {
		if err := writeAtomic(f.path, f.data); err != nil {
			return paths, err
		}
		paths = append(paths, f.path)
	}
	png, err := renderPNG(r)
	if err != nil {
		return paths, fmt.Errorf("plots: %v", err)
	}
	if png == nil {
		return paths, nil
	}
	if err := writeAtomic(base+".png", png); err != nil {
		return paths, err
	}
	return append(paths, base+".png"), nil
}

func writeAtomic(path string, data []byte) error {
	if err := os.WriteFile(path+".tmp", data, 0o644); err != nil {
		return err
	}
	return os.Rename(path+".tmp", path)
}

// markdown renders the report for people: the environment, then per suite
// the configurations, a table of medians against the baseline, and every
// failed run. Failures are printed, never dropped.
func markdown(r Report) string {
	var b strings.Builder
	mode := ""
	if r.Smoke {
		mode = " (smoke run: too short to quote)"
	}
	fmt.Fprintf(&b, "# Ghost benchmarks, %s on %s%s\n\n", r.Started.UTC().Format("2006-01-02 15:04 UTC"), r.Env.Host, mode)
	writeEnvironment(&b, r.Env)
	if r.Seconds > 0 {
		fmt.Fprintf(&b, "Whole run: %.0f s.\n\n", r.Seconds)
	}
	writeTargets(&b, r.Targets)
	for _, s := range r.Suites {
		writeSuite(&b, s)
	}
	return b.String()
}

func writeEnvironment(b *strings.Builder, e Environment) {
	fmt.Fprintf(b, "- machine: %d CPUs, %s; Linux %s\n", e.NumCPU, orUnknown(e.CPU), orUnknown(e.Kernel))
	fmt.Fprintf(b, "- load average (1, 5, 15 min): %s before, %s after\n", orUnknown(e.LoadBefore), orUnknown(e.LoadAfter))
	fmt.Fprintf(b, "- tree: %s; %s\n", orUnknown(e.Git), e.Go)
	for _, k := range sortedKeys(e.Vars) {
		fmt.Fprintf(b, "- env: `%s=%s`\n", k, e.Vars[k])
	}
	b.WriteString("\n")
}

func writeSuite(b *strings.Builder, s SuiteResult) {
	fmt.Fprintf(b, "## %s\n\n%s\n\n", s.Name, s.About)
	fmt.Fprintf(b, "%d user ranks in every configuration; %d round(s), configurations interleaved; `%s %s`.\n",
		s.Users, s.Rounds, s.Program, strings.Join(s.Args, " "))
	if s.LoadBefore != "" {
		fmt.Fprintf(b, "Load average at the start: %s; the suite took %.0f s.\n", s.LoadBefore, s.Seconds)
	}
	if mpi := mpiVersion(s.Runs); mpi != "" {
		fmt.Fprintf(b, "MPI: %s.\n", mpi)
	}
	b.WriteString("\n")
	for _, c := range s.Configs {
		fmt.Fprintf(b, "- `%s`: %s\n", c.Name, c.About)
	}
	b.WriteString("\n")
	if def, ok := suiteByName(s.Name); ok && def.Section != nil {
		def.Section(b, s)
	} else if s.Wide {
		writeWideTable(b, s)
	} else {
		writeTable(b, s)
	}
	writeChecks(b, s.Runs)
	writeFailures(b, s.Runs)
}

func writeTable(b *strings.Builder, s SuiteResult) {
	stat := map[[2]string]Stat{}
	for _, st := range s.Stats {
		stat[[2]string{st.Config, st.Metric}] = st
	}
	budget := ""
	if s.Budget > 0 {
		budget = fmt.Sprintf(" budget +%s |", num(s.Budget))
	}
	fmt.Fprintf(b, "| metric | config | median | min | max | n | added vs %s | ratio |%s\n", s.Baseline, budget)
	b.WriteString("|---|---|--:|--:|--:|--:|--:|--:|" + strings.Repeat("---|", boolInt(s.Budget > 0)) + "\n")
	for _, d := range s.Deltas {
		st := stat[[2]string{d.Config, d.Metric}]
		added, ratio := signed(d.Added), fmt.Sprintf("%.2f", d.Ratio)
		if d.NoBaseline {
			added, ratio = "n/a", "n/a"
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %d | %s | %s |", d.Metric, d.Config,
			num(st.Median), num(st.Min), num(st.Max), st.N, added, ratio)
		if s.Budget > 0 {
			b.WriteString(" " + verdict(d, s.Baseline) + " |")
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(b, "\nUnits: %s. Added and ratio compare medians.\n\n", strings.Join(units(s.Stats), ", "))
}

// verdict is the budget column of one row.
func verdict(d Delta, baseline string) string {
	switch {
	case d.Config == baseline, d.NoBaseline:
		return ""
	case d.Over:
		return "**OVER**"
	}
	return "ok"
}

func writeFailures(b *strings.Builder, runs []Run) {
	notRun := map[string]bool{}
	for _, r := range runs {
		switch {
		case r.Error != "":
			fmt.Fprintf(b, "**FAILED** `%s` round %d: %s\n\n", r.Config, r.Round, oneLine(r.Error))
		case r.NotRun != "":
			// Once per configuration and reason, not per round.
			line := fmt.Sprintf("Not run: `%s`%s: %s\n\n", r.Config, workloadOf(r), oneLine(r.NotRun))
			if !notRun[line] {
				notRun[line] = true
				b.WriteString(line)
			}
		}
	}
}

// workloadOf names a run's workload (" on NAME"), "" outside the apps
// suite.
func workloadOf(r Run) string {
	if w, ok := r.Meta["workload"].(string); ok {
		return " on " + w
	}
	return ""
}

// mpiVersion is the library the first successful run reported.
func mpiVersion(runs []Run) string {
	for _, r := range runs {
		if v, ok := r.Meta["mpi"].(string); ok && v != "" {
			return v
		}
	}
	return ""
}

func units(stats []Stat) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range stats {
		if !seen[s.Unit] {
			seen[s.Unit] = true
			out = append(out, s.Unit)
		}
	}
	return out
}

// num prints a measurement with two decimals: sub-ns differences matter
// when the budget is a few ns.
func num(v float64) string { return fmt.Sprintf("%.2f", v) }

func signed(v float64) string { return fmt.Sprintf("%+.2f", v) }

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// writeTargets is the table of the targets, met or missed.
func writeTargets(b *strings.Builder, ts []TargetResult) {
	if len(ts) == 0 {
		return
	}
	b.WriteString("## Targets\n\nRatios of medians from this run, judged against the limit; info rows have " +
		"no limit. The ratio of the fastest samples (min) is beside them, judged too: on a shared machine " +
		"it is the better estimate of what each path costs when nothing else runs. \"best of\" compares " +
		"with the lowest of several configurations (for medians, the one named; for mins, the lowest min).\n\n")
	b.WriteString("| goal | suite | config / versus | value | versus | ratio | ratio of mins | limit | verdict | verdict of mins |\n")
	b.WriteString("|---|---|---|--:|--:|--:|--:|---|---|---|\n")
	for _, t := range ts {
		versus := t.Versus
		if len(t.OrVersus) > 0 {
			versus = "best of " + strings.Join(append([]string{t.Versus}, t.OrVersus...), ", ")
			if t.Best != "" {
				versus += ": " + t.Best
			}
		}
		if t.VersusMetric != "" && t.VersusMetric != t.Metric {
			versus += " " + t.VersusMetric
		}
		value, against, ratio, minRatio := "", "", "", ""
		if t.Verdict != verdictNoData {
			value, against = num(t.Value), num(t.Against)
			ratio, minRatio = fmt.Sprintf("%.3f", t.Ratio), fmt.Sprintf("%.3f", t.MinRatio)
		}
		fmt.Fprintf(b, "| %s | %s | %s `%s` / %s | %s | %s | %s | %s | %s | %s | %s |\n", t.Goal, t.Suite, t.Config,
			t.Metric, versus, value, against, ratio, minRatio, limitText(t.Target), verdictText(t.Verdict),
			verdictText(t.MinVerdict))
	}
	b.WriteString("\n")
}

// verdictText stresses misses; reports from before min verdicts have none.
func verdictText(v string) string {
	if v == verdictMissed {
		return "**missed**"
	}
	return v
}

// writeWideTable has one row per metric and one column per configuration:
// the median, and its ratio to the baseline's median.
func writeWideTable(b *strings.Builder, s SuiteResult) {
	stat := map[[2]string]Stat{}
	var metrics []string
	unit := map[string]string{}
	for _, st := range s.Stats {
		if _, seen := unit[st.Metric]; !seen {
			metrics = append(metrics, st.Metric)
			unit[st.Metric] = st.Unit
		}
		stat[[2]string{st.Config, st.Metric}] = st
	}
	b.WriteString("| metric | unit |")
	for _, c := range s.Configs {
		fmt.Fprintf(b, " %s |", c.Name)
	}
	b.WriteString("\n|---|---|" + strings.Repeat("--:|", len(s.Configs)) + "\n")
	for _, m := range metrics {
		fmt.Fprintf(b, "| %s | %s |", m, unit[m])
		base, hasBase := stat[[2]string{s.Baseline, m}]
		for _, c := range s.Configs {
			st, ok := stat[[2]string{c.Name, m}]
			fmt.Fprintf(b, " %s |", wideCell(st, ok, base, hasBase && c.Name != s.Baseline))
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(b, "\nMedians over every sample; in parentheses, the ratio to `%s`. Min, max and raw samples are in the JSON.\n\n", s.Baseline)
}

func wideCell(st Stat, ok bool, base Stat, compare bool) string {
	if !ok || st.N == 0 {
		return "—"
	}
	cell := short(st.Median)
	if compare && base.N > 0 && base.Median != 0 {
		cell += " (" + ratioText(st.Median/base.Median) + ")"
	}
	return cell
}

// ratioText writes a ratio as a factor, or as a fraction when it is small:
// 0.0041 reads better as 1/244.
func ratioText(r float64) string {
	if r > 0 && r < 0.1 {
		return fmt.Sprintf("1/%.0f", 1/r)
	}
	return short(r) + "×"
}

// short prints a value with three significant digits, the precision a
// median on a shared machine deserves, without exponents for usual sizes.
func short(v float64) string {
	a := math.Abs(v)
	switch {
	case a == 0:
		return "0"
	case a >= 1000:
		return fmt.Sprintf("%.0f", v)
	case a >= 100:
		return fmt.Sprintf("%.1f", v)
	case a >= 10:
		return fmt.Sprintf("%.2f", v)
	}
	return fmt.Sprintf("%.3g", v)
}

// writeChecks says whether the programs found every value they moved where
// it belonged, run by run for the wrong ones.
func writeChecks(b *strings.Builder, runs []Run) {
	checked, wrong := 0, 0
	for _, r := range runs {
		if r.Error != "" || !r.Checked {
			continue
		}
		checked++
		if r.WrongValues > 0 {
			wrong++
			fmt.Fprintf(b, "**WRONG VALUES** `%s` round %d: %d value(s) wrong\n\n", r.Config, r.Round, r.WrongValues)
		}
	}
	if checked > 0 && wrong == 0 {
		fmt.Fprintf(b, "Value checks: every value correct in all %d completed runs.\n\n", checked)
	}
}
