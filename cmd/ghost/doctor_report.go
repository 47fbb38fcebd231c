package main

// The report of `ghost doctor`: its JSON document, the pure analysis that
// turns raw findings (command output, DT_NEEDED lists, probe lines) into
// verdicts, and the human rendering. Gathering the findings is in
// doctor.go; docs/doctor.md explains every line and field.

import (
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/ghost-mpi/ghost/internal/config"
	"github.com/ghost-mpi/ghost/internal/rdma"
	"github.com/ghost-mpi/ghost/redirect"
)

// doctorSchema versions the JSON document; it changes only when a field
// changes meaning or goes away.
const doctorSchema = 1

// Report is the whole of `ghost doctor --json`.
type Report struct {
	Schema int       `json:"schema"`
	MPI    MPIReport `json:"mpi"`
	// MPIs lists each MPI family ghost run can start, with Ghost's
	// library for it (doctor_mpis.go).
	MPIs     []MPIInstall   `json:"mpis"`
	Progress ProgressReport `json:"progress"`
	Layout   LayoutReport   `json:"layout"`
	// Slurm is the allocation doctor runs in, if any; the layout is then
	// the one `ghost run` would start there.
	Slurm    *SlurmReport    `json:"slurm,omitempty"`
	RDMA     rdma.Caps       `json:"rdma"`
	HWBypass redirect.Bypass `json:"hw_bypass"`
	Config   ConfigReport    `json:"config"`
	// Warnings and Errors repeat every finding of the sections, so a
	// script needs to read only these; any error makes the exit status 1.
	Warnings []string `json:"warnings"`
	Errors   []string `json:"errors"`
}

func (r *Report) warn(format string, args ...any) {
	r.Warnings = append(r.Warnings, fmt.Sprintf(format, args...))
}

func (r *Report) fail(format string, args ...any) {
	r.Errors = append(r.Errors, fmt.Sprintf(format, args...))
}

// MPIReport is the MPI library behind mpiexec and libmpi.
type MPIReport struct {
	Mpiexec  string `json:"mpiexec"`          // as found (GHOST_MPIEXEC or PATH)
	Resolved string `json:"mpiexec_resolved"` // symbolic links followed
	Launcher string `json:"launcher"`         // hydra, Open MPI, or unknown
	Vendor   string `json:"vendor"`           // MPICH, Open MPI, or unknown
	Version  string `json:"version"`
	Device   string `json:"device,omitempty"` // MPICH's device, e.g. ch4:ucx
	// VersionFrom names the command the version was read from.
	VersionFrom string `json:"version_from"`
	// Library is the libmpi the dynamic loader resolves for the MPICH ABI.
	Library  Soname     `json:"library"`
	ABI      string     `json:"abi"` // family of Library: MPICH or Open MPI
	Libghost *GhostLib  `json:"libghost"`
	Program  *BinaryABI `json:"program,omitempty"`
}

// Soname is a shared library name and the file the loader maps for it.
type Soname struct {
	Name string `json:"name"`
	Path string `json:"path"` // "" when the loader would not find it
}

// GhostLib is what libghost.so was built for.
type GhostLib struct {
	Path   string   `json:"path"`
	Needed []string `json:"needed"` // DT_NEEDED
	// BuiltFor is the ABI marker compiled into it ("MPICH 4.0.2").
	BuiltFor string `json:"built_for"`
	Matches  bool   `json:"matches"`
	Verdict  string `json:"verdict"`
}

// BinaryABI is the MPI library an application binary links.
type BinaryABI struct {
	Path    string   `json:"path"`
	Needed  []string `json:"needed"`      // every DT_NEEDED entry
	MPI     []string `json:"mpi_sonames"` // those that are MPI libraries
	ABI     string   `json:"abi"`         // MPICH, Open MPI, or none
	OK      bool     `json:"ok"`
	Verdict string   `json:"verdict"`
}

// ProgressReport is the asynchronous-progress probe: one accumulate under
// a shared lock while the target computes outside MPI.
type ProgressReport struct {
	Ran            bool      `json:"ran"`
	Skipped        string    `json:"skipped,omitempty"` // why it did not run
	ComputeSeconds float64   `json:"compute_seconds"`
	Plain          *ProbeRun `json:"plain"`
	Ghost          *ProbeRun `json:"ghost,omitempty"`
	Native         *bool     `json:"native_async_progress"` // null: unknown
	Verdict        string    `json:"verdict"`
}

// ProbeRun is one run of the probe program.
type ProbeRun struct {
	Command        string  `json:"command"`
	OpSeconds      float64 `json:"op_seconds"`
	ComputeSeconds float64 `json:"compute_seconds"`
	ArrivedSeconds float64 `json:"arrived_seconds"` // -1: not while the target computed
	DuringCompute  bool    `json:"arrived_during_compute"`
	Value          int64   `json:"value"`
	AsyncProgress  bool    `json:"async_progress"`
	Error          string  `json:"error,omitempty"`
}

// LayoutReport is the node layout `ghost run` would start.
type LayoutReport struct {
	Users         int          `json:"users"`
	GhostsPerNode int          `json:"ghosts_per_node"`
	Hosts         string       `json:"hosts,omitempty"`
	Nodes         []NodeReport `json:"nodes"`
	Processes     int          `json:"processes"`
	// Cores is runtime.NumCPU() of this machine, which every process of a
	// single-node or fake-node job shares.
	Cores          int  `json:"cores"`
	Oversubscribed bool `json:"oversubscribed"`
	// Windows says how MPI_Win_allocate windows will be served: node-local
	// (in shared memory, no ghost) when the job lies on one node.
	Windows string `json:"windows"`
	Wait    string `json:"wait"`
	Error   string `json:"error,omitempty"`
}

// NodeReport is one node of the layout.
type NodeReport struct {
	Name   string `json:"name"`
	Users  int    `json:"users"`
	Ghosts int    `json:"ghosts"`
}

// ConfigReport is the GHOST_* environment.
type ConfigReport struct {
	Set      map[string]string `json:"set"`
	Problems []ConfigProblem   `json:"problems"`
}

// ConfigProblem is one finding of config.Load.
type ConfigProblem struct {
	Severity string `json:"severity"` // error or warning
	Variable string `json:"variable"`
	Message  string `json:"message"`
}

// ---- analysis --------------------------------------------------------------

// mpiFamily names the ABI family of an MPI library soname, or "" when the
// name is not an MPI library. libmpi.so.12 is the MPICH ABI too (Intel
// MPI, MVAPICH and MPICH builds that keep the old name); Open MPI's libmpi
// carries its own numbers (.20 for 2.x, .40 since 3.0).
func mpiFamily(soname string) string {
	base, ver, _ := strings.Cut(soname, ".so")
	ver = strings.TrimPrefix(ver, ".")
	major, _, _ := strings.Cut(ver, ".")
	switch base {
	case "libmpich":
		return "MPICH"
	case "libmpi":
		if major == "12" {
			return "MPICH"
		}
		return "Open MPI"
	}
	return ""
}

// mpichSonames are the names the MPICH ABI's library goes by, preferred
// first; the loader's choice for the first it finds is the library a
// preloaded libghost.so meets in an MPICH program.
var mpichSonames = []string{"libmpich.so.12", "libmpi.so.12"}

var (
	mpichVersionLine = regexp.MustCompile(`(?m)^MPICH Version:\s*(\S+)`)
	mpichDeviceLine  = regexp.MustCompile(`(?m)^MPICH Device:\s*(\S+)`)
	hydraVersionLine = regexp.MustCompile(`(?m)^\s*Version:\s*(\S+)`)
	openMPIVersion   = regexp.MustCompile(`\((?:Open MPI|OpenRTE)\)\s*(\S+)`)
)

// parseMpichversion reads `mpichversion` output.
func parseMpichversion(out string) (version, device string, ok bool) {
	m := mpichVersionLine.FindStringSubmatch(out)
	if m == nil {
		return "", "", false
	}
	if d := mpichDeviceLine.FindStringSubmatch(out); d != nil {
		device = d[1]
	}
	return m[1], device, true
}

// parseLauncherVersion reads `mpiexec --version`: hydra's build details,
// or Open MPI's "mpiexec (Open MPI) 4.1.4".
func parseLauncherVersion(out string) (launcher, vendor, version string) {
	switch {
	case strings.Contains(out, "HYDRA"):
		if m := hydraVersionLine.FindStringSubmatch(out); m != nil {
			version = m[1]
		}
		return "hydra", "MPICH", version
	case openMPIVersion.MatchString(out):
		return "Open MPI", "Open MPI", openMPIVersion.FindStringSubmatch(out)[1]
	}
	return "unknown", "unknown", ""
}

// checkLibghost compares the ABI compiled into one of Ghost's libraries
// (libghost.so, libghost-openmpi.so) with the MPI found, of vendor and
// version.
func checkLibghost(g *GhostLib, vendor, version string) {
	family, built := abiOfMarker(g.BuiltFor)
	switch {
	case g.BuiltFor == "":
		g.Verdict = "no ABI marker found: not a library of Ghost, or one older than ghost doctor"
	case vendor != family:
		g.Verdict = fmt.Sprintf("built for %s, but the MPI found is %s: this library needs %s's ABI", g.BuiltFor, vendor, family)
	case version != "" && majorOf(version) != majorOf(built):
		g.Matches = true
		g.Verdict = fmt.Sprintf("built against %s %s headers; the library is %s %s: same ABI family, but the wrappers follow %s's prototypes",
			family, built, vendor, version, built)
	default:
		g.Matches = true
		g.Verdict = fmt.Sprintf("built for %s: matches", g.BuiltFor)
	}
	for _, n := range g.Needed {
		if f := mpiFamily(n); f != "" && f != family {
			g.Matches = false
			g.Verdict = fmt.Sprintf("links %s (%s): it must not link an MPI other than %s", n, f, orNone(family, "the one it is built for"))
		}
	}
}

// abiOfMarker splits an ABI marker ("MPICH 4.0.2", "Open MPI 4.1.4") into
// the MPI family and the version of the headers.
func abiOfMarker(marker string) (family, version string) {
	for _, f := range []string{"MPICH", "Open MPI"} {
		if v, ok := strings.CutPrefix(marker, f+" "); ok {
			return f, v
		}
	}
	family, version, _ = strings.Cut(marker, " ")
	return family, version
}

func majorOf(v string) string {
	major, _, _ := strings.Cut(v, ".")
	return major
}

// checkProgram classifies an application binary's MPI library against the
// soname the loader gives libghost.so's MPICH (ghostLib). sameFile reports
// whether two sonames resolve to the same file.
func checkProgram(p *BinaryABI, ghostLib string, sameFile func(a, b string) bool) {
	p.MPI = []string{}
	for _, n := range p.Needed {
		if mpiFamily(n) != "" {
			p.MPI = append(p.MPI, n)
		}
	}
	if len(p.MPI) == 0 {
		p.ABI = "none"
		p.Verdict = "links no MPI library directly (a static MPI, a wrapper script, or not an MPI program): Ghost cannot check it"
		return
	}
	p.ABI = mpiFamily(p.MPI[0])
	for _, n := range p.MPI {
		switch {
		case mpiFamily(n) == "Open MPI":
			p.ABI = "Open MPI"
			p.Verdict = fmt.Sprintf("an Open MPI binary (links %s): libghost.so works only with the MPICH ABI and %s, Ghost's library for Open MPI, "+
				"was not found; build it (make) or set %s, or rebuild the program with MPICH's mpicc (mpicc.mpich); see docs/openmpi.md",
				n, openMPIABI.LibName, openMPIABI.LibVar)
			return
		case n != ghostLib && !sameFile(n, ghostLib):
			p.Verdict = fmt.Sprintf("links %s, a different MPICH-ABI soname than the %s this machine's MPICH provides: the process may load two MPI libraries; rebuild it against this MPICH or make %s resolve to it", n, ghostLib, n)
			return
		}
	}
	p.OK = true
	p.Verdict = fmt.Sprintf("links %s: the MPICH ABI libghost.so is built for", strings.Join(p.MPI, ", "))
}

var probeLine = regexp.MustCompile(`probe: (origin|target) (.*)`)

// parseProbe reads the probe's two lines into run.
func parseProbe(out string, run *ProbeRun) error {
	seen := map[string]bool{}
	for _, m := range probeLine.FindAllStringSubmatch(out, -1) {
		fields := map[string]string{}
		for _, kv := range strings.Fields(m[2]) {
			if k, v, ok := strings.Cut(kv, "="); ok {
				fields[k] = v
			}
		}
		var err error
		num := func(k string) float64 {
			f, e := strconv.ParseFloat(fields[k], 64)
			if e != nil && err == nil {
				err = fmt.Errorf("probe line %q: field %s: %v", m[0], k, e)
			}
			return f
		}
		if m[1] == "origin" {
			run.OpSeconds = num("op_s")
		} else {
			run.ComputeSeconds = num("compute_s")
			run.ArrivedSeconds = num("arrived_s")
			run.Value = int64(num("value"))
		}
		if err != nil {
			return err
		}
		seen[m[1]] = true
	}
	if !seen["origin"] || !seen["target"] {
		return fmt.Errorf("the probe printed no origin and target lines: %q", strings.TrimSpace(out))
	}
	run.DuringCompute = run.ArrivedSeconds >= 0
	// The operation finished while the target was still computing: within
	// half the compute time leaves no doubt on a loaded machine.
	run.AsyncProgress = run.OpSeconds < run.ComputeSeconds/2 && run.DuringCompute
	return nil
}

// progressVerdict words the probe's outcome.
func progressVerdict(p *ProgressReport) {
	if p.Plain == nil || p.Plain.Error != "" {
		p.Verdict = "unknown: the probe did not run"
		return
	}
	native := p.Plain.AsyncProgress
	p.Native = &native
	if native {
		p.Verdict = "yes: the MPI completes RMA while the target computes (hardware offload or a progress thread); Ghost's ghosts matter less here"
	} else {
		p.Verdict = "no: an accumulate waits until the target calls MPI again; Ghost's ghosts give it asynchronous progress"
	}
	if g := p.Ghost; g != nil && g.Error == "" && !native {
		if g.AsyncProgress {
			p.Verdict += fmt.Sprintf(" (under Ghost it took %.4f s)", g.OpSeconds)
		} else {
			p.Verdict += " (but under Ghost it did not complete during the computation either: check GHOST_ASYNC and the warnings)"
		}
	}
}

// layoutOf computes the dry run's layout with the launcher's own placement
// (redirect.Place) and the library's own split (redirect.NewLayout).
func layoutOf(users, ng int, hosts string, cores int, wait config.WaitMode) LayoutReport {
	names := []string{"localhost"}
	slots := []int{users + ng}
	if hosts != "" {
		parsed, err := redirect.ParseHosts(hosts)
		if err == nil {
			parsed, err = redirect.Place(users, ng, parsed)
		}
		if err != nil {
			l := LayoutReport{Users: users, GhostsPerNode: ng, Hosts: hosts, Cores: cores, Wait: string(wait), Nodes: []NodeReport{}}
			l.Error = err.Error()
			return l
		}
		names, slots = nil, nil
		for _, h := range parsed {
			names = append(names, h.Host)
			slots = append(slots, h.Slots)
		}
	}
	l := layoutOfSlots(users, ng, names, slots, cores, wait)
	l.Hosts = hosts
	return l
}

// layoutOfSlots splits a placement (processes per named node) as the
// library will.
func layoutOfSlots(users, ng int, names []string, slots []int, cores int, wait config.WaitMode) LayoutReport {
	l := LayoutReport{Users: users, GhostsPerNode: ng, Cores: cores, Wait: string(wait), Nodes: []NodeReport{}}
	var leaderOf []int
	for i, s := range slots {
		for range s {
			leaderOf = append(leaderOf, i)
		}
	}
	split, err := redirect.NewLayout(leaderOf, ng)
	if err != nil {
		l.Error = err.Error()
		return l
	}
	for i, n := range split.Nodes {
		l.Nodes = append(l.Nodes, NodeReport{Name: names[i], Users: len(n.Users), Ghosts: len(n.Ghosts)})
	}
	l.Processes = len(leaderOf)
	l.Oversubscribed = l.Processes > cores
	l.Windows = windowsOn(len(l.Nodes))
	return l
}

// windowsOn says how a job on nodes nodes serves its windows (the rule of
// GHOST_NG=auto, config.ResolveNG).
func windowsOn(nodes int) string {
	if nodes <= 1 {
		return "node-local: the job lies on one node, so every MPI_Win_allocate window is served in shared memory and needs no ghost"
	}
	return "through the ghosts for windows that span nodes; node-local for windows within one node"
}

// layoutFindings adds the layout's warnings to the report.
func layoutFindings(r *Report) {
	l := r.Layout
	if l.Error != "" {
		r.fail("layout: %s", l.Error)
		return
	}
	if len(l.Nodes) == 1 && l.GhostsPerNode > 0 {
		r.warn("%s on a single node: every window there is node-local, so the ghosts serve none and only hold cores; GHOST_NG=auto (the default) starts none",
			plural(l.GhostsPerNode, "ghost"))
	}
	if l.Oversubscribed {
		r.warn("oversubscribed: %d processes (%s + %s) on %d cores: ranks and ghosts share cores, so compute-bound ranks slow down and ghosts answer later",
			l.Processes, plural(l.Users, "user"), plural(l.Processes-l.Users, "ghost"), l.Cores)
		if l.Wait == string(config.WaitSpin) {
			r.warn("GHOST_WAIT=spin under oversubscription: spinning ghosts take the cores the ranks need; use adaptive (the default) or yield")
		}
	}
}

// ---- rendering -------------------------------------------------------------

// writeProbeRuns prints the plain and Ghost runs of a progress probe.
// indent goes before each label.
func writeProbeRuns(row func(label, format string, args ...any), pg *ProgressReport, indent string) {
	for _, run := range []struct {
		label string
		r     *ProbeRun
	}{{"plain MPI", pg.Plain}, {"under Ghost", pg.Ghost}} {
		if run.r == nil {
			continue
		}
		if run.r.Error != "" {
			row(indent+run.label, "failed: %s", run.r.Error)
			continue
		}
		arrived := "after the computation"
		if run.r.DuringCompute {
			arrived = fmt.Sprintf("during the computation, at %.4f s", run.r.ArrivedSeconds)
		}
		row(indent+run.label, "the accumulate took %.4f s; the value arrived %s", run.r.OpSeconds, arrived)
	}
}

// writeText prints the human report.
func writeText(w io.Writer, r *Report) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format+"\n", args...) }
	row := func(label, format string, args ...any) { p("  %-16s %s", label+":", fmt.Sprintf(format, args...)) }

	p("MPI library")
	m := r.MPI
	row("mpiexec", "%s", orNone(m.Mpiexec, "not found"))
	if m.Resolved != "" && m.Resolved != m.Mpiexec {
		row("resolves to", "%s", m.Resolved)
	}
	row("launcher", "%s", m.Launcher)
	row("MPI", "%s %s%s (from %s)", m.Vendor, orNone(m.Version, "(version unknown)"), prefixed(", device ", m.Device), orNone(m.VersionFrom, "nothing"))
	row("libmpi", "%s => %s (%s ABI)", orNone(m.Library.Name, "none"), orNone(m.Library.Path, "not found by the loader"), orNone(m.ABI, "unknown"))
	if g := m.Libghost; g != nil {
		row("libghost.so", "%s", g.Path)
		row("  needs", "%s", strings.Join(g.Needed, ", "))
		row("  ABI", "%s", g.Verdict)
	} else {
		row("libghost.so", "not found")
	}
	if pr := m.Program; pr != nil {
		row("program", "%s", pr.Path)
		row("  ABI", "%s", pr.Verdict)
	}

	p("")
	p("MPIs and Ghost's libraries")
	for _, mi := range r.MPIs {
		row(mi.Family, "%s", mi.Verdict)
		if !mi.Installed {
			continue
		}
		row("  launcher", "%s%s", mi.Launcher, prefixed(", version ", mi.Version))
		row("  libmpi", "%s => %s", mi.Library.Name, mi.Library.Path)
		if g := mi.GhostLibrary; g != nil {
			row("  Ghost", "%s (%s)", g.Path, g.Verdict)
		}
		if pg := mi.Progress; pg != nil {
			writeProbeRuns(row, pg, "  ")
			if pg.Ran {
				row("  native progress", "%s", pg.Verdict)
			}
		}
	}

	p("")
	pg := r.Progress
	p("Asynchronous progress (2-rank probe: one MPI_Accumulate under a shared lock while the target computes %.3f s)", pg.ComputeSeconds)
	if !pg.Ran {
		row("probe", "skipped: %s", pg.Skipped)
	}
	writeProbeRuns(row, &pg, "")
	if pg.Ran {
		row("native progress", "%s", pg.Verdict)
	}

	p("")
	l := r.Layout
	if r.Slurm != nil {
		writeSlurm(row, r.Slurm)
		p("")
	}
	inJob := ""
	if r.Slurm != nil {
		inJob = " in Slurm job " + r.Slurm.JobID
	}
	p("Node layout (dry run of ghost run -n %d -g %d%s%s)", l.Users, l.GhostsPerNode, prefixed(" --hosts ", l.Hosts), inJob)
	if l.Error != "" {
		row("error", "%s", l.Error)
	}
	for _, n := range l.Nodes {
		row("node "+n.Name, "%s, %s", plural(n.Users, "user"), plural(n.Ghosts, "ghost"))
	}
	shared := ""
	if len(l.Nodes) > 1 {
		shared = " (fake nodes: all share this machine)"
	}
	if r.Slurm != nil {
		row("processes", "%d, on the allocation's nodes", l.Processes)
	} else {
		row("processes", "%d on %d cores%s", l.Processes, l.Cores, shared)
	}
	row("windows", "%s", l.Windows)
	row("GHOST_WAIT", "%s", l.Wait)

	p("")
	p("RDMA devices (rdma-core)")
	row("libibverbs", "%s", orNone(r.RDMA.Library, "not loaded"))
	if len(r.RDMA.Devices) == 0 {
		row("devices", "no RDMA device%s", prefixed(": ", r.RDMA.Note))
	}
	for _, d := range r.RDMA.Devices {
		if d.Problem != "" {
			row("device "+d.Name, "%s", d.Problem)
			continue
		}
		row("device "+d.Name, "%s, %s%s", d.Kind(), d.AtomicCap, prefixed(", firmware ", d.Firmware))
		for _, port := range d.Ports {
			row(fmt.Sprintf("  port %d", port.Number), "%s, link layer %s", port.State, port.LinkLayer)
		}
	}
	b := r.HWBypass
	verdict := "off: PUT/GET go through the ghosts"
	if b.Bypass {
		verdict = "on: contiguous PUT/GET of predefined types go straight to the target in fence, PSCW and lock_all epochs"
	}
	row("GHOST_HW_BYPASS", "%s", b.Mode)
	row("hardware bypass", "%s", verdict)
	row("  because", "%s", b.Reason)
	if b.Atomics != "" {
		row("  atomics", "%s", b.Atomics)
	}

	p("")
	p("Configuration (GHOST_* variables)")
	if len(r.Config.Set) == 0 {
		row("set", "none (defaults)")
	}
	names := make([]string, 0, len(r.Config.Set))
	for n := range r.Config.Set {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		row(n, "%s", r.Config.Set[n])
	}
	if len(r.Config.Problems) == 0 {
		row("problems", "none")
	}
	for _, pr := range r.Config.Problems {
		row(pr.Severity, "%s", pr.Message)
	}

	p("")
	if len(r.Warnings)+len(r.Errors) == 0 {
		p("No problems found.")
	}
	for _, e := range r.Errors {
		p("error: %s", e)
	}
	for _, wn := range r.Warnings {
		p("warning: %s", wn)
	}
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func orNone(s, none string) string {
	if s == "" {
		return none
	}
	return s
}

func prefixed(prefix, s string) string {
	if s == "" {
		return ""
	}
	return prefix + s
}
