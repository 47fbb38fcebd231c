package metrics

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// fixedSource is a Source that returns one snapshot.
type fixedSource Snapshot

func (f fixedSource) Snapshot() Snapshot { return Snapshot(f) }

func user(index int, start, end uint64) Block {
	return Block{Role: RoleUser, Index: index, StartTicks: start, EndTicks: end}
}

// twoUsersOneGhost is a node of two users (one finished, one running) and
// one ghost, at 1000 ticks per second.
func twoUsersOneGhost() Snapshot {
	a, b := user(1, 0, 4000), user(2, 1000, 0)
	a.Ops[0][0], a.Ops[0][1], a.Bytes[0][0] = 3, 1, 48
	b.Ops[0][0], b.Ops[5][1], b.Bytes[5][1] = 2, 6, 24
	a.Syncs[1], b.Syncs[1], b.Syncs[5] = 2, 2, 7
	a.Transitions[3][0] = 1 // on to off at an implicit point
	b.Transitions[1][1] = 2 // off to on at fences
	// Fences (call 6): 4 on a, 4 on b; their flushes and barriers.
	a.SyncCalls[6], b.SyncCalls[6] = 4, 4
	a.InternalOps[6], b.InternalOps[6] = [NInternal]uint64{8, 1, 4}, [NInternal]uint64{4, 0, 4}
	a.Windows, a.WindowsRedirected = 2, 1
	a.ShmBytes, b.ShmBytes = 128, 64
	a.MPICalls, a.MPITicks, b.MPICalls, b.MPITicks = 10, 1000, 5, 500
	g := Block{Role: RoleGhost, Index: 0, Polls: 100, BusyNs: 3e9, IdleNs: 1e9, ShmBytes: 512}
	return Snapshot{Node: 3, TSCHz: 1000, NowTicks: 5000, Blocks: []Block{g, a, b, {Role: RoleNone, Polls: 99}}}
}

func TestSum(t *testing.T) {
	tests := []struct {
		name      string
		snap      Snapshot
		check     func(t *testing.T, tot Totals)
		wantCR    float64
		wantCROK  bool
		wantUsers int
	}{
		{
			name: "users and a ghost", snap: twoUsersOneGhost(), wantUsers: 2,
			// MPI 1.5 s over 4 s + 4 s of run time.
			wantCR: 1.5 / 8, wantCROK: true,
			check: func(t *testing.T, tot Totals) {
				if tot.Ops[0] != [NPaths]uint64{5, 1} || tot.Ops[5] != [NPaths]uint64{0, 6} {
					t.Errorf("ops = %v", tot.Ops)
				}
				if tot.Bytes[0][0] != 48 || tot.Bytes[5][1] != 24 {
					t.Errorf("bytes = %v", tot.Bytes)
				}
				if tot.SyncCalls[6] != 8 || tot.InternalOps[6] != [NInternal]uint64{12, 1, 8} {
					t.Errorf("sync calls %v internal %v", tot.SyncCalls, tot.InternalOps)
				}
				if tot.Syncs[1] != 4 || tot.Syncs[5] != 7 || tot.Transitions[3] != [NDirections]uint64{1, 0} || tot.Transitions[1] != [NDirections]uint64{0, 2} {
					t.Errorf("syncs %v transitions %v", tot.Syncs, tot.Transitions)
				}
				if tot.Windows != 2 || tot.WindowsRedirected != 1 || tot.ShmBytes != 704 {
					t.Errorf("windows %d/%d shm %d", tot.Windows, tot.WindowsRedirected, tot.ShmBytes)
				}
				if len(tot.Ghosts) != 1 || tot.Ghosts[0].Polls != 100 || tot.Ghosts[0].BusyRatio() != 0.75 {
					t.Errorf("ghosts = %+v", tot.Ghosts)
				}
			},
		},
		{name: "empty node", snap: Snapshot{TSCHz: 1000}},
		{name: "profiling off", wantUsers: 1, snap: Snapshot{TSCHz: 1000, NowTicks: 10, Blocks: []Block{user(0, 0, 0)}}},
		{name: "no clock rate", wantUsers: 1, snap: Snapshot{NowTicks: 10, Blocks: []Block{{Role: RoleUser, MPICalls: 1, MPITicks: 5}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tot := Sum(tc.snap)
			if tot.Users != tc.wantUsers {
				t.Errorf("users = %d, want %d", tot.Users, tc.wantUsers)
			}
			cr, ok := tot.CommunicationRatio()
			if ok != tc.wantCROK || math.Abs(cr-tc.wantCR) > 1e-12 {
				t.Errorf("CR = %v, %v; want %v, %v", cr, ok, tc.wantCR, tc.wantCROK)
			}
			if tc.check != nil {
				tc.check(t, tot)
			}
		})
	}
}

// gather collects c and returns every sample as "name{labels}" -> value.
func gather(t *testing.T, c prometheus.Collector) map[string]float64 {
	t.Helper()
	reg := prometheus.NewRegistry()
	reg.MustRegister(c)
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, mf := range families {
		for _, m := range mf.GetMetric() {
			var labels []string
			for _, l := range m.GetLabel() {
				labels = append(labels, l.GetName()+"="+l.GetValue())
			}
			out[mf.GetName()+"{"+strings.Join(labels, ",")+"}"] = sampleValue(m)
		}
	}
	return out
}

func sampleValue(m *dto.Metric) float64 { return value(m) }

func TestCollector(t *testing.T) {
	got := gather(t, NewCollector(3, fixedSource(twoUsersOneGhost()), BuildInfo{Version: "v1", MPIVersion: "4.0.2", ABI: "MPI 4.0"}))
	want := map[string]float64{
		"ghost_rma_operations_total{node=3,op=put,path=ghost}":                          5,
		"ghost_rma_operations_total{node=3,op=put,path=direct}":                         1,
		"ghost_rma_operations_total{node=3,op=cas,path=direct}":                         6,
		"ghost_rma_operations_total{node=3,op=get,path=ghost}":                          0,
		"ghost_rma_bytes_total{node=3,op=put,path=ghost}":                               48,
		"ghost_epochs_total{node=3,type=lock_all}":                                      4,
		"ghost_epochs_total{node=3,type=flush}":                                         7,
		"ghost_adaptation_transitions_total{direction=on_to_off,node=3,point=implicit}": 1,
		"ghost_adaptation_transitions_total{direction=off_to_on,node=3,point=fence}":    2,
		"ghost_adaptation_transitions_total{direction=on_to_off,node=3,point=fence}":    0,
		"ghost_adaptation_state{node=3,state=on}":                                       1,
		"ghost_adaptation_state{node=3,state=off}":                                      1,
		"ghost_active_windows{node=3}":                                                  2,
		"ghost_shm_bytes{node=3}":                                                       704,
		"ghost_user_processes{node=3}":                                                  2,
		"ghost_mpi_calls_total{node=3}":                                                 15,
		"ghost_mpi_time_seconds_total{node=3}":                                          1.5,
		"ghost_communication_ratio{node=3}":                                             1.5 / 8,
		"ghost_poll_loops_total{ghost=0,node=3}":                                        100,
		"ghost_busy_seconds_total{ghost=0,node=3}":                                      3,
		"ghost_busy_ratio{ghost=0,node=3}":                                              0.75,
		"ghost_build_info{abi=MPI 4.0,mpi_version=4.0.2,node=3,version=v1}":             1,
	}
	for k, v := range want {
		if g, ok := got[k]; !ok || math.Abs(g-v) > 1e-12 {
			t.Errorf("%s = %v (present %v), want %v", k, g, ok, v)
		}
	}
	// Every op x path is exported, zeros included, so a query for an
	// exact count never finds nothing.
	n := 0
	for k := range got {
		if strings.HasPrefix(k, "ghost_rma_operations_total{") {
			n++
		}
	}
	if n != NOps*NPaths {
		t.Errorf("%d operation series, want %d", n, NOps*NPaths)
	}
}

func TestCollectorOmitsCRWithoutProfiling(t *testing.T) {
	snap := Snapshot{TSCHz: 1000, NowTicks: 10, Blocks: []Block{user(0, 0, 0)}}
	for k := range gather(t, NewCollector(0, fixedSource(snap), BuildInfo{})) {
		if strings.HasPrefix(k, "ghost_communication_ratio") {
			t.Errorf("%s exported with profiling off", k)
		}
	}
}

// countingSource counts its snapshots and changes on every one.
type countingSource struct{ n int }

func (c *countingSource) Snapshot() Snapshot {
	c.n++
	return Snapshot{Node: c.n}
}

func TestFreezer(t *testing.T) {
	live := &countingSource{}
	f := NewFreezer(live)
	if f.Snapshot().Node != 1 || f.Snapshot().Node != 2 {
		t.Fatal("a live freezer must read its source every time")
	}
	if got := f.Freeze().Node; got != 3 {
		t.Fatalf("Freeze = node %d, want 3", got)
	}
	for i := 0; i < 3; i++ {
		if got := f.Snapshot().Node; got != 3 || live.n != 3 {
			t.Fatalf("after Freeze: node %d, source read %d times", got, live.n)
		}
	}
	if f.Freeze().Node != 3 || live.n != 3 {
		t.Fatal("a second Freeze must not read the source")
	}
}

func TestWriteTable(t *testing.T) {
	reg := prometheus.NewRegistry()
	reg.MustRegister(NewCollector(3, fixedSource(twoUsersOneGhost()), BuildInfo{}))
	var text bytes.Buffer
	dir := t.TempDir()
	path, err := WriteTextfile(dir, 3, reg)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := ReadTextfiles([]string{path})
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteTable(&text, recs); err != nil {
		t.Fatal(err)
	}
	// Compare rows field by field: the column widths are tabwriter's.
	rows := map[string]bool{}
	for _, line := range strings.Split(text.String(), "\n") {
		rows[strings.Join(strings.Fields(line), " ")] = true
	}
	for _, want := range []string{
		"3 2 5 7 0 48 B 24 B 0 B 11 1 2 1.500 0.19 75%",
		"3 fence 0 2",
		"3 implicit 1 0",
		"3 put 5 1 0 48 B 0 B 0 B",
		"3 cas 0 6 0 0 B 24 B 0 B",
	} {
		if !rows[want] {
			t.Errorf("table lacks the row %q:\n%s", want, text.String())
		}
	}
	if rows["3 allocation 0 0"] || rows["3 set_info 0 0"] {
		t.Errorf("table lists a point where nothing switched:\n%s", text.String())
	}
	if rows["3 get 0 0 0 B 0 B"] {
		t.Errorf("table lists an operation never issued:\n%s", text.String())
	}
}
