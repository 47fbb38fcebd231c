package main

// #include <stdlib.h>
// #include "ghost.h"
// #include "counters.h"
// #include "localcalls.h"
import "C"

import "unsafe"

// Thin helpers over the PMPI calls the control plane makes. Ghost defines
// the PMPI_ names too, so these reach its own wrappers, which swap
// MPI_COMM_WORLD for the user world once ghost_user_world is set: MPICH's
// world may be passed by its handle only before that (MPI_Init's setup),
// and Ghost's private communicators at any time.

// syncCall attributes the internal operations counted until the returned
// function runs to synchronization call `call` (GHOST_CALL_*, counters.h),
// and counts the call. The caller runs on the thread that called MPI (an
// exported function, or the ghost's loop inside MPI_Init), whose
// thread-local counter state this sets.
func syncCall(call C.int) (leave func()) {
	prev := C.ghost_sync_enter(call)
	return func() { C.ghost_sync_leave(prev) }
}

// countCollectives counts n internal collectives for the current call, if
// any: the helpers below are also used at setup, where nothing counts.
func countCollectives(n int) { C.ghost_count_internal(C.GHOST_INTERNAL_COLLECTIVE, C.int(n)) }

func commRank(c C.MPI_Comm) int {
	var r C.int
	C.PMPI_Comm_rank(c, &r)
	return int(r)
}

func commSize(c C.MPI_Comm) int {
	var s C.int
	C.PMPI_Comm_size(c, &s)
	return int(s)
}

// allgatherInt gathers one int from every process of c.
func allgatherInt(c C.MPI_Comm, v int) []int {
	return column(allgatherInts(c, v), 0)
}

// allgatherInts gathers the same number of ints from every process of c,
// in one collective: out[r] is what rank r sent.
func allgatherInts(c C.MPI_Comm, v ...int) [][]int {
	n, k := commSize(c), len(v)
	send := make([]C.int, k)
	for i, x := range v {
		send[i] = C.int(x)
	}
	recv := make([]C.int, n*k)
	countCollectives(1)
	C.PMPI_Allgather(unsafe.Pointer(&send[0]), C.int(k), C.MPI_INT, unsafe.Pointer(&recv[0]), C.int(k), C.MPI_INT, c)
	out := make([][]int, n)
	for r := range out {
		out[r] = make([]int, k)
		for i := range k {
			out[r][i] = int(recv[r*k+i])
		}
	}
	return out
}

func allreduceMinInt(c C.MPI_Comm, v int) int { return allreduceMinInts(c, v)[0] }

// allreduceMinInts takes the minimum of each of values over c.
func allreduceMinInts(c C.MPI_Comm, values ...int) []int { return allreduceInts(c, C.MPI_MIN, values) }

func allreduceInts(c C.MPI_Comm, op C.MPI_Op, values []int) []int {
	in := make([]C.int, len(values))
	for i, v := range values {
		in[i] = C.int(v)
	}
	out := make([]C.int, len(values))
	countCollectives(1)
	C.PMPI_Allreduce(unsafe.Pointer(&in[0]), unsafe.Pointer(&out[0]), C.int(len(values)), C.MPI_INT, op, c)
	res := make([]int, len(values))
	for i, v := range out {
		res[i] = int(v)
	}
	return res
}

func bcastInt(c C.MPI_Comm, v int, root int) int {
	x := C.int(v)
	countCollectives(1)
	C.PMPI_Bcast(unsafe.Pointer(&x), 1, C.MPI_INT, C.int(root), c)
	return int(x)
}

func commSplit(c C.MPI_Comm, color, key int) C.MPI_Comm {
	var out C.MPI_Comm
	C.PMPI_Comm_split(c, C.int(color), C.int(key), &out)
	return out
}

func commSplitShared(c C.MPI_Comm) C.MPI_Comm {
	var out C.MPI_Comm
	C.PMPI_Comm_split_type(c, C.MPI_COMM_TYPE_SHARED, 0, C.MPI_INFO_NULL, &out)
	return out
}

func commDup(c C.MPI_Comm) C.MPI_Comm {
	var out C.MPI_Comm
	C.PMPI_Comm_dup(c, &out)
	return out
}

func commSetName(c C.MPI_Comm, name string) {
	cs := C.CString(name)
	defer C.free(unsafe.Pointer(cs))
	C.PMPI_Comm_set_name(c, cs)
}

func abortWorld(code int) {
	C.ghost_real_abort(C.int(code))
}

// column is field i of every row of allgatherInts' result.
func column(rows [][]int, i int) []int {
	out := make([]int, len(rows))
	for r, row := range rows {
		out[r] = row[i]
	}
	return out
}
