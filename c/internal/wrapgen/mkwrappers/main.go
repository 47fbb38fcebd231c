// Command mkwrappers regenerates the wrappers and real-function pointers of
// every ABI Ghost is built for (c/zwrappers.c and c/zreal.h for MPICH,
// c/zwrappers_openmpi.c and c/zreal_openmpi.h for Open MPI) from the
// installed MPI headers. It is run by `go generate ./c`.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ghost-mpi/ghost/c/internal/wrapgen"
)

func main() {
	dir := flag.String("dir", ".", "directory to write the generated files into (c/)")
	flag.Parse()
	for _, abi := range wrapgen.ABIs {
		if err := generate(abi, *dir); err != nil {
			fmt.Fprintf(os.Stderr, "mkwrappers: %s: %v\n", abi.Name, err)
			os.Exit(1)
		}
	}
}

func generate(abi wrapgen.ABI, dir string) error {
	protos, err := abi.LoadInstalled()
	if err != nil {
		return err
	}
	files, err := wrapgen.Generate(abi, protos)
	if err != nil {
		return err
	}
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), src, 0o644); err != nil {
			return err
		}
	}
	return nil
}
