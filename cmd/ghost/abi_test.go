package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFirstMPI(t *testing.T) {
	for _, tc := range []struct {
		name    string
		sonames []string
		want    string
		family  string
	}{
		{"MPICH", []string{"libc.so.6", "libmpich.so.12"}, "libmpich.so.12", "MPICH"},
		{"MPICH ABI name", []string{"libmpi.so.12"}, "libmpi.so.12", "MPICH"},
		{"Open MPI", []string{"libmpi.so.40", "libc.so.6"}, "libmpi.so.40", "Open MPI"},
		{"Open MPI 2", []string{"libmpi.so.20"}, "libmpi.so.20", "Open MPI"},
		// Debian's mpifort.openmpi with the alternatives on MPICH.
		{"mixed Fortran", []string{"libmpich.so.12", "libmpi_mpifh.so.40"}, "libmpi_mpifh.so.40", "Open MPI"},
		{"Open MPI C++", []string{"libmpi_cxx.so.40"}, "libmpi_cxx.so.40", "Open MPI"},
		{"no MPI", []string{"libc.so.6", "libm.so.6"}, "", ""},
		{"nothing", nil, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := firstMPI(tc.sonames)
			if got != tc.want || programFamily(got) != tc.family {
				t.Errorf("firstMPI(%q) = %q (%q), want %q (%q)", tc.sonames, got, programFamily(got), tc.want, tc.family)
			}
		})
	}
}

func writeScript(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// fakePath finds every name in /fake/bin, and nothing else.
func fakePath(name string) (string, error) {
	if name == "missing" {
		return "", errors.New("not found")
	}
	return "/fake/bin/" + name, nil
}

func TestScriptInterpreter(t *testing.T) {
	dir := t.TempDir()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, text, want, err string
	}{
		{"plain path", "#!/bin/sh -e\necho\n", "/bin/sh", ""},
		{"env", "#!/usr/bin/env python3\n", "/fake/bin/python3", ""},
		{"env with options", "#!/usr/bin/env -S -u HOME -C /tmp A=1 python3 -u\n", "/fake/bin/python3", ""},
		{"no newline", "#!/bin/bash", "/bin/bash", ""},
		{"not a script", "echo hello\n", "", ""},
		{"empty", "", "", ""},
		{"empty #!", "#!   \n", "", "empty #! line"},
		{"env alone", "#!/usr/bin/env -i\n", "", "without a command"},
		{"env, command missing", "#!/usr/bin/env missing\n", "", "not found"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := scriptInterpreter(writeScript(t, dir, "s", tc.text), fakePath)
			if got != tc.want || (err == nil) != (tc.err == "") || err != nil && !strings.Contains(err.Error(), tc.err) {
				t.Errorf("got %q, %v; want %q, error containing %q", got, err, tc.want, tc.err)
			}
		})
	}
	t.Run("ELF", func(t *testing.T) {
		if got, err := scriptInterpreter(self, fakePath); got != "" || err != nil {
			t.Errorf("the test binary: got %q, %v; want no interpreter", got, err)
		}
	})
}

func TestProgramMPI(t *testing.T) {
	dir := t.TempDir()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// The test binary links no MPI: a script run by it is read as it.
	script := writeScript(t, dir, "app.sh", "#!"+self+"\n")
	m, err := programMPI([]string{script}, fakePath)
	if err != nil || m.ELF != self || !m.Script || m.Soname != "" || m.Family != "" {
		t.Errorf("script: %+v, %v; want the test binary, no MPI", m, err)
	}

	loop := writeScript(t, dir, "loop.sh", "#!"+filepath.Join(dir, "loop.sh")+"\n")
	if _, err := programMPI([]string{loop}, fakePath); err == nil || !strings.Contains(err.Error(), "levels of #! interpreters") {
		t.Errorf("a script that is its own interpreter: got %v, want the depth error", err)
	}
	if _, err := programMPI([]string{"missing"}, fakePath); err == nil {
		t.Error("a program not on PATH: no error")
	}
	// ghost run leaves programs it cannot read to mpiexec, which says why.
	if m, err := programMPI([]string{filepath.Join(dir, "nonexistent")}, fakePath); err == nil || m.Family != "" {
		t.Errorf("programMPI on a missing program: %+v, %v; want an error and no family", m, err)
	}
}

// The refusal when Ghost's Open MPI library is missing names the program,
// where its Open MPI was found, and both ways out.
func TestForeignMPIError(t *testing.T) {
	for _, tc := range []struct {
		name string
		m    linkedMPI
		want []string
	}{
		{"binary", linkedMPI{Soname: "libmpi.so.40", Family: "Open MPI"},
			[]string{"./app uses Open MPI (libmpi.so.40)", "no libghost-openmpi.so", "set GHOST_LIB_OPENMPI", "mpicc.mpich", "docs/openmpi.md"}},
		{"mpi4py", linkedMPI{Soname: "libmpi.so.40", Via: "mpi4py's MPI.so", Family: "Open MPI", python: true},
			[]string{"(libmpi.so.40, needed by mpi4py's MPI.so)", "MPICC=mpicc.mpich pip install mpi4py"}},
		{"script", linkedMPI{ELF: "/usr/bin/python3", Script: true, Soname: "libmpi.so.40", Family: "Open MPI"},
			[]string{"through its interpreter /usr/bin/python3"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msg := foreignMPIError([]string{"./app"}, tc.m).Error()
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("%q does not say %q", msg, w)
				}
			}
		})
	}
}

func TestPythonSource(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"app.py", "-n", "3"}, "app.py"},
		{[]string{"-u", "-B", "app.py"}, "app.py"},
		{[]string{"-W", "ignore", "-X", "dev", "app.py"}, "app.py"},
		{[]string{"-c", "import mpi4py"}, ""},
		{[]string{"-m", "mpi4py.bench", "helloworld"}, ""},
		{[]string{"-"}, ""},
		{nil, ""},
	} {
		if got := pythonSource(tc.args); got != tc.want {
			t.Errorf("pythonSource(%q) = %q, want %q", tc.args, got, tc.want)
		}
	}
}

// A Python script that does not name mpi4py is not read further, and the
// interpreter is not asked anything.
func TestPythonMPIWithoutMPI4py(t *testing.T) {
	src := writeScript(t, t.TempDir(), "app.py", "import json\nprint(json.dumps(1))\n")
	if soname, via := pythonMPI("/nonexistent/python3", src); soname != "" || via != "" {
		t.Errorf("got %q via %q, want nothing", soname, via)
	}
}

// `python3` given as a command that is itself a script (pyenv's shims run
// the real interpreter) is still asked as Python: mpi4py's module, which
// the stand-in interpreter names here, decides the program's MPI.
func TestProgramMPIPythonShim(t *testing.T) {
	module := resolveSoname("libmpi_mpifh.so.40") // any ELF that needs libmpi.so.40
	if module == "" {
		t.Skip("Open MPI's libmpi_mpifh.so.40 is not installed")
	}
	dir := t.TempDir()
	shim := writeScript(t, dir, "python3", "#!/bin/sh\necho "+module+"\n")
	app := writeScript(t, dir, "app.py", "from mpi4py import MPI\n")
	m, err := programMPI([]string{shim, app}, fakePath)
	if err != nil || m.Family != "Open MPI" || !m.python || !strings.Contains(m.Via, "mpi4py's") {
		t.Errorf("got %+v, %v; want Open MPI through mpi4py's module", m, err)
	}
	// Code given with -c is not read: the program's MPI cannot be told.
	if m, _ := programMPI([]string{shim, "-c", "import mpi4py"}, fakePath); m.Family != "" {
		t.Errorf("python3 -c: got %+v, want no MPI", m)
	}
}
