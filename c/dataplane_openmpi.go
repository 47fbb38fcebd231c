//go:build openmpi

package dataplane

/*
#cgo pkg-config: ompi-c
// Open MPI's headers mark MPI-1 functions deprecated; the generated
// wrappers define and forward them all the same.
#cgo CFLAGS: -Wno-deprecated-declarations
*/
import "C"
