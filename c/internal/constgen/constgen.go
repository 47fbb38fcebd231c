// Package constgen writes the constants that the C data plane and the Go
// packages share, from one definition each, so that no pair of them is kept
// equal by a comment:
//
//   - single numbers (the most ghosts per node, the segment alignment) are
//     defined in the Go package that explains them (config.MaxNG,
//     redirect.SegmentAlign) and written into c/zconst.h;
//   - the counter enums of c/counters.h and the metric label values that
//     name their members are listed once, in Enums below, and written both
//     into c/zconst.h and into internal/metrics/zlabels.go;
//   - GHOST_LOAD's policies are numbered by their order in
//     config.LoadPolicies, the index shim/init.go hands the C data plane.
//
// `go generate ./c` (make generate) runs it; a test regenerates the files
// and fails when the committed ones differ.
package constgen

import (
	"bytes"
	"fmt"
	"go/format"
	"os"
	"path/filepath"
	"strings"

	"github.com/ghost-mpi/ghost/internal/config"
	"github.com/ghost-mpi/ghost/redirect"
)

// Define is one number the C side needs under a C macro name.
type Define struct {
	C     string // the macro
	Value int
	From  string // the Go constant that defines it
	Doc   string
}

// Defines are the numbers written into c/zconst.h.
var Defines = []Define{
	{C: "GHOST_MAX_NG", Value: config.MaxNG, From: "config.MaxNG",
		Doc: "the most ghosts per node: GHOST_NG's upper limit, and the size of the per-node ghost tables."},
	// c/win.c rounds MPICH's own windows with this name.
	{C: "SEGMENT_ALIGN", Value: redirect.SegmentAlign, From: "redirect.SegmentAlign",
		Doc: "the alignment of every user segment, redirected or MPICH's own (a cache line)."},
}

// Member is one member of a counter enum.
type Member struct {
	C     string // the C enumerator, GHOST_ and the enum's prefix left out
	Label string // its metric label value; for an enum with no labels, the Go constant
	Doc   string // a C comment after the enumerator, if any
}

// Enum is one C enum of the counters and, on the Go side, either the label
// values of its members (Labels) or typed constants (GoType).
type Enum struct {
	CDoc    string // the comment above the C enum
	Prefix  string // of every enumerator: GHOST_<Prefix><Member.C>
	CCount  string // the enumerator after the last member, its count ("" for none)
	Labels  string // the Go []string of label values ("" for none)
	GoCount string // the Go constant equal to CCount
	GoType  string // with no Labels: the Go type of one constant per member
	GoDoc   string // the comment above Labels (or the constants)
	// From, with neither Labels nor GoType: the Go definition the members
	// are numbered from, which nothing is generated into.
	From    string
	Members []Member
}

// Enums are the counter enums, in the order c/counters.h used to hold them.
var Enums = []Enum{
	{
		CDoc:   "RMA operations, as the metrics name them (op label). Request forms and large-count variants count as their plain operation.",
		Prefix: "OP_", CCount: "GHOST_NOPS", Labels: "Ops", GoCount: "NOps",
		GoDoc: "Ops are the RMA operations (op label). Request forms and large-count variants count as their plain operation.",
		Members: []Member{{C: "PUT", Label: "put"}, {C: "GET", Label: "get"}, {C: "ACC", Label: "acc"},
			{C: "GET_ACC", Label: "get_acc"}, {C: "FOP", Label: "fop"}, {C: "CAS", Label: "cas"}},
	},
	{
		CDoc:   "Where an operation went (path label): to a ghost of the target's node, straight to the target through MPICH (redirection off, the GP other path, or a hardware bypass), or done by the origin itself in node shared memory (a node-local window, local.c).",
		Prefix: "PATH_", CCount: "GHOST_NPATHS", Labels: "Paths", GoCount: "NPaths",
		GoDoc:   "Paths say where an operation went (path label).",
		Members: []Member{{C: "GHOST", Label: "ghost"}, {C: "DIRECT", Label: "direct"}, {C: "LOCAL", Label: "local"}},
	},
	{
		CDoc:   "Synchronization calls on redirected windows (type label).",
		Prefix: "SYNC_", CCount: "GHOST_NSYNCS", Labels: "SyncTypes", GoCount: "NSyncs",
		GoDoc: "SyncTypes are the synchronization calls counted (type label).",
		Members: []Member{
			{C: "LOCK", Label: "lock", Doc: "MPI_Win_lock"},
			{C: "LOCK_ALL", Label: "lock_all", Doc: "MPI_Win_lock_all"},
			{C: "FENCE", Label: "fence", Doc: "MPI_Win_fence"},
			{C: "START", Label: "pscw_start", Doc: "MPI_Win_start: a PSCW access epoch"},
			{C: "POST", Label: "pscw_post", Doc: "MPI_Win_post: a PSCW exposure epoch"},
			{C: "FLUSH", Label: "flush", Doc: "every MPI_Win_flush variant"},
		},
	},
	{
		CDoc:   "Synchronization calls on redirected windows that span nodes whose own internal MPI operations are counted (call label): every message those calls cost is attributed to the call that made it, so that the cost per call can be read against the job's size (docs/design.md, \"What a synchronization costs as the job grows\").",
		Prefix: "CALL_", CCount: "GHOST_NCALLS", Labels: "SyncCalls", GoCount: "NSyncCalls",
		GoDoc: "SyncCalls are the synchronization calls whose internal operations are counted (call label): flush is MPI_Win_flush and flush_local, flush_all also flush_local_all, pscw every PSCW call, barrier MPI_Barrier under GHOST_ASYNC=auto (an implicit agreement point).",
		Members: []Member{
			{C: "LOCK", Label: "lock", Doc: "MPI_Win_lock"},
			{C: "UNLOCK", Label: "unlock", Doc: "MPI_Win_unlock"},
			{C: "LOCK_ALL", Label: "lock_all", Doc: "MPI_Win_lock_all"},
			{C: "UNLOCK_ALL", Label: "unlock_all", Doc: "MPI_Win_unlock_all"},
			{C: "FLUSH", Label: "flush", Doc: "MPI_Win_flush, MPI_Win_flush_local"},
			{C: "FLUSH_ALL", Label: "flush_all", Doc: "MPI_Win_flush_all, MPI_Win_flush_local_all"},
			{C: "FENCE", Label: "fence", Doc: "MPI_Win_fence"},
			{C: "PSCW", Label: "pscw", Doc: "MPI_Win_post, start, complete, wait, test"},
			{C: "WIN_ALLOCATE", Label: "win_allocate", Doc: "MPI_Win_allocate, on users and on ghosts"},
			{C: "WIN_FREE", Label: "win_free", Doc: "MPI_Win_free, on users and on ghosts"},
			{C: "BARRIER", Label: "barrier", Doc: "MPI_Barrier under GHOST_ASYNC=auto: an implicit point (agree.c)"},
		},
	},
	{
		CDoc:   "The internal operations counted (kind label): point-to-point ones (a lock, unlock or flush on an internal window, a command or post/complete message: each is at least one message); wake messages to ghosts of other nodes, apart because they are rate-limited (doorbell.c), so their number depends on timing; and collectives, once per call by each process that makes it. Operations that send nothing (MPI_Win_sync, lock_all(MPI_MODE_NOCHECK), a doorbell on the same node, receives, whose message its sender counts) are not counted.",
		Prefix: "INTERNAL_", CCount: "GHOST_NINTERNAL", Labels: "InternalKinds", GoCount: "NInternal",
		GoDoc:   "InternalKinds are the kinds of those operations (kind label).",
		Members: []Member{{C: "P2P", Label: "p2p"}, {C: "WAKE", Label: "wake"}, {C: "COLLECTIVE", Label: "collective"}},
	},
	{
		CDoc:   "Adaptation transitions (direction label).",
		Prefix: "TO_", CCount: "GHOST_NDIRECTIONS", Labels: "Directions", GoCount: "NDirections",
		GoDoc:   "Directions are the adaptation transitions (direction label): redirection switched off, and switched on.",
		Members: []Member{{C: "DIRECT", Label: "on_to_off"}, {C: "GHOST", Label: "off_to_on"}},
	},
	{
		CDoc:   "The agreement points where a window's state may change (point label): its allocation (the ranks' votes), a fence, MPI_Win_set_info, an implicit point (MPI_Barrier under GHOST_ASYNC=auto, agree.c), a quiescence point (every user quiet inside an RMA call, outside collectives: quiesce.c).",
		Prefix: "POINT_", CCount: "GHOST_NPOINTS", Labels: "Points", GoCount: "NPoints",
		GoDoc: "Points are where a transition happened (point label): the agreement at allocation, a fence, MPI_Win_set_info, an implicit point (MPI_Barrier under GHOST_ASYNC=auto), a quiescence point (every user quiet inside an RMA call, outside collectives, under GHOST_ASYNC=auto).",
		Members: []Member{{C: "ALLOCATION", Label: "allocation"}, {C: "FENCE", Label: "fence"},
			{C: "SET_INFO", Label: "set_info"}, {C: "IMPLICIT", Label: "implicit"},
			{C: "QUIESCENCE", Label: "quiescence"}},
	},
	loadPolicyEnum(),
	{
		CDoc:   "What a process is on its node: the role of its counter block.",
		Prefix: "ROLE_", GoType: "Role",
		GoDoc: "The roles of a process on its node (GHOST_ROLE_* in C).",
		Members: []Member{{C: "NONE", Label: "RoleNone", Doc: "a block nobody owns"},
			{C: "USER", Label: "RoleUser", Doc: "an application rank"},
			{C: "GHOST", Label: "RoleGhost", Doc: "a ghost"}},
	},
}

// loadPolicyEnum numbers GHOST_LOAD's policies for C (GHOST_LOAD_STATIC
// ...) by their index in config.LoadPolicies.
func loadPolicyEnum() Enum {
	e := Enum{
		CDoc:   "GHOST_LOAD: how PUT/GET spread over a node's ghosts, numbered by their order in config.LoadPolicies (the index shim/init.go sets ghost_load_policy to).",
		Prefix: "LOAD_", From: "config.LoadPolicies",
	}
	for _, p := range config.LoadPolicies {
		e.Members = append(e.Members, Member{C: strings.ToUpper(string(p)), Doc: fmt.Sprintf("GHOST_LOAD=%s", p)})
	}
	return e
}

// Files are the generated files, relative to the repository root.
const (
	HeaderFile = "c/zconst.h"
	LabelsFile = "internal/metrics/zlabels.go"
)

const generatedBy = "c/internal/constgen (go generate ./c)"

// Generate returns every generated file's contents by its path relative to
// the repository root.
func Generate() (map[string][]byte, error) {
	labels, err := goLabels()
	if err != nil {
		return nil, err
	}
	return map[string][]byte{HeaderFile: header(), LabelsFile: labels}, nil
}

// WriteAll writes the generated files under root.
func WriteAll(root string) error {
	files, err := Generate()
	if err != nil {
		return err
	}
	for name, src := range files {
		path := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, src, 0o644); err != nil {
			return err
		}
	}
	return nil
}

func header() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "/* Code generated by %s; DO NOT EDIT.\n", generatedBy)
	b.WriteString(" *\n * The constants the C data plane shares with Go, each defined once:\n" +
		" * numbers by the Go constant named beside them, the counter enums (and\n" +
		" * their metric labels, internal/metrics/zlabels.go) by constgen.Enums.\n" +
		" * Self-contained: counters.h and ghost.h include it. */\n")
	b.WriteString("#ifndef GHOST_ZCONST_H_INCLUDED\n#define GHOST_ZCONST_H_INCLUDED\n")
	for _, d := range Defines {
		b.WriteString("\n" + cComment(d.From+": "+d.Doc, ""))
		fmt.Fprintf(&b, "#define %s %d\n", d.C, d.Value)
	}
	for _, e := range Enums {
		b.WriteString("\n")
		b.WriteString(cComment(e.CDoc, ""))
		b.WriteString("enum {\n")
		for _, m := range e.Members {
			fmt.Fprintf(&b, "    GHOST_%s%s,", e.Prefix, m.C)
			switch {
			case m.Doc != "":
				fmt.Fprintf(&b, " /* %s */", m.Doc)
			case e.Labels != "":
				fmt.Fprintf(&b, " /* %q */", m.Label)
			}
			b.WriteString("\n")
		}
		if e.CCount != "" {
			fmt.Fprintf(&b, "    %s\n", e.CCount)
		}
		b.WriteString("};\n")
	}
	b.WriteString("\n#endif\n")
	return b.Bytes()
}

func goLabels() ([]byte, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "// Code generated by %s; DO NOT EDIT.\n\n", generatedBy)
	b.WriteString("package metrics\n\n")
	b.WriteString("// Label values, in the order of the C enums in c/zconst.h, which is\n// generated from the same definition (constgen.Enums).\nvar (\n")
	for _, e := range Enums {
		if e.Labels == "" {
			continue
		}
		b.WriteString(goComment(e.GoDoc, "\t"))
		quoted := make([]string, len(e.Members))
		for i, m := range e.Members {
			quoted[i] = fmt.Sprintf("%q", m.Label)
		}
		fmt.Fprintf(&b, "\t%s = []string{%s}\n", e.Labels, strings.Join(quoted, ", "))
	}
	b.WriteString(")\n\n// The number of label values of each list above.\nconst (\n")
	for _, e := range Enums {
		if e.Labels != "" {
			fmt.Fprintf(&b, "\t%s = %d\n", e.GoCount, len(e.Members))
		}
	}
	b.WriteString(")\n")
	for _, e := range Enums {
		if e.GoType == "" {
			continue
		}
		b.WriteString("\n")
		b.WriteString(goComment(e.GoDoc, ""))
		b.WriteString("const (\n")
		for i, m := range e.Members {
			fmt.Fprintf(&b, "\t%s %s = %d // %s\n", m.Label, e.GoType, i, m.Doc)
		}
		b.WriteString(")\n")
	}
	src, err := format.Source(b.Bytes())
	if err != nil {
		return nil, fmt.Errorf("formatting %s: %v", LabelsFile, err)
	}
	return src, nil
}

// wrap breaks text into lines of at most width characters.
func wrap(text string, width int) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(text) {
		if line != "" && len(line)+1+len(w) > width {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	return append(lines, line)
}

func cComment(text, indent string) string {
	lines := wrap(text, 72)
	var b strings.Builder
	for i, l := range lines {
		switch {
		case i == 0:
			b.WriteString(indent + "/* " + l)
		default:
			b.WriteString(indent + " * " + l)
		}
		if i == len(lines)-1 {
			b.WriteString(" */")
		}
		b.WriteString("\n")
	}
	return b.String()
}

func goComment(text, indent string) string {
	var b strings.Builder
	for _, l := range wrap(text, 72) {
		b.WriteString(indent + "// " + l + "\n")
	}
	return b.String()
}
