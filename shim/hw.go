package main

// #include "ghost.h"
import "C"

import (
	"github.com/ghost-mpi/ghost/internal/rdma/verbs"
	"github.com/ghost-mpi/ghost/redirect"
)

// setupHWBypass decides GHOST_HW_BYPASS for the whole job, collectively
// over world (users and ghosts): every process asks libibverbs about its
// node's devices and applies the policy, and the bypass is on only if
// every process said yes, so every origin sends a given PUT/GET the same
// way and flushes the same paths. The lowest process that said no tells
// why at verbosity info; with a yes everywhere, world rank 0 does.
func setupHWBypass(world C.MPI_Comm) {
	local := redirect.DecideBypass(self.cfg.HWBypass, verbs.Discover())
	size := commSize(world)
	objector := size
	if !local.Bypass {
		objector = self.worldRank
	}
	objector = allreduceMinInt(world, objector)
	C.ghost_hw_bypass = boolInt(objector == size)
	switch {
	case objector == size && self.worldRank == 0:
		self.log.infof("hardware bypass on: contiguous PUT/GET of predefined types go straight to the target in fence, PSCW and lock_all epochs (%s)",
			local.Reason)
	case objector == self.worldRank:
		self.log.infof("hardware bypass off: PUT/GET stay on the ghosts (world rank %d: %s)", self.worldRank, local.Reason)
	}
}
