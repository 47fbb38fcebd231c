package metrics

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"
)

// TextfileName is the record of one node in a GHOST_METRICS_TEXTFILE
// directory.
func TextfileName(node int) string { return fmt.Sprintf("ghost_node%d.prom", node) }

// CheckTextfileDir says what is wrong with dir as GHOST_METRICS_TEXTFILE:
// it must be an existing directory this process may create files in.
func CheckTextfileDir(dir string) error {
	st, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("GHOST_METRICS_TEXTFILE=%q: %v (want an existing, writable directory)", dir, err)
	}
	if !st.IsDir() {
		return fmt.Errorf("GHOST_METRICS_TEXTFILE=%q is not a directory (want an existing, writable directory)", dir)
	}
	if err := syscall.Access(dir, 2|1); err != nil { // W_OK|X_OK
		return fmt.Errorf("GHOST_METRICS_TEXTFILE=%q: cannot create files there: %v", dir, err)
	}
	return nil
}

// WriteTextfile writes what g gathers to dir/ghost_node<N>.prom in the
// text format node_exporter's textfile collector reads. It writes a
// temporary file in dir and renames it, so a reader sees the old file or
// the complete new one, never a part; the temporary name does not end in
// .prom, which node_exporter ignores.
func WriteTextfile(dir string, node int, g prometheus.Gatherer) (string, error) {
	families, err := g.Gather()
	if err != nil {
		return "", fmt.Errorf("metrics textfile: %v", err)
	}
	final := filepath.Join(dir, TextfileName(node))
	tmp, err := os.CreateTemp(dir, "."+TextfileName(node)+".tmp*")
	if err != nil {
		return "", fmt.Errorf("metrics textfile: %v", err)
	}
	fail := func(err error) (string, error) {
		tmp.Close()
		os.Remove(tmp.Name())
		return "", fmt.Errorf("metrics textfile %s: %v", final, err)
	}
	for _, mf := range families {
		if _, err := expfmt.MetricFamilyToText(tmp, mf); err != nil {
			return fail(err)
		}
	}
	if err := tmp.Chmod(0o644); err != nil {
		return fail(err)
	}
	if err := tmp.Sync(); err != nil {
		return fail(err)
	}
	if err := tmp.Close(); err != nil {
		return fail(err)
	}
	if err := os.Rename(tmp.Name(), final); err != nil {
		os.Remove(tmp.Name())
		return "", fmt.Errorf("metrics textfile %s: %v", final, err)
	}
	return final, nil
}
