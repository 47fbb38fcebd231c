package main

// #include "win.h"
// #include "arena.h"
import "C"

import (
	"slices"
	"unsafe"

	"github.com/ghost-mpi/ghost/redirect"
)

// pooledWin is the job's one global window over the node arenas
// (c/arena.h): over the real world, a ghost exposes its node's whole arena
// and a user its own part of it. Users keep it under
// lock_all(MPI_MODE_NOCHECK) for the job's life. A redirected window whose
// users all find room in their parts lives in it, with no MPI object but
// its handle and no ghost involved in its allocation or free. C.MPI_WIN_NULL
// when some node has no arena: every window then gets internal objects of
// its own.
var pooledWin = winNull

// setupPooledWin is collective over the whole job, ghosts included. On one
// node, where every window is node-local (GHOST_NODE_LOCAL), there is none:
// a ghost with no window to serve may then sleep long (shim/ghost.go).
func setupPooledWin() C.int {
	if len(self.layout.Nodes) == 1 && !self.cfg.NodeLocalOff {
		return C.MPI_SUCCESS
	}
	if allreduceMinInts(self.worldDup, int(C.ghost_arena_ready()))[0] == 0 {
		return C.MPI_SUCCESS
	}
	base, bytes := unsafe.Pointer(C.ghost_arena_base()), C.ghost_arena_bytes()
	if !self.layout.IsGhost(self.worldRank) {
		base = unsafe.Add(base, C.ghost_arena_part_offset(C.int(arenaPart(self.worldRank))))
		bytes = C.ghost_arena_part_bytes()
	}
	if rc := C.ghost_internal_win(base, bytes, self.worldDup, &pooledWin); rc != C.MPI_SUCCESS {
		return rc
	}
	if self.layout.IsGhost(self.worldRank) {
		return C.MPI_SUCCESS
	}
	return C.ghost_lock_all_nocheck(pooledWin)
}

// freePooledWin is collective over the whole job, at finalize.
func freePooledWin() {
	if pooledWin == winNull {
		return
	}
	if !self.layout.IsGhost(self.worldRank) {
		C.ghost_unlock_all(pooledWin)
	}
	C.ghost_free_internal_win(&pooledWin)
}

// arenaPart is the part of its node's arena that user world owns (the
// order of shim/arena.go's setupArena).
func arenaPart(world int) int {
	return slices.Index(self.layout.Nodes[self.layout.NodeOf[world]].Users, world)
}

// arenaSegments places this user's segment of a window of size bytes in
// its arena part and tells every user of the window where everyone's lies.
// Collective over pscw, the window's users only; only when pooledWin
// exists. Returns nil, having given everything back, when some user's part
// has no room.
func arenaSegments(pscw C.MPI_Comm, size int64, dispUnit int) (mine unsafe.Pointer, segs []redirect.Segment) {
	bytes := redirect.SegmentBytes(size)
	rec := [3]C.int64_t{-1, C.int64_t(size), C.int64_t(dispUnit)}
	if mine = C.ghost_arena_alloc(C.MPI_Aint(bytes)); mine != nil {
		clear(unsafe.Slice((*byte)(unsafe.Add(mine, redirect.LockWordOffset(size))), redirect.SegmentAlign))
		rec[0] = C.int64_t(C.ghost_arena_offset(mine))
	}
	n := commSize(pscw)
	all := make([]C.int64_t, 3*n)
	countCollectives(1)
	C.PMPI_Allgather(unsafe.Pointer(&rec[0]), 3, C.MPI_INT64_T, unsafe.Pointer(&all[0]), 3, C.MPI_INT64_T, pscw)
	segs = make([]redirect.Segment, n)
	for r := range segs {
		if all[3*r] < 0 {
			if mine != nil {
				C.ghost_arena_free(mine, C.MPI_Aint(bytes))
			}
			return nil, nil
		}
		segs[r] = redirect.Segment{Offset: int64(all[3*r]), Size: int64(all[3*r+1]), DispUnit: int(all[3*r+2])}
	}
	C.ghost_count_shm(C.int64_t(bytes))
	return mine, segs
}
