package main

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// The multiphase suite runs programs/multiphase.c, the adaptive Casper
// paper's eight phases, under every way Ghost can choose a phase's
// redirection state. The program prints text, not the JSON lines of the
// other programs:
//
//	ranks 2
//	phase 0 COMP 0.1075 OFF
//	...
//	total 0.4927 correct
//
// parsePhases turns it into samples ("0 COMP" ... "7 COMM" and "total", in
// seconds, the slowest rank's) and a meta line whose "states" holds the
// phases' final states in order ("ON ON OFF ..."), from which the report
// builds the paper's Table 4.

const totalMetric = "total"

// parsePhases reads multiphase's stdout. Like parseOutput, it rejects any
// line it does not know, and phases must come in order, before the total.
func parsePhases(r io.Reader) (programOutput, error) {
	out := programOutput{Meta: map[string]any{}}
	var states []string
	done := false
	sc := bufio.NewScanner(r)
	for line := 1; sc.Scan(); line++ {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		var err error
		switch {
		case done:
			err = fmt.Errorf("output after the total")
		case f[0] == "ranks" && len(f) == 2:
			var n int
			n, err = strconv.Atoi(f[1])
			out.Meta["world_size"] = float64(n)
		case f[0] == "phase" && len(f) == 5:
			var s Sample
			s, err = parsePhase(f, len(states))
			out.Samples = append(out.Samples, s)
			states = append(states, f[4])
		case f[0] == "total" && len(f) == 3:
			var v float64
			v, err = seconds(f[1])
			out.Samples = append(out.Samples, Sample{Metric: totalMetric, Unit: "s", Rank: -1, Value: v})
			switch f[2] {
			case "correct":
				out.Meta["wrong_values"] = float64(0)
			case "WRONG":
				out.Meta["wrong_values"] = float64(1)
			default:
				err = fmt.Errorf("check %q is neither correct nor WRONG", f[2])
			}
			done = true
		default:
			err = fmt.Errorf("unknown line")
		}
		if err != nil {
			return out, fmt.Errorf("line %d: %v: %.120s", line, err, sc.Text())
		}
	}
	if err := sc.Err(); err != nil {
		return out, err
	}
	switch {
	case out.Meta["world_size"] == nil:
		return out, fmt.Errorf("no ranks line")
	case len(states) == 0:
		return out, fmt.Errorf("no phases")
	case !done:
		return out, fmt.Errorf("no total line")
	}
	out.Meta["states"] = strings.Join(states, " ")
	return out, nil
}

// parsePhase reads "phase I KIND SECONDS STATE", which must be phase want.
func parsePhase(f []string, want int) (Sample, error) {
	i, err := strconv.Atoi(f[1])
	switch {
	case err != nil:
		return Sample{}, err
	case i != want:
		return Sample{}, fmt.Errorf("phase %d where phase %d was due", i, want)
	case f[2] != "COMP" && f[2] != "COMM":
		return Sample{}, fmt.Errorf("phase kind %q is neither COMP nor COMM", f[2])
	case f[4] != "ON" && f[4] != "OFF":
		return Sample{}, fmt.Errorf("state %q is neither ON nor OFF", f[4])
	}
	v, err := seconds(f[3])
	return Sample{Metric: f[1] + " " + f[2], Unit: "s", Rank: -1, Value: v}, err
}

func seconds(s string) (float64, error) {
	v, err := strconv.ParseFloat(s, 64)
	if err == nil && !(v >= 0) {
		err = fmt.Errorf("negative time %q", s)
	}
	return v, err
}

// phaseStates collects, per configuration and phase, the states that the
// completed runs reported.
func phaseStates(runs []Run) map[string][][]string {
	out := map[string][][]string{}
	for _, r := range runs {
		list, ok := r.Meta["states"].(string)
		if r.Error != "" || !ok {
			continue
		}
		for i, st := range strings.Fields(list) {
			for len(out[r.Config]) <= i {
				out[r.Config] = append(out[r.Config], nil)
			}
			out[r.Config][i] = append(out[r.Config][i], st)
		}
	}
	return out
}

// stateCell is a phase's majority state over the rounds: "ON" when every
// round agreed, "ON 3/5" when a majority did, "ON/OFF" on a tie, and "—"
// without data.
func stateCell(states []string) string {
	on := 0
	for _, s := range states {
		if s == "ON" {
			on++
		}
	}
	n := len(states)
	switch {
	case n == 0:
		return "—"
	case on == n:
		return "ON"
	case on == 0:
		return "OFF"
	case 2*on == n:
		return "ON/OFF"
	case 2*on > n:
		return fmt.Sprintf("ON %d/%d", on, n)
	}
	return fmt.Sprintf("OFF %d/%d", n-on, n)
}

// writeMultiphase is the suite's section in the markdown: the paper's
// Table 4 (state per phase and configuration), then the median time of
// every phase and of the whole run.
func writeMultiphase(b *strings.Builder, s SuiteResult) {
	phases := metricsOf(s, "s", func(m string) bool { return m != totalMetric })
	states := phaseStates(s.Runs)
	head := "| config |"
	for _, p := range phases {
		head += " " + p + " |"
	}
	rule := "|---|" + strings.Repeat("---|", len(phases))

	b.WriteString("Redirection state at the end of each phase, majority over the rounds (the adaptive " +
		"Casper paper's Table 4); `ON 3/5`: three rounds of five ended the phase ON.\n\n")
	b.WriteString(head + "\n" + rule + "\n")
	for _, c := range s.Configs {
		fmt.Fprintf(b, "| %s |", c.Name)
		for i := range phases {
			var st []string
			if i < len(states[c.Name]) {
				st = states[c.Name][i]
			}
			fmt.Fprintf(b, " %s |", stateCell(st))
		}
		b.WriteString("\n")
	}

	stat := map[[2]string]Stat{}
	for _, st := range s.Stats {
		stat[[2]string{st.Config, st.Metric}] = st
	}
	b.WriteString("\nMedian time per phase and in total, ms (slowest rank); the fastest total and the " +
		"number of completed runs beside them.\n\n")
	b.WriteString(head + " total | fastest total | runs |\n" + rule + "--:|--:|--:|\n")
	for _, c := range s.Configs {
		fmt.Fprintf(b, "| %s |", c.Name)
		for _, p := range phases {
			fmt.Fprintf(b, " %s |", msCell(stat[[2]string{c.Name, p}]))
		}
		total := stat[[2]string{c.Name, totalMetric}]
		minimum := "—"
		if total.N > 0 {
			minimum = fmt.Sprintf("%.1f", total.Min*1000)
		}
		fmt.Fprintf(b, " %s | %s | %d |\n", msCell(total), minimum, total.N)
	}
	b.WriteString("\n")
}

func msCell(st Stat) string {
	if st.N == 0 {
		return "—"
	}
	return fmt.Sprintf("%.1f", st.Median*1000)
}
