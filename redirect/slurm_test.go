package redirect

import (
	"reflect"
	"strings"
	"testing"
)

func TestExpandNodeList(t *testing.T) {
	tests := []struct {
		in   string
		want []string
		err  string
	}{
		{in: "n1", want: []string{"n1"}},
		{in: "n[1-2]", want: []string{"n1", "n2"}},
		{in: "n[1-2],x3", want: []string{"n1", "n2", "x3"}},
		{in: "n[1-3,7],login2", want: []string{"n1", "n2", "n3", "n7", "login2"}},
		{in: "c[08-10]", want: []string{"c08", "c09", "c10"}},
		{in: "r[1-2]n[1-2]", want: []string{"r1n1", "r1n2", "r2n1", "r2n2"}},
		{in: "gpu-[3]-a", want: []string{"gpu-3-a"}},
		{in: "a,b", want: []string{"a", "b"}},
		{in: "", err: "empty"},
		{in: "n[1-2", err: "unclosed"},
		{in: "n1]", err: "without"},
		{in: "n[2-1]", err: "ascending"},
		{in: "n[a-b]", err: "not a number"},
		{in: "n1,,n2", err: "empty entry"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ExpandNodeList(tt.in)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("ExpandNodeList(%q) = %v, %v; want error with %q", tt.in, got, err, tt.err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("ExpandNodeList(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestExpandCounts(t *testing.T) {
	tests := []struct {
		in   string
		want []int
		bad  bool
	}{
		{in: "3", want: []int{3}},
		{in: "3(x2)", want: []int{3, 3}},
		{in: "3(x2),1", want: []int{3, 3, 1}},
		{in: "64,32(x3)", want: []int{64, 32, 32, 32}},
		{in: "", bad: true},
		{in: "3(2)", bad: true},
		{in: "3(x0)", bad: true},
		{in: "x", bad: true},
		{in: "-1", bad: true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ExpandCounts(tt.in)
			if tt.bad {
				if err == nil {
					t.Fatalf("ExpandCounts(%q) = %v, want an error", tt.in, got)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("ExpandCounts(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
			}
		})
	}
}

func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestSlurmFromEnv(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		ok   bool
		want *SlurmAlloc
		err  string
	}{
		{name: "outside", env: map[string]string{"SLURM_NNODES": "2"}},
		{name: "salloc -N2 --ntasks-per-node=3", ok: true, env: map[string]string{
			"SLURM_JOB_ID": "7", "SLURM_JOB_NUM_NODES": "2", "SLURM_JOB_NODELIST": "n[1-2]",
			"SLURM_JOB_CPUS_PER_NODE": "3(x2)", "SLURM_TASKS_PER_NODE": "3(x2)"},
			want: &SlurmAlloc{JobID: "7", Nodes: []string{"n1", "n2"}, NumNodes: 2, Capacity: []int{3, 3}, CapacityFrom: "SLURM_JOB_CPUS_PER_NODE"}},
		{name: "exclusive nodes: CPUs, not tasks, bound a step", ok: true, env: map[string]string{
			"SLURM_JOB_ID": "8", "SLURM_NNODES": "2", "SLURM_NODELIST": "c[01-02]",
			"SLURM_JOB_CPUS_PER_NODE": "64(x2)", "SLURM_TASKS_PER_NODE": "1(x2)"},
			want: &SlurmAlloc{JobID: "8", Nodes: []string{"c01", "c02"}, NumNodes: 2, Capacity: []int{64, 64}, CapacityFrom: "SLURM_JOB_CPUS_PER_NODE"}},
		{name: "cpus per task", ok: true, env: map[string]string{
			"SLURM_JOB_ID": "9", "SLURM_JOB_NUM_NODES": "1", "SLURM_JOB_CPUS_PER_NODE": "8", "SLURM_CPUS_PER_TASK": "2"},
			want: &SlurmAlloc{JobID: "9", NumNodes: 1, Capacity: []int{4}, CapacityFrom: "SLURM_JOB_CPUS_PER_NODE"}},
		{name: "tasks only", ok: true, env: map[string]string{
			"SLURM_JOBID": "10", "SLURM_JOB_NODELIST": "a,b", "SLURM_TASKS_PER_NODE": "2,1"},
			want: &SlurmAlloc{JobID: "10", Nodes: []string{"a", "b"}, NumNodes: 2, Capacity: []int{2, 1}, CapacityFrom: "SLURM_TASKS_PER_NODE"}},
		{name: "no counts", ok: true, env: map[string]string{"SLURM_JOB_ID": "11", "SLURM_JOB_NUM_NODES": "3"},
			want: &SlurmAlloc{JobID: "11", NumNodes: 3}},
		{name: "no nodes", ok: true, env: map[string]string{"SLURM_JOB_ID": "12"}, err: "neither"},
		{name: "bad node count", ok: true, env: map[string]string{"SLURM_JOB_ID": "13", "SLURM_JOB_NUM_NODES": "x"}, err: "SLURM_JOB_NUM_NODES"},
		{name: "list and count disagree", ok: true, env: map[string]string{
			"SLURM_JOB_ID": "14", "SLURM_JOB_NUM_NODES": "3", "SLURM_JOB_NODELIST": "n[1-2]"}, err: "names 2 nodes"},
		{name: "counts and nodes disagree", ok: true, env: map[string]string{
			"SLURM_JOB_ID": "15", "SLURM_JOB_NUM_NODES": "2", "SLURM_JOB_CPUS_PER_NODE": "4(x3)"}, err: "counts 3 nodes"},
		{name: "bad counts", ok: true, env: map[string]string{
			"SLURM_JOB_ID": "16", "SLURM_JOB_NUM_NODES": "2", "SLURM_TASKS_PER_NODE": "3[x2]"}, err: "SLURM_TASKS_PER_NODE"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok, err := SlurmFromEnv(envOf(tt.env))
			if ok != tt.ok {
				t.Fatalf("ok = %v, want %v", ok, tt.ok)
			}
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("got %+v, %v; want error with %q", got, err, tt.err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}

func TestPlanSlurm(t *testing.T) {
	twoBy3 := &SlurmAlloc{JobID: "7", Nodes: []string{"n1", "n2"}, NumNodes: 2, Capacity: []int{3, 3}, CapacityFrom: "SLURM_JOB_CPUS_PER_NODE"}
	threeBy4 := &SlurmAlloc{JobID: "8", Nodes: []string{"a", "b", "c"}, NumNodes: 3, Capacity: []int{4, 4, 4}, CapacityFrom: "SLURM_JOB_CPUS_PER_NODE"}
	unknown := &SlurmAlloc{NumNodes: 2}
	tests := []struct {
		name           string
		alloc          *SlurmAlloc
		users, ng, cap int
		want           string // FormatHosts of the plan
		total, max     int
		even           bool
		err            []string
	}{
		{name: "issue 15: -n 4 in -N2 --ntasks-per-node=3", alloc: twoBy3, users: 4, ng: 1, want: "n1:3,n2:3", total: 6, max: 3, even: true},
		{name: "no ghosts", alloc: twoBy3, users: 6, ng: 0, want: "n1:3,n2:3", total: 6, max: 3, even: true},
		{name: "uneven: extra users on the first nodes", alloc: threeBy4, users: 7, ng: 1, want: "a:4,b:3,c:3", total: 10, max: 4},
		{name: "fewer users than nodes", alloc: threeBy4, users: 2, ng: 1, want: "a:2,b:2", total: 4, max: 2, even: true},
		{name: "one user", alloc: threeBy4, users: 1, ng: 0, want: "a:1", total: 1, max: 1, even: true},
		{name: "4 users on 3 nodes use 3", alloc: threeBy4, users: 4, ng: 1, want: "a:3,b:2,c:2", total: 7, max: 3},
		{name: "node cap", alloc: threeBy4, users: 6, ng: 1, cap: 2, want: "a:4,b:4", total: 8, max: 4, even: true},
		{name: "no capacity known", alloc: unknown, users: 9, ng: 2, want: "node0:7,node1:6", total: 13, max: 7},
		{name: "too many users", alloc: twoBy3, users: 6, ng: 1,
			err: []string{"Slurm job 7 cannot hold 6 user ranks plus 1 ghost(s) per node", "needs 4 tasks on node n1", "room for 3",
				"--ntasks-per-node=4", "salloc -N2 --ntasks-per-node=4", "or for 3 nodes (-N3) with 3 tasks each"}},
		{name: "ghosts fill the node", alloc: twoBy3, users: 2, ng: 3,
			err: []string{"--ntasks-per-node=4", "lower -n or -g"}},
		{name: "cap above the allocation", alloc: twoBy3, users: 2, ng: 1, cap: 3, err: []string{"3 nodes wanted", "has 2"}},
		{name: "no users", alloc: twoBy3, users: 0, ng: 1, err: []string{"-n must be at least 1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := PlanSlurm(tt.alloc, tt.users, tt.ng, tt.cap)
			if tt.err != nil {
				if err == nil {
					t.Fatalf("plan %+v, want an error", p)
				}
				for _, s := range tt.err {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("error %q lacks %q", err, s)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := FormatHosts(p.Nodes); got != tt.want || p.Total != tt.total || p.MaxSlots() != tt.max || p.Even != tt.even {
				t.Fatalf("plan %s total %d max %d even %v; want %s total %d max %d even %v",
					got, p.Total, p.MaxSlots(), p.Even, tt.want, tt.total, tt.max, tt.even)
			}
			// Ghost's own split of this placement gives every node its
			// ghosts and the users the plan counted.
			var leaderOf []int
			for i, h := range p.Nodes {
				for range h.Slots {
					leaderOf = append(leaderOf, i)
				}
			}
			l, err := NewLayout(leaderOf, tt.ng)
			if err != nil {
				t.Fatalf("NewLayout of the plan: %v", err)
			}
			if len(l.WorldOfUser) != tt.users {
				t.Fatalf("the plan gives %d users, want %d", len(l.WorldOfUser), tt.users)
			}
		})
	}
}

func TestSlurmNodesUsed(t *testing.T) {
	for _, tt := range []struct{ users, avail, want int }{
		{1, 2, 1}, {2, 2, 2}, {4, 2, 2}, {4, 3, 3}, {7, 3, 3}, {3, 8, 3}, {0, 2, 1},
	} {
		if got := SlurmNodesUsed(tt.users, tt.avail); got != tt.want {
			t.Errorf("SlurmNodesUsed(%d, %d) = %d, want %d", tt.users, tt.avail, got, tt.want)
		}
	}
}
