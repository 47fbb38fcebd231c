package constgen

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// root is the repository root, relative to this package.
var root = filepath.Join("..", "..", "..")

// The committed c/zconst.h and internal/metrics/zlabels.go must equal what
// the generator writes: run `make generate` after changing a definition.
func TestGeneratedFilesUpToDate(t *testing.T) {
	tmp := t.TempDir()
	if err := WriteAll(tmp); err != nil {
		t.Fatal(err)
	}
	files, err := Generate()
	if err != nil {
		t.Fatal(err)
	}
	for name := range files {
		want, err := os.ReadFile(filepath.Join(tmp, name))
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("%s is stale: run `make generate` and commit the result", name)
		}
	}
}

var cDefine = regexp.MustCompile(`(?m)^\s*#\s*define\s+([A-Za-z_][A-Za-z0-9_]*)\s+([^\s/]+)`)
var cEnumerator = regexp.MustCompile(`\bGHOST_[A-Z0-9_]+\s*[,=}]`)

// No hand-written C file defines a generated macro or enumerator with a
// value of its own. c/win.c still repeats `#define SEGMENT_ALIGN 64`, which
// C allows only with the same value; this keeps it so until the line goes.
func TestNoSecondDefinitionInC(t *testing.T) {
	generated := map[string]string{}
	for _, d := range Defines {
		generated[d.C] = strconv.Itoa(d.Value)
	}
	enumerators := map[string]bool{}
	for _, e := range Enums {
		for _, m := range e.Members {
			enumerators["GHOST_"+e.Prefix+m.C] = true
		}
		if e.CCount != "" {
			enumerators[e.CCount] = true
		}
	}
	paths, err := filepath.Glob(filepath.Join(root, "c", "*.[ch]"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no C sources under c/: %v", err)
	}
	for _, p := range paths {
		if filepath.Base(p) == filepath.Base(HeaderFile) {
			continue
		}
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range cDefine.FindAllStringSubmatch(string(src), -1) {
			if want, ok := generated[m[1]]; ok && m[2] != want {
				t.Errorf("%s defines %s as %s; it is %s in %s (from Go): remove the definition", filepath.Base(p), m[1], m[2], want, HeaderFile)
			}
		}
		// An enumerator is declared where it is followed by ',', '=' or '}'
		// inside an enum; uses are followed by anything else.
		for _, body := range enumBodies(string(src)) {
			for _, m := range cEnumerator.FindAllString(body, -1) {
				name := strings.TrimRight(m, " \t\n,=}")
				if enumerators[name] {
					t.Errorf("%s declares %s again; it is generated in %s", filepath.Base(p), name, HeaderFile)
				}
			}
		}
	}
}

// enumBodies returns the text between the braces of every enum in src.
func enumBodies(src string) []string {
	var bodies []string
	for {
		i := regexp.MustCompile(`\benum\b[^{;]*\{`).FindStringIndex(src)
		if i == nil {
			return bodies
		}
		src = src[i[1]:]
		end := strings.IndexByte(src, '}')
		if end < 0 {
			return bodies
		}
		bodies = append(bodies, src[:end+1])
		src = src[end+1:]
	}
}

func TestEnumBodies(t *testing.T) {
	got := enumBodies("enum { A, B };\nint x; enum e {C = 1} y; /* enum */")
	if len(got) != 2 || got[0] != " A, B }" || got[1] != "C = 1}" {
		t.Errorf("enumBodies = %q", got)
	}
}

// Every name is unique where the languages require it: enumerators in C,
// label values within a label (Prometheus would merge two series), Go
// identifiers in package metrics.
func TestDefinitionsAreUnique(t *testing.T) {
	cNames := map[string]bool{}
	goNames := map[string]bool{}
	add := func(seen map[string]bool, name string) {
		if seen[name] {
			t.Errorf("%s is defined twice", name)
		}
		seen[name] = true
	}
	for _, d := range Defines {
		add(cNames, d.C)
	}
	for _, e := range Enums {
		goSides := 0
		for _, s := range []string{e.Labels, e.GoType, e.From} {
			if s != "" {
				goSides++
			}
		}
		if goSides != 1 {
			t.Errorf("enum GHOST_%s*: give it one of Labels, GoType or From", e.Prefix)
		}
		labels := map[string]bool{}
		for _, m := range e.Members {
			add(cNames, "GHOST_"+e.Prefix+m.C)
			if e.From == "" {
				add(labels, m.Label)
			}
			if e.GoType != "" {
				add(goNames, m.Label)
			}
		}
		if e.CCount != "" {
			add(cNames, e.CCount)
		}
		if e.Labels != "" {
			add(goNames, e.Labels)
			add(goNames, e.GoCount)
		}
	}
}
