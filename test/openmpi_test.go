package test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

var (
	openMPIOnce sync.Once
	openMPIProg string
	openMPIErr  string
)

// openMPIProgram builds programs/world.c with Open MPI's mpicc once, or
// skips the test when Open MPI's headers are not installed.
func openMPIProgram(t *testing.T) string {
	t.Helper()
	needMPI(t)
	for _, tool := range []string{"mpicc.openmpi", "mpirun.openmpi"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not found: the Open MPI tests need libopenmpi-dev and openmpi-bin (make deps and .ci/run install them)", tool)
		}
	}
	openMPIOnce.Do(func() {
		bin := filepath.Join(progDir, "world_openmpi")
		src, _ := filepath.Abs("programs/world.c")
		out, err := exec.Command("mpicc.openmpi", "-O2", "-Wall", "-I"+filepath.Dir(src), "-o", bin, src).CombinedOutput()
		if err != nil {
			openMPIErr = "mpicc.openmpi programs/world.c: " + err.Error() + "\n" + string(out)
			return
		}
		openMPIProg = bin
	})
	if openMPIErr != "" {
		t.Fatal(openMPIErr)
	}
	return openMPIProg
}

// openMPIRun runs prog on 2 ranks with Open MPI's own launcher; preload
// puts libghost.so into the ranks.
func openMPIRun(t *testing.T, prog string, preload bool) result {
	t.Helper()
	args := []string{"--oversubscribe", "-n", "2"}
	if os.Geteuid() == 0 {
		args = append(args, "--allow-run-as-root") // CI runs as root
	}
	if preload {
		args = append(args, "-x", "LD_PRELOAD="+filepath.Join(buildDir, "libghost.so"))
	}
	return execute(t, job{timeout: 60 * time.Second}, "mpirun.openmpi", append(args, prog, "2", "2")...)
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
		if r := openMPIRun(t, prog, false); r.code != 0 {
			t.Fatalf("plain Open MPI run failed:\n%s", r)
		}
	})
	t.Run("ghost-run", func(t *testing.T) {
		start := time.Now()
		r := ghostRun(t, job{users: 2, args: []string{prog, "2", "2"}})
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
			Errors []string
		}
		if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
			t.Fatalf("doctor --json printed no JSON document: %v\n%s", err, r)
		}
		p := doc.MPI.Program
		if r.code != 1 || p.ABI != "Open MPI" || p.OK || !strings.Contains(p.Verdict, "libmpi.so.40") {
			t.Errorf("doctor on an Open MPI program: exit %d, program %+v; want exit 1 and an Open MPI verdict", r.code, p)
		}
	})
	t.Run("mpi4py", func(t *testing.T) {
		// Debian's python3-mpi4py is built on Open MPI; python3 itself
		// links no MPI, so ghost run reads the script and mpi4py's module.
		const python = "/usr/bin/python3"
		if err := exec.Command(python, "-c", "import mpi4py").Run(); err != nil {
			t.Skipf("%s has no mpi4py (python3-mpi4py, which make deps and .ci/run install)", python)
		}
		app := filepath.Join(t.TempDir(), "app.py")
		if err := os.WriteFile(app, []byte("from mpi4py import MPI\nprint(MPI.COMM_WORLD.Get_rank())\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		r := ghostRun(t, job{users: 2, args: []string{python, app}})
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
		r := openMPIRun(t, prog, true)
		if r.code == 0 {
			t.Fatalf("the preloaded run succeeded:\n%s", r)
		}
		check(t, r, "ghost: error: ")
	})
}
