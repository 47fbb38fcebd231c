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

// Thread-locals use the initial-exec model: libghost.so is loaded when its
// process starts (LD_PRELOAD, or linked), as the Go runtime inside it
// already requires, so every thread-local has a fixed offset from the
// thread pointer. The default model for shared libraries calls
// __tls_get_addr on every access, and the profiling timers, the counters
// and the progress hook read thread-locals on every MPI call and every
// pass of MPI's progress loop.

// #cgo CFLAGS: -O2 -Wall -Wno-unused-variable -ftls-model=initial-exec -I${SRCDIR}/../adapt
// #include "ghost.h"
import "C"
