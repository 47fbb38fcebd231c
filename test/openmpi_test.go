package test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// openMPIProgram builds programs/world.c with Open MPI's mpicc once, or
// skips the test when Open MPI's compiler or launcher is not installed.
func openMPIProgram(t *testing.T) string {
	t.Helper()
	needMPI(t)
	if _, err := exec.LookPath("mpirun.openmpi"); err != nil {
		t.Skipf("mpirun.openmpi not found: %s", openMPI.skipReason)
	}
	return programFor(t, openMPI, "programs", "world.c")
}

// openMPIRun runs argv on 2 ranks with Open MPI's own launcher; preload
// puts libghost.so, MPICH's library, into the ranks.
func openMPIRun(t *testing.T, preload bool, argv ...string) result {
	t.Helper()
	lib := ""
	if preload {
		lib = mpich.lib
	}
	return openMPIRunLib(t, job{args: argv, timeout: 60 * time.Second}, 2, lib)
}

// openMPILibrary is Ghost's library for Open MPI's ABI in the build
// directory, or "" while it is not built (make builds it only where Open
// MPI's headers are): ghost run takes it from beside the ghost binary.
func openMPILibrary() string {
	p := filepath.Join(buildDir, openMPI.lib)
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}

// mpi4pyPython is a Python interpreter with Debian's mpi4py (built on Open
// MPI): python3 on PATH when it has it, else /usr/bin/python3; the test
// is skipped without one.
func mpi4pyPython(t *testing.T) string {
	t.Helper()
	for _, python := range []string{"python3", "/usr/bin/python3"} {
		if exec.Command(python, "-c", "import mpi4py.MPI").Run() == nil {
			return python
		}
	}
	t.Skip("no python3 with mpi4py (python3-mpi4py, which make deps and .ci/run install)")
	return ""
}

// mpi4pyApp writes a script that prints its rank and the world's size.
func mpi4pyApp(t *testing.T) string {
	t.Helper()
	app := filepath.Join(t.TempDir(), "app.py")
	src := "from mpi4py import MPI\nw = MPI.COMM_WORLD\nprint('rank %d of %d' % (w.Get_rank(), w.Get_size()))\n"
	if err := os.WriteFile(app, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return app
}

// libraryInParens is the library file a refusal names.
var libraryInParens = regexp.MustCompile(`Open MPI \([^)]*libmpi\.so\.40\)`)

// quotedInDocs checks that docs/openmpi.md quotes line as printed, with
// the program's path as ./app and any library path masked.
func quotedInDocs(t *testing.T, line, prog string) {
	t.Helper()
	mask := func(l string) string {
		return libraryInParens.ReplaceAllString(strings.ReplaceAll(l, prog, "./app"), "Open MPI (LIB)")
	}
	quoted, _ := fencedLines(t, "../docs/openmpi.md")
	for _, q := range quoted {
		if mask(q) == mask(line) {
			return
		}
	}
	t.Errorf("docs/openmpi.md does not quote %q", mask(line))
}

// TestOpenMPIRefused: libghost.so is built for MPICH's ABI. A program built
// with Open MPI must be refused with one clear line, by `ghost run` before
// anything starts and by the preloaded library at MPI_Init, instead of a
// segmentation fault on the first MPICH handle (docs/openmpi.md).
func TestOpenMPIRefused(t *testing.T) {
	prog := openMPIProgram(t)
	// check: the run failed with one or more refusal lines that start with
	// prefix (one per rank for the library) and say all of this.
	says := []string{"built for MPICH's ABI", "uses Open MPI", "libmpi.so.40", "docs/openmpi.md"}
	check := func(t *testing.T, r result, prefix string) {
		t.Helper()
		var lines []string
		for _, l := range strings.Split(r.stderr, "\n") {
			if strings.HasPrefix(l, prefix) {
				lines = append(lines, l)
			}
		}
		if len(lines) == 0 {
			t.Fatalf("no %q line on stderr:\n%s", prefix, r)
		}
		for _, l := range lines {
			for _, want := range says {
				if !strings.Contains(l, want) {
					t.Errorf("%q does not say %q", l, want)
				}
			}
		}
		if strings.Contains(r.stderr, "SIGSEGV") || strings.Contains(r.stderr, "Segmentation fault") {
			t.Errorf("the refusal came with a crash:\n%s", r)
		}
		quotedInDocs(t, lines[0], prog)
	}

	t.Run("plain", func(t *testing.T) {
		// The program itself is sound under Open MPI: what follows is
		// Ghost's refusal, not a broken build.
		if r := openMPIRun(t, false, prog, "2", "2"); r.code != 0 {
			t.Fatalf("plain Open MPI run failed:\n%s", r)
		}
	})
	// ghost run refuses an Open MPI program where Ghost's Open MPI library
	// is missing (TestOpenMPILauncher runs it with the library): a copy of
	// the ghost binary alone in a directory finds none beside itself.
	lone := filepath.Join(t.TempDir(), "ghost")
	if src, err := os.ReadFile(filepath.Join(buildDir, "ghost")); err != nil {
		t.Fatal(err)
	} else if err := os.WriteFile(lone, src, 0o755); err != nil {
		t.Fatal(err)
	}
	loneRun := func(t *testing.T, argv ...string) result {
		t.Helper()
		return execute(t, job{env: []string{"GHOST_LIB_OPENMPI="}}, lone, append([]string{"run", "-n", "2", "--"}, argv...)...)
	}
	t.Run("ghost-run", func(t *testing.T) {
		start := time.Now()
		r := loneRun(t, prog, "2", "2")
		if r.code != 2 {
			t.Fatalf("exit %d, want 2 (a program ghost run cannot take):\n%s", r.code, r)
		}
		check(t, r, "ghost run: ")
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("ghost run took %v to refuse: it must refuse before launching", d)
		}
		if r.stdout != "" {
			t.Errorf("ghost run started something: stdout %q", r.stdout)
		}
	})
	t.Run("doctor", func(t *testing.T) {
		r := execute(t, job{timeout: 60 * time.Second}, filepath.Join(buildDir, "ghost"), "doctor", "--json", "--no-probe", "--", prog)
		var doc struct {
			MPI struct {
				Program struct {
					ABI     string
					OK      bool
					Verdict string
				}
			}
			MPIs []struct {
				Family       string
				Installed    bool
				GhostLibrary *struct{ Path string } `json:"ghost_library"`
			}
			Errors []string
		}
		if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
			t.Fatalf("doctor --json printed no JSON document: %v\n%s", err, r)
		}
		p := doc.MPI.Program
		if lib := openMPILibrary(); lib != "" {
			if !p.OK || p.ABI != "Open MPI" || !strings.Contains(p.Verdict, lib) {
				t.Errorf("doctor on an Open MPI program with %s built: program %+v; want it OK with that library", lib, p)
			}
		} else if r.code != 1 || p.ABI != "Open MPI" || p.OK || !strings.Contains(p.Verdict, "libmpi.so.40") {
			t.Errorf("doctor on an Open MPI program: exit %d, program %+v; want exit 1 and an Open MPI verdict", r.code, p)
		}
		// Both MPIs are reported, each with Ghost's library for it.
		families := map[string]bool{}
		for _, m := range doc.MPIs {
			families[m.Family] = m.Installed
			if m.Family == "Open MPI" && (m.GhostLibrary != nil) != (openMPILibrary() != "") {
				t.Errorf("doctor's Open MPI library %+v, but the build directory has %q", m.GhostLibrary, openMPILibrary())
			}
		}
		if !families["MPICH"] || !families["Open MPI"] {
			t.Errorf("doctor's mpis: %+v; want MPICH and Open MPI, both installed", doc.MPIs)
		}
	})
	t.Run("mpi4py", func(t *testing.T) {
		// Debian's python3-mpi4py is built on Open MPI; python3 itself
		// links no MPI, so ghost run reads the script and mpi4py's module.
		python := mpi4pyPython(t)
		r := loneRun(t, python, mpi4pyApp(t))
		if r.code != 2 || r.stdout != "" {
			t.Fatalf("exit %d, want 2 and nothing started:\n%s", r.code, r)
		}
		for _, want := range []string{"ghost run: ", "built for MPICH's ABI", "uses Open MPI (libmpi.so.40, needed by mpi4py's MPI.", "docs/openmpi.md"} {
			if !strings.Contains(r.stderr, want) {
				t.Errorf("stderr does not say %q:\n%s", want, r.stderr)
			}
		}
	})
	t.Run("preload", func(t *testing.T) {
		r := openMPIRun(t, true, prog, "2", "2")
		if r.code == 0 {
			t.Fatalf("the preloaded run succeeded:\n%s", r)
		}
		check(t, r, "ghost: error: ")
	})
	t.Run("preload-mpi4py", func(t *testing.T) {
		// Python maps Open MPI with dlopen at the import, after the
		// library's constructor, and mpi4py calls MPI_Initialized before
		// MPI_Init: the library must still refuse with its line (it used
		// to die there with a segmentation fault).
		python := mpi4pyPython(t)
		r := openMPIRun(t, true, python, mpi4pyApp(t))
		if r.code == 0 || strings.Contains(r.stdout, "rank ") {
			t.Fatalf("the preloaded mpi4py run went on:\n%s", r)
		}
		check(t, r, "ghost: error: ")
	})
}

// TestOpenMPILauncher: ghost run starts an Open MPI program with
// libghost-openmpi.so through Open MPI's mpirun, with one ghost per node,
// on one host and on two fake nodes, and `ghost run -n 2 -- python3
// app.py` for Debian's mpi4py. world.c checks that the world holds the
// users only, and, on fake nodes, that each is a node of its own.
func TestOpenMPILauncher(t *testing.T) {
	prog := openMPIProgram(t)
	if openMPILibrary() == "" {
		t.Fatalf("%s missing in %s: run `make` (it needs libopenmpi-dev)", openMPI.lib, buildDir)
	}
	const ghosts = 1
	// GHOST_VERBOSE reaches the ranks through mpirun's -x, and the first
	// user then says how the job was split.
	env := []string{"GHOST_VERBOSE=info"}
	ok := func(t *testing.T, r result) {
		t.Helper()
		if r.code != 0 {
			t.Fatalf("exit %d:\n%s", r.code, r)
		}
		if strings.Contains(r.stderr, "ghost run:") {
			t.Errorf("ghost run complained:\n%s", r)
		}
	}
	split := func(t *testing.T, r result, want string) {
		t.Helper()
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr does not say %q:\n%s", want, r)
		}
	}
	t.Run("one-host", func(t *testing.T) {
		r := ghostRun(t, job{users: 2, ghosts: ghosts, env: env, args: []string{prog, "2", "2"}})
		ok(t, r)
		split(t, r, "2 user rank(s), 1 ghost(s) on 1 node(s)")
	})
	t.Run("fake-nodes", func(t *testing.T) {
		// One user per fake node: world.c checks that MPI_Comm_split_type
		// sees nodes of 1 user, which Open MPI gives only when each fake
		// node's daemon has its own session and shared-memory directory.
		hosts := fmt.Sprintf("nodeA:%d,nodeB:%d", 1+ghosts, 1+ghosts)
		r := ghostRun(t, job{users: 2, ghosts: ghosts, hosts: hosts, env: env, args: []string{prog, "2", "1"}})
		ok(t, r)
		split(t, r, "2 user rank(s), 2 ghost(s) on 2 node(s)")
	})
	t.Run("mpi4py", func(t *testing.T) {
		r := ghostRun(t, job{users: 2, ghosts: ghosts, env: env, args: []string{mpi4pyPython(t), mpi4pyApp(t)}})
		ok(t, r)
		for _, want := range []string{"rank 0 of 2", "rank 1 of 2"} {
			if !strings.Contains(r.stdout, want) {
				t.Errorf("stdout does not say %q:\n%s", want, r)
			}
		}
	})
}

// TestOpenMPIDirectSelfLocks: under GHOST_ASYNC=auto a window on the ghost
// path starts direct where processes share cores (4 on this machine's 2),
// and a rank that locks itself took its lock word with
// a 64-bit compare-and-swap to itself, on which Open MPI 4.1.4's osc/rdma
// over vader dies of SIGSEGV: every such job crashed. Under Open MPI the
// words go through the bound ghost in every state (c/abi.h,
// GHOST_LOCK_WORDS_AT_GHOST). The suite's programs that lock themselves,
// exclusively and shared, run in the ompi-g1-auto configuration here
// without naming it (RMA_CONFIGS runs all of it).
func TestOpenMPIDirectSelfLocks(t *testing.T) {
	openMPIProgram(t)
	i := slices.IndexFunc(rmaConfigs, func(c rmaConfig) bool { return c.name == "ompi-g1-auto" })
	cfg := rmaConfigs[i]
	for _, name := range []string{"self_lock_loadstore.c", "mutex_excl.c", "put.c", "acc_ordering.c"} {
		t.Run(strings.TrimSuffix(name, ".c"), func(t *testing.T) {
			runRMA(t, cfg, name, programFor(t, openMPI, "rma", name), nil)
		})
	}
}

// TestOpenMPIFortranAttributes: Open MPI's Fortran bindings read
// attributes inside libmpi, so Ghost answers MPI_COMM_GET_ATTR and
// MPI_WIN_GET_ATTR's Fortran entry points itself (c/fortran.c): a window of
// Ghost's reports its flavor, the size asked for, its disp_unit, model and
// base, and MPI_UNIVERSE_SIZE leaves the ghost out. The universe is the
// slots mpirun is given (3 here: 2 users and the ghost), not the
// processes, which on this machine's 2 cores would be 2 with
// --oversubscribe; so the job is started with -H localhost:3 instead.
func TestOpenMPIFortranAttributes(t *testing.T) {
	openMPIProgram(t)
	bin := programFor(t, openMPI, "programs", "win_attrs.f90")
	const users = 2
	for _, env := range [][]string{{"GHOST_NODE_LOCAL=off"}, nil} {
		name := map[bool]string{true: "ghost_path", false: "node_local"}[env != nil]
		t.Run(name, func(t *testing.T) {
			r := openMPIRunLib(t, job{args: []string{"-H", "localhost:3", bin}, timeout: 60 * time.Second,
				env: append([]string{"GHOST_NG=1"}, env...)}, users+1, openMPI.lib)
			expectChecks(t, r, users)
		})
	}
}
