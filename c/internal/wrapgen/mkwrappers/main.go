// Command mkwrappers regenerates c/zwrappers.c and c/zreal.h from the installed MPI
// headers. It is run by `go generate ./c`.
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
	protos, err := wrapgen.LoadInstalled()
	if err != nil {
		fmt.Fprintln(os.Stderr, "mkwrappers:", err)
		os.Exit(1)
	}
	files, err := wrapgen.Generate(protos)
	if err != nil {
		fmt.Fprintln(os.Stderr, "mkwrappers:", err)
		os.Exit(1)
	}
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(*dir, name), src, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "mkwrappers:", err)
			os.Exit(1)
		}
	}
}
