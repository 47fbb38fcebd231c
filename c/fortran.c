/*
 * Attributes read from Fortran.
 *
 * MPICH's Fortran bindings (libmpichfort, `use mpi` and `use mpi_f08`)
 * read attributes through MPII_Comm_get_attr and MPII_Win_get_attr,
 * functions of libmpich that take the kind of value the caller wants,
 * instead of through MPI_Comm_get_attr and MPI_Win_get_attr. Without these
 * two, Fortran would see the real world's MPI_UNIVERSE_SIZE (ghosts
 * included) and, for a window of Ghost's, the flavor and size of the
 * window underneath. So for the predefined keyvals they ask Ghost's C
 * answer and hand it over as a Fortran integer. User keyvals, and C's own
 * calls (pointer kind), go to MPICH unchanged.
 *
 * Open MPI's Fortran bindings read attributes inside libmpi (no PMPI_ call
 * and no exported helper to interpose), so under Open MPI this file is
 * empty and Fortran sees those attributes unanswered by Ghost
 * (docs/openmpi.md).
 */
#define _GNU_SOURCE
#include <dlfcn.h>

#include "win.h"

#ifdef GHOST_ABI_MPICH

/* MPICH 4.0.2's MPIR_Attr_type: bit 0 says an integer, not a pointer. */
enum { ATTR_PTR = 0, ATTR_AINT = 1, ATTR_INT = 3 };

typedef int attr_get_fn(int handle, int keyval, void *attribute_val, int *flag, int kind);

static attr_get_fn *real_fn(attr_get_fn **cache, const char *name)
{
    attr_get_fn *fn = __atomic_load_n(cache, __ATOMIC_ACQUIRE);
    if (!fn) {
        fn = (attr_get_fn *)dlsym(RTLD_NEXT, name);
        __atomic_store_n(cache, fn, __ATOMIC_RELEASE);
    }
    return fn;
}

static void store(void *attribute_val, int kind, MPI_Aint value)
{
    if (kind == ATTR_INT)
        *(int *)attribute_val = (int)value;
    else
        *(MPI_Aint *)attribute_val = value;
}

static int is_predefined_win_keyval(int keyval)
{
    return keyval == MPI_WIN_BASE || keyval == MPI_WIN_SIZE || keyval == MPI_WIN_DISP_UNIT ||
           keyval == MPI_WIN_CREATE_FLAVOR || keyval == MPI_WIN_MODEL;
}

/* MPICH numbers the Fortran names of predefined keyvals one above the C
 * ones (mpif.h against mpi.h). Returns the C keyval, or 0 when keyval is not
 * predefined. */
static int c_keyval(int keyval, int (*predefined)(int))
{
    if (predefined(keyval))
        return keyval;
    if (predefined(keyval - 1))
        return keyval - 1;
    return 0;
}

int MPII_Comm_get_attr(MPI_Comm comm, int keyval, void *attribute_val, int *flag, int kind)
{
    static attr_get_fn *real;
    int ckey = c_keyval(keyval, ghost_is_predefined_comm_keyval);
    if (kind == ATTR_PTR || !ckey)
        return real_fn(&real, "MPII_Comm_get_attr")((int)comm, keyval, attribute_val, flag, kind);
    int *value;
    int rc = PMPI_Comm_get_attr(comm, ckey, &value, flag);
    if (rc == MPI_SUCCESS && *flag)
        store(attribute_val, kind, *value);
    return rc;
}

int MPII_Win_get_attr(MPI_Win win, int keyval, void *attribute_val, int *flag, int kind)
{
    static attr_get_fn *real;
    int ckey = c_keyval(keyval, is_predefined_win_keyval);
    if (kind == ATTR_PTR || !ckey || !ghost_win_find(win))
        return real_fn(&real, "MPII_Win_get_attr")((int)win, keyval, attribute_val, flag, kind);
    void *value;
    int rc = PMPI_Win_get_attr(win, ckey, &value, flag);
    if (rc != MPI_SUCCESS || !*flag)
        return rc;
    if (ckey == MPI_WIN_BASE)
        store(attribute_val, kind, (MPI_Aint)value);
    else if (ckey == MPI_WIN_SIZE)
        store(attribute_val, kind, *(MPI_Aint *)value);
    else
        store(attribute_val, kind, *(int *)value);
    return rc;
}
#endif /* GHOST_ABI_MPICH */
