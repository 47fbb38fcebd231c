//go:build openmpi

/*
 * What Open MPI's ABI needs at run time (c/abi.h): the table of predefined
 * contiguous datatypes, whose handles are addresses of libmpi's globals and
 * so carry no size the way MPICH's do.
 */
#include "abi.h"

#include <stddef.h>

struct ghost_type_slot ghost_type_table[GHOST_TYPE_TABLE_SLOTS];

static void add(MPI_Datatype type)
{
    int size = 0;
    if (type == MPI_DATATYPE_NULL || ghost_real_PMPI_Type_size(type, &size) != MPI_SUCCESS || size <= 0)
        return; /* a Fortran type this build of Open MPI lacks */
    for (uint32_t i = GHOST_HANDLE_BITS(type), n = 0; n < GHOST_TYPE_TABLE_SLOTS; i++, n++) {
        struct ghost_type_slot *s = &ghost_type_table[i & (GHOST_TYPE_TABLE_SLOTS - 1)];
        if (s->type == type)
            return;
        if (s->type == NULL) {
            s->size = (uint64_t)size;
            __atomic_store_n(&s->type, type, __ATOMIC_RELEASE);
            return;
        }
    }
}

void ghost_type_table_init(void)
{
    /* The predefined types that are one block of bytes, C's and Fortran's;
     * not the pair types of MINLOC/MAXLOC, which may hold padding. */
    const MPI_Datatype types[] = {
        MPI_CHAR, MPI_SIGNED_CHAR, MPI_UNSIGNED_CHAR, MPI_BYTE, MPI_WCHAR, MPI_SHORT, MPI_UNSIGNED_SHORT,
        MPI_INT, MPI_UNSIGNED, MPI_LONG, MPI_UNSIGNED_LONG, MPI_LONG_LONG_INT, MPI_UNSIGNED_LONG_LONG,
        MPI_FLOAT, MPI_DOUBLE, MPI_LONG_DOUBLE, MPI_C_BOOL, MPI_INT8_T, MPI_INT16_T, MPI_INT32_T,
        MPI_INT64_T, MPI_UINT8_T, MPI_UINT16_T, MPI_UINT32_T, MPI_UINT64_T, MPI_C_FLOAT_COMPLEX,
        MPI_C_DOUBLE_COMPLEX, MPI_C_LONG_DOUBLE_COMPLEX, MPI_AINT, MPI_OFFSET, MPI_COUNT, MPI_CHARACTER,
        MPI_LOGICAL, MPI_INTEGER, MPI_REAL, MPI_DOUBLE_PRECISION, MPI_COMPLEX, MPI_DOUBLE_COMPLEX,
        MPI_INTEGER1, MPI_INTEGER2, MPI_INTEGER4, MPI_INTEGER8, MPI_REAL4, MPI_REAL8, MPI_COMPLEX8,
        MPI_COMPLEX16,
    };
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        add(types[i]);
}
