// Command mkwrappers regenerates c/zwrappers.c from the installed MPI
// headers. It is run by `go generate ./c`.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/ghost-mpi/ghost/c/internal/wrapgen"
)

func main() {
	out := flag.String("o", "zwrappers.c", "output file")
	flag.Parse()
	protos, err := wrapgen.LoadInstalled()
	if err != nil {
		fmt.Fprintln(os.Stderr, "mkwrappers:", err)
		os.Exit(1)
	}
	src, err := wrapgen.Generate(protos)
	if err != nil {
		fmt.Fprintln(os.Stderr, "mkwrappers:", err)
		os.Exit(1)
	}
	if err := os.WriteFile(*out, src, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "mkwrappers:", err)
		os.Exit(1)
	}
}
