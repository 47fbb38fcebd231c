package test

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ghost-mpi/ghost/internal/mpiprog"
)

// doctorDoc is the part of `ghost doctor --json` this test reads
// (docs/doctor.md documents every field).
type doctorDoc struct {
	MPI struct {
		Vendor, Version, ABI string
		Libghost             struct{ Matches bool }
	}
	Progress struct {
		Ran    bool
		Native *bool `json:"native_async_progress"`
		Ghost  *struct {
			AsyncProgress bool    `json:"async_progress"`
			OpSeconds     float64 `json:"op_seconds"`
		}
	}
	Layout struct {
		Processes, Cores int
		Oversubscribed   bool
	}
	RDMA struct {
		Devices []json.RawMessage
		Note    string
	}
	HWBypass struct {
		Bypass bool
		Reason string
	} `json:"hw_bypass"`
	Warnings, Errors []string
}

// TestDoctor runs `ghost doctor --json -n 2 -g 1` on this machine: MPICH
// 4.0.2 (ch4:ucx), no RDMA device, 3 processes on 2 cores.
func TestDoctor(t *testing.T) {
	needMPI(t)
	r := execute(t, job{timeout: 60 * time.Second}, filepath.Join(buildDir, "ghost"), "doctor", "--json", "-n", "2", "-g", "1")
	var doc doctorDoc
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("doctor --json printed no JSON document: %v\n%s", err, r)
	}
	if r.code != 0 || len(doc.Errors) > 0 {
		t.Errorf("doctor found errors (exit %d): %q", r.code, doc.Errors)
	}
	if doc.MPI.Vendor != "MPICH" || doc.MPI.Version != "4.0.2" || doc.MPI.ABI != "MPICH" || !doc.MPI.Libghost.Matches {
		t.Errorf("MPI section: %+v, want MPICH 4.0.2 and a matching libghost.so", doc.MPI)
	}
	if len(doc.RDMA.Devices) != 0 || doc.HWBypass.Bypass || !strings.Contains(doc.HWBypass.Reason, "no RDMA device") {
		t.Errorf("RDMA: devices %s, bypass %v (%s); want no RDMA device and no bypass", doc.RDMA.Devices, doc.HWBypass.Bypass, doc.HWBypass.Reason)
	}
	// The acceptance machine has 2 cores; elsewhere the warning must
	// follow the core count.
	oversubscribed := doc.Layout.Processes > runtime.NumCPU()
	if doc.Layout.Processes != 3 || doc.Layout.Cores != runtime.NumCPU() || doc.Layout.Oversubscribed != oversubscribed {
		t.Errorf("layout %+v: want 3 processes on %d cores", doc.Layout, runtime.NumCPU())
	}
	warned := false
	for _, w := range doc.Warnings {
		warned = warned || strings.HasPrefix(w, "oversubscribed: 3 processes (2 users + 1 ghost) on")
	}
	if warned != oversubscribed {
		t.Errorf("oversubscription warning %v with %d cores: %q", warned, runtime.NumCPU(), doc.Warnings)
	}
	if !doc.Progress.Ran || doc.Progress.Native == nil || *doc.Progress.Native {
		t.Errorf("progress probe: ran %v, native %v; want no native asynchronous progress in plain MPICH 4.0.2", doc.Progress.Ran, doc.Progress.Native)
	}
	if g := doc.Progress.Ghost; g == nil || !g.AsyncProgress {
		t.Errorf("progress probe under Ghost: %+v; want the accumulate done while the target computes", g)
	}
}

// TestHWBypassTakesDirectPath shows that GHOST_HW_BYPASS=on really sends a
// contiguous PUT of a lock_all epoch straight to the target: this machine
// has no NIC to complete it, so it waits for the target to call MPI again,
// while with the default (no device: no bypass) the ghost completes it
// during the computation. The probe is ghost doctor's own program.
func TestHWBypassTakesDirectPath(t *testing.T) {
	needMPI(t)
	if m, _ := filepath.Glob("/sys/class/infiniband/*"); len(m) > 0 {
		t.Skip("this machine has RDMA devices: a bypassed PUT may complete without the target")
	}
	if _, err := exec.LookPath("mpicc"); err != nil {
		t.Skip("no mpicc")
	}
	bin, err := mpiprog.Build("mpicc", "../cmd/ghost/probes/async.c", progDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		env    string
		during bool
	}{
		{"GHOST_HW_BYPASS=auto", true},
		{"GHOST_HW_BYPASS=on", false},
	} {
		// The bypass concerns the ghost path, which a one-node window takes
		// only with the node-local path off.
		r := ghostRun(t, job{users: 2, ghosts: 1, env: []string{tc.env, "GHOST_NODE_LOCAL=off"}, args: []string{bin, "put-lockall", "0.5"}})
		if r.code != 0 || !strings.Contains(r.stdout, "value=42") {
			t.Fatalf("%s: probe failed:\n%s", tc.env, r)
		}
		during := !strings.Contains(r.stdout, "arrived_s=-1")
		if during != tc.during {
			t.Errorf("%s: value arrived during the computation: %v, want %v\n%s", tc.env, during, tc.during, r.stdout)
		}
	}
}
