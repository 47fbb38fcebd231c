/*
 * The MPI ABI this copy of the data plane is compiled for, told from the
 * mpi.h in use: MPICH's (libghost.so, the default build) or Open MPI's
 * (libghost-openmpi.so, `go build -tags openmpi`). Everything that differs
 * between the two is decided here at compile time, so neither library pays
 * at run time for the other's existence.
 *
 * MPICH: handles are ints with the object kind in their top bits, and the
 * predefined ones are compile-time constants (MPI_COMM_WORLD is
 * 0x44000000, the same in Fortran). Open MPI: handles are pointers, and
 * the predefined ones are addresses of globals in libmpi
 * (&ompi_mpi_comm_world); Fortran handles are indices into tables.
 */
#ifndef GHOST_ABI_H_INCLUDED
#define GHOST_ABI_H_INCLUDED

#include <mpi.h>
#include <stdint.h>

#if defined(OPEN_MPI)
#define GHOST_ABI_OPENMPI 1
#define GHOST_ABI_NAME "Open MPI"
#include "zreal_openmpi.h"
#elif defined(MPICH)
#define GHOST_ABI_MPICH 1
#define GHOST_ABI_NAME "MPICH"
#include "zreal.h"
#else
#error "Ghost is built against MPICH's or Open MPI's mpi.h; this one is neither"
#endif

/* Bits of a handle for hashing: an MPICH handle's own bits, a pointer's
 * above its allocation alignment. */
#ifdef GHOST_ABI_OPENMPI
#define GHOST_HANDLE_BITS(h) ((uint32_t)((uintptr_t)(h) >> 4))
#else
#define GHOST_HANDLE_BITS(h) ((uint32_t)(h))
#endif

/* MPI-4's large-count functions (MPI_Put_c, ...), which Open MPI 4.1 does
 * not have: Ghost defines them only where the library does, and its own
 * calls of them go, under MPI-3, to the MPI-3 functions that take an
 * MPI_Count (Type_size_x, Type_get_extent_x) or to the int-count forms
 * below, which refuse a count an int cannot hold. */
#if MPI_VERSION >= 4
#define GHOST_HAVE_LARGE_COUNT 1
#else
#include <limits.h>
#define ghost_real_PMPI_Type_size_c ghost_real_PMPI_Type_size_x
#define ghost_real_PMPI_Type_get_extent_c ghost_real_PMPI_Type_get_extent_x
#define ghost_real_PMPI_Type_get_true_extent_c ghost_real_PMPI_Type_get_true_extent_x
#define GHOST_FITS_INT(n) ((n) >= 0 && (n) <= INT_MAX)
static inline int ghost_pack_count(const void *in, MPI_Count incount, MPI_Datatype type, void *out,
                                   MPI_Count outsize, MPI_Count *position, MPI_Comm comm)
{
    int pos = (int)*position;
    if (!GHOST_FITS_INT(incount) || !GHOST_FITS_INT(outsize) || !GHOST_FITS_INT(*position))
        return MPI_ERR_COUNT;
    int rc = ghost_real_PMPI_Pack(in, (int)incount, type, out, (int)outsize, &pos, comm);
    *position = pos;
    return rc;
}
static inline int ghost_unpack_count(const void *in, MPI_Count insize, MPI_Count *position, void *out,
                                     MPI_Count outcount, MPI_Datatype type, MPI_Comm comm)
{
    int pos = (int)*position;
    if (!GHOST_FITS_INT(insize) || !GHOST_FITS_INT(outcount) || !GHOST_FITS_INT(*position))
        return MPI_ERR_COUNT;
    int rc = ghost_real_PMPI_Unpack(in, (int)insize, &pos, out, (int)outcount, type, comm);
    *position = pos;
    return rc;
}
static inline int ghost_reduce_local_count(const void *in, void *inout, MPI_Count count, MPI_Datatype type, MPI_Op op)
{
    if (!GHOST_FITS_INT(count))
        return MPI_ERR_COUNT;
    return ghost_real_PMPI_Reduce_local(in, inout, (int)count, type, op);
}
/* MPI_Info_get_string's contract from MPI-3's calls: *buflen in is the
 * room in value, NUL included; out, the length the value needs. */
static inline int ghost_info_get_string(MPI_Info info, const char *key, int *buflen, char *value, int *flag)
{
    int vlen = 0, room = *buflen;
    int rc = ghost_real_PMPI_Info_get_valuelen(info, key, &vlen, flag);
    if (rc != MPI_SUCCESS || !*flag)
        return rc;
    *buflen = vlen + 1;
    if (room <= 0)
        return MPI_SUCCESS;
    return ghost_real_PMPI_Info_get(info, key, room - 1, value, flag);
}
#define ghost_real_PMPI_Info_get_string ghost_info_get_string
#define ghost_real_PMPI_Pack_c ghost_pack_count
#define ghost_real_PMPI_Unpack_c ghost_unpack_count
#define ghost_real_PMPI_Reduce_local_c ghost_reduce_local_count
#endif

/* MPI_COMM_WORLD, MPI_WIN_NULL and MPI_COMM_NULL for the Go side: cgo
 * takes Open MPI's (addresses of globals) as they are, but not MPICH's
 * cast constants, so those are enums (shim/abi_*.go). */
#ifdef GHOST_ABI_MPICH
enum { GHOST_WORLD = MPI_COMM_WORLD, GHOST_WIN_NULL = MPI_WIN_NULL, GHOST_COMM_NULL = MPI_COMM_NULL };
#endif

/* Predefined datatypes that are one contiguous block: their size in bytes,
 * 0 for any other type. MPICH writes it in the handle (kind in bits 30-31,
 * builtin = 1, size in bits 8-15): one shift and compare, no call. Open
 * MPI's handles are addresses, so the predefined types are looked up in a
 * small table keyed by address, filled at MPI_Init (abi_openmpi.c). The
 * predefined pair types with padding (MPI_FLOAT_INT, ...) are derived
 * types in MPICH and left out of Open MPI's table: they are not one block. */
#ifdef GHOST_ABI_MPICH
#define GHOST_BUILTIN_TYPE(type) ((((unsigned)(type)) >> 30) == 1u)
#define GHOST_BUILTIN_TYPE_SIZE(type) ((((unsigned)(type)) >> 8) & 0xffu)
/* ghost_type_table_init runs once MPI is initialized, before any
 * operation: it fills what the ABI reads on the operation path, nothing
 * under MPICH. */
static inline void ghost_type_table_init(void) {}
#else
enum { GHOST_TYPE_TABLE_SLOTS = 128 };
extern struct ghost_type_slot {
    MPI_Datatype type;
    uint64_t size;
} ghost_type_table[GHOST_TYPE_TABLE_SLOTS];
static inline uint64_t ghost_predefined_size(MPI_Datatype type)
{
    for (uint32_t i = GHOST_HANDLE_BITS(type), n = 0; n < GHOST_TYPE_TABLE_SLOTS; i++, n++) {
        const struct ghost_type_slot *s = &ghost_type_table[i & (GHOST_TYPE_TABLE_SLOTS - 1)];
        if (s->type == type)
            return s->size;
        if (s->type == NULL)
            return 0;
    }
    return 0;
}
#define GHOST_BUILTIN_TYPE(type) (ghost_predefined_size(type) != 0)
#define GHOST_BUILTIN_TYPE_SIZE(type) ghost_predefined_size(type)
void ghost_type_table_init(void);
#endif

/* Where a target's lock word (c/lock.c) is taken while its window is not
 * redirected. MPICH: through the target itself, so a window that goes
 * straight to its targets needs no ghost for its locks either. Open MPI
 * 4.1.4: osc/rdma over vader crashes (in mca_btl_vader_send, from
 * mca_btl_vader_emu_acswap) on a 64-bit MPI_Compare_and_swap a process
 * issues to itself on an MPI_Win_create window, which the global window
 * is, and an exclusive lock on oneself is one; so the words always go
 * through the target's bound ghost, as they do when the window is
 * redirected (docs/openmpi.md). */
#ifdef GHOST_ABI_OPENMPI
#define GHOST_LOCK_WORDS_AT_GHOST 1
#else
#define GHOST_LOCK_WORDS_AT_GHOST 0
#endif

#endif
