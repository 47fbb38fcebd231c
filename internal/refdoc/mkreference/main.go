// Command mkreference rewrites the generated tables of docs/reference.md
// (package refdoc). It is run by `go generate ./internal/refdoc`.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/ghost-mpi/ghost/internal/refdoc"
)

func main() {
	doc := flag.String("doc", "docs/reference.md", "the reference page to rewrite")
	flag.Parse()
	if err := refdoc.RenderFile(*doc); err != nil {
		fmt.Fprintln(os.Stderr, "mkreference:", err)
		os.Exit(1)
	}
}
