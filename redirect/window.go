package redirect

import (
	"fmt"
	"sort"
	"strings"
)

// Epochs is a set of synchronization kinds a window will use (the
// epochs_used info hint). Without EpochLock, lock_all takes no lock words.
type Epochs uint8

const (
	EpochLock Epochs = 1 << iota
	EpochLockAll
	EpochFence
	EpochPSCW

	AllEpochs = EpochLock | EpochLockAll | EpochFence | EpochPSCW
)

var epochNames = []struct {
	name string
	bit  Epochs
}{{"lock", EpochLock}, {"lockall", EpochLockAll}, {"fence", EpochFence}, {"pscw", EpochPSCW}}

func (e Epochs) String() string {
	var parts []string
	for _, n := range epochNames {
		if e&n.bit != 0 {
			parts = append(parts, n.name)
		}
	}
	return strings.Join(parts, ",")
}

// ParseEpochs reads an epochs_used value such as "lock,fence".
func ParseEpochs(v string) (Epochs, error) {
	var e Epochs
	for _, item := range strings.Split(v, ",") {
		item = strings.ToLower(strings.TrimSpace(item))
		found := false
		for _, n := range epochNames {
			if item == n.name {
				e |= n.bit
				found = true
			}
		}
		if !found {
			return 0, fmt.Errorf("%q is not an epoch type", item)
		}
	}
	return e, nil
}

// Async is the async_config hint of one window.
type Async int

const (
	AsyncDefault Async = iota // not given: follow the global setting
	AsyncOn
	AsyncOff
)

// Hints are the Ghost info keys of MPI_Win_allocate.
type Hints struct {
	Epochs           Epochs
	NoLocalLoadStore bool
	Async            Async
}

// Info keys Ghost reads.
const (
	KeyEpochsUsed       = "epochs_used"
	KeyNoLocalLoadStore = "no_local_load_store"
	KeyAsyncConfig      = "async_config"
)

// HintKeys lists every key ParseHints reads: an info object with none of
// them gets the defaults.
var HintKeys = []string{KeyEpochsUsed, KeyNoLocalLoadStore, KeyAsyncConfig}

// ParseHints reads the hints through get, which returns a key's value and
// whether it is set. A malformed value falls back to the default for that
// key and is reported, naming the key, the value and what is accepted, as
// MPI lets an implementation ignore hints it cannot use.
func ParseHints(get func(key string) (string, bool)) (Hints, []error) {
	h := Hints{Epochs: AllEpochs}
	var errs []error
	if v, ok := get(KeyEpochsUsed); ok {
		e, err := ParseEpochs(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("info %s=%q is not valid (%v): accepted values are a comma-separated list of lock, lockall, fence, pscw; using all of them", KeyEpochsUsed, v, err))
		} else {
			h.Epochs = e
		}
	}
	if v, ok := get(KeyNoLocalLoadStore); ok {
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "true":
			h.NoLocalLoadStore = true
		case "false":
		default:
			errs = append(errs, fmt.Errorf("info %s=%q is not valid: accepted values are true or false; using false", KeyNoLocalLoadStore, v))
		}
	}
	if v, ok := get(KeyAsyncConfig); ok {
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "on":
			h.Async = AsyncOn
		case "off":
			h.Async = AsyncOff
		default:
			errs = append(errs, fmt.Errorf("info %s=%q is not valid: accepted values are on or off; using the global setting", KeyAsyncConfig, v))
		}
	}
	return h, errs
}

// SegmentAlign is the alignment of every user segment inside a node's
// shared segment: a cache line. MPICH 4.0.2 misplaces intranode RMA on
// windows whose base is not 16-byte aligned; a cache line also keeps
// neighbouring ranks' data apart. It is the one definition: the C data
// plane's SEGMENT_ALIGN (c/zconst.h, for MPICH's own windows) is generated
// from it by c/internal/constgen; run `make generate` after a change.
const SegmentAlign = 64

// RoundSegment rounds a segment size up to SegmentAlign.
func RoundSegment(size int64) int64 {
	return (size + SegmentAlign - 1) / SegmentAlign * SegmentAlign
}

// LockWordOffset is where a user's lock word lies from the start of its
// segment: in the cache line after its data, so that the word shares no
// line with data that RMA or load/store touch.
func LockWordOffset(size int64) int64 { return RoundSegment(size) }

// SegmentBytes is what a user of a redirected window puts in its node's
// memory for a window of size bytes: its data, rounded to a cache line, and
// the line that holds its lock word.
func SegmentBytes(size int64) int64 { return RoundSegment(size) + SegmentAlign }

// WindowPlan is how one window's users map onto nodes and ghosts.
type WindowPlan struct {
	// Members are the world ranks of the internal communicator: the
	// window's users plus every ghost of the nodes they live on, ascending.
	Members []int
	// Per user of the window, by rank in the window's communicator:
	Slot []int // index among the window's users on its node: picks its bound ghost
	Node []int // node index in the layout
}

// PlanWindow computes the plan for a window whose communicator has the
// given world ranks, in communicator rank order.
func PlanWindow(l *Layout, users []int) (*WindowPlan, error) {
	p := &WindowPlan{Slot: make([]int, len(users)), Node: make([]int, len(users))}
	members := map[int]bool{}
	perNode := map[int][]int{} // node -> user world ranks
	for i, w := range users {
		if w < 0 || w >= len(l.NodeOf) || l.IsGhost(w) {
			return nil, fmt.Errorf("world rank %d is not a user rank", w)
		}
		if members[w] {
			return nil, fmt.Errorf("world rank %d appears twice", w)
		}
		members[w] = true
		n := l.NodeOf[w]
		p.Node[i] = n
		perNode[n] = append(perNode[n], w)
	}
	for n, ws := range perNode {
		sort.Ints(ws)
		for _, g := range l.Nodes[n].Ghosts {
			members[g] = true
		}
	}
	for i, w := range users {
		p.Slot[i] = sort.SearchInts(perNode[p.Node[i]], w)
	}
	for w := range members {
		p.Members = append(p.Members, w)
	}
	sort.Ints(p.Members)
	return p, nil
}

// BoundGhost is the index, among its node's ghosts, of the ghost that
// serves every accumulate-type operation to the user in slot slot.
// Static binding spreads the users of a node evenly over its ghosts.
func BoundGhost(slot, ng int) int { return slot % ng }

// LeadsNode reports whether user rank r is the window's lowest rank on its
// node: the one user there that tells the node's ghosts about the window,
// so that each ghost gets one command per window.
func (p *WindowPlan) LeadsNode(r int) bool {
	for i := 0; i < r; i++ {
		if p.Node[i] == p.Node[r] {
			return false
		}
	}
	return true
}

// Redirected resolves a window's async_config hint against the global
// setting (globalOff: GHOST_ASYNC=off): whether the window starts on the
// ghosts' path.
func (h Hints) Redirected(globalOff bool) bool {
	return h.Async == AsyncOn || (h.Async == AsyncDefault && !globalOff)
}

// Segment is one member's part of its node's memory of a window: where it
// starts there, its size and its disp_unit.
type Segment struct {
	Offset, Size int64
	DispUnit     int
}

// Target is what an origin needs of one target of a redirected window:
// the fields of c/win.h's ghost_target_t that shim/win.go fills from it.
// Ranks are ranks in the window's global window.
type Target struct {
	Bound    int // the ghost serving every accumulate-type operation to it
	BoundIdx int // its index in Ghosts
	Self     int // the target itself: where operations go with redirection off
	Slot     int // its index among the window's users on its node
	Segment
	LockDisp   int64 // its lock word, from the start of its segment
	Ghosts     []int // every ghost of its node
	GhostWorld []int // their world ranks
	GhostLocal []int // their local ranks on the origin's node; -1 on another node
	SameNode   bool  // it lives on the origin's node
}

// Targets computes every target of the window, by user rank, as origin (a
// world rank) sees them. users are the window's users' world ranks, segs
// their segments, and rankOf maps a world rank to its rank in the window's
// global window.
func (p *WindowPlan) Targets(l *Layout, users []int, segs []Segment, origin int, rankOf func(world int) int) []Target {
	out := make([]Target, len(users))
	myNode := l.NodeOf[origin]
	for r, world := range users {
		ghosts := l.Nodes[p.Node[r]].Ghosts
		boundIdx := BoundGhost(p.Slot[r], len(ghosts))
		t := Target{
			Bound: rankOf(ghosts[boundIdx]), BoundIdx: boundIdx, Self: rankOf(world), Slot: p.Slot[r],
			Segment: segs[r], LockDisp: LockWordOffset(segs[r].Size), SameNode: p.Node[r] == myNode,
		}
		for _, g := range ghosts {
			local := -1
			if t.SameNode {
				local = l.LocalRank[g]
			}
			t.Ghosts = append(t.Ghosts, rankOf(g))
			t.GhostWorld = append(t.GhostWorld, g)
			t.GhostLocal = append(t.GhostLocal, local)
		}
		out[r] = t
	}
	return out
}
