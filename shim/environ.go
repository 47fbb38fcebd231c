package main

// #include <stdlib.h>
// extern char **environ;
import "C"

import "unsafe"

// environNow is the process's environment as libc holds it now, read on
// the calling thread: the one Ghost's configuration comes from at
// MPI_Init, like an MPI library's own variables, so that what the program
// set before MPI_Init counts.
//
// Not os.Environ: in a c-shared library that is the copy the Go runtime
// made as it started, on a thread of its own, while the program went on.
// unsetenv shifts the later entries down in the very array that copy
// reads, so a copy made while the program unset a variable misses
// another (c/life.c, ghost_unpreload).
func environNow() []string {
	var env []string
	for p := C.environ; p != nil && *p != nil; p = (**C.char)(unsafe.Add(unsafe.Pointer(p), unsafe.Sizeof(*p))) {
		env = append(env, C.GoString(*p))
	}
	return env
}
