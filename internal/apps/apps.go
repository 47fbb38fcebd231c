// Package apps knows the real applications Ghost is judged by, as Debian
// installs them: where NWChem, ARMCI-MPI and OpenCoarrays live, how to
// build our programs against them, and how to read their results. The
// application tests (test/apps_test.go) and the application benchmark
// (bench -suite apps) both use it, so that both judge a run the same way.
package apps

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// Where the Debian packages put what is needed. The MPICH flavours are named
// explicitly: installing nwchem-mpich pulls in Open MPI, which may take over
// the plain mpicc/mpif90/mpirun names.
const (
	NWChemBin    = "/usr/bin/nwchem.mpich"                                                       // nwchem-mpich
	ARMCILib     = "/usr/lib/x86_64-linux-gnu/libarmci-mpich.a"                                  // libarmci-mpi-dev
	ARMCIHeader  = "/usr/include/armci.h"                                                        // libarmci-mpi-dev
	CafTestDir   = "/usr/lib/x86_64-linux-gnu/open-coarrays/mpich/bin/OpenCoarrays-2.10.1-tests" // libcoarrays-mpich-dev
	CafCompiler  = "caf.mpich"                                                                   // libcoarrays-mpich-dev
	MpiccMPICH   = "mpicc.mpich"
	MpiexecMPICH = "mpiexec.hydra"
)

// MPI is one MPI's build of the applications, as Debian installs it:
// Ghost's clients come built for MPICH and for Open MPI (issue 17).
type MPI struct {
	Name       string // MPICH or Open MPI
	Mpicc      string // compiles our C programs
	ARMCILib   string // ARMCI-MPI's static library for this MPI
	Caf        string // OpenCoarrays' compiler wrapper
	CafFlags   []string
	CafTestDir string // OpenCoarrays' shipped tests, built for this MPI
	NWChem     string
	Launcher   string // the MPI's own launcher, for runs without Ghost
	BinPrefix  string // our programs' binaries are named BinPrefix + source name
}

// MPICH is what the application tests ran on first: Debian's -mpich
// packages.
var MPICH = MPI{Name: "MPICH", Mpicc: MpiccMPICH, ARMCILib: ARMCILib, Caf: CafCompiler, CafTestDir: CafTestDir,
	NWChem: NWChemBin, Launcher: MpiexecMPICH, BinPrefix: "apps_"}

// OpenMPI is Debian's Open MPI build of the same applications:
// nwchem-openmpi, libarmci-mpi-dev's libarmci-openmpi.a and
// libcoarrays-openmpi-dev. caf.openmpi needs Open MPI's library directory
// first: its mpif90.openmpi links -lmpi from the default path, which the
// mpi alternative may point at MPICH (docs/openmpi.md, mixed binaries).
var OpenMPI = MPI{Name: "Open MPI", Mpicc: "mpicc.openmpi",
	ARMCILib: "/usr/lib/x86_64-linux-gnu/libarmci-openmpi.a",
	Caf:      "caf.openmpi", CafFlags: []string{"-L/usr/lib/x86_64-linux-gnu/openmpi/lib"},
	CafTestDir: "/usr/lib/x86_64-linux-gnu/open-coarrays/openmpi/bin/OpenCoarrays-2.10.1-tests",
	NWChem:     "/usr/bin/nwchem.openmpi", Launcher: "mpirun.openmpi", BinPrefix: "apps_openmpi_"}

// Missing names the first of paths (files) and tools (commands on PATH)
// that is not there, "" when all are.
func Missing(paths, tools []string) string {
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil {
			return p
		}
	}
	for _, t := range tools {
		if _, err := exec.LookPath(t); err != nil {
			return t
		}
	}
	return ""
}

// EnergyTol is how closely an NWChem energy must agree with its reference,
// in Hartree.
const EnergyTol = 1e-8

// NWChemReference holds the total energies of the inputs in test/apps/nwchem,
// as plain MPICH with MPIR_CVAR_NOLOCAL=1 computes them with 2 ranks (every
// other correct configuration agrees to 1e-11).
var NWChemReference = map[string]float64{
	"water_scf":   -75.983831121469,
	"water_dft":   -76.408740814195,
	"ethanol_scf": -154.074057197907,
	"ethanol_dft": -155.032962340348,
}

var nwchemEnergy = regexp.MustCompile(`Total (?:SCF|DFT) energy =\s+(-?\d+\.\d+)`)

// Energy returns the last total energy NWChem printed.
func Energy(stdout string) (float64, bool) {
	ms := nwchemEnergy.FindAllStringSubmatch(stdout, -1)
	if len(ms) == 0 {
		return 0, false
	}
	e, err := strconv.ParseFloat(ms[len(ms)-1][1], 64)
	return e, err == nil
}

var nwchemProcs = regexp.MustCompile(`(?m)^\s*nproc\s*=\s*(\d+)`)

// NWChemProcs is the process count NWChem reports it runs on (0: not
// found).
func NWChemProcs(stdout string) int {
	m := nwchemProcs.FindStringSubmatch(stdout)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

var summaryLine = regexp.MustCompile(`(?m)^rank (\d+) of (\d+): (\d+) checks, (\d+) failed$`)

// Checks reads the summary lines of a self-checking program (the contract
// of test/programs/check.h): the world size they name, how many ranks
// reported checks, and how many checks failed over all of them.
func Checks(stdout string) (size, ranks, failed int) {
	seen := map[int]bool{}
	for _, m := range summaryLine.FindAllStringSubmatch(stdout, -1) {
		rank, _ := strconv.Atoi(m[1])
		n, _ := strconv.Atoi(m[2])
		checks, _ := strconv.Atoi(m[3])
		f, _ := strconv.Atoi(m[4])
		failed += f
		if checks > 0 {
			seen[rank] = true
		}
		size = n
	}
	return size, len(seen), failed
}

var cafPassed = regexp.MustCompile(`(?i)test passed`)

// CafPassed says whether an OpenCoarrays test reported success ("Test
// passed." for almost all; coarray_distributed_transpose prints "test
// passed:").
func CafPassed(output string) bool { return cafPassed.MatchString(output) }

var eventAsync = regexp.MustCompile(`posts_completed_while_targets_computed=([01])`)

// EventPostsAsync reads test/apps/coarray/event_compute's verdict: whether
// image 1's posts completed while their targets computed (found reports
// that the line was there).
func EventPostsAsync(stdout string) (async, found bool) {
	m := eventAsync.FindStringSubmatch(stdout)
	return m != nil && m[1] == "1", m != nil
}

var mpi4pyAsync = regexp.MustCompile(`mpi4py: ops_completed_while_target_computed=([01])`)

// Mpi4pyOpsAsync reads test/apps/mpi4py/win_compute.py's verdict: whether
// the origins' accumulates and fetch-and-ops completed while the target
// computed (found reports that the line was there).
func Mpi4pyOpsAsync(stdout string) (async, found bool) {
	m := mpi4pyAsync.FindStringSubmatch(stdout)
	return m != nil && m[1] == "1", m != nil
}

// BinName is the file name Build gives the binary of src: apps_ and the
// source's name without its extension (MPICH's build).
func BinName(src string) string { return MPICH.BinName(src) }

// BinName is the file name m.Build gives the binary of src: m.BinPrefix
// and the source's name without its extension.
func (m MPI) BinName(src string) string {
	return m.BinPrefix + strings.TrimSuffix(filepath.Base(src), filepath.Ext(src))
}

// Build compiles one of our application programs for MPICH (MPICH.Build).
func Build(src, dir string) (string, error) { return MPICH.Build(src, dir) }

// Build compiles one of our application programs for m: C with m's mpicc
// and ARMCI-MPI's static library for m, Fortran with m's caf. The binary
// goes to dir, named m.BinName(src); Fortran's .mod files stay in dir too.
func (m MPI) Build(src, dir string) (string, error) {
	src, err := filepath.Abs(src)
	if err != nil {
		return "", err
	}
	ext := filepath.Ext(src)
	bin := filepath.Join(dir, m.BinName(src))
	var cmd *exec.Cmd
	switch ext {
	case ".c":
		cmd = exec.Command(m.Mpicc, "-O2", "-Wall", "-I"+filepath.Dir(src), "-o", bin, src, m.ARMCILib)
	case ".f90":
		cmd = exec.Command(m.Caf, append([]string{"-O2", "-o", bin, src}, m.CafFlags...)...)
	default:
		return "", fmt.Errorf("%s: unknown language", src)
	}
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, out)
	}
	return bin, nil
}
