package wrapgen

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
)

// Handwritten lists the comm-taking functions whose wrappers live in
// hand-written C files because they need more than the MPI_COMM_WORLD swap.
// The generator skips them; the coverage test checks that each one is
// defined in c/.
var Handwritten = map[string]string{
	"MPI_Abort":               "aborts the real world so that ghosts end too",
	"MPI_Attr_get":            "predefined attributes live on the real world",
	"MPI_Comm_get_attr":       "predefined attributes live on the real world",
	"MPI_Comm_get_errhandler": "answered from the real world, which holds the user's handle",
	"MPI_Errhandler_get":      "deprecated alias of MPI_Comm_get_errhandler",
	"MPI_Comm_set_errhandler": "mirrored on the real world for errors tied to no object",
	"MPI_Errhandler_set":      "deprecated alias of MPI_Comm_set_errhandler",
	"MPI_Win_allocate":        "builds the node segment and the internal windows through the ghosts",
	"MPI_Win_allocate_c":      "large-count form of MPI_Win_allocate",
	"MPI_Barrier":             "an implicit agreement point of GHOST_ASYNC=auto (c/agree.c)",
}

// Interposed lists the functions without a communicator argument that
// still have hand-written wrappers. They get a real-function pointer like
// every wrapped function.
var Interposed = []string{
	"MPI_Init",
	"MPI_Init_thread",
	"MPI_Finalize",
	"MPI_Comm_create_errhandler",
	// RMA operations (c/rma.c).
	"MPI_Put", "MPI_Put_c", "MPI_Get", "MPI_Get_c",
	"MPI_Rput", "MPI_Rput_c", "MPI_Rget", "MPI_Rget_c",
	"MPI_Accumulate", "MPI_Accumulate_c", "MPI_Raccumulate", "MPI_Raccumulate_c",
	"MPI_Get_accumulate", "MPI_Get_accumulate_c", "MPI_Rget_accumulate", "MPI_Rget_accumulate_c",
	"MPI_Fetch_and_op", "MPI_Compare_and_swap",
	// Synchronization and window objects (c/epoch.c).
	"MPI_Win_lock", "MPI_Win_unlock", "MPI_Win_lock_all", "MPI_Win_unlock_all",
	"MPI_Win_flush", "MPI_Win_flush_all", "MPI_Win_flush_local", "MPI_Win_flush_local_all",
	"MPI_Win_sync", "MPI_Win_fence",
	"MPI_Win_post", "MPI_Win_start", "MPI_Win_complete", "MPI_Win_wait", "MPI_Win_test",
	"MPI_Win_free", "MPI_Win_get_attr", "MPI_Win_get_info", "MPI_Win_set_info",
	"MPI_Win_shared_query", "MPI_Win_shared_query_c",
}

// Generate writes the wrapper source and the header of real-function
// pointers for the given prototypes.
//
// Ghost defines the PMPI_ entry points itself, with the MPI_ names as
// aliases: MPICH's mpi_f08 bindings call PMPI_ directly, and so do tools, so
// interposing MPI_ alone would miss them. The MPICH functions are reached
// through pointers that dlsym(RTLD_NEXT) resolves when the library loads.
//
// A hand-written or interposed function that the headers do not declare at
// all (Open MPI 4.1 has no MPI-4 large-count functions) is left out; the
// hand-written C leaves its definition out the same way (c/abi.h).
func Generate(abi ABI, protos []Proto) (map[string][]byte, error) {
	var wrapped []Proto
	byName := map[string]Proto{}
	for _, p := range protos {
		byName[p.Name] = p
	}
	for _, p := range Wrappable(protos) {
		if _, ok := Handwritten[p.Name]; ok {
			continue
		}
		if p.Variadic {
			return nil, fmt.Errorf("%s is variadic and takes a communicator; it cannot be forwarded", p.Name)
		}
		for _, prm := range p.Params {
			if prm.Name == "" {
				return nil, fmt.Errorf("%s has an unnamed parameter %q; it cannot be forwarded", p.Name, prm.Decl)
			}
		}
		if p.Ret != "int" {
			return nil, fmt.Errorf("%s returns %q; only int-returning functions are supported", p.Name, p.Ret)
		}
		wrapped = append(wrapped, p)
	}
	interposed := map[string]bool{}
	for _, n := range Interposed {
		interposed[n] = true
	}
	for _, p := range Timed(protos) {
		if !interposed[p.Name] {
			wrapped = append(wrapped, p)
		}
	}
	sort.Slice(wrapped, func(i, j int) bool { return wrapped[i].Name < wrapped[j].Name })
	// Every function Ghost defines needs its real twin, and so does every
	// local call it leaves alone: Ghost's own code reaches those through
	// the same pointers, since a direct reference to a PMPI_ name would
	// make libghost.so need libmpich.so, which it must not (an Open MPI
	// program that preloads it by mistake gets a clear error from
	// c/world.c, not MPICH mapped beside Open MPI).
	realNames := map[string]bool{}
	for _, p := range wrapped {
		realNames[p.Name] = true
	}
	for _, p := range LocalCalls(protos) {
		realNames[p.Name] = true
	}
	for n := range Handwritten {
		realNames[n] = true
	}
	for _, n := range Interposed {
		realNames[n] = true
	}
	for n := range realNames {
		_, mpi := byName[n]
		_, pmpi := byName["P"+n]
		if !mpi && !pmpi {
			delete(realNames, n)
		}
	}
	var reals []string
	for n := range realNames {
		if _, ok := byName["P"+n]; !ok {
			return nil, fmt.Errorf("P%s is not declared by the installed headers", n)
		}
		reals = append(reals, n)
	}
	sort.Strings(reals)

	var w bytes.Buffer
	w.WriteString(abi.Constraint + "\n\n")
	header(&w, abi, "Every MPI function that takes a communicator by value swaps MPI_COMM_WORLD\n"+
		"// for the user world (which excludes ghosts) and calls "+abi.Name+"'s PMPI_ twin;\n"+
		"// the others only time the call when profiling is on. Local bookkeeping calls\n"+
		"// (wrapgen.Local: datatypes, groups, info, attributes, queries) are not timed.")
	w.WriteString("// Hand-written instead (see c/*.c):\n")
	names := make([]string, 0, len(Handwritten))
	for n := range Handwritten {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(&w, "//   %s: %s\n", n, Handwritten[n])
	}
	w.WriteString("\n#define _GNU_SOURCE\n#include <dlfcn.h>\n\n#include \"ghost.h\"\n")
	for _, p := range wrapped {
		writeWrapper(&w, p)
	}
	fmt.Fprintf(&w, "\n// %d generated wrappers.\n", len(wrapped))
	w.WriteString("\n/* ---- real functions ---- */\n\n")
	for _, n := range reals {
		fmt.Fprintf(&w, "__typeof__(P%s) *ghost_real_P%s;\n", n, n)
	}
	w.WriteString("\nint ghost_resolve_real(void)\n{\n    int missing = 0;\n")
	for _, n := range reals {
		fmt.Fprintf(&w, "    if (!(ghost_real_P%[1]s = (__typeof__(ghost_real_P%[1]s))dlsym(RTLD_NEXT, \"P%[1]s\")))\n        missing++;\n", n)
	}
	w.WriteString("    return missing;\n}\n")

	var r bytes.Buffer
	header(&r, abi, "Pointers to "+abi.Name+"'s own PMPI_ functions, for every function Ghost defines\n"+
		"// and every local call it leaves alone (wrapgen.Local).\n"+
		"// Ghost's code calls MPI through GHOST_REAL(name), never through PMPI_name.")
	r.WriteString("\n#ifndef GHOST_ZREAL_H\n#define GHOST_ZREAL_H\n\n#include <mpi.h>\n\n")
	r.WriteString("#define GHOST_REAL(name) ghost_real_P##name\n\n")
	for _, n := range reals {
		fmt.Fprintf(&r, "extern __typeof__(P%s) *ghost_real_P%s;\n", n, n)
	}
	r.WriteString("\n/* Resolves every pointer; returns how many the MPI library lacks. */\nint ghost_resolve_real(void);\n\n#endif\n")
	return map[string][]byte{abi.WrappersFile: w.Bytes(), abi.RealFile: r.Bytes()}, nil
}

func header(b *bytes.Buffer, abi ABI, what string) {
	fmt.Fprintf(b, "// Code generated by c/internal/wrapgen from %s's %s; DO NOT EDIT.\n\n// %s\n", abi.Name, strings.Join(abi.Headers, " and "), what)
}

// writeWrapper writes PMPI_name and its MPI_name alias. A call that is not
// local marks that it began (GHOST_CALL_BEGINS, for the waits' politeness)
// and has a profiled branch, kept apart so that, with profiling off, the
// compiler turns the call into a tail jump through the real pointer; a
// local call (Local) has neither.
func writeWrapper(b *bytes.Buffer, p Proto) {
	decls := make([]string, len(p.Params))
	args := make([]string, len(p.Params))
	for i, prm := range p.Params {
		decls[i] = prm.Decl
		args[i] = prm.Name
	}
	for _, i := range p.CommParams() {
		args[i] = "GHOST_USER_COMM(" + p.Params[i].Name + ")"
	}
	call := fmt.Sprintf("GHOST_REAL(%s)(%s)", p.Name, strings.Join(args, ", "))
	params := strings.Join(decls, ", ")
	fmt.Fprintf(b, "\nint P%s(%s)\n{\n", p.Name, params)
	if !Local(p.Name) {
		b.WriteString("    GHOST_CALL_BEGINS();\n")
		fmt.Fprintf(b, "    if (GHOST_PROFILING()) {\n        uint64_t t0 = ghost_prof_enter();\n        int rc = %s;\n        ghost_prof_exit(t0);\n        return rc;\n    }\n", call)
	}
	fmt.Fprintf(b, "    return %s;\n}\n", call)
	fmt.Fprintf(b, "int %s(%s) __attribute__((alias(\"P%s\")));\n", p.Name, params, p.Name)
}
