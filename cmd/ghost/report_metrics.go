package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ghost-mpi/ghost/internal/metrics"
)

// isMetricsReport reports whether `ghost report` was given textfile records
// (GHOST_METRICS_TEXTFILE): directories and .prom files only. Anything else
// is a GHOST_TRACE file for reportCommand.
func isMetricsReport(args []string) bool {
	if len(args) == 0 {
		return false
	}
	for _, a := range args {
		if strings.HasSuffix(a, ".prom") {
			continue
		}
		if st, err := os.Stat(a); err != nil || !st.IsDir() {
			return false
		}
	}
	return true
}

// reportMetricsCommand runs reportMetrics and turns its error into an exit
// status.
func reportMetricsCommand(paths []string, stdout, stderr io.Writer) int {
	if err := reportMetrics(paths, stdout); err != nil {
		fmt.Fprintf(stderr, "ghost %v\n", err)
		return 1
	}
	return 0
}

// reportMetrics prints the per-node summary of the textfile records in
// paths: directories (every *.prom file in them) and .prom files.
func reportMetrics(paths []string, stdout io.Writer) error {
	var files []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return fmt.Errorf("report: %v", err)
		}
		if !st.IsDir() {
			files = append(files, p)
			continue
		}
		found, err := filepath.Glob(filepath.Join(p, "*.prom"))
		if err != nil {
			return fmt.Errorf("report: %v", err)
		}
		if len(found) == 0 {
			return fmt.Errorf("report: no .prom files in %s (written by GHOST_METRICS_TEXTFILE=%s)", p, p)
		}
		sort.Strings(found)
		files = append(files, found...)
	}
	recs, err := metrics.ReadTextfiles(files)
	if err != nil {
		return fmt.Errorf("report: %v", err)
	}
	return metrics.WriteTable(stdout, recs)
}
