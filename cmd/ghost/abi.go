package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ghost-mpi/ghost/internal/mpiprog"
)

// linkedMPI is the MPI library a program runs with, as far as the ELF
// dynamic sections of the program and its libraries tell.
type linkedMPI struct {
	ELF    string // the file read: the program, or the interpreter of its script
	Script bool   // ELF is the interpreter of the script given
	python bool   // Soname was found through mpi4py's MPI module
	Soname string // the MPI library's soname; "" when none was found
	Via    string // the library whose DT_NEEDED names Soname; "" when the ELF itself does
	Family string // programFamily(Soname): MPICH, Open MPI, or ""
}

// Depths of the search: a script's interpreter may itself be a script (the
// kernel allows a few levels), and the MPI library usually hangs below a
// Fortran or C++ binding library or an application library (ARMCI,
// OpenCoarrays), one or two levels down.
const (
	maxInterpreterDepth = 4
	maxLibraryDepth     = 3
)

// programMPI finds which MPI library the program argv[0] (a path, or a
// name looked up on PATH as mpiexec would) uses. A script is followed to
// its interpreter (#! line, through /usr/bin/env), so `./app.sh` is read as
// what the kernel runs. The ELF's own DT_NEEDED come first; only when none
// is an MPI library are its libraries read, in breadth-first order, as the
// loader maps them. A Python program that names mpi4py and links no MPI
// itself is read through mpi4py's MPI module, which Python loads with
// dlopen (pythonMPI).
func programMPI(argv []string, lookPath func(string) (string, error)) (linkedMPI, error) {
	path, err := executablePath(argv[0], lookPath)
	if err != nil {
		return linkedMPI{}, err
	}
	command := path
	script := false
	for i := 0; ; i++ {
		interp, err := scriptInterpreter(path, lookPath)
		if err != nil {
			return linkedMPI{}, err
		}
		if interp == "" {
			break
		}
		if i == maxInterpreterDepth {
			return linkedMPI{}, fmt.Errorf("%s: more than %d levels of #! interpreters", argv[0], maxInterpreterDepth)
		}
		path, script = interp, true
	}
	m := linkedMPI{ELF: path, Script: script}
	soname, via, err := libraryMPI(path)
	if err != nil {
		return m, err
	}
	switch {
	case soname != "":
	case strings.HasPrefix(filepath.Base(argv[0]), "python"):
		// The interpreter, or a script in its place that runs one (pyenv's
		// shims): asked as the command given, it answers for the Python
		// that will run. The source is its first argument.
		soname, via = pythonMPI(command, pythonSource(argv[1:]))
		m.python = soname != ""
	case strings.HasPrefix(filepath.Base(path), "python"):
		// A script whose interpreter is Python.
		soname, via = pythonMPI(path, argv[0])
		m.python = soname != ""
	}
	m.Soname, m.Via, m.Family = soname, via, programFamily(soname)
	return m, nil
}

// libraryMPI returns the MPI library the ELF file path needs, directly or
// through its libraries, and the library that names it ("" when path does).
func libraryMPI(path string) (soname, via string, err error) {
	level, seen := []string{path}, map[string]bool{}
	for depth := 0; depth <= maxLibraryDepth && len(level) > 0; depth++ {
		var next []string
		for _, file := range level {
			needed, err := neededLibs(file)
			if err != nil {
				if file == path {
					return "", "", err
				}
				continue // a library the loader would map differently, or not at all
			}
			if soname := firstMPI(needed); soname != "" {
				if file != path {
					via = filepath.Base(file)
				}
				return soname, via, nil
			}
			for _, n := range needed {
				if !seen[n] {
					seen[n] = true
					if p := resolveSoname(n); p != "" {
						next = append(next, p)
					}
				}
			}
		}
		level = next
	}
	return "", "", nil
}

// pythonSource is the script among a Python interpreter's arguments: the
// first one that is not an option ("" for -c, -m and a bare interpreter,
// whose code is not a file).
func pythonSource(args []string) string {
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "-c" || a == "-m" || a == "-" || a == "--":
			return ""
		case a == "-W" || a == "-X" || a == "--check-hash-based-pycs":
			i++ // these take the next word
		case strings.HasPrefix(a, "-"):
		default:
			return a
		}
	}
	return ""
}

// maxSourceBytes bounds how much of a Python script is searched for mpi4py.
const maxSourceBytes = 1 << 20

// pythonMPI returns the MPI library of mpi4py's MPI module, and the module
// as via, when the Python source names mpi4py; ("", "") otherwise. The
// interpreter says where its mpi4py is: importing the package alone loads
// no MPI.
func pythonMPI(python, source string) (soname, via string) {
	if source == "" {
		return "", ""
	}
	f, err := os.Open(source)
	if err != nil {
		return "", ""
	}
	text, _ := io.ReadAll(io.LimitReader(f, maxSourceBytes))
	f.Close()
	if !bytes.Contains(text, []byte("mpi4py")) {
		return "", ""
	}
	out, err := mpiprog.Run([]string{python, "-c",
		"import importlib.util as u; s = u.find_spec('mpi4py.MPI'); print(s.origin if s else '')"},
		nil, 20*time.Second)
	module := strings.TrimSpace(string(out))
	if err != nil || module == "" {
		return "", ""
	}
	soname, _, err = libraryMPI(module)
	if err != nil || soname == "" {
		return "", ""
	}
	return soname, "mpi4py's " + filepath.Base(module)
}

// firstMPI returns the first MPI library among sonames, an Open MPI one
// before an MPICH one: a process that maps Open MPI at all cannot take
// libghost.so, whatever else it maps. (Debian's mpifort.openmpi, with the
// alternatives on MPICH, links Open MPI's Fortran library beside MPICH's
// libmpich.so.12.)
func firstMPI(sonames []string) string {
	first := ""
	for _, n := range sonames {
		switch programFamily(n) {
		case "Open MPI":
			return n
		case "MPICH":
			if first == "" {
				first = n
			}
		}
	}
	return first
}

// programFamily is mpiFamily, plus Open MPI's language bindings and
// runtime, which a program may name without naming libmpi.so.40 itself.
func programFamily(soname string) string {
	base, _, _ := strings.Cut(soname, ".so")
	switch base {
	case "libmpi_mpifh", "libmpi_usempif08", "libmpi_usempi_ignore_tkr", "libmpi_cxx", "libmpi_java",
		"liboshmem", "libopen-rte", "libopen-pal":
		return "Open MPI"
	}
	return mpiFamily(soname)
}

// origin says where Soname was found when the program does not name it
// itself ("" when it does).
func (m linkedMPI) origin() string {
	var parts []string
	if m.Via != "" {
		parts = append(parts, "needed by "+m.Via)
	}
	if m.Script {
		parts = append(parts, "through its interpreter "+m.ELF)
	}
	return strings.Join(parts, ", ")
}

// executablePath resolves argv0 the way execvp does: a name with a slash
// is a path, any other name is looked up on PATH.
func executablePath(argv0 string, lookPath func(string) (string, error)) (string, error) {
	if strings.Contains(argv0, "/") {
		return argv0, nil
	}
	return lookPath(argv0)
}

// scriptInterpreter returns the interpreter of a #! script ("" for any
// other file), resolving `#!/usr/bin/env NAME` through PATH.
func scriptInterpreter(path string, lookPath func(string) (string, error)) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	// Linux reads at most 256 bytes of a #! line; an ELF file stops at the
	// first two bytes.
	r := bufio.NewReaderSize(f, 256)
	if magic, _ := r.Peek(2); string(magic) != "#!" {
		return "", nil
	}
	line, _ := r.ReadSlice('\n')
	fields := strings.Fields(strings.TrimPrefix(string(line), "#!"))
	if len(fields) == 0 {
		return "", fmt.Errorf("%s: empty #! line", path)
	}
	if filepath.Base(fields[0]) != "env" {
		return fields[0], nil
	}
	args := fields[1:]
	for i := 0; i < len(args); i++ {
		// env's options and NAME=value settings come before the command:
		// -u and -C take the next word, -S splits the rest, which Fields
		// did already.
		switch arg := args[i]; {
		case arg == "-u" || arg == "-C":
			i++
		case strings.HasPrefix(arg, "-") || strings.Contains(arg, "="):
		default:
			return executablePath(arg, lookPath)
		}
	}
	return "", fmt.Errorf("%s: #! line runs env without a command", path)
}

// foreignMPIError says, in one sentence that names the library and what
// to do, that ghost run cannot take argv0, an Open MPI program (m, from
// programMPI): libghost.so is built for MPICH's ABI, and Ghost's library
// for Open MPI's (openMPIABI) was not found (runOpenMPI).
func foreignMPIError(argv []string, m linkedMPI) error {
	how := m.Soname
	if o := m.origin(); o != "" {
		how += ", " + o
	}
	remedy := "rebuild it with MPICH's compiler wrappers (mpicc.mpich)"
	if m.python {
		remedy = "use an mpi4py built on MPICH (MPICC=mpicc.mpich pip install mpi4py)"
	}
	return fmt.Errorf("libghost.so was built for MPICH's ABI and no %s, Ghost's library for Open MPI, was found; "+
		"%s uses Open MPI (%s), whose handles libghost.so cannot pass: build %s (make) or set %s, %s, "+
		"or run it without Ghost; see docs/openmpi.md",
		openMPIABI.LibName, argv[0], how, openMPIABI.LibName, openMPIABI.LibVar, remedy)
}
