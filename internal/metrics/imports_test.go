package metrics

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The exporter runs inside a ghost, beside its MPI calls: it must make
// none itself, so this package may not reach C (cgo) or the library's
// packages that do. It only sees the counters through Source.
func TestNoCgoNoShim(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no sources: %v", err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		f, err := parser.ParseFile(fset, name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if path == "C" || path == "unsafe" || strings.HasPrefix(path, "github.com/ghost-mpi/ghost/shim") ||
				path == "github.com/ghost-mpi/ghost/c" {
				t.Errorf("%s imports %q", name, path)
			}
		}
	}
}
