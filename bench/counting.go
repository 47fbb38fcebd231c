package main

import (
	"fmt"
	"strings"
)

// countingBudget is issue 7's bound on what per-operation counting may
// cost, in ns per RMA operation.
const countingBudget = 2.0

// countingSuite measures the inline counting of c/counters.h in a C micro
// loop (bench/programs/counting.c says why it cannot be switched off in the
// library to compare): per repetition, the loop with counting minus the
// same loop without, interleaved so that load hits both alike.
func countingSuite() Suite {
	return Suite{
		Name:    "counting",
		Program: "counting.c",
		About: "ns per RMA operation that Ghost's counting adds (c/counters.h compiled into a C micro loop, " +
			"with and without ghost_count_op, interleaved): count/plain is what every process pays, and " +
			"every thread of an MPI_THREAD_MULTIPLE process up to the seventh (each counts into a slot of " +
			"its own); count/shared what threads beyond pay in the shared overflow slot (atomics); " +
			"loop/off is the loop alone.",
		Args:    fixed([]string{"-t", "2000", "-r", "100"}, []string{"-t", "500", "-r", "10"}),
		Configs: []string{"plain"},
		Rounds:  3,
		Section: writeCounting,
	}
}

// writeCounting prints the medians and judges count/plain (the default
// path) against the budget; count/shared is reported beside it.
func writeCounting(b *strings.Builder, s SuiteResult) {
	fmt.Fprintf(b, "Counting cost per operation, ns (median, min and max over %d rounds × repetitions); "+
		"budget %.0f ns for the default path.\n\n", s.Rounds, countingBudget)
	b.WriteString("| metric | median | min | max | n | verdict |\n|---|--:|--:|--:|--:|---|\n")
	for _, st := range s.Stats {
		verdict := verdictInfo
		if st.Metric == "count/plain" {
			verdict = verdictMissed
			if st.N > 0 && st.Median <= countingBudget {
				verdict = verdictMet
			}
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %d | %s |\n", st.Metric, num(st.Median), num(st.Min), num(st.Max), st.N, verdict)
	}
	b.WriteString("\n")
}
