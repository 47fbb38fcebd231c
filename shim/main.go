// Command shim is built with -buildmode=c-shared into libghost.so. It holds
// the control plane entry points that the C wrappers call once per job
// (MPI_Init, MPI_Finalize) and the ghost server loop. The per-call data plane
// is C, in c/. With -tags openmpi it is built for Open MPI's ABI into
// libghost-openmpi.so instead; the MPI library's flags are in abi_*.go.
package main

// #cgo CFLAGS: -I${SRCDIR}/../c -I${SRCDIR}/../adapt
// #include "ghost.h"
import "C"

import (
	"os"
	"runtime"

	_ "github.com/ghost-mpi/ghost/c" // the C data plane: wrappers and helpers
)

// The Go runtime lives in every rank of the application, and the control
// plane needs no parallelism: it runs on the threads that call MPI, and the
// one goroutine of its own, a ghost's metrics endpoint, runs whenever the
// ghost's loop hands the scheduler a turn (every 5 ms: schedulerTurn in
// ghost.go). With one P the runtime keeps no spare threads
// spinning for work on cores the ranks compute on: with the default (a P
// per core) a ghost's exporter made the Go scheduler spin for its first
// ~10 ms, and 8-byte PUTs of a job's first milliseconds took 3.3 us instead
// of 0.8 (2 cores). An explicit GOMAXPROCS is left alone.
func init() {
	if os.Getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(1)
	}
}

// main is required by -buildmode=c-shared and never runs.
func main() {}
