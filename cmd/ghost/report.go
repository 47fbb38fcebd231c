package main

import (
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/ghost-mpi/ghost/profile"
)

const reportUsage = `usage: ghost report [--plot FILE.png] TRACE
       ghost report DIR|FILE.prom...

Prints the timeline of a GHOST_TRACE file: a summary per rank, then, per
window, its phases (stretches of one agreed redirection state) with their
times, mean communication ratio, votes and operations. --plot also draws it:
CR of every rank over time above the agreed state of every window.

Given directories or .prom files (GHOST_METRICS_TEXTFILE records), it prints
a summary table per node instead (docs/metrics.md).
`

// reportOptions are the flags of `ghost report`.
type reportOptions struct {
	plot  string
	paths []string
}

func parseReportArgs(args []string, stderr io.Writer) (reportOptions, error) {
	var o reportOptions
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, reportUsage) }
	fs.StringVar(&o.plot, "plot", "", "also write the timeline as a PNG to this file")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	o.paths = fs.Args()
	if len(o.paths) == 0 {
		fs.Usage()
		return o, fmt.Errorf("report: no trace file given")
	}
	if len(o.paths) > 1 && o.plot != "" {
		return o, fmt.Errorf("report: --plot takes one trace file, got %d", len(o.paths))
	}
	return o, nil
}

func reportCommand(args []string, stdout, stderr io.Writer) int {
	o, err := parseReportArgs(args, stderr)
	if err == flag.ErrHelp {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "ghost: %v\n", err)
		return 2
	}
	for _, path := range o.paths {
		records, err := profile.ReadFile(path)
		if err != nil {
			fmt.Fprintf(stderr, "ghost report: %v\n", err)
			return 1
		}
		writeTraceReport(stdout, path, records)
		if o.plot != "" {
			if err := plotTrace(records, path, o.plot); err != nil {
				fmt.Fprintf(stderr, "ghost report: %v\n", err)
				return 1
			}
			fmt.Fprintf(stdout, "\nplot written to %s\n", o.plot)
		}
	}
	return 0
}

// writeTraceReport prints the per-rank summary and the per-window phases.
func writeTraceReport(w io.Writer, path string, records []profile.Record) {
	ranks := profile.Ranks(records)
	timelines := profile.Timelines(records)
	span, start := 0.0, profile.Start(records)
	for _, r := range records {
		span = max(span, r.Time-start)
	}
	fmt.Fprintf(w, "trace %s: %d rank(s), %d interval record(s) over %.2f s, %d window(s)\n",
		path, len(ranks), len(records), span, len(timelines))
	if len(records) == 0 {
		return
	}

	fmt.Fprintln(w, "\nper rank")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "rank\tintervals\tseconds\twait s\tof it stalled s\tCR\tvotes on\tops ghost\tops direct\t")
	for _, s := range ranks {
		fmt.Fprintf(tw, "%d\t%d\t%.2f\t%.2f\t%.2f\t%.3f\t%d/%d\t%d\t%d\t\n",
			s.Rank, s.Intervals, s.Seconds, s.Wait, s.Stall, s.CR(), s.VotesOn, s.Intervals, s.OpsGhost, s.OpsDirect)
	}
	tw.Flush()

	for _, tl := range timelines {
		fmt.Fprintf(w, "\nwindow %d: %s\n", tl.Window, stateSequence(tl.Phases))
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "phase\tfrom s\tto s\tstate\trecords\tmean CR\tvotes on\tops ghost\tops direct\t")
		for i, p := range tl.Phases {
			fmt.Fprintf(tw, "%d\t%.2f\t%.2f\t%s\t%d\t%.3f\t%d/%d\t%d\t%d\t\n",
				i, p.Start, p.End, strings.ToUpper(string(p.State)), p.Records, p.MeanCR,
				p.VotesOn, p.Records, p.OpsGhost, p.OpsDirect)
		}
		tw.Flush()
	}
	fmt.Fprintln(w, "\nops are all of a rank's operations in the phase's intervals, over every window it had.")
	writeSwitches(w, profile.Switches(records))
}

// writeSwitches lists every agreed change of a window's state and where it
// happened, then how many happened at each kind of point.
func writeSwitches(w io.Writer, events []profile.SwitchEvent) {
	if len(events) == 0 {
		fmt.Fprintln(w, "\nswitches: none recorded")
		return
	}
	fmt.Fprintln(w, "\nswitches")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "window\tat s\tto\tpoint\tranks\t")
	perPoint := map[profile.Point]int{}
	for _, e := range events {
		fmt.Fprintf(tw, "%d\t%.2f\t%s\t%s\t%d\t\n", e.Window, e.First, strings.ToUpper(string(e.To)), e.Point, e.Ranks)
		perPoint[e.Point]++
	}
	tw.Flush()
	var parts []string
	for _, p := range profile.Points {
		if perPoint[p] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", p, perPoint[p]))
		}
	}
	fmt.Fprintf(w, "switches by point: %s\n", strings.Join(parts, ", "))
}

// stateSequence abbreviates a window's phases: "ON → OFF → ON".
func stateSequence(phases []profile.Phase) string {
	var parts []string
	for _, p := range phases {
		parts = append(parts, strings.ToUpper(string(p.State)))
	}
	return strings.Join(parts, " → ")
}

// rankOrder lists the ranks of the records in order.
func rankOrder(records []profile.Record) []int {
	seen := map[int]bool{}
	var out []int
	for _, r := range records {
		if !seen[r.Rank] {
			seen[r.Rank] = true
			out = append(out, r.Rank)
		}
	}
	sort.Ints(out)
	return out
}
