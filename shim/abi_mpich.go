//go:build !openmpi

package main

/*
#cgo pkg-config: mpich
#include "ghost.h"

// The MPI ABI these wrappers were compiled for, as a string `ghost doctor`
// finds in the file: libghost.so links no MPI library (it finds MPICH's
// functions in the program at run time), so its DT_NEEDED cannot say.
__attribute__((used)) static const char ghost_mpi_abi_marker[] = "ghost-mpi-abi: MPICH " MPICH_VERSION;
*/
import "C"

// MPICH's predefined handles are cast constants, which cgo cannot read:
// c/abi.h gives them as enums.
var (
	commWorld = C.MPI_Comm(C.GHOST_WORLD)
	commNull  = C.MPI_Comm(C.GHOST_COMM_NULL)
	winNull   = C.MPI_Win(C.GHOST_WIN_NULL)
)

// abiHandles names the ABI in build information (metrics).
const abiHandles = "MPICH handles"
