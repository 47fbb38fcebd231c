package main

// #include <stdlib.h>
// #include "agree.h"
// #include "win.h"
// #include "local.h"
// #include "arena.h"
// #include "localcalls.h"
// #include "counters.h"
// #include "quiesce.h"
import "C"

import (
	"runtime/cgo"
	"sort"
	"sync/atomic"
	"unsafe"

	"github.com/ghost-mpi/ghost/internal/config"
	"github.com/ghost-mpi/ghost/redirect"
)

// internalWin is what users and ghosts alike hold of one redirected window:
// the communicator of its users plus their nodes' ghosts, the node segment
// and the global window over it.
type internalWin struct {
	id       int64
	plan     *redirect.WindowPlan
	users    []int // world ranks of the window's users, by user rank
	comms    *memberComms
	comm     C.MPI_Comm // comms.comm
	shm      C.MPI_Win
	global   C.MPI_Win
	base     unsafe.Pointer     // this process's segment
	nodeBase unsafe.Pointer     // the node segment, which holds every segment of this node
	members  []redirect.Segment // by internal rank
	shmSize  int64              // what this process put in the node segment (metrics)
}

// userWin is a user's record of a redirected window: its internal objects,
// or its segment in the arena when it lives in the pooled window. The C
// window table is the one registry of windows: the window's entry holds
// this record as a cgo.Handle (ghost_win_t.go_state) from before the entry
// is registered until MPI_Win_free, which hands Go the entry it found.
type userWin struct {
	internal *internalWin
	arena    unsafe.Pointer
	c        *C.ghost_win_t
	notifies bool // this user tells its node's ghosts about the window
}

// ghostWindows are the windows a ghost serves, by id: a ghost holds no C
// window entry (it never runs the application's MPI calls). A ghost serves
// one thread only, so the map needs no lock.
var ghostWindows = map[int64]*internalWin{}

// windowSeq numbers the windows whose rank 0 this process is.
var windowSeq atomic.Int64

// internalRank maps a world rank to its rank in the window's communicator,
// whose group lists the members in ascending world rank.
func (iw *internalWin) internalRank(world int) int {
	return sort.SearchInts(iw.plan.Members, world)
}

// ghostWinHints reads Ghost's info keys for MPI_Win_allocate, warns once
// per window about malformed ones, and resolves async_config against
// GHOST_ASYNC.
//
//export ghostWinHints
func ghostWinHints(info C.MPI_Info, comm C.MPI_Comm, out *C.ghost_hints_t) {
	hints, problems := redirect.ParseHints(func(key string) (string, bool) { return infoGet(info, key) })
	if len(problems) > 0 && commRank(comm) == 0 {
		for _, p := range problems {
			self.log.warnf("MPI_Win_allocate: %v", p)
		}
	}
	*out = cHints(hints)
}

// setupWindowPaths hands C what it needs to choose a window's path without
// Go: the hints of a window allocated without info, whether the node-local
// path is on, and every process's node when the job spans several.
func setupWindowPaths(cfg config.Config, layout *redirect.Layout) C.int {
	hints, _ := redirect.ParseHints(func(string) (string, bool) { return "", false })
	C.ghost_default_hints = cHints(hints)
	for _, key := range redirect.HintKeys {
		ckey := C.CString(key)
		rc := C.ghost_hint_key_add(ckey)
		C.free(unsafe.Pointer(ckey))
		if rc != C.MPI_SUCCESS {
			return rc
		}
	}
	C.ghost_node_local = boolInt(!cfg.NodeLocalOff)
	if len(layout.Nodes) == 1 {
		return C.MPI_SUCCESS
	}
	nodes := make([]C.int, len(layout.NodeOf))
	for i, n := range layout.NodeOf {
		nodes[i] = C.int(n)
	}
	return C.ghost_nodes_setup(C.int(len(nodes)), &nodes[0])
}

func cHints(h redirect.Hints) C.ghost_hints_t {
	return C.ghost_hints_t{epochs: C.int(h.Epochs), async: boolInt(h.Redirected(self.cfg.Async == config.AsyncOff)),
		pinned: boolInt(h.Async == redirect.AsyncOn), no_local_load_store: boolInt(h.NoLocalLoadStore)}
}

// ghostWinAllocate runs MPI_Win_allocate for a user process, for a window
// that spans nodes (C serves windows on one node itself, in local.c).
//
// Per window it creates the application's handle and, with its users and
// their nodes' ghosts, a node segment per node and the global window.
// Every failure is agreed: all users return an error of the same class
// (raised on comm's errhandler, as MPICH would), and the ghosts give back
// what they built instead of aborting.
//
//export ghostWinAllocate
func ghostWinAllocate(size C.MPI_Aint, dispUnit C.int, info C.MPI_Info, comm C.MPI_Comm,
	hints *C.ghost_hints_t, baseptr unsafe.Pointer, win *C.MPI_Win) C.int {
	if !self.split || hints.async == 0 {
		return C.ghost_win_allocate_plain(size, dispUnit, info, comm, baseptr, win)
	}
	defer syncCall(C.GHOST_CALL_WIN_ALLOCATE)()

	w := C.ghost_win_new(C.int(commSize(comm)))
	w.size = size
	if rc := C.ghost_comm_private(comm, boolInt(self.threadMultiple), w); rc != C.MPI_SUCCESS {
		C.ghost_win_delete(w)
		return rc // MPICH raised it on comm
	}
	pscw := w.pscw
	// fail gives back what the allocation holds. Errors of Ghost's own, or
	// of internal communicators, are raised on comm as MPICH would.
	fail := func(rc C.int, raise bool) C.int {
		C.ghost_comm_private_release(w)
		C.ghost_win_delete(w)
		if raise {
			raiseOnComm(comm, rc)
		}
		return rc
	}
	users := allgatherInt(pscw, self.worldRank)
	plan, err := redirect.PlanWindow(self.layout, users)
	if err != nil {
		self.log.errorf("MPI_Win_allocate: %v", err)
		return fail(C.MPI_ERR_COMM, true)
	}
	// A job-wide id: the window's rank 0 numbers its own windows.
	id := int64(bcastInt(pscw, int(windowSeq.Add(1)), 0))<<32 | int64(users[0])

	uw := &userWin{c: w}
	var segs []redirect.Segment       // by user rank
	var rankOf func(world int) int    // rank in the window's global window
	var nodeBase, mine unsafe.Pointer // this node's memory of the window; this user's segment
	if pooledWin != winNull {
		uw.arena, segs = arenaSegments(pscw, int64(size), int(dispUnit))
	}
	if uw.arena != nil {
		w.gwin = pooledWin
		rankOf = func(world int) int { return world }
		nodeBase, mine = unsafe.Pointer(C.ghost_arena_base()), uw.arena
	} else {
		if pooledWin != winNull && commRank(pscw) == 0 {
			self.log.debugf("MPI_Win_allocate: window %x: no room in some user's arena part; internal objects of its own", id)
		}
		uw.notifies = plan.LeadsNode(commRank(pscw))
		rc := serialized(pscw, func() C.int {
			if uw.notifies {
				notifyGhosts(C.GHOST_CMD_WIN_ALLOCATE, id, users)
			}
			var rc C.int
			uw.internal, rc = buildInternal(id, plan, users, int64(size), int(dispUnit))
			return rc
		})
		if rc != C.MPI_SUCCESS {
			return fail(rc, true)
		}
		iw := uw.internal
		w.shm, w.gwin = iw.shm, iw.global
		segs = make([]redirect.Segment, len(users))
		for r, world := range users {
			segs[r] = iw.members[iw.internalRank(world)]
		}
		rankOf = iw.internalRank
		nodeBase, mine = iw.nodeBase, iw.base
	}
	// The application's handle last: a window over no memory on its own
	// communicator (c/win.c, ghost_user_window), whose group, name, info
	// and errhandler behave as MPI says without a ghost in sight (Ghost
	// answers the attributes of the memory, c/win_info.c). MPICH agrees the
	// failure of a collective creation (no context id left) on every
	// member.
	if rc := C.ghost_user_window(info, comm, &w.user); rc != C.MPI_SUCCESS {
		uw.release()
		return fail(rc, false)
	}
	w.id = C.int64_t(id)
	w.rank = C.int(commRank(pscw))
	w.base, w.disp_unit = mine, dispUnit
	w.epochs = hints.epochs
	w.pinned = hints.pinned
	setInitialState(w, pscw)
	w.pending = -1
	w.no_local_load_store = hints.no_local_load_store
	w.track_touched = boolInt(!self.threadMultiple)
	fillTargets(w, plan, users, segs, rankOf, nodeBase, uw.arena != nil)
	// A window whose state the application did not pin may also switch
	// outside collectives; its words are in this user's lock line.
	if quiesceWindows && w.pinned == 0 && len(users) > 1 {
		w.quiesce = 1
		w.qline = (*C.ghost_qline_t)(unsafe.Add(mine, redirect.LockWordOffset(int64(size))+C.GHOST_QLINE_OFFSET))
		C.ghost_quiesce_start(w)
	}
	// The global window carries every epoch; it stays in a passive epoch
	// for the window's whole life (the pooled one for the job's).
	// Neither call communicates, so a failure would be this process's
	// alone: nothing can be agreed any more, as with MPICH's own windows.
	if uw.internal != nil {
		if rc := C.ghost_lock_all_nocheck(w.gwin); rc != C.MPI_SUCCESS {
			return rc
		}
	}
	// The entry holds this record before it is published.
	handle := cgo.NewHandle(uw)
	w.go_state = C.uintptr_t(handle)
	if C.ghost_win_register(w) != 0 {
		handle.Delete()
		w.go_state = 0
		self.log.errorf("MPI_Win_allocate: more than %d windows alive in this process", int(C.GHOST_WIN_TABLE_SLOTS))
		return raiseOnComm(comm, C.MPI_ERR_NO_MEM)
	}
	if w.redirect == 0 { // the votes agreed off, against the default
		C.ghost_count_switch(w, 0, C.GHOST_POINT_ALLOCATION)
	}
	*(*unsafe.Pointer)(baseptr) = mine
	*win = w.user
	return C.MPI_SUCCESS
}

// fillTargets writes what the per-operation path needs of every target
// (redirect.Targets) into w, and, for a target on this node, its address
// in this node's memory of the window (nodeBase: the node segment, or the
// arena when pooled).
func fillTargets(w *C.ghost_win_t, plan *redirect.WindowPlan, users []int, segs []redirect.Segment,
	rankOf func(world int) int, nodeBase unsafe.Pointer, pooled bool) {
	targets := unsafe.Slice(w.t, len(users))
	for r, p := range plan.Targets(self.layout, users, segs, self.worldRank, rankOf) {
		t := C.ghost_target_t{
			bound:     C.int(p.Bound),
			bound_idx: C.int(p.BoundIdx),
			self:      C.int(p.Self),
			nghosts:   C.int(len(p.Ghosts)),
			slot:      C.int(p.Slot),
			offset:    C.MPI_Aint(p.Offset),
			size:      C.MPI_Aint(p.Size),
			disp_unit: C.int(p.DispUnit),
			lock_disp: C.MPI_Aint(p.LockDisp),
		}
		// A ghost exposes the whole arena, the target only its own part.
		if pooled {
			t.self_offset = t.offset - C.ghost_arena_part_offset(C.int(arenaPart(users[r])))
		}
		// A target on this node is reachable in the memory this process
		// maps: PUT and GET copy there directly when the epoch allows
		// (rma.c, same_node_direct).
		if p.SameNode && p.Size > 0 && !self.cfg.NodeLocalOff {
			t.addr = (*C.char)(unsafe.Add(nodeBase, p.Offset))
		}
		// Its quiescence words (c/quiesce.h) are in its lock line, which
		// every process of the node maps.
		if p.SameNode {
			t.qline = (*C.ghost_qline_t)(unsafe.Add(nodeBase, p.Offset+p.LockDisp+C.GHOST_QLINE_OFFSET))
		}
		for i := range p.Ghosts {
			t.ghosts[i] = C.int(p.Ghosts[i])
			t.ghost_world[i] = C.int(p.GhostWorld[i])
			t.ghost_local[i] = C.int(p.GhostLocal[i])
		}
		targets[r] = t
	}
}

// notifyGhosts sends a window command to this node's ghosts: the window's
// id and, for an allocation, its users' world ranks.
func notifyGhosts(op C.int64_t, id int64, users []int) {
	cmd := C.ghost_cmd_t{op: op}
	cmd.arg[0], cmd.arg[1] = C.int64_t(id), C.int64_t(len(users))
	payload := make([]C.int, len(users))
	for i, u := range users {
		payload[i] = C.int(u)
	}
	for _, g := range self.layout.Nodes[self.layout.NodeOf[self.worldRank]].Ghosts {
		local := C.int(self.layout.LocalRank[g])
		C.ghost_ctl_send(local, &cmd)
		if len(payload) > 0 {
			C.ghost_ctl_send_ints(local, &payload[0], C.int(len(payload)))
		}
	}
}

// raiseOnComm raises an error Ghost agreed (not one MPICH raised itself)
// on the application's communicator, with the errhandler it chose.
func raiseOnComm(comm C.MPI_Comm, rc C.int) C.int {
	if rc != C.MPI_SUCCESS {
		C.PMPI_Comm_call_errhandler(comm, rc)
	}
	return rc
}

// ghostWinFree runs MPI_Win_free of a redirected window for a user
// process: w is the entry the window table holds for *win.
//
//export ghostWinFree
func ghostWinFree(w *C.ghost_win_t, win *C.MPI_Win) C.int {
	if w.go_state == 0 { // an entry Go did not make: not a redirected window
		return C.MPI_ERR_WIN
	}
	handle := cgo.Handle(w.go_state)
	uw := handle.Value().(*userWin)
	handle.Delete()
	w.go_state = 0
	defer syncCall(C.GHOST_CALL_WIN_FREE)()
	C.ghost_win_unregister(w)
	if uw.internal != nil {
		C.ghost_unlock_all(w.gwin)
	}
	// Every user is here (MPI_Win_free is collective, and every origin
	// closed its epochs) before the lock, before the window's tags on the
	// shared private communicator are given back, and before its memory in
	// the arena is.
	countCollectives(1)
	C.ghost_real_barrier(w.pscw)
	rc := uw.release()
	if rc2 := C.ghost_free_user_window(&w.user); rc == C.MPI_SUCCESS {
		rc = rc2
	}
	if rc2 := C.ghost_comm_private_release(w); rc == C.MPI_SUCCESS {
		rc = rc2
	}
	C.ghost_win_delete(w)
	*win = winNull
	return rc
}

// release gives back the window's memory: its segment in the arena, or its
// internal objects, with its ghosts.
func (uw *userWin) release() C.int {
	if uw.arena != nil {
		bytes := redirect.SegmentBytes(int64(uw.c.size))
		C.ghost_arena_free(uw.arena, C.MPI_Aint(bytes))
		C.ghost_count_shm(-C.int64_t(bytes))
		return C.MPI_SUCCESS
	}
	return serialized(uw.c.pscw, func() C.int {
		if uw.notifies {
			notifyGhosts(C.GHOST_CMD_WIN_FREE, uw.internal.id, nil)
		}
		return uw.internal.free()
	})
}

// serveWinAllocate is a ghost's part of MPI_Win_allocate.
func serveWinAllocate(cmd *C.ghost_cmd_t, from C.int) {
	defer syncCall(C.GHOST_CALL_WIN_ALLOCATE)()
	id, n := int64(cmd.arg[0]), int(cmd.arg[1])
	payload := make([]C.int, n)
	C.ghost_ctl_recv_ints(from, &payload[0], C.int(n))
	users := make([]int, n)
	for i, u := range payload {
		users[i] = int(u)
	}
	plan, err := redirect.PlanWindow(self.layout, users)
	if err != nil {
		self.log.errorf("ghost at world rank %d: window %x: %v", self.worldRank, id, err)
		abortWorld(1)
	}
	iw, rc := buildInternal(id, plan, users, 0, 1)
	if rc != C.MPI_SUCCESS {
		// Every member agreed the failure and gets it back: the users
		// return it to the application, and nothing of it is left here.
		self.log.debugf("ghost at world rank %d: window %x not made (MPI error %d)", self.worldRank, id, int(rc))
		return
	}
	ghostWindows[id] = iw
}

// serveWinFree is a ghost's part of MPI_Win_free.
func serveWinFree(cmd *C.ghost_cmd_t) {
	defer syncCall(C.GHOST_CALL_WIN_FREE)()
	id := int64(cmd.arg[0])
	iw, ok := ghostWindows[id]
	if !ok {
		self.log.errorf("ghost at world rank %d: MPI_Win_free of unknown window %x", self.worldRank, id)
		abortWorld(1)
	}
	delete(ghostWindows, id)
	if rc := iw.free(); rc != C.MPI_SUCCESS {
		self.log.errorf("ghost at world rank %d: window %x: freeing internal windows failed (MPI error %d)", self.worldRank, id, int(rc))
	}
	self.log.debugf("ghost at world rank %d: window %x freed; rss_kb %d", self.worldRank, id, int64(C.ghost_rss_kb()))
}

// buildInternal is collective over the window's users and their nodes'
// ghosts: it creates the internal communicator, the node segment and the
// global window. Ghosts pass bytes 0. A user's part of the node segment
// holds its data and, after it, the cache line of its lock word (c/lock.c),
// which it clears before anyone can reach it.
func buildInternal(id int64, plan *redirect.WindowPlan, users []int, bytes int64, dispUnit int) (*internalWin, C.int) {
	iw := &internalWin{id: id, plan: plan, users: users, shm: winNull, global: winNull}
	var rc C.int
	if iw.comms, rc = acquireComms(plan.Members, int(id>>32)%32768); rc != C.MPI_SUCCESS {
		return nil, rc
	}
	iw.comm = iw.comms.comm
	var nodeBytes C.MPI_Aint
	isGhost := self.layout.IsGhost(self.worldRank)
	var segBytes int64
	if !isGhost {
		segBytes = redirect.SegmentBytes(bytes)
	}
	rc = C.ghost_segment_alloc(iw.comms.node, C.MPI_Aint(segBytes), &iw.shm, &iw.base, &iw.nodeBase, &nodeBytes)
	mine := [4]C.int64_t{0, C.int64_t(bytes), C.int64_t(dispUnit), C.int64_t(errorClass(rc))}
	if rc == C.MPI_SUCCESS {
		iw.shmSize = segBytes
		C.ghost_count_shm(C.int64_t(segBytes))
		if !isGhost {
			word := unsafe.Slice((*byte)(unsafe.Add(iw.base, redirect.LockWordOffset(bytes))), redirect.SegmentAlign)
			clear(word)
			mine[0] = C.int64_t(uintptr(iw.base) - uintptr(iw.nodeBase))
		}
	}
	// Everyone learns where every user's segment lies in its node segment,
	// and whether every node got its segment (a node that could not make
	// it fails the window everywhere). The collective also orders the
	// cleared lock words before any atomic on them.
	all := make([]C.int64_t, 4*len(plan.Members))
	countCollectives(1)
	C.PMPI_Allgather(unsafe.Pointer(&mine[0]), 4, C.MPI_INT64_T, unsafe.Pointer(&all[0]), 4, C.MPI_INT64_T, iw.comm)
	failed := C.int(C.MPI_SUCCESS)
	iw.members = make([]redirect.Segment, len(plan.Members))
	for i := range iw.members {
		iw.members[i] = redirect.Segment{Offset: int64(all[4*i]), Size: int64(all[4*i+1]), DispUnit: int(all[4*i+2])}
		if failed == C.MPI_SUCCESS {
			failed = C.int(all[4*i+3])
		}
	}
	if failed != C.MPI_SUCCESS {
		self.log.debugf("window %x: node segment failed here with %d, agreed class %d", id, int(rc), int(failed))
		return nil, iw.abandon(sameClass(rc, failed))
	}
	// A ghost exposes its whole node segment; a user exposes its own, lock
	// word included.
	exposeBase, exposeBytes := iw.base, C.MPI_Aint(segBytes)
	if isGhost {
		exposeBase, exposeBytes = iw.nodeBase, nodeBytes
	}
	rc = C.ghost_internal_win(exposeBase, exposeBytes, iw.comm, &iw.global)
	if agreed := C.int(allreduceInts(iw.comm, C.MPI_MAX, []int{int(errorClass(rc))})[0]); agreed != C.MPI_SUCCESS {
		self.log.debugf("window %x: global window failed here with %d, agreed class %d", id, int(rc), int(agreed))
		return nil, iw.abandon(sameClass(rc, agreed))
	}
	return iw, C.MPI_SUCCESS
}

// abandon frees what buildInternal made of a window whose members agreed
// it failed, and returns rc.
func (iw *internalWin) abandon(rc C.int) C.int {
	if iw.global != winNull {
		C.ghost_free_internal_win(&iw.global)
	}
	if iw.shm != winNull {
		C.ghost_free_internal_win(&iw.shm)
		C.ghost_count_shm(-C.int64_t(iw.shmSize))
	}
	iw.comms.release()
	return rc
}

// errorClass is the class of an MPI error code (MPI_SUCCESS stays).
func errorClass(rc C.int) C.int {
	if rc == C.MPI_SUCCESS {
		return rc
	}
	var class C.int
	if C.ghost_error_class(rc, &class) != C.MPI_SUCCESS {
		return C.MPI_ERR_OTHER
	}
	return class
}

// sameClass is what a member returns for a failure agreed as class: its
// own error when it is of that class (it carries MPICH's message), else
// the class.
func sameClass(own, class C.int) C.int {
	if own != C.MPI_SUCCESS && errorClass(own) == class {
		return own
	}
	return class
}

// free releases the internal objects, in the same order on every member.
func (iw *internalWin) free() C.int {
	rc := C.int(C.MPI_SUCCESS)
	keep := func(r C.int) {
		if rc == C.MPI_SUCCESS {
			rc = r
		}
	}
	keep(C.ghost_free_internal_win(&iw.global))
	keep(C.ghost_free_internal_win(&iw.shm))
	C.ghost_count_shm(-C.int64_t(iw.shmSize))
	keep(iw.comms.release())
	return rc
}

// infoGet reads one info key.
func infoGet(info C.MPI_Info, key string) (string, bool) {
	ckey := C.CString(key)
	defer C.free(unsafe.Pointer(ckey))
	var buf [256]C.char
	var flag C.int
	if C.ghost_info_get(info, ckey, &buf[0], C.int(len(buf)), &flag) != C.MPI_SUCCESS || flag == 0 {
		return "", false
	}
	return C.GoString(&buf[0]), true
}

func commCreateGroup(parent C.MPI_Comm, worldRanks []int, tag int) (C.MPI_Comm, C.int) {
	var all, sub C.MPI_Group
	C.PMPI_Comm_group(parent, &all)
	ranks := make([]C.int, len(worldRanks))
	for i, r := range worldRanks {
		ranks[i] = C.int(r)
	}
	C.ghost_group_incl(all, C.int(len(ranks)), &ranks[0], &sub)
	var out C.MPI_Comm
	countCollectives(1)
	rc := C.PMPI_Comm_create_group(parent, sub, C.int(tag), &out)
	C.ghost_group_free(&sub)
	C.ghost_group_free(&all)
	if rc == C.MPI_SUCCESS && out == commNull {
		return out, C.MPI_ERR_COMM
	}
	return out, rc
}
