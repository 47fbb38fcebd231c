package main

// Programs built on one machine and run on another: a machine lent for a
// scaling run may have MPICH's runtime but no mpicc, caf or ARMCI-MPI's
// headers. `-prebuild DIR` compiles every program the selected suites run
// into DIR (with the compilers of the machine it runs on) and stops;
// `-prebuilt DIR` then runs those binaries and compiles nothing.

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/ghost-mpi/ghost/internal/apps"
	"github.com/ghost-mpi/ghost/internal/mpiprog"
)

// builder compiles the programs the suites run, or, with prebuilt set,
// finds them where -prebuild left them.
type builder struct {
	mpicc    string
	prebuilt string
}

func (o options) builder() builder { return builder{mpicc: o.mpicc, prebuilt: o.prebuilt} }

// bench compiles a benchmark program (bench/programs) into dir.
func (b builder) bench(src, dir string) (string, error) {
	if b.prebuilt != "" {
		return b.find(mpiprog.ExeName(src), src)
	}
	return mpiprog.Build(b.mpicc, src, dir)
}

// app compiles one of our application programs (test/apps) for mpi into
// dir.
func (b builder) app(mpi apps.MPI, src, dir string) (string, error) {
	if b.prebuilt != "" {
		return b.find(mpi.BinName(src), src)
	}
	return mpi.Build(src, dir)
}

func (b builder) find(name, src string) (string, error) {
	exe, err := filepath.Abs(filepath.Join(b.prebuilt, name))
	if err != nil {
		return "", err
	}
	if st, err := os.Stat(exe); err != nil || st.IsDir() {
		return "", fmt.Errorf("-prebuilt %s: no executable %s for %s (make it with -prebuild %s)", b.prebuilt, name, src, b.prebuilt)
	}
	return exe, nil
}

// prebuild compiles into o.prebuild the program of every selected suite and
// every application program of their workloads, and lists what it wrote.
func prebuild(o options) error {
	selected, err := findSuites(o.suites)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(o.prebuild, 0o755); err != nil {
		return err
	}
	b := builder{mpicc: o.mpicc}
	for _, s := range selected {
		var exes []string
		if s.Program != "" {
			exe, err := b.bench(filepath.Join(o.programs, s.Program), o.prebuild)
			if err != nil {
				return fmt.Errorf("%s: %v", s.Name, err)
			}
			exes = append(exes, exe)
		}
		for _, w := range s.Workloads {
			if w.OpenMPIOnly {
				continue // nothing of ours to build
			}
			argv, _, err := w.Setup(b, o.prebuild, apps.MPICH)
			if err != nil {
				return fmt.Errorf("%s: %s: %v", s.Name, w.Name, err)
			}
			// Workloads of installed applications build nothing: their
			// program lives outside DIR.
			if filepath.Dir(argv[0]) == filepath.Clean(o.prebuild) {
				exes = append(exes, argv[0])
			}
		}
		for _, e := range exes {
			fmt.Fprintf(os.Stderr, "bench: %s: built %s\n", s.Name, e)
		}
	}
	return nil
}
