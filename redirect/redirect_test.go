package redirect

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestNewLayout(t *testing.T) {
	tests := []struct {
		name        string
		leaderOf    []int
		ng          int
		worldOfUser []int
		ghosts      [][]int
		err         string
	}{
		{name: "one node one ghost", leaderOf: []int{0, 0, 0}, ng: 1, worldOfUser: []int{1, 2}, ghosts: [][]int{{0}}},
		{name: "one node two ghosts", leaderOf: []int{0, 0, 0, 0}, ng: 2, worldOfUser: []int{2, 3}, ghosts: [][]int{{0, 1}}},
		{name: "two nodes", leaderOf: []int{0, 0, 0, 3, 3, 3}, ng: 1, worldOfUser: []int{1, 2, 4, 5}, ghosts: [][]int{{0}, {3}}},
		{name: "interleaved nodes", leaderOf: []int{0, 1, 0, 1}, ng: 1, worldOfUser: []int{2, 3}, ghosts: [][]int{{0}, {1}}},
		{name: "pass-through", leaderOf: []int{0, 0}, ng: 0, worldOfUser: []int{0, 1}, ghosts: [][]int{nil}},
		{name: "no user left", leaderOf: []int{0, 0, 2}, ng: 1, err: "GHOST_NG=1 leaves no user process on node 1 (it has 1 processes, from world rank 2)"},
		{name: "negative", leaderOf: []int{0}, ng: -1, err: "must not be negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := NewLayout(tt.leaderOf, tt.ng)
			if checkedError(t, err, tt.err) {
				return
			}
			if !reflect.DeepEqual(l.WorldOfUser, tt.worldOfUser) {
				t.Errorf("WorldOfUser = %v, want %v", l.WorldOfUser, tt.worldOfUser)
			}
			for i, g := range tt.ghosts {
				if !reflect.DeepEqual(l.Nodes[i].Ghosts, g) {
					t.Errorf("node %d ghosts = %v, want %v", i, l.Nodes[i].Ghosts, g)
				}
			}
			for u, w := range l.WorldOfUser {
				if l.UserRank[w] != u || l.IsGhost(w) {
					t.Errorf("user %d <-> world %d mapping broken", u, w)
				}
			}
			if got := l.TotalGhosts(); got != len(tt.leaderOf)-len(tt.worldOfUser) {
				t.Errorf("TotalGhosts = %d", got)
			}
		})
	}
}

func TestNoUserErrorType(t *testing.T) {
	_, err := NewLayout([]int{0}, 1)
	var nu *NoUserError
	if !errors.As(err, &nu) || nu.Procs != 1 {
		t.Fatalf("err = %v, want *NoUserError with 1 process", err)
	}
}

func TestLocalUsers(t *testing.T) {
	l, err := NewLayout([]int{0, 0, 0, 3, 3, 3, 3}, 2)
	if err != nil {
		t.Fatal(err)
	}
	if got := l.LocalUsers(4); !reflect.DeepEqual(got, []int{2, 3}) {
		t.Errorf("LocalUsers = %v", got)
	}
	if got := l.LocalUsers(0); !reflect.DeepEqual(got, []int{2}) {
		t.Errorf("LocalUsers = %v", got)
	}
}

func TestParseHosts(t *testing.T) {
	tests := []struct {
		in   string
		want []HostSlots
		err  string
	}{
		{in: "nodeA:3,nodeB:3", want: []HostSlots{{"nodeA", 3}, {"nodeB", 3}}},
		{in: " a:1 ", want: []HostSlots{{"a", 1}}},
		{in: "", err: "empty"},
		{in: "a", err: `"a" is not valid`},
		{in: "a:0", err: "slots >= 1"},
		{in: "a:x", err: "not valid"},
		{in: ":2", err: "not valid"},
		{in: "a:1,a:2", err: "twice"},
	}
	for _, tt := range tests {
		got, err := ParseHosts(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ParseHosts(%q) err = %v, want %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ParseHosts(%q) = %v, %v", tt.in, got, err)
		}
	}
}

func TestPlace(t *testing.T) {
	two := []HostSlots{{"nodeA", 3}, {"nodeB", 3}}
	tests := []struct {
		name  string
		users int
		ng    int
		hosts []HostSlots
		want  string
		err   string
	}{
		{name: "fills both", users: 4, ng: 1, hosts: two, want: "nodeA:3,nodeB:3"},
		{name: "fits on first", users: 2, ng: 1, hosts: two, want: "nodeA:3"},
		{name: "partial second", users: 3, ng: 1, hosts: two, want: "nodeA:3,nodeB:2"},
		{name: "two ghosts", users: 2, ng: 2, hosts: two, want: "nodeA:3,nodeB:3"},
		{name: "no ghosts", users: 6, ng: 0, hosts: two, want: "nodeA:3,nodeB:3"},
		{name: "too many users", users: 5, ng: 1, hosts: two, err: "cannot hold 5 users plus 1 ghost(s) per host (1 users do not fit)"},
		{name: "host too small", users: 4, ng: 3, hosts: two, err: "host nodeA has 3 slots, which 3 ghost(s) fill"},
		{name: "no users", users: 0, ng: 1, hosts: two, err: "-n must be at least 1"},
		{name: "negative ghosts", users: 1, ng: -1, hosts: two, err: "-g must not be negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Place(tt.users, tt.ng, tt.hosts)
			if checkedError(t, err, tt.err) {
				return
			}
			if s := FormatHosts(got); s != tt.want {
				t.Errorf("Place = %s, want %s", s, tt.want)
			}
			if TotalSlots(got) != tt.users+tt.ng*len(got) {
				t.Errorf("TotalSlots = %d", TotalSlots(got))
			}
		})
	}
}

func TestCountNodes(t *testing.T) {
	tests := []struct {
		leaders []int
		want    int
	}{
		{nil, 0},
		{[]int{0}, 1},
		{[]int{0, 0, 0}, 1},
		{[]int{0, 0, 2, 2}, 2},
		{[]int{0, 1, 0, 1, 4}, 3},
	}
	for _, tt := range tests {
		if got := CountNodes(tt.leaders); got != tt.want {
			t.Errorf("CountNodes(%v) = %d, want %d", tt.leaders, got, tt.want)
		}
	}
}

func TestFewestPerNode(t *testing.T) {
	tests := []struct {
		leaders []int
		want    int
	}{
		{nil, 0},
		{[]int{0}, 1},
		{[]int{0, 0, 0}, 3},
		{[]int{0, 0, 2, 2, 2}, 2},
		{[]int{0, 1, 2}, 1}, // MPIR_CVAR_NOLOCAL=1: every process a node of its own
	}
	for _, tt := range tests {
		if got := FewestPerNode(tt.leaders); got != tt.want {
			t.Errorf("FewestPerNode(%v) = %d, want %d", tt.leaders, got, tt.want)
		}
	}
}

// checkedError checks err against want, a part of the error a case expects
// ("" for none); it reports whether the case is over: an error came, as
// expected.
func checkedError(t *testing.T, err error, want string) bool {
	t.Helper()
	if want == "" {
		if err != nil {
			t.Fatal(err)
		}
		return false
	}
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("err = %v, want one containing %q", err, want)
	}
	return true
}

func TestCoresForAll(t *testing.T) {
	tests := []struct {
		name   string
		hostOf []int
		cpusOf []int
		me     int
		want   bool
	}{
		{"2 users and 1 ghost on 16 cores", []int{7, 7, 7}, []int{16, 16, 16}, 0, true},
		{"2 users and 1 ghost on 2 cores", []int{7, 7, 7}, []int{2, 2, 2}, 2, false},
		{"as many processes as cores", []int{7, 7}, []int{2, 2}, 1, true},
		{"2 fake nodes of 2 on one 2-core host", []int{7, 7, 7, 7}, []int{2, 2, 2, 2}, 3, false},
		{"2 fake nodes of 2 on one 16-core host", []int{7, 7, 7, 7}, []int{16, 16, 16, 16}, 0, true},
		{"2 real hosts of 2 cores, 2 processes each", []int{1, 1, 2, 2}, []int{2, 2, 2, 2}, 2, true},
		{"the other host is crowded, not mine", []int{1, 1, 2, 2, 2}, []int{2, 2, 2, 2, 2}, 0, true},
		{"mine is crowded", []int{1, 1, 2, 2, 2}, []int{2, 2, 2, 2, 2}, 4, false},
		{"each bound to one core", []int{7, 7, 7}, []int{1, 1, 1}, 0, false},
		{"one process sees the whole machine", []int{7, 7, 7}, []int{1, 1, 4}, 1, true},
		{"alone", []int{7}, []int{1}, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := HostOf(tt.hostOf, tt.cpusOf, nil, tt.me).CoresForAll(); got != tt.want {
				t.Errorf("CoresForAll = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestHostOfGhosts(t *testing.T) {
	tests := []struct {
		name     string
		hostOf   []int
		userRank []int
		me, want int
	}{
		{"one node, one ghost", []int{7, 7, 7}, []int{-1, 0, 1}, 1, 1},
		{"two fake nodes on one host", []int{7, 7, 7, 7}, []int{-1, 0, -1, 1}, 3, 2},
		{"two hosts", []int{1, 1, 2, 2, 2}, []int{-1, 0, -1, -1, 1}, 4, 2},
		{"no ghosts", []int{7, 7}, []int{0, 1}, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cpus := make([]int, len(tt.hostOf))
			if got := HostOf(tt.hostOf, cpus, tt.userRank, tt.me).Ghosts; got != tt.want {
				t.Errorf("HostOf(...).Ghosts = %d, want %d", got, tt.want)
			}
		})
	}
}
