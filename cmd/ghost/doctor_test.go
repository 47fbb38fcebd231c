package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ghost-mpi/ghost/internal/config"
	"github.com/ghost-mpi/ghost/internal/rdma"
	"github.com/ghost-mpi/ghost/redirect"
)

func TestMPIFamily(t *testing.T) {
	for _, tc := range []struct{ soname, want string }{
		{"libmpich.so.12", "MPICH"},
		{"libmpi.so.12", "MPICH"},
		{"libmpi.so.12.1.1", "MPICH"},
		{"libmpi.so.40", "Open MPI"},
		{"libmpi.so.20", "Open MPI"},
		{"libmpichfort.so.12", ""},
		{"libc.so.6", ""},
		{"libmpi_cxx.so.40", ""},
	} {
		if got := mpiFamily(tc.soname); got != tc.want {
			t.Errorf("mpiFamily(%q) = %q, want %q", tc.soname, got, tc.want)
		}
	}
}

func TestParseVersions(t *testing.T) {
	v, dev, ok := parseMpichversion("MPICH Version:    \t4.0.2\nMPICH Release date:\tThu Apr  7\nMPICH Device:    \tch4:ucx\n")
	if !ok || v != "4.0.2" || dev != "ch4:ucx" {
		t.Errorf("parseMpichversion = %q, %q, %v", v, dev, ok)
	}
	if _, _, ok := parseMpichversion("command not found"); ok {
		t.Errorf("parseMpichversion accepted garbage")
	}
	for _, tc := range []struct{ out, launcher, vendor, version string }{
		{"HYDRA build details:\n    Version:                                 4.0.2\n    Release Date: x\n", "hydra", "MPICH", "4.0.2"},
		{"mpiexec (OpenRTE) 4.1.4\n\nReport bugs to http://www.open-mpi.org/community/help/\n", "Open MPI", "Open MPI", "4.1.4"},
		{"mpiexec (Open MPI) 5.0.3\n", "Open MPI", "Open MPI", "5.0.3"},
		{"", "unknown", "unknown", ""},
	} {
		l, ven, ver := parseLauncherVersion(tc.out)
		if l != tc.launcher || ven != tc.vendor || ver != tc.version {
			t.Errorf("parseLauncherVersion(%q) = %q, %q, %q; want %q, %q, %q", tc.out, l, ven, ver, tc.launcher, tc.vendor, tc.version)
		}
	}
}

func TestCheckLibghost(t *testing.T) {
	for _, tc := range []struct {
		name            string
		builtFor        string
		needed          []string
		vendor, version string
		matches         bool
		verdict         string
	}{
		{"same", "MPICH 4.0.2", []string{"libc.so.6"}, "MPICH", "4.0.2", true, "built for MPICH 4.0.2: matches"},
		{"newer minor", "MPICH 4.0.2", nil, "MPICH", "4.1.2", true, "matches"},
		{"other major", "MPICH 4.0.2", nil, "MPICH", "3.4.3", true, "same ABI family, but the wrappers follow 4.0.2's prototypes"},
		{"Open MPI found", "MPICH 4.0.2", nil, "Open MPI", "4.1.4", false, "the MPI found is Open MPI"},
		{"no marker", "", nil, "MPICH", "4.0.2", false, "no ABI marker"},
		{"links Open MPI", "MPICH 4.0.2", []string{"libmpi.so.40"}, "MPICH", "4.0.2", false, "links libmpi.so.40 (Open MPI)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := &GhostLib{BuiltFor: tc.builtFor, Needed: tc.needed}
			checkLibghost(g, tc.vendor, tc.version)
			if g.Matches != tc.matches || !strings.Contains(g.Verdict, tc.verdict) {
				t.Errorf("matches %v, verdict %q; want %v, %q", g.Matches, g.Verdict, tc.matches, tc.verdict)
			}
		})
	}
}

func TestCheckProgram(t *testing.T) {
	same := func(a, b string) bool { return a == "libmpi.so.12" && b == "libmpich.so.12" }
	never := func(a, b string) bool { return false }
	for _, tc := range []struct {
		name     string
		needed   []string
		sameFile func(a, b string) bool
		abi      string
		ok       bool
		verdict  string
	}{
		{"MPICH binary", []string{"libmpich.so.12", "libc.so.6"}, never, "MPICH", true, "links libmpich.so.12: the MPICH ABI"},
		{"Open MPI binary", []string{"libmpi.so.40", "libc.so.6"}, never, "Open MPI", false, "an Open MPI binary (links libmpi.so.40)"},
		{"other MPICH soname", []string{"libmpi.so.12"}, never, "MPICH", false, "links libmpi.so.12, a different MPICH-ABI soname than the libmpich.so.12"},
		{"other soname, same file", []string{"libmpi.so.12"}, same, "MPICH", true, "links libmpi.so.12"},
		{"no MPI", []string{"libc.so.6"}, never, "none", false, "links no MPI library directly"},
		{"Fortran MPICH", []string{"libmpichfort.so.12", "libmpich.so.12"}, never, "MPICH", true, "libmpich.so.12"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &BinaryABI{Needed: tc.needed}
			checkProgram(p, "libmpich.so.12", tc.sameFile)
			if p.ABI != tc.abi || p.OK != tc.ok || !strings.Contains(p.Verdict, tc.verdict) {
				t.Errorf("abi %q ok %v verdict %q; want %q %v %q", p.ABI, p.OK, p.Verdict, tc.abi, tc.ok, tc.verdict)
			}
		})
	}
}

func TestParseProbe(t *testing.T) {
	for _, tc := range []struct {
		name    string
		out     string
		async   bool
		during  bool
		wantErr string
	}{
		{"plain MPICH", "probe: origin op=acc op_s=0.300412\nprobe: target compute_s=0.300001 arrived_s=-1.000000 value=42\n", false, false, ""},
		{"under Ghost", "probe: target compute_s=0.300001 arrived_s=0.000388 value=42\nprobe: origin op=acc op_s=0.000412\n", true, true, ""},
		{"fast op, value late", "probe: origin op=acc op_s=0.001\nprobe: target compute_s=0.3 arrived_s=-1 value=42\n", false, false, ""},
		{"slow op, value early", "probe: origin op=acc op_s=0.29\nprobe: target compute_s=0.3 arrived_s=0.01 value=42\n", false, true, ""},
		{"hydra prefixes", "[proxy] probe: origin op=acc op_s=0.001\nprobe: target compute_s=0.3 arrived_s=0.001 value=42\n", true, true, ""},
		{"target missing", "probe: origin op=acc op_s=0.3\n", false, false, "no origin and target lines"},
		{"bad number", "probe: origin op=acc op_s=x\nprobe: target compute_s=0.3 arrived_s=-1 value=42\n", false, false, "field op_s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := &ProbeRun{ArrivedSeconds: -1}
			err := parseProbe(tc.out, run)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if run.AsyncProgress != tc.async || run.DuringCompute != tc.during || run.Value != 42 {
				t.Errorf("got %+v, want async %v during %v", run, tc.async, tc.during)
			}
		})
	}
}

func TestProgressVerdict(t *testing.T) {
	slow := &ProbeRun{OpSeconds: 0.3, ComputeSeconds: 0.3, ArrivedSeconds: -1}
	fast := &ProbeRun{OpSeconds: 0.001, ComputeSeconds: 0.3, ArrivedSeconds: 0.001, DuringCompute: true, AsyncProgress: true}
	for _, tc := range []struct {
		name    string
		p       ProgressReport
		native  string // "", "yes", "no"
		verdict string
	}{
		{"plain slow, ghost fast", ProgressReport{Plain: slow, Ghost: fast}, "no", "no: an accumulate waits until the target calls MPI again; Ghost's ghosts give it asynchronous progress (under Ghost it took 0.0010 s)"},
		{"plain slow, ghost slow", ProgressReport{Plain: slow, Ghost: slow}, "no", "under Ghost it did not complete during the computation either"},
		{"native", ProgressReport{Plain: fast}, "yes", "yes: the MPI completes RMA while the target computes"},
		{"failed", ProgressReport{Plain: &ProbeRun{Error: "timed out"}}, "", "unknown"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.p
			progressVerdict(&p)
			got := ""
			if p.Native != nil {
				got = map[bool]string{true: "yes", false: "no"}[*p.Native]
			}
			if got != tc.native || !strings.Contains(p.Verdict, tc.verdict) {
				t.Errorf("native %q verdict %q; want %q, %q", got, p.Verdict, tc.native, tc.verdict)
			}
		})
	}
}

func TestLayoutFindings(t *testing.T) {
	for _, tc := range []struct {
		name      string
		users, ng int
		hosts     string
		cores     int
		wait      config.WaitMode
		nodes     []NodeReport
		warnings  []string
		err       string
	}{
		{"fits", 1, 1, "", 2, config.WaitAdaptive, []NodeReport{{"localhost", 1, 1}}, []string{"1 ghost on a single node: every window there is node-local"}, ""},
		{"3 on 2 cores", 2, 1, "", 2, config.WaitAdaptive, []NodeReport{{"localhost", 2, 1}},
			[]string{"1 ghost on a single node: every window there is node-local", "oversubscribed: 3 processes (2 users + 1 ghost) on 2 cores"}, ""},
		{"spin oversubscribed", 2, 1, "", 2, config.WaitSpin, []NodeReport{{"localhost", 2, 1}},
			[]string{"1 ghost on a single node: every window there is node-local", "oversubscribed", "GHOST_WAIT=spin under oversubscription"}, ""},
		{"spin with room", 2, 1, "", 16, config.WaitSpin, []NodeReport{{"localhost", 2, 1}}, []string{"1 ghost on a single node: every window there is node-local"}, ""},
		{"one node, auto", 2, 0, "", 16, config.WaitAdaptive, []NodeReport{{"localhost", 2, 0}}, nil, ""},
		{"fake nodes", 4, 1, "nodeA:3,nodeB:3", 2, config.WaitYield, []NodeReport{{"nodeA", 2, 1}, {"nodeB", 2, 1}},
			[]string{"oversubscribed: 6 processes (4 users + 2 ghosts) on 2 cores"}, ""},
		{"no pass-through ghosts", 2, 0, "", 2, config.WaitAdaptive, []NodeReport{{"localhost", 2, 0}}, nil, ""},
		{"hosts too small", 4, 1, "nodeA:1", 8, config.WaitAdaptive, nil, nil, "host nodeA has 1 slots"},
		{"bad hosts", 2, 1, "nodeA", 8, config.WaitAdaptive, nil, nil, "is not valid"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &Report{Layout: layoutOf(tc.users, tc.ng, tc.hosts, tc.cores, tc.wait)}
			layoutFindings(r)
			if tc.err != "" {
				if len(r.Errors) != 1 || !strings.Contains(r.Errors[0], tc.err) {
					t.Fatalf("errors %q, want %q", r.Errors, tc.err)
				}
				return
			}
			if len(r.Errors) > 0 {
				t.Fatalf("errors %q", r.Errors)
			}
			if len(r.Layout.Nodes) != len(tc.nodes) {
				t.Fatalf("nodes %+v, want %+v", r.Layout.Nodes, tc.nodes)
			}
			for i := range tc.nodes {
				if r.Layout.Nodes[i] != tc.nodes[i] {
					t.Errorf("node %d = %+v, want %+v", i, r.Layout.Nodes[i], tc.nodes[i])
				}
			}
			if len(r.Warnings) != len(tc.warnings) {
				t.Fatalf("warnings %q, want %q", r.Warnings, tc.warnings)
			}
			if want := windowsOn(len(tc.nodes)); r.Layout.Windows != want {
				t.Errorf("windows %q, want %q", r.Layout.Windows, want)
			}
			for i, w := range tc.warnings {
				if !strings.Contains(r.Warnings[i], w) {
					t.Errorf("warning %d = %q, want %q", i, r.Warnings[i], w)
				}
			}
		})
	}
}

// fakeReport is a report as diagnose would build it on a machine with one
// RoCE NIC, an Open MPI program given, and a bad variable set.
func fakeReport() *Report {
	r := &Report{Schema: doctorSchema, Warnings: []string{}, Errors: []string{}}
	r.MPI = MPIReport{Mpiexec: "/usr/bin/mpiexec.hydra", Resolved: "/usr/bin/mpiexec.hydra", Launcher: "hydra",
		Vendor: "MPICH", Version: "4.0.2", Device: "ch4:ucx", VersionFrom: "mpichversion",
		Library: Soname{"libmpich.so.12", "/lib/x86_64-linux-gnu/libmpich.so.12"}, ABI: "MPICH",
		Libghost: &GhostLib{Path: "/opt/ghost/libghost.so", Needed: []string{"libc.so.6"}, BuiltFor: "MPICH 4.0.2"},
		Program:  &BinaryABI{Path: "./app", Needed: []string{"libmpi.so.40"}}}
	checkLibghost(r.MPI.Libghost, "MPICH", "4.0.2")
	checkProgram(r.MPI.Program, "libmpich.so.12", func(a, b string) bool { return false })
	r.fail("program ./app: %s", r.MPI.Program.Verdict)
	r.Progress = ProgressReport{Ran: true, ComputeSeconds: 0.3,
		Plain: &ProbeRun{OpSeconds: 0.31, ComputeSeconds: 0.3, ArrivedSeconds: -1},
		Ghost: &ProbeRun{OpSeconds: 0.002, ComputeSeconds: 0.3, ArrivedSeconds: 0.0015, DuringCompute: true, AsyncProgress: true}}
	progressVerdict(&r.Progress)
	r.Layout = layoutOf(2, 1, "", 2, config.WaitSpin)
	layoutFindings(r)
	r.RDMA = rdma.Caps{Library: "libibverbs.so.1", Devices: []rdma.Device{{Name: "rocep1s0", Transport: rdma.TransportIB,
		AtomicCap: rdma.AtomicGlob, Firmware: "22.31.1014", Ports: []rdma.Port{{Number: 1, State: rdma.PortActive, LinkLayer: rdma.LinkEthernet}}}}}
	r.HWBypass = redirect.DecideBypass(config.HWBypassAuto, r.RDMA)
	r.Config = ConfigReport{Set: map[string]string{"GHOST_WAIT": "spin", "GHOST_NG": "x"},
		Problems: []ConfigProblem{{"error", "GHOST_NG", `GHOST_NG="x" is not valid`}}}
	r.fail("configuration: %s", r.Config.Problems[0].Message)
	return r
}

func TestWriteText(t *testing.T) {
	var b bytes.Buffer
	writeText(&b, fakeReport())
	// Column widths are the renderer's business: compare words.
	words := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	out := words(b.String())
	for _, want := range []string{
		"MPI:              MPICH 4.0.2, device ch4:ucx (from mpichversion)",
		"libmpi:           libmpich.so.12 => /lib/x86_64-linux-gnu/libmpich.so.12 (MPICH ABI)",
		"ABI:            built for MPICH 4.0.2: matches",
		"ABI:            an Open MPI binary (links libmpi.so.40)",
		"plain MPI:        the accumulate took 0.3100 s; the value arrived after the computation",
		"under Ghost:      the accumulate took 0.0020 s; the value arrived during the computation, at 0.0015 s",
		"native progress:  no: an accumulate waits",
		"node localhost:   2 users, 1 ghost",
		"processes:        3 on 2 cores",
		"device rocep1s0:  RoCE, IBV_ATOMIC_GLOB, firmware 22.31.1014",
		"port 1:         active, link layer ethernet",
		"hardware bypass:  on: contiguous PUT/GET",
		"because:        RDMA read/write offloaded by rocep1s0 (RoCE)",
		"atomics:        IBV_ATOMIC_GLOB on rocep1s0; accumulate-type operations stay on the ghosts regardless",
		"GHOST_NG:         x",
		`error:            GHOST_NG="x" is not valid`,
		"error: program ./app: an Open MPI binary",
		"warning: oversubscribed: 3 processes (2 users + 1 ghost) on 2 cores",
		"warning: GHOST_WAIT=spin under oversubscription",
	} {
		if !strings.Contains(out, words(want)) {
			t.Errorf("report lacks %q:\n%s", want, b.String())
		}
	}
}

// TestJSONFields pins the field names scripts read (docs/doctor.md).
func TestJSONFields(t *testing.T) {
	b, err := json.Marshal(fakeReport())
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{
		"schema", "mpi.vendor", "mpi.version", "mpi.abi", "mpi.library.name", "mpi.libghost.matches", "mpi.program.abi",
		"progress.native_async_progress", "progress.plain.op_seconds", "progress.ghost.arrived_during_compute",
		"layout.oversubscribed", "layout.cores", "layout.processes", "rdma.devices", "hw_bypass.bypass", "hw_bypass.reason",
		"config.problems", "warnings", "errors",
	} {
		var v any = doc
		for _, k := range strings.Split(path, ".") {
			m, ok := v.(map[string]any)
			if !ok {
				v = nil
				break
			}
			v = m[k]
		}
		if v == nil {
			t.Errorf("JSON has no %s: %s", path, b)
		}
	}
	if !strings.Contains(string(b), `"transport":"ib"`) || !strings.Contains(string(b), `"atomic_cap":"IBV_ATOMIC_GLOB"`) {
		t.Errorf("enums are not written by name: %s", b)
	}
}

func TestParseDoctorArgs(t *testing.T) {
	env := func(string) string { return "" }
	for _, tc := range []struct {
		args    []string
		want    doctorOptions
		wantErr string
	}{
		{nil, doctorOptions{users: 2, ghosts: 0, compute: 0.3}, ""},
		{[]string{"--json", "-n", "3", "-g", "2", "--hosts", "a:4", "--", "./app"},
			doctorOptions{users: 3, ghosts: 2, hosts: "a:4", json: true, compute: 0.3, program: "./app"}, ""},
		{[]string{"--no-probe", "--compute", "1.5"}, doctorOptions{users: 2, ghosts: 0, noProbe: true, compute: 1.5}, ""},
		{[]string{"-n", "4", "--hosts", "a:3,b:3"}, doctorOptions{users: 4, ghosts: 1, hosts: "a:3,b:3", compute: 0.3}, ""},
		{[]string{"-n", "0"}, doctorOptions{}, "-n 0 is not valid"},
		{[]string{"--compute", "0"}, doctorOptions{}, "--compute 0 is not valid"},
		{[]string{"-g", "x"}, doctorOptions{}, `-g "x" is not valid`},
		{[]string{"--", "a", "b"}, doctorOptions{}, "one program at most"},
	} {
		got, err := parseDoctorArgs(tc.args, env, &bytes.Buffer{})
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%q: err %v, want %q", tc.args, err, tc.wantErr)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%q: got %+v, %v; want %+v", tc.args, got, err, tc.want)
		}
	}
}
