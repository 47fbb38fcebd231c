// Package wrapgen reads the prototypes of an installed MPI (MPICH's
// mpi_proto.h and mpio.h, or Open MPI's mpi.h: see ABI) and writes the C
// wrappers that swap MPI_COMM_WORLD for the user world before calling the
// PMPI_ entry point.
package wrapgen

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/ghost-mpi/ghost/internal/textsplit"
)

// Param is one formal parameter of a prototype.
type Param struct {
	Type string // C type with any array suffix moved into it, e.g. "const int []"
	Name string
	Decl string // the declaration as written, normalised to single spaces
}

// Proto is one MPI function prototype.
type Proto struct {
	Ret      string
	Name     string
	Params   []Param
	Variadic bool // ends in "...", which a wrapper cannot forward
}

// CommParams returns the indexes of parameters passed as an MPI_Comm by
// value. Only those can carry MPI_COMM_WORLD into the library: MPI_Comm*
// parameters are outputs or in/out handles (Comm_free, Comm_disconnect) and
// must reach MPI untouched so that freeing the world stays an error.
func (p Proto) CommParams() []int {
	var idx []int
	for i, prm := range p.Params {
		if prm.Type == "MPI_Comm" {
			idx = append(idx, i)
		}
	}
	return idx
}

// TakesComm reports whether the prototype has at least one MPI_Comm
// parameter passed by value.
func (p Proto) TakesComm() bool { return len(p.CommParams()) > 0 }

// Converts reports whether the function converts a handle to its Fortran
// form (MPI_Comm_c2f: a function in Open MPI, a macro in MPICH). Such a
// function is not wrapped: the Fortran form of MPI_COMM_WORLD must stay the
// world's, which converts back to the C world, which the wrappers swap.
func (p Proto) Converts() bool { return strings.HasSuffix(p.Name, "_c2f") }

// Translates reports whether the function turns a Fortran handle into its
// C form (MPI_Info_f2c): a macro in MPICH, though its headers declare some
// of them for other configurations, and no call Ghost needs a pointer for.
func (p Proto) Translates() bool { return strings.HasSuffix(p.Name, "_f2c") }

var (
	// Attribute macros of either vendor. Open MPI's deprecation notes are
	// strings that may hold semicolons, so these go before the split into
	// statements.
	attrMacro  = regexp.MustCompile(`\b(MPICH_API_PUBLIC|ROMIO_API_PUBLIC|OMPI_DECLSPEC)\b|MPICH_ATTR_POINTER_WITH_TYPE_TAG\([^)]*\)|__mpi_interface_(?:deprecated|removed)__\((?:"[^"]*"|[^()"])*\)`)
	spaces     = regexp.MustCompile(`\s+`)
	protoShape = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_ \*]*?)\s*\b((?:P?MPIX?)_[A-Za-z0-9_]+)\s*\((.*)\)$`)
	identTail  = regexp.MustCompile(`([A-Za-z_][A-Za-z0-9_]*)\s*((?:\[\s*[0-9]*\s*\]\s*)*)$`)
)

// ParseHeader extracts every prototype from a C header text. Comments and
// preprocessor lines are dropped; statements are split at semicolons.
func ParseHeader(text string) ([]Proto, error) {
	text = stripComments(text)
	var b strings.Builder
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	var protos []Proto
	for _, stmt := range strings.Split(attrMacro.ReplaceAllString(b.String(), " "), ";") {
		stmt = strings.TrimSpace(spaces.ReplaceAllString(stmt, " "))
		// Keep the trailing parameter list only: declarations of other kinds
		// (typedefs, externs) either do not match or are filtered below.
		if strings.HasPrefix(stmt, "typedef") || strings.HasPrefix(stmt, "extern") {
			continue
		}
		// A statement may start with leftovers such as "} " or "extern \"C\" {".
		if i := strings.LastIndexAny(stmt, "{}"); i >= 0 {
			stmt = strings.TrimSpace(stmt[i+1:])
		}
		m := protoShape.FindStringSubmatch(stmt)
		if m == nil {
			continue
		}
		p := Proto{Ret: strings.TrimSpace(m[1]), Name: m[2]}
		params, variadic, err := parseParams(m[3])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p.Name, err)
		}
		p.Params, p.Variadic = params, variadic
		protos = append(protos, p)
	}
	return protos, nil
}

func parseParams(list string) (params []Param, variadic bool, err error) {
	list = strings.TrimSpace(list)
	if list == "" || list == "void" {
		return nil, false, nil
	}
	for _, raw := range textsplit.SplitOutside(list, '(', ')') {
		raw = strings.TrimSpace(raw)
		if raw == "..." {
			variadic = true
			continue
		}
		m := identTail.FindStringSubmatchIndex(raw)
		if m == nil { // ends in '*': an unnamed pointer parameter
			params = append(params, Param{Type: raw, Decl: raw})
			continue
		}
		name := raw[m[2]:m[3]]
		arr := strings.ReplaceAll(raw[m[4]:m[5]], " ", "")
		typ := strings.TrimSpace(raw[:m[2]])
		if typ == "" || typ == "const" || isTypeName(name) {
			// An unnamed parameter, as in mpio.h's PMPI_ declarations.
			params = append(params, Param{Type: raw, Decl: raw})
			continue
		}
		if arr != "" {
			typ += " " + arr
		}
		params = append(params, Param{Type: typ, Name: name, Decl: raw})
	}
	return params, variadic, nil
}

// isTypeName reports whether an identifier names a type rather than a
// parameter, which happens only in unnamed declarations.
func isTypeName(id string) bool {
	switch id {
	case "int", "char", "void", "double", "float", "long", "short", "unsigned":
		return true
	}
	return strings.HasPrefix(id, "MPI_") || strings.HasPrefix(id, "MPIX_")
}

func stripComments(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		switch {
		case strings.HasPrefix(s[i:], "/*"):
			end := strings.Index(s[i+2:], "*/")
			if end < 0 {
				return b.String()
			}
			i += end + 4
			b.WriteByte(' ')
		case strings.HasPrefix(s[i:], "//"):
			end := strings.IndexByte(s[i:], '\n')
			if end < 0 {
				return b.String()
			}
			i += end
		default:
			b.WriteByte(s[i])
			i++
		}
	}
	return b.String()
}

// Wrappable selects the MPI_ and MPIX_ prototypes that take a communicator by
// value and have a PMPI counterpart declared in the same headers. The result
// is sorted by name so that the generated file is stable.
func Wrappable(protos []Proto) []Proto {
	return selectMPI(protos, func(p Proto) bool { return p.TakesComm() && !p.Converts() })
}

// LocalCalls selects the local calls (Local) the headers declare. Each gets
// a real-function pointer, wrapped or not: Ghost's own code calls the
// unwrapped ones through it. Handle conversions (_c2f, _f2c) are left out:
// MPICH makes them macros.
func LocalCalls(protos []Proto) []Proto {
	return selectMPI(protos, func(p Proto) bool { return Local(p.Name) && !p.Converts() && !p.Translates() })
}

// Timed selects the other MPI_ and MPIX_ functions, the ones without a
// communicator argument, that a wrapper can forward: int-returning, not
// variadic, named parameters, with a PMPI twin. Their wrappers only time the
// call, so that profiling sees every MPI call that can wait on another
// process or move communication (MPI_Wait as much as MPI_Barrier). Local
// bookkeeping calls (Local) and the tools interface (MPI_T_), which is not
// the application's communication, are left alone.
func Timed(protos []Proto) []Proto {
	return selectMPI(protos, func(p Proto) bool {
		return !strings.HasPrefix(p.Name, "MPI_T_") && !Local(p.Name) && !p.TakesComm() && !p.Variadic &&
			p.Ret == "int" && allNamed(p)
	})
}

// selectMPI keeps the MPI_ and MPIX_ prototypes with a PMPI twin that keep
// accepts, once each, sorted by name.
func selectMPI(protos []Proto, keep func(Proto) bool) []Proto {
	declared := map[string]bool{}
	for _, p := range protos {
		declared[p.Name] = true
	}
	seen := map[string]bool{}
	var out []Proto
	for _, p := range protos {
		if !strings.HasPrefix(p.Name, "MPI_") && !strings.HasPrefix(p.Name, "MPIX_") {
			continue
		}
		if seen[p.Name] || !declared["P"+p.Name] || !keep(p) {
			continue
		}
		seen[p.Name] = true
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func allNamed(p Proto) bool {
	for _, prm := range p.Params {
		if prm.Name == "" {
			return false
		}
	}
	return true
}
