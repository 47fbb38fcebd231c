// Package dataplane compiles Ghost's C data plane: the MPI wrappers (the
// generated ones in zwrappers*.c and the hand-written ones) and the helpers
// the Go control plane calls. Nothing on the per-call path calls into Go.
//
// The package has no Go API of its own; shim/ imports it for its C objects
// and reaches the C functions through ghost.h. It is compiled for MPICH's
// ABI by default and for Open MPI's with -tags openmpi (dataplane_*.go
// hold each one's flags; c/abi.h what differs in the C).
package dataplane

//go:generate go run ./internal/wrapgen/mkwrappers -dir .
//go:generate go run ./internal/constgen/mkconst -root ..

// #cgo CFLAGS: -O2 -Wall -Wno-unused-variable
// #include "ghost.h"
import "C"
