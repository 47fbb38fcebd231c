package redirect

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestParseEpochs(t *testing.T) {
	tests := []struct {
		in   string
		want Epochs
		err  string
	}{
		{"lock", EpochLock, ""},
		{"lock,lockall,fence,pscw", AllEpochs, ""},
		{" Fence , PSCW ", EpochFence | EpochPSCW, ""},
		{"lock,lock", EpochLock, ""},
		{"", 0, `"" is not an epoch type`},
		{"lock,,fence", 0, `"" is not an epoch type`},
		{"locks", 0, `"locks" is not an epoch type`},
	}
	for _, tt := range tests {
		got, err := ParseEpochs(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ParseEpochs(%q) err = %v, want %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseEpochs(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
	if s := (EpochLock | EpochPSCW).String(); s != "lock,pscw" {
		t.Errorf("String = %q", s)
	}
}

func TestParseHints(t *testing.T) {
	tests := []struct {
		name string
		info map[string]string
		want Hints
		errs []string
	}{
		{"none", nil, Hints{Epochs: AllEpochs}, nil},
		{"all keys", map[string]string{"epochs_used": "fence", "no_local_load_store": "true", "async_config": "off"},
			Hints{Epochs: EpochFence, NoLocalLoadStore: true, Async: AsyncOff}, nil},
		{"async on", map[string]string{"async_config": "ON"}, Hints{Epochs: AllEpochs, Async: AsyncOn}, nil},
		{"bad epochs fall back", map[string]string{"epochs_used": "lock,sometimes"}, Hints{Epochs: AllEpochs},
			[]string{`info epochs_used="lock,sometimes" is not valid`}},
		{"bad bool", map[string]string{"no_local_load_store": "yes"}, Hints{Epochs: AllEpochs},
			[]string{"accepted values are true or false"}},
		{"bad async", map[string]string{"async_config": "auto-ish"}, Hints{Epochs: AllEpochs},
			[]string{"accepted values are on or off"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, errs := ParseHints(func(k string) (string, bool) { v, ok := tt.info[k]; return v, ok })
			if got != tt.want {
				t.Errorf("hints = %+v, want %+v", got, tt.want)
			}
			if len(errs) != len(tt.errs) {
				t.Fatalf("errs = %v", errs)
			}
			for i, e := range errs {
				if !strings.Contains(e.Error(), tt.errs[i]) {
					t.Errorf("err %q lacks %q", e, tt.errs[i])
				}
			}
		})
	}
}

func FuzzParseHints(f *testing.F) {
	for _, s := range []string{"lock", "lock,fence", "", ",", "LOCKALL , pscw", "\x00"} {
		f.Add(s, s)
	}
	f.Fuzz(func(t *testing.T, epochs, async string) {
		h, errs := ParseHints(func(k string) (string, bool) {
			switch k {
			case KeyEpochsUsed:
				return epochs, true
			case KeyAsyncConfig:
				return async, true
			}
			return "", false
		})
		if h.Epochs == 0 || h.Epochs&^AllEpochs != 0 {
			t.Fatalf("epochs %v out of range (errs %v)", h.Epochs, errs)
		}
		if e, err := ParseEpochs(epochs); err == nil && e != h.Epochs {
			t.Fatalf("hint epochs %v differ from ParseEpochs %v", h.Epochs, e)
		}
	})
}

func TestRoundSegment(t *testing.T) {
	for in, want := range map[int64]int64{0: 0, 1: 64, 4: 64, 64: 64, 65: 128, 4096: 4096} {
		if got := RoundSegment(in); got != want {
			t.Errorf("RoundSegment(%d) = %d, want %d", in, got, want)
		}
	}
	// The lock word gets a cache line of its own after the data.
	for in, want := range map[int64][2]int64{0: {0, 64}, 1: {64, 128}, 64: {64, 128}, 100: {128, 192}} {
		if off, total := LockWordOffset(in), SegmentBytes(in); off != want[0] || total != want[1] || off%SegmentAlign != 0 {
			t.Errorf("size %d: lock word at %d of %d bytes, want %d of %d", in, off, total, want[0], want[1])
		}
	}
}

func TestPlanWindow(t *testing.T) {
	// Two nodes: world 0..2 on node 0 (ghost 0), 3..5 on node 1 (ghost 3).
	l, err := NewLayout([]int{0, 0, 0, 3, 3, 3}, 1)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		users   []int
		members []int
		slot    []int
		err     string
	}{
		{"whole world", []int{1, 2, 4, 5}, []int{0, 1, 2, 3, 4, 5}, []int{0, 1, 0, 1}, ""},
		{"one node", []int{2, 1}, []int{0, 1, 2}, []int{1, 0}, ""},
		{"one user per node", []int{5, 1}, []int{0, 1, 3, 5}, []int{0, 0}, ""},
		{"ghost is no user", []int{0, 1}, nil, nil, "world rank 0 is not a user rank"},
		{"duplicate", []int{1, 1}, nil, nil, "appears twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := PlanWindow(l, tt.users)
			if checkedError(t, err, tt.err) {
				return
			}
			if !reflect.DeepEqual(p.Members, tt.members) || !reflect.DeepEqual(p.Slot, tt.slot) {
				t.Errorf("plan = %+v", p)
			}
		})
	}
}

func TestBoundGhost(t *testing.T) {
	for _, tt := range []struct{ slot, ng, want int }{{0, 1, 0}, {3, 1, 0}, {0, 2, 0}, {1, 2, 1}, {2, 2, 0}, {5, 3, 2}} {
		if got := BoundGhost(tt.slot, tt.ng); got != tt.want {
			t.Errorf("BoundGhost(%d, %d) = %d, want %d", tt.slot, tt.ng, got, tt.want)
		}
	}
}

func TestLeadsNode(t *testing.T) {
	// Users by window rank: nodes 1, 0, 1, 2, 0.
	p := &WindowPlan{Node: []int{1, 0, 1, 2, 0}}
	want := []bool{true, true, false, true, false}
	for r, w := range want {
		if got := p.LeadsNode(r); got != w {
			t.Errorf("LeadsNode(%d) = %v, want %v", r, got, w)
		}
	}
}

func TestHintsRedirected(t *testing.T) {
	tests := []struct {
		async     Async
		globalOff bool
		want      bool
	}{
		{AsyncDefault, false, true},
		{AsyncDefault, true, false},
		{AsyncOn, false, true},
		{AsyncOn, true, true},
		{AsyncOff, false, false},
		{AsyncOff, true, false},
	}
	for _, tt := range tests {
		if got := (Hints{Async: tt.async}).Redirected(tt.globalOff); got != tt.want {
			t.Errorf("Hints{Async: %d}.Redirected(%v) = %v, want %v", tt.async, tt.globalOff, got, tt.want)
		}
	}
}

func TestTargets(t *testing.T) {
	// Two nodes with two ghosts each: world 0,1 ghosts and 2,3,4 users on
	// node 0; 5,6 ghosts and 7,8 users on node 1.
	l, err := NewLayout([]int{0, 0, 0, 0, 0, 5, 5, 5, 5}, 2)
	if err != nil {
		t.Fatal(err)
	}
	users := []int{7, 2, 4}
	p, err := PlanWindow(l, users)
	if err != nil {
		t.Fatal(err)
	}
	segs := []Segment{{Offset: 0, Size: 100, DispUnit: 8}, {Offset: 128, Size: 64, DispUnit: 1}, {Offset: 256, Size: 0, DispUnit: 4}}
	// Ranks in the global window: the members in ascending world order.
	rankOf := func(world int) int { return slices.Index(p.Members, world) }
	tests := []struct {
		name   string
		origin int
		want   []Target
	}{
		{"origin on node 0", 3, []Target{
			{Bound: 4, BoundIdx: 0, Self: 6, Slot: 0, Segment: segs[0], LockDisp: 128,
				Ghosts: []int{4, 5}, GhostWorld: []int{5, 6}, GhostLocal: []int{-1, -1}},
			{Bound: 0, BoundIdx: 0, Self: 2, Slot: 0, Segment: segs[1], LockDisp: 64,
				Ghosts: []int{0, 1}, GhostWorld: []int{0, 1}, GhostLocal: []int{0, 1}, SameNode: true},
			{Bound: 1, BoundIdx: 1, Self: 3, Slot: 1, Segment: segs[2], LockDisp: 0,
				Ghosts: []int{0, 1}, GhostWorld: []int{0, 1}, GhostLocal: []int{0, 1}, SameNode: true},
		}},
		{"origin on node 1", 7, []Target{
			{Bound: 4, BoundIdx: 0, Self: 6, Slot: 0, Segment: segs[0], LockDisp: 128,
				Ghosts: []int{4, 5}, GhostWorld: []int{5, 6}, GhostLocal: []int{0, 1}, SameNode: true},
			{Bound: 0, BoundIdx: 0, Self: 2, Slot: 0, Segment: segs[1], LockDisp: 64,
				Ghosts: []int{0, 1}, GhostWorld: []int{0, 1}, GhostLocal: []int{-1, -1}},
			{Bound: 1, BoundIdx: 1, Self: 3, Slot: 1, Segment: segs[2], LockDisp: 0,
				Ghosts: []int{0, 1}, GhostWorld: []int{0, 1}, GhostLocal: []int{-1, -1}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := p.Targets(l, users, segs, tt.origin, rankOf); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Targets\n got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}
