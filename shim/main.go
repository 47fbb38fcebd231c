// Command shim is built with -buildmode=c-shared into libghost.so. It holds
// the control plane entry points that the C wrappers call once per job
// (MPI_Init, MPI_Finalize) and the ghost server loop. The per-call data plane
// is C, in c/.
package main

// #cgo pkg-config: mpich
// #cgo CFLAGS: -I${SRCDIR}/../c
// #include "ghost.h"
import "C"

import (
	_ "github.com/ghost-mpi/ghost/c" // the C data plane: wrappers and helpers
)

// main is required by -buildmode=c-shared and never runs.
func main() {}
