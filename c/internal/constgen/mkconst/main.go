// Command mkconst regenerates c/zconst.h and internal/metrics/zlabels.go
// from their one definition (package constgen). It is run by
// `go generate ./c`.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/ghost-mpi/ghost/c/internal/constgen"
)

func main() {
	root := flag.String("root", "..", "the repository root, under which the generated files are written")
	flag.Parse()
	if err := constgen.WriteAll(*root); err != nil {
		fmt.Fprintln(os.Stderr, "mkconst:", err)
		os.Exit(1)
	}
}
