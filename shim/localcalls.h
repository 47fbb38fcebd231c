/*
 * The local calls the control plane makes that Ghost does not wrap
 * (c/internal/wrapgen's Local). They are reached through their pointers in
 * zreal.h, as the data plane reaches them: a PMPI_ name would make
 * libghost.so need libmpich.so, which it must not (c/world.c's
 * require_abi must be able to refuse an Open MPI program that preloads
 * it). cgo cannot call through a pointer, hence these.
 */
#ifndef GHOST_SHIM_LOCALCALLS_H
#define GHOST_SHIM_LOCALCALLS_H

#include "ghost.h"

static inline int ghost_error_class(int code, int *class) { return GHOST_REAL(MPI_Error_class)(code, class); }
static inline int ghost_group_incl(MPI_Group g, int n, const int ranks[], MPI_Group *out)
{
    return GHOST_REAL(MPI_Group_incl)(g, n, ranks, out);
}
static inline int ghost_group_free(MPI_Group *g) { return GHOST_REAL(MPI_Group_free)(g); }
static inline int ghost_library_version(char *version, int *len)
{
    return GHOST_REAL(MPI_Get_library_version)(version, len);
}

#endif
