package main

// #include "win.h"
import "C"

import (
	"fmt"
	"strings"

	"github.com/ghost-mpi/ghost/internal/refcache"
)

// memberComms are the internal communicators of every window over one set
// of members (a window's users plus their nodes' ghosts): the whole set, and
// its part on this node. Applications create many windows over the same
// communicator (Global Arrays makes one per array), so they are created once
// and shared, which saves two collectives and two context ids per window.
type memberComms struct {
	key  string
	comm C.MPI_Comm // all members, ranked by world rank
	node C.MPI_Comm // the members on this node
}

// commCache is touched by window allocation and free only. Every member of
// a set takes part in every window over that set, so hits, misses and
// releases happen identically on all of them, as the collective creation
// and free require.
var commCache = refcache.New[string, *memberComms]()

// mpiError carries an MPI error code through refcache.
type mpiError C.int

func (e mpiError) Error() string { return fmt.Sprintf("MPI error %d", int(e)) }

func membersKey(members []int) string {
	return strings.Trim(fmt.Sprint(members), "[]")
}

// acquireComms returns the communicators for a member set, creating them
// collectively on first use.
func acquireComms(members []int, tag int) (*memberComms, C.int) {
	key := membersKey(members)
	mc, err := commCache.Acquire(key, func() (*memberComms, error) {
		comm, rc := commCreateGroup(self.worldDup, members, tag)
		if rc != C.MPI_SUCCESS {
			return nil, mpiError(rc)
		}
		mc := &memberComms{key: key, comm: comm}
		countCollectives(1)
		if rc = C.PMPI_Comm_split_type(comm, C.MPI_COMM_TYPE_SHARED, 0, C.MPI_INFO_NULL, &mc.node); rc != C.MPI_SUCCESS {
			C.PMPI_Comm_free(&mc.comm)
			return nil, mpiError(rc)
		}
		// Failures on them (no memory, no context id) come back as codes
		// that the members agree on, never as an abort inside a ghost.
		C.PMPI_Comm_set_errhandler(mc.comm, C.MPI_ERRORS_RETURN)
		C.PMPI_Comm_set_errhandler(mc.node, C.MPI_ERRORS_RETURN)
		return mc, nil
	})
	if err != nil {
		return nil, C.int(err.(mpiError))
	}
	return mc, C.MPI_SUCCESS
}

// release drops one window's reference and frees the communicators with
// the last one.
func (mc *memberComms) release() C.int {
	if _, last, _ := commCache.Release(mc.key); !last {
		return C.MPI_SUCCESS
	}
	countCollectives(2) // the two frees, collective by MPI's rules
	rc := C.PMPI_Comm_free(&mc.node)
	if rc2 := C.PMPI_Comm_free(&mc.comm); rc == C.MPI_SUCCESS {
		rc = rc2
	}
	return rc
}
