package main

// #include "win.h"
import "C"

// Ghosts serve commands one at a time, and building or freeing a window's
// internal objects is collective and blocking inside them. Two windows over
// different communicators that share ghosts, made at the same time, could
// reach two nodes' ghosts in opposite orders and deadlock. So the part of
// every window allocation and free that involves ghosts runs under one
// job-wide lock: an exclusive MPI lock on a tiny window hosted by a ghost,
// which always makes progress. Each ghost then sees window commands in the
// order the lock was granted.
//
// The lock is taken only after the window's own collectives on its users
// have shown that every member is present, so it adds no wait that the
// application's own ordering of collectives could turn into a cycle.

var (
	creationLock     C.MPI_Win
	creationLockHost C.int // world rank of the ghost hosting it
)

// setupCreationLock is collective over the whole job, ghosts included.
func setupCreationLock() C.int {
	creationLockHost = C.int(self.layout.Nodes[0].Ghosts[0])
	return C.ghost_internal_win(nil, 0, self.worldDup, &creationLock)
}

func freeCreationLock() { C.ghost_free_internal_win(&creationLock) }

// serialized runs body, which makes ghosts take part in collectives for
// one window, under the job-wide lock. comm is the window's private
// communicator of users; every user calls serialized, and only the
// window's rank 0 takes the lock. Everyone waits until it is held.
func serialized(comm C.MPI_Comm, body func() C.int) C.int {
	leader := commRank(comm) == 0
	if leader {
		if rc := C.ghost_lock(C.MPI_LOCK_EXCLUSIVE, creationLockHost, creationLock); rc != C.MPI_SUCCESS {
			return rc
		}
	}
	bcastInt(comm, 0, 0) // nobody notifies a ghost before the lock is held
	rc := body()
	if leader {
		// Every member, ghosts included, has entered the window's last
		// collective, so every ghost has taken this window's command
		// before the next window's can be sent.
		C.ghost_unlock(creationLockHost, creationLock)
	}
	return rc
}
