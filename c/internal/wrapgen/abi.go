package wrapgen

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// ABI is one MPI implementation whose headers Ghost is built against. Each
// has its own pair of generated files in c/, compiled only into the
// library built for it (the build tag in their first line).
type ABI struct {
	Name string // as people say it, for messages
	// Tag is the Go build tag that selects this ABI's library; the MPICH
	// library is the default build, so its files carry the negation.
	Tag        string
	Constraint string // the //go:build line of the generated C file
	// Headers, relative to the include directory, whose prototypes are
	// wrapped; the first must exist there for the directory to count.
	Headers []string
	// Probes print compiler flags; the first -I directory that holds
	// Headers[0] (and Marker, when set) is the include directory.
	Probes [][]string
	Marker string
	// OmitBlocks are #if conditions (exact text after "#if") whose blocks
	// the installed library does not define, though the header declares
	// them for builds configured otherwise.
	OmitBlocks []string
	// Install names the packages that provide the headers.
	Install string
	// WrappersFile and RealFile are the outputs, relative to c/.
	WrappersFile, RealFile string
}

// MPICH is the default ABI: libghost.so.
var MPICH = ABI{
	Name:         "MPICH",
	Tag:          "openmpi",
	Constraint:   "//go:build !openmpi",
	Headers:      []string{"mpi_proto.h", "mpio.h"}, // mpio.h carries MPI_File_open
	Probes:       [][]string{{"mpicc.mpich", "-show"}, {"mpicc", "-show"}, {"pkg-config", "--cflags", "mpich"}},
	Install:      "libmpich-dev",
	WrappersFile: "zwrappers.c",
	RealFile:     "zreal.h",
}

// OpenMPI is Open MPI's ABI: libghost-openmpi.so, built with -tags openmpi.
// Its mpi.h holds every prototype, the MPI-IO ones included; the MPI-1
// functions that MPI-3 removed are declared only for a library configured
// with --enable-mpi1-compatibility, which Debian's is not
// (OMPI_ENABLE_MPI1_COMPAT 0), so they are left out.
var OpenMPI = ABI{
	Name:         "Open MPI",
	Tag:          "openmpi",
	Constraint:   "//go:build openmpi",
	Headers:      []string{"mpi.h"},
	Probes:       [][]string{{"mpicc.openmpi", "-showme:compile"}, {"pkg-config", "--cflags", "ompi-c"}},
	Marker:       "mpi_portable_platform.h",
	OmitBlocks:   []string{"(!OMPI_OMIT_MPI1_COMPAT_DECLS || OMPI_BUILDING)"},
	Install:      "libopenmpi-dev",
	WrappersFile: "zwrappers_openmpi.c",
	RealFile:     "zreal_openmpi.h",
}

// ABIs are every ABI Ghost is built for, in the order `go generate` writes them.
var ABIs = []ABI{MPICH, OpenMPI}

// IncludeDir finds the ABI's include directory from its compiler wrapper,
// the way the build does, falling back to pkg-config.
func (a ABI) IncludeDir() (string, error) {
	var tries []string
	for _, cmd := range a.Probes {
		out, err := exec.Command(cmd[0], cmd[1:]...).Output()
		if err != nil {
			tries = append(tries, fmt.Sprintf("%s: %v", strings.Join(cmd, " "), err))
			continue
		}
		for _, f := range strings.Fields(string(out)) {
			dir, ok := strings.CutPrefix(f, "-I")
			if !ok || !exists(filepath.Join(dir, a.Headers[0])) || (a.Marker != "" && !exists(filepath.Join(dir, a.Marker))) {
				continue
			}
			return dir, nil
		}
		tries = append(tries, fmt.Sprintf("%s: no -I directory holds %s", strings.Join(cmd, " "), a.Headers[0]))
	}
	return "", fmt.Errorf("cannot find %s's headers (install %s): %s", a.Name, a.Install, strings.Join(tries, "; "))
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// LoadInstalled parses the ABI's installed headers and returns every
// prototype the installed library declares.
func (a ABI) LoadInstalled() ([]Proto, error) {
	dir, err := a.IncludeDir()
	if err != nil {
		return nil, err
	}
	var all []Proto
	for _, name := range a.Headers {
		text, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return nil, err
		}
		protos, err := ParseHeader(omitBlocks(string(text), a.OmitBlocks))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		all = append(all, protos...)
	}
	return all, nil
}

// omitBlocks removes from a header the lines inside every #if whose
// condition is one of conds, up to its matching #endif (#else branches
// included: none of the omitted blocks has one that declares functions).
func omitBlocks(text string, conds []string) string {
	if len(conds) == 0 {
		return text
	}
	var b strings.Builder
	depth := 0 // nesting inside an omitted block; 0 outside
	for _, line := range strings.SplitAfter(text, "\n") {
		directive := strings.Fields(strings.TrimPrefix(strings.TrimSpace(line), "#"))
		isDirective := strings.HasPrefix(strings.TrimSpace(line), "#") && len(directive) > 0
		switch {
		case depth > 0 && isDirective && strings.HasPrefix(directive[0], "if"):
			depth++
		case depth > 0 && isDirective && directive[0] == "endif":
			depth--
		case depth > 0:
		case isDirective && directive[0] == "if" && omitted(line, conds):
			depth = 1
		default:
			b.WriteString(line)
		}
	}
	return b.String()
}

func omitted(line string, conds []string) bool {
	cond := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "#")), "if"))
	for _, c := range conds {
		if cond == c {
			return true
		}
	}
	return false
}
