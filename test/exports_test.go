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
// ucp_worker_progress, where users yield their core (c/politeness.c),
// ucp_init_version and ucp_worker_create, through which a sleeping ghost
// learns of traffic from other nodes (c/ucxwake.c), and
// dlopen, which resolves an MPI that Python loads after the library
// (c/world.c). Everything else is local to the library
// (shim/exports.map; docs/design.md, "Exported symbols").
var exported = regexp.MustCompile(`^(P?MPIX?_[A-Za-z0-9_]+|p?mpi_[a-z0-9_]+|MPII_(Comm|Win)_get_attr|ucp_worker_progress|ucp_init_version|ucp_worker_create|dlopen)$`)

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

// TestNeedsNoMPI: libghost.so links no MPI library. It reaches MPICH
// through pointers that dlsym resolves, its own wrappers through their
// PMPI_ names, and nothing else: one direct reference to a function it
// does not define (a local call it leaves unwrapped, say) would make it
// need libmpich.so, which would then load beside Open MPI in a program
// that preloads the wrong library, instead of c/world.c refusing it.
func TestNeedsNoMPI(t *testing.T) {
	if testing.Short() {
		t.Skip("needs build/libghost.so")
	}
	lib := filepath.Join(buildDir, "libghost.so")
	out, err := exec.Command("readelf", "-d", lib).Output()
	if err != nil {
		t.Fatalf("readelf: %v", err)
	}
	if strings.Contains(string(out), "libmpi") {
		t.Errorf("libghost.so needs an MPI library:\n%s", out)
	}
	undefined, err := exec.Command("nm", "-D", "--undefined-only", lib).Output()
	if err != nil {
		t.Fatalf("nm: %v", err)
	}
	for _, line := range strings.Split(string(undefined), "\n") {
		if f := strings.Fields(line); len(f) > 0 && strings.Contains(f[len(f)-1], "MPI_") {
			t.Errorf("libghost.so refers to %s, which it does not define", f[len(f)-1])
		}
	}
}
