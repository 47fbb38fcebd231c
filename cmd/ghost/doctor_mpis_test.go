package main

import (
	"strings"
	"testing"
)

func TestAbiOfMarker(t *testing.T) {
	for _, tc := range []struct{ marker, family, version string }{
		{"MPICH 4.0.2", "MPICH", "4.0.2"},
		{"Open MPI 4.1.4", "Open MPI", "4.1.4"},
		{"", "", ""},
	} {
		if f, v := abiOfMarker(tc.marker); f != tc.family || v != tc.version {
			t.Errorf("abiOfMarker(%q) = %q, %q; want %q, %q", tc.marker, f, v, tc.family, tc.version)
		}
	}
}

// Ghost's Open MPI library is judged against Open MPI as libghost.so is
// against MPICH.
func TestCheckLibghostOpenMPI(t *testing.T) {
	for _, tc := range []struct {
		name     string
		builtFor string
		needed   []string
		vendor   string
		matches  bool
		verdict  string
	}{
		{"matches", "Open MPI 4.1.4", []string{"libc.so.6"}, "Open MPI", true, "built for Open MPI 4.1.4: matches"},
		{"MPICH found", "Open MPI 4.1.4", nil, "MPICH", false, "the MPI found is MPICH: this library needs Open MPI's ABI"},
		{"links MPICH", "Open MPI 4.1.4", []string{"libmpich.so.12"}, "Open MPI", false, "links libmpich.so.12 (MPICH): it must not link an MPI other than Open MPI"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := &GhostLib{BuiltFor: tc.builtFor, Needed: tc.needed}
			checkLibghost(g, tc.vendor, "4.1.4")
			if g.Matches != tc.matches || !strings.Contains(g.Verdict, tc.verdict) {
				t.Errorf("matches %v, verdict %q; want %v, %q", g.Matches, g.Verdict, tc.matches, tc.verdict)
			}
		})
	}
}

func TestInstallVerdict(t *testing.T) {
	yes, no := true, false
	ok := &GhostLib{Matches: true}
	for _, tc := range []struct {
		name string
		m    MPIInstall
		want string
	}{
		{"absent", MPIInstall{Family: "Open MPI", Library: Soname{Name: "libmpi.so.40"}}, "not installed (no Open MPI launcher or no libmpi.so.40 found)"},
		{"no library", MPIInstall{Family: "Open MPI", Installed: true}, "libghost-openmpi.so not found: ghost run refuses Open MPI programs"},
		{"mismatch", MPIInstall{Family: "Open MPI", Installed: true, GhostLibrary: &GhostLib{Verdict: "built for MPICH"}}, "does not match: built for MPICH"},
		{"not probed", MPIInstall{Family: "Open MPI", Installed: true, GhostLibrary: ok}, "run with libghost-openmpi.so (not probed)"},
		{"works", MPIInstall{Family: "Open MPI", Installed: true, GhostLibrary: ok, Works: &yes}, "the probe ran under Ghost"},
		{"fails", MPIInstall{Family: "Open MPI", Installed: true, GhostLibrary: ok, Works: &no}, "the probe failed under Ghost"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := installVerdict(tc.m, openMPIABI); !strings.Contains(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
