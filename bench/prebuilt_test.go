package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ghost-mpi/ghost/internal/apps"
)

// With -prebuilt, the driver must find the binaries under the names that
// -prebuild gave them, and say clearly when one is missing, rather than
// reach for a compiler the machine may not have.
func TestPrebuiltFindsWhatPrebuildWrote(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"oplat", "apps_armci_nxtask"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	b := builder{mpicc: "/nonexistent/mpicc", prebuilt: dir}
	app := func(mpi apps.MPI) func(src, dir string) (string, error) {
		return func(src, dir string) (string, error) { return b.app(mpi, src, dir) }
	}
	tests := []struct {
		what, src string
		build     func(src, dir string) (string, error)
		want      string // file name found, or "" for an error
	}{
		{"bench program", "bench/programs/oplat.c", b.bench, "oplat"},
		{"app program", "test/apps/armci/armci_nxtask.c", app(apps.MPICH), "apps_armci_nxtask"},
		// -prebuild builds MPICH's only: Open MPI's build is not there.
		{"app program, Open MPI's build", "test/apps/armci/armci_nxtask.c", app(apps.OpenMPI), ""},
		{"missing bench program", "bench/programs/gcu.c", b.bench, ""},
		{"bench program under the app's name", "bench/programs/armci_nxtask.c", b.bench, ""},
	}
	for _, tt := range tests {
		got, err := tt.build(tt.src, t.TempDir())
		if tt.want == "" {
			if err == nil || !strings.Contains(err.Error(), "-prebuilt") || !strings.Contains(err.Error(), tt.src) {
				t.Errorf("%s: got %q, %v; want an error naming -prebuilt and %s", tt.what, got, err, tt.src)
			}
			continue
		}
		if err != nil || got != filepath.Join(dir, tt.want) {
			t.Errorf("%s: got %q, %v; want %s", tt.what, got, err, filepath.Join(dir, tt.want))
		}
	}
}

// -prebuild writes what -prebuilt then finds, for a suite with a program
// and for the apps suite's ARMCI program.
func TestPrebuildThenPrebuilt(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles with mpicc")
	}
	if _, err := exec.LookPath("mpicc"); err != nil {
		t.Skip("mpicc not installed")
	}
	dir := t.TempDir()
	if err := prebuild(options{suites: "rma-intercept", prebuild: dir, programs: "programs", mpicc: "mpicc"}); err != nil {
		t.Fatal(err)
	}
	b := builder{prebuilt: dir}
	if exe, err := b.bench(filepath.Join("programs", "oplat.c"), t.TempDir()); err != nil || exe != filepath.Join(dir, "oplat") {
		t.Errorf("after -prebuild: got %q, %v; want %s", exe, err, filepath.Join(dir, "oplat"))
	}
	if err := prebuild(options{suites: "nosuch", prebuild: dir}); err == nil || !strings.Contains(err.Error(), "nosuch") {
		t.Errorf("-prebuild of an unknown suite: got %v, want an error naming it", err)
	}
}

func TestAppsTimeout(t *testing.T) {
	for _, tt := range []struct {
		o    options
		want time.Duration
	}{
		{options{timeout: time.Minute}, 3 * time.Minute},
		{options{timeout: 5 * time.Minute}, 5 * time.Minute},
		{options{timeout: 45 * time.Second, timeoutGiven: true}, 45 * time.Second},
	} {
		if got := tt.o.appsTimeout(); got != tt.want {
			t.Errorf("%+v: appsTimeout() = %v, want %v", tt.o, got, tt.want)
		}
	}
}
