package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestDriverEndToEnd runs one suite's smoke version under real mpiexec, with
// plain MPICH, redirection off and redirection on, and checks that every
// output is written and every run succeeded with correct values. It needs
// `make` first (LIBGHOST_BUILD_DIR, as make test sets it, or ../build).
func TestDriverEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("MPI integration test")
	}
	build := os.Getenv("LIBGHOST_BUILD_DIR")
	if build == "" {
		build = "../build"
	}
	if _, err := os.Stat(filepath.Join(build, "libghost.so")); err != nil {
		t.Skipf("no libghost.so in %s: run make first", build)
	}
	out := t.TempDir()
	o := options{suites: "rma-intercept", configs: "plain,ghost-off,ghost-ng1-sleep", smoke: true, users: 2,
		timeout: 90 * time.Second, build: build, programs: "programs", out: out, mpicc: "mpicc", mpiexec: "mpiexec.hydra"}
	if err := run(o); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(out, "*"))
	var exts []string
	for _, f := range files {
		exts = append(exts, filepath.Ext(f))
	}
	if strings.Join(exts, " ") != ".json .md .png" {
		t.Fatalf("wrote %v, want one .json, .md and .png", files)
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	var r Report
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Suites) != 1 || len(r.Suites[0].Runs) != 3 {
		t.Fatalf("report has %d suites, want 1 with 3 runs", len(r.Suites))
	}
	for _, run := range r.Suites[0].Runs {
		if run.Error != "" || !run.Checked || run.WrongValues != 0 {
			t.Errorf("%s: error %q, checked %v, %d wrong values", run.Config, run.Error, run.Checked, run.WrongValues)
		}
	}
	for _, tr := range r.Targets {
		if tr.Suite == "rma-intercept" && tr.Verdict == verdictNoData && (tr.Config == "ghost-off" || tr.Config == "ghost-ng1-sleep") {
			t.Errorf("target %q has no data", tr.Goal)
		}
	}
}
