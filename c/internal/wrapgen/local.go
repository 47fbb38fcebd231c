package wrapgen

import "strings"

// Local reports whether an MPI function is a local bookkeeping call:
// one that neither waits for another process nor drives communication
// (datatypes, groups, info objects, attributes, names, error classes,
// packing, and the queries of communicators, windows and topologies).
//
// Profiling leaves these calls untimed. Their time is the program's own,
// like its computation: it says nothing of how much the process waits on
// others, which is what the communication ratio measures. And they are
// frequent where they are cheapest: ARMCI-MPI builds, commits, sizes and
// frees a datatype around every strided operation, so that NWChem makes
// as many of them as RMA calls. Timing one costs two reads of the
// time-stamp counter, about 20 ns each on a virtual machine, against
// 20-50 ns for the call itself. A local call without a communicator
// argument is then not wrapped at all; one with a communicator still gets
// the MPI_COMM_WORLD swap.
//
// Calls that may progress communication stay timed even when the
// standard calls them local (MPI_Test, MPI_Iprobe, MPI_Request_get_status),
// and so do collective constructors (MPI_Comm_dup, MPI_Cart_create).
func Local(name string) bool {
	for _, prefix := range localPrefixes {
		if strings.HasPrefix(name, prefix) {
			return true
		}
	}
	return localNames[name]
}

// localPrefixes name whole families of local calls.
var localPrefixes = []string{
	"MPI_Type_", "MPI_Group_", "MPI_Info_", "MPI_Op_", "MPI_Status_",
	"MPI_Keyval_", "MPI_Aint_", "MPI_Errhandler_", "MPI_Error_", "MPI_Add_error_",
	"MPI_Pack", "MPI_Unpack", // MPI_Pack_size, MPI_Pack_external, ...
	"MPI_Get_elements", "MPI_Get_count", "MPI_Get_address",
}

// localNames are the local calls of families that also hold others.
var localNames = map[string]bool{
	"MPI_Address":                    true,
	"MPI_Get_version":                true,
	"MPI_Get_library_version":        true,
	"MPI_Get_processor_name":         true,
	"MPI_Initialized":                true,
	"MPI_Finalized":                  true,
	"MPI_Query_thread":               true,
	"MPI_Is_thread_main":             true,
	"MPI_Alloc_mem":                  true,
	"MPI_Free_mem":                   true,
	"MPI_Attr_put":                   true,
	"MPI_Attr_delete":                true,
	"MPI_Comm_size":                  true,
	"MPI_Comm_rank":                  true,
	"MPI_Comm_remote_size":           true,
	"MPI_Comm_test_inter":            true,
	"MPI_Comm_compare":               true,
	"MPI_Comm_group":                 true,
	"MPI_Comm_remote_group":          true,
	"MPI_Comm_get_name":              true,
	"MPI_Comm_set_name":              true,
	"MPI_Comm_get_info":              true,
	"MPI_Comm_set_attr":              true,
	"MPI_Comm_delete_attr":           true,
	"MPI_Comm_create_keyval":         true,
	"MPI_Comm_free_keyval":           true,
	"MPI_Comm_get_parent":            true,
	"MPI_Win_get_group":              true,
	"MPI_Win_get_name":               true,
	"MPI_Win_set_name":               true,
	"MPI_Win_set_attr":               true,
	"MPI_Win_delete_attr":            true,
	"MPI_Win_create_keyval":          true,
	"MPI_Win_free_keyval":            true,
	"MPI_Win_get_errhandler":         true,
	"MPI_Win_set_errhandler":         true,
	"MPI_Win_create_errhandler":      true,
	"MPI_Win_get_attr":               true,
	"MPI_Win_get_info":               true,
	"MPI_Win_shared_query":           true,
	"MPI_Win_shared_query_c":         true,
	"MPI_Cart_coords":                true,
	"MPI_Cart_rank":                  true,
	"MPI_Cart_get":                   true,
	"MPI_Cart_shift":                 true,
	"MPI_Cartdim_get":                true,
	"MPI_Graph_get":                  true,
	"MPI_Graphdims_get":              true,
	"MPI_Graph_neighbors":            true,
	"MPI_Graph_neighbors_count":      true,
	"MPI_Dist_graph_neighbors":       true,
	"MPI_Dist_graph_neighbors_count": true,
	"MPI_Topo_test":                  true,
	"MPI_Dims_create":                true,
}
