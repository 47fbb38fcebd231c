//go:build openmpi

package main

/*
#cgo pkg-config: ompi-c
#cgo CFLAGS: -Wno-deprecated-declarations
#include "ghost.h"

// The MPI ABI these wrappers were compiled for, as a string `ghost doctor`
// finds in the file (libghost-openmpi.so also names libmpi.so.40 among its
// DT_NEEDED: it refers to the globals Open MPI's handles point at).
#define GHOST_STR_(x) #x
#define GHOST_STR(x) GHOST_STR_(x)
__attribute__((used)) static const char ghost_mpi_abi_marker[] = "ghost-mpi-abi: Open MPI "
    GHOST_STR(OMPI_MAJOR_VERSION) "." GHOST_STR(OMPI_MINOR_VERSION) "." GHOST_STR(OMPI_RELEASE_VERSION);
*/
import "C"

// Open MPI's predefined handles are addresses of libmpi's globals, which
// cgo reads as they are.
var (
	commWorld = C.MPI_Comm(C.MPI_COMM_WORLD)
	commNull  = C.MPI_Comm(C.MPI_COMM_NULL)
	winNull   = C.MPI_Win(C.MPI_WIN_NULL)
)

// abiHandles names the ABI in build information (metrics).
const abiHandles = "Open MPI handles"
