package apps

import "testing"

func TestEnergy(t *testing.T) {
	tests := []struct {
		out  string
		want float64
		ok   bool
	}{
		{"", 0, false},
		{"         Total SCF energy =    -75.983831121469\n", -75.983831121469, true},
		{"Total DFT energy =  -1.5\n...\n Total DFT energy =      -76.408740814195\n", -76.408740814195, true},
		{"Total MP2 energy = -1\n", 0, false},
	}
	for _, tt := range tests {
		got, ok := Energy(tt.out)
		if got != tt.want || ok != tt.ok {
			t.Errorf("Energy(%q) = %v, %v; want %v, %v", tt.out, got, ok, tt.want, tt.ok)
		}
	}
}

func TestNWChemProcs(t *testing.T) {
	tests := []struct {
		out  string
		want int
	}{
		{"", 0},
		{"          nproc           =        2\n", 2},
		{"   nproc = 12\n", 12},
		{"nprocs wanted 3\n", 0},
	}
	for _, tt := range tests {
		if got := NWChemProcs(tt.out); got != tt.want {
			t.Errorf("NWChemProcs(%q) = %d, want %d", tt.out, got, tt.want)
		}
	}
}

func TestChecks(t *testing.T) {
	tests := []struct {
		out                 string
		size, ranks, failed int
	}{
		{"", 0, 0, 0},
		{"rank 0 of 2: 10 checks, 0 failed\nrank 1 of 2: 9 checks, 0 failed\n", 2, 2, 0},
		{"rank 1 of 2: 9 checks, 2 failed\nFAIL x\n", 2, 1, 2},
		{"rank 0 of 3: 0 checks, 0 failed\n", 3, 0, 0},
	}
	for _, tt := range tests {
		size, ranks, failed := Checks(tt.out)
		if size != tt.size || ranks != tt.ranks || failed != tt.failed {
			t.Errorf("Checks(%q) = %d, %d, %d; want %d, %d, %d", tt.out, size, ranks, failed, tt.size, tt.ranks, tt.failed)
		}
	}
}

func TestCafAndEvents(t *testing.T) {
	if !CafPassed("Test passed.\n") || !CafPassed("coarray_distributed_transpose: test passed: x") || CafPassed("Test failed") {
		t.Error("CafPassed misreads")
	}
	for _, tt := range []struct {
		out          string
		async, found bool
	}{
		{"posts_completed_while_targets_computed=1", true, true},
		{"posts_completed_while_targets_computed=0", false, true},
		{"nothing", false, false},
	} {
		if a, f := EventPostsAsync(tt.out); a != tt.async || f != tt.found {
			t.Errorf("EventPostsAsync(%q) = %v, %v", tt.out, a, f)
		}
	}
}

func TestReferencesCoverTheInputs(t *testing.T) {
	for _, in := range []string{"water_scf", "water_dft", "ethanol_scf", "ethanol_dft"} {
		if _, ok := NWChemReference[in]; !ok {
			t.Errorf("no reference energy for %s", in)
		}
	}
}

func TestMpi4pyOpsAsync(t *testing.T) {
	for _, tc := range []struct {
		out          string
		async, found bool
	}{
		{"mpi4py: ops_completed_while_target_computed=1\n", true, true},
		{"x\nmpi4py: ops_completed_while_target_computed=0\n", false, true},
		{"rank 0 of 2: 3 checks, 0 failed\n", false, false},
	} {
		if a, f := Mpi4pyOpsAsync(tc.out); a != tc.async || f != tc.found {
			t.Errorf("Mpi4pyOpsAsync(%q) = %v, %v; want %v, %v", tc.out, a, f, tc.async, tc.found)
		}
	}
}

// Each MPI's build of a program has its own binary name, so both fit in
// one directory.
func TestBinName(t *testing.T) {
	if got := BinName("test/apps/armci/armci_nxtask.c"); got != "apps_armci_nxtask" {
		t.Errorf("MPICH: %q", got)
	}
	if got := OpenMPI.BinName("x/event_compute.f90"); got != "apps_openmpi_event_compute" {
		t.Errorf("Open MPI: %q", got)
	}
}
