package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

	"github.com/ghost-mpi/ghost/internal/metrics"
)

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
