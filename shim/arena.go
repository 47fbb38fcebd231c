package main

// #include "arena.h"
import "C"

import (
	"slices"

	"github.com/ghost-mpi/ghost/redirect"
)

// arenaPartBytes is each user's part of its node's arena (c/arena.h), in
// address space rather than memory: the arena's file is sparse, so pages
// are used only where windows are. A window that does not fit in its
// users' parts gets a shared-memory segment of its own, as before the arena.
const arenaPartBytes = 1 << 30

// setupArena maps this node's arena in every process of the node; ghosts
// own no part of it.
func setupArena(layout *redirect.Layout) C.int {
	node := layout.Nodes[layout.NodeOf[self.worldRank]]
	part := slices.Index(node.Users, self.worldRank)
	return C.ghost_arena_setup(self.node, C.int(len(node.Users)), C.int(part), arenaPartBytes)
}
