package main

import (
	"strings"
	"testing"

	"github.com/ghost-mpi/ghost/internal/apps"
)

func TestAppsJudges(t *testing.T) {
	nw := nwchemWorkload("water_scf")
	tests := []struct {
		name   string
		judge  func(string) (int, bool, string)
		out    string
		size   int
		ok     bool
		detail string
	}{
		{"nwchem right", nw.Judge, " nproc = 2\n Total SCF energy =    -75.983831121469\n", 2, true, "energy"},
		{"nwchem within 1e-8", nw.Judge, " nproc = 2\n Total SCF energy =    -75.983831125000\n", 2, true, "energy"},
		{"nwchem wrong", nw.Judge, " nproc = 2\n Total SCF energy =    -75.983000000000\n", 2, false, "off by"},
		{"nwchem no energy", nw.Judge, "crashed\n", 0, false, "no energy"},
		{"checks pass", judgeChecks, "rank 0 of 2: 5 checks, 0 failed\nrank 1 of 2: 5 checks, 0 failed\n", 2, true, "all checks"},
		{"checks fail", judgeChecks, "FAIL rank 1 x\nrank 0 of 2: 5 checks, 0 failed\nrank 1 of 2: 5 checks, 1 failed\n", 2, false, "1 checks failed"},
		{"a rank missing", judgeChecks, "rank 0 of 2: 5 checks, 0 failed\n", 2, false, "1 of 2 ranks"},
		{"coarray passed", judgeCoarray, "Test passed.\n", 0, true, "passed"},
		{"coarray failed", judgeCoarray, "ERROR STOP\n", 0, false, "no \"Test passed\""},
		{"events", judgeCoarray, "posts_completed_while_targets_computed=1\nTest passed.\n", 0, true, "while the targets computed: true"},
	}
	for _, tt := range tests {
		size, ok, detail := tt.judge(tt.out)
		if size != tt.size || ok != tt.ok || !strings.Contains(detail, tt.detail) {
			t.Errorf("%s: got %d, %v, %q; want %d, %v, %q", tt.name, size, ok, detail, tt.size, tt.ok, tt.detail)
		}
	}
}

// The apps suite compares the configurations the scoreboard asks for, and
// plain MPICH made correct comes first: it is the baseline of the ratios.
func TestAppsSuiteConfigs(t *testing.T) {
	s, ok := suiteByName("apps")
	if !ok {
		t.Fatal("no apps suite")
	}
	if s.Configs[0] != "plain-nolocal" {
		t.Errorf("baseline %q, want plain-nolocal", s.Configs[0])
	}
	for _, c := range []string{"plain-armci-nowinalloc", "mpich-thread-nolocal", "ghost", "ghost-auto", "openmpi", "ghost-openmpi"} {
		if !containsString(s.Configs, c) {
			t.Errorf("apps does not run %s", c)
		}
	}
	names := map[string]bool{}
	for _, w := range s.Workloads {
		names[w.Name] = true
	}
	for _, w := range []string{"nwchem/water_scf", "nwchem/water_dft", "nwchem/ethanol_scf", "nwchem/ethanol_dft", "armci/nxtask", "coarray/event_compute", "mpi4py/win_compute"} {
		if !names[w] {
			t.Errorf("apps lacks %s", w)
		}
	}
	if len(slowCoarrayTests) != 3 {
		t.Errorf("%d slow coarray tests, want 3", len(slowCoarrayTests))
	}
}

// The Open MPI column runs the applications' Open MPI builds; every other
// configuration MPICH's.
func TestAppsConfigMPI(t *testing.T) {
	for name, want := range map[string]string{"openmpi": "Open MPI", "ghost-openmpi": "Open MPI", "ghost": "MPICH", "plain-nolocal": "MPICH"} {
		if got := configMPI(name).Name; got != want {
			t.Errorf("configMPI(%q) = %s, want %s", name, got, want)
		}
		if _, err := configByName(name); err != nil {
			t.Error(err)
		}
	}
}

// An application that exists only in an Open MPI build is skipped, with
// that reason, by MPICH's configurations; an Open MPI build that is not
// installed is skipped with the path that is missing.
func TestSetupFor(t *testing.T) {
	w := Workload{Name: "x", OpenMPIOnly: true, Setup: func(builder, string, apps.MPI) ([]string, func(string) error, error) {
		return []string{"/nonexistent/app"}, nil, nil
	}}
	if b := setupFor(w, options{}, t.TempDir(), apps.MPICH); !strings.Contains(b.skip, "only in an Open MPI build") {
		t.Errorf("MPICH: skip %q", b.skip)
	}
	if b := setupFor(w, options{}, t.TempDir(), apps.OpenMPI); !strings.Contains(b.skip, "/nonexistent/app") {
		t.Errorf("Open MPI, not installed: skip %q", b.skip)
	}
	w.OpenMPIOnly = false
	if b := setupFor(w, options{}, t.TempDir(), apps.MPICH); b.skip != "" || b.argv[0] != "/nonexistent/app" {
		t.Errorf("MPICH: %+v; want it prepared (its runs report a missing program)", b)
	}
}

func TestJudgeMpi4py(t *testing.T) {
	out := "mpi4py: ops_completed_while_target_computed=1\nrank 0 of 2: 3 checks, 0 failed\nrank 1 of 2: 2 checks, 0 failed\n"
	if size, ok, detail := judgeMpi4py(out); size != 2 || !ok || !strings.Contains(detail, "completed while the target computed: true") {
		t.Errorf("got %d, %v, %q", size, ok, detail)
	}
	if _, ok, _ := judgeMpi4py("rank 0 of 2: 3 checks, 1 failed\n"); ok {
		t.Error("a failed check passed")
	}
}
