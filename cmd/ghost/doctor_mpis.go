package main

// The MPIs section of `ghost doctor`: each MPI family ghost run can start
// programs of (MPICH through hydra, Open MPI through mpirun), whether it
// is installed, which of Ghost's libraries goes with it, and whether a
// job runs under Ghost there (docs/doctor.md).

import (
	"fmt"
	"os"
	"os/exec"
	"time"

	"github.com/ghost-mpi/ghost/internal/mpiprog"
)

// MPIInstall is one MPI family on this machine and Ghost's library for it.
type MPIInstall struct {
	Family    string `json:"family"` // MPICH or Open MPI
	Installed bool   `json:"installed"`
	// Launcher is the one ghost run would use for this family's programs.
	Launcher string `json:"launcher"`
	Version  string `json:"version"`
	// Library is the family's MPI library as the loader finds it.
	Library Soname `json:"library"`
	// GhostLibrary is Ghost's library for this ABI; nil when not found.
	GhostLibrary *GhostLib `json:"ghost_library"`
	// Progress is the probe run with this family; for MPICH it is the
	// report's own progress section, not repeated here.
	Progress *ProgressReport `json:"progress,omitempty"`
	// Works: a job ran under Ghost with this MPI (the probe's Ghost run);
	// null when that was not tried.
	Works   *bool  `json:"works"`
	Verdict string `json:"verdict"`
}

// openMPISoname is the library of Open MPI 3.0 and later.
const openMPISoname = "libmpi.so.40"

// mpiInstalls reports MPICH from the sections already gathered (r.MPI,
// r.Progress) and looks at Open MPI, running the probe with it when
// probe is set. exe is the ghost binary (mpirun's agent, the libraries'
// place).
func mpiInstalls(r *Report, o doctorOptions, exe string, probe bool) []MPIInstall {
	mpich := MPIInstall{Family: mpichABI.Family, Launcher: r.MPI.Mpiexec, Version: r.MPI.Version,
		Library: r.MPI.Library, GhostLibrary: r.MPI.Libghost}
	mpich.Installed = mpich.Launcher != "" && mpich.Library.Path != "" && r.MPI.Launcher == "hydra"
	if g := r.Progress.Ghost; g != nil {
		works := g.Error == ""
		mpich.Works = &works
	}
	mpich.Verdict = installVerdict(mpich, mpichABI)

	om := MPIInstall{Family: openMPIABI.Family, Library: Soname{Name: openMPISoname, Path: resolveSoname(openMPISoname)}}
	mpirun, err := findMpirun(os.Getenv, exec.LookPath)
	if err == nil {
		om.Launcher = mpirun
		out, _ := mpiprog.Run([]string{mpirun, "--version"}, nil, 10*time.Second)
		if _, vendor, version := parseLauncherVersion(string(out)); vendor == openMPIABI.Family {
			om.Version = version
		}
	}
	om.Installed = om.Launcher != "" && om.Library.Path != "" && om.Version != ""
	if lib, err := findLibraryFor(openMPIABI, os.Getenv, exe); err == nil {
		g := &GhostLib{Path: lib, Needed: []string{}}
		if needed, err := neededLibs(lib); err == nil {
			g.Needed = needed
		}
		g.BuiltFor = abiMarker(lib)
		checkLibghost(g, openMPIABI.Family, om.Version)
		om.GhostLibrary = g
		if om.Installed && !g.Matches {
			r.fail("%s: %s", openMPIABI.LibName, g.Verdict)
		}
	}
	if om.Installed && probe {
		om.Progress = &ProgressReport{ComputeSeconds: o.compute}
		root := os.Geteuid() == 0
		plain := func(probe []string) []string {
			cmd := []string{mpirun, "--oversubscribe", "-n", "2", "-x", "LD_PRELOAD="}
			if root {
				cmd = append(cmd, "--allow-run-as-root")
			}
			return append(cmd, probe...)
		}
		var ghost func([]string) ([]string, error)
		if g := om.GhostLibrary; g != nil && g.Matches {
			ghost = func(probe []string) ([]string, error) {
				return mpirunCommand(runOptions{users: 2, ghosts: max(o.ghosts, 1), program: probe}, mpirun, g.Path, exe, nil, root)
			}
		}
		for _, w := range runProgressProbe(om.Progress, o, []string{"mpicc.openmpi"}, plain, ghost) {
			r.warn("Open MPI: %s", w)
		}
		if g := om.Progress.Ghost; g != nil {
			works := g.Error == ""
			om.Works = &works
		}
	}
	om.Verdict = installVerdict(om, openMPIABI)
	return []MPIInstall{mpich, om}
}

// installVerdict words the state of one family, whose library is abi's.
func installVerdict(m MPIInstall, abi ghostABI) string {
	switch {
	case !m.Installed:
		return fmt.Sprintf("not installed (no %s launcher or no %s found): ghost run cannot start %s programs here", m.Family, m.Library.Name, m.Family)
	case m.GhostLibrary == nil:
		return fmt.Sprintf("installed; %s not found: ghost run refuses %s programs (build it with make, or set %s)", abi.LibName, m.Family, abi.LibVar)
	case !m.GhostLibrary.Matches:
		return fmt.Sprintf("installed; %s does not match: %s", abi.LibName, m.GhostLibrary.Verdict)
	case m.Works == nil:
		return fmt.Sprintf("installed; %s programs run with %s (not probed)", m.Family, abi.LibName)
	case *m.Works:
		return fmt.Sprintf("installed; %s programs run with %s: the probe ran under Ghost", m.Family, abi.LibName)
	}
	return fmt.Sprintf("installed; %s programs get %s, but the probe failed under Ghost (see the warnings)", m.Family, abi.LibName)
}
