package metrics

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

func TestWriteTextfileReplacesAtomically(t *testing.T) {
	dir := t.TempDir()
	final := filepath.Join(dir, TextfileName(3))
	if err := os.WriteFile(final, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Hold the old file open: a reader that had it keeps the old content
	// whole, which is what a rename (and not a rewrite in place) gives.
	old, err := os.Open(final)
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()

	reg := prometheus.NewRegistry()
	reg.MustRegister(NewCollector(3, fixedSource(twoUsersOneGhost()), BuildInfo{}))
	path, err := WriteTextfile(dir, 3, reg)
	if err != nil {
		t.Fatal(err)
	}
	if path != final {
		t.Errorf("wrote %s, want %s", path, final)
	}
	buf := make([]byte, 16)
	n, _ := old.Read(buf)
	if string(buf[:n]) != "old\n" {
		t.Errorf("the old file changed under its reader: %q", buf[:n])
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("directory holds %v, want only %s (no temporary file left)", names, TextfileName(3))
	}
	st, _ := os.Stat(final)
	if st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644 (node_exporter runs as another user)", st.Mode().Perm())
	}
	f, _ := os.Open(final)
	defer f.Close()
	recs, err := ParseTextfile(f, final)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1 || recs[0].Node != "3" || recs[0].Ops["cas"] != [NPaths]float64{0, 6} || recs[0].Syncs["flush"] != 7 {
		t.Errorf("read back %+v", recs)
	}
	if len(recs) == 1 && (recs[0].SyncCalls["fence"] != 8 || recs[0].Internal["fence"] != [NInternal]float64{12, 1, 8} ||
		recs[0].Internal["flush_all"] != [NInternal]float64{}) {
		t.Errorf("sync calls %v, internal operations %v", recs[0].SyncCalls, recs[0].Internal)
	}
}

func TestWriteTextfileErrors(t *testing.T) {
	reg := prometheus.NewRegistry()
	reg.MustRegister(NewCollector(0, fixedSource(twoUsersOneGhost()), BuildInfo{}))
	if _, err := WriteTextfile(filepath.Join(t.TempDir(), "missing"), 0, reg); err == nil {
		t.Error("writing into a missing directory succeeded")
	}
}

func TestCheckTextfileDir(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	os.WriteFile(file, nil, 0o644)
	tests := []struct {
		name, dir, want string
	}{
		{"directory", dir, ""},
		{"missing", filepath.Join(dir, "nope"), "no such file"},
		{"a file", file, "not a directory"},
	}
	for _, tc := range tests {
		err := CheckTextfileDir(tc.dir)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v, want it to say %q", tc.name, err, tc.want)
		case err != nil && !strings.Contains(err.Error(), "GHOST_METRICS_TEXTFILE"):
			t.Errorf("%s: %v does not name the variable", tc.name, err)
		}
	}
}

func TestParseTextfileErrors(t *testing.T) {
	tests := []struct{ name, text, want string }{
		{"not metrics", "hello world\n", "f.prom"},
		{"no ghost metrics", "node_load1 0.5\n", "no Ghost metrics"},
		{"bad path", `ghost_rma_operations_total{node="0",op="put",path="elsewhere"} 1` + "\n", "unknown path"},
	}
	for _, tc := range tests {
		_, err := ParseTextfile(strings.NewReader(tc.text), "f.prom")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want it to say %q", tc.name, err, tc.want)
		}
	}
}
