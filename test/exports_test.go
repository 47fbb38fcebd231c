package test

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The names that libghost.so must export: the MPI entry points it
// interposes (C, PMPI_ profiling names, MPIX_ extensions, and Fortran names
// should it define any), the two libmpich functions MPICH's Fortran
// bindings read attributes through (c/fortran.c), and UCX's
// ucp_worker_progress, where users yield their core (c/politeness.c), and
// dlopen, which resolves an MPI that Python loads after the library
// (c/world.c). Everything else is local to the library
// (shim/exports.map; docs/design.md, "Exported symbols").
var exported = regexp.MustCompile(`^(P?MPIX?_[A-Za-z0-9_]+|p?mpi_[a-z0-9_]+|MPII_(Comm|Win)_get_attr|ucp_worker_progress|dlopen)$`)

func TestExportList(t *testing.T) {
	if testing.Short() {
		t.Skip("needs build/libghost.so")
	}
	out, err := exec.Command("nm", "-D", "--defined-only", filepath.Join(buildDir, "libghost.so")).Output()
	if err != nil {
		t.Fatalf("nm: %v", err)
	}
	names := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		name := f[len(f)-1]
		names[name] = true
		if !exported.MatchString(name) {
			t.Errorf("libghost.so exports %s (%s)", name, line)
		}
	}
	// What interposition needs is still there.
	for _, want := range []string{"MPI_Init", "PMPI_Init", "MPI_Init_thread", "MPI_Finalize", "MPI_Abort",
		"MPI_Win_allocate", "PMPI_Win_allocate", "MPI_Put", "MPI_Comm_rank", "MPI_Comm_dup", "MPII_Win_get_attr", "MPII_Comm_get_attr", "ucp_worker_progress", "dlopen"} {
		if !names[want] {
			t.Errorf("libghost.so does not export %s", want)
		}
	}
	t.Logf("%d exported names", len(names))
}
