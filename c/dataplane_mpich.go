//go:build !openmpi

package dataplane

// #cgo pkg-config: mpich
import "C"
