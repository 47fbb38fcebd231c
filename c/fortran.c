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
 * Open MPI's Fortran bindings (libmpi_mpifh) read attributes inside
 * libmpi, through ompi_attr_get_fint, with no PMPI_ call and no helper to
 * interpose. So under Open MPI Ghost defines the Fortran entry points
 * themselves, MPI_COMM_GET_ATTR and MPI_WIN_GET_ATTR in the spellings
 * compilers use: mpif.h and `use mpi` call mpi_comm_get_attr_ and the
 * like, `use mpi_f08` calls pmpi_comm_get_attr_ from libmpi_usempif08. The
 * predefined keyvals (the same numbers in Fortran as in C there) take
 * Ghost's C answer; everything else goes to libmpi_mpifh's function.
 */
#define _GNU_SOURCE
#include <dlfcn.h>

#include "win.h"

static int is_predefined_win_keyval(int keyval)
{
    return keyval == MPI_WIN_BASE || keyval == MPI_WIN_SIZE || keyval == MPI_WIN_DISP_UNIT ||
           keyval == MPI_WIN_CREATE_FLAVOR || keyval == MPI_WIN_MODEL;
}

/* The MPI library's own definition of name, looked up once into *cache. */
static void *next_symbol(void **cache, const char *name)
{
    void *fn = __atomic_load_n(cache, __ATOMIC_ACQUIRE);
    if (!fn) {
        fn = dlsym(RTLD_NEXT, name);
        __atomic_store_n(cache, fn, __ATOMIC_RELEASE);
    }
    return fn;
}

#ifdef GHOST_ABI_MPICH

/* MPICH 4.0.2's MPIR_Attr_type: bit 0 says an integer, not a pointer. */
enum { ATTR_PTR = 0, ATTR_AINT = 1, ATTR_INT = 3 };

typedef int attr_get_fn(int handle, int keyval, void *attribute_val, int *flag, int kind);

static void store(void *attribute_val, int kind, MPI_Aint value)
{
    if (kind == ATTR_INT)
        *(int *)attribute_val = (int)value;
    else
        *(MPI_Aint *)attribute_val = value;
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
    static void *real;
    int ckey = c_keyval(keyval, ghost_is_predefined_comm_keyval);
    if (kind == ATTR_PTR || !ckey)
        return ((attr_get_fn *)next_symbol(&real, "MPII_Comm_get_attr"))((int)comm, keyval, attribute_val, flag, kind);
    int *value;
    int rc = PMPI_Comm_get_attr(comm, ckey, &value, flag);
    if (rc == MPI_SUCCESS && *flag)
        store(attribute_val, kind, *value);
    return rc;
}

int MPII_Win_get_attr(MPI_Win win, int keyval, void *attribute_val, int *flag, int kind)
{
    static void *real;
    int ckey = c_keyval(keyval, is_predefined_win_keyval);
    if (kind == ATTR_PTR || !ckey || !ghost_win_find(win))
        return ((attr_get_fn *)next_symbol(&real, "MPII_Win_get_attr"))((int)win, keyval, attribute_val, flag, kind);
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

#ifdef GHOST_ABI_OPENMPI

/* MPI_Fint handle, keyval, INTEGER(KIND=MPI_ADDRESS_KIND) value, LOGICAL
 * flag (gfortran's: an int, .TRUE. is 1), ierror. The real ones are
 * libmpi_mpifh's own functions, which every spelling aliases. */
typedef void fort_attr_get_fn(MPI_Fint *handle, MPI_Fint *keyval, MPI_Aint *value, MPI_Fint *flag,
                              MPI_Fint *ierr);

static void comm_get_attr_f(MPI_Fint *comm, MPI_Fint *keyval, MPI_Aint *value, MPI_Fint *flag, MPI_Fint *ierr)
{
    static void *real;
    if (!ghost_is_predefined_comm_keyval(*keyval)) {
        ((fort_attr_get_fn *)next_symbol(&real, "ompi_comm_get_attr_f"))(comm, keyval, value, flag, ierr);
        return;
    }
    int *v, set = 0;
    *ierr = PMPI_Comm_get_attr(PMPI_Comm_f2c(*comm), *keyval, &v, &set);
    if (*ierr == MPI_SUCCESS && set)
        *value = *v;
    *flag = *ierr == MPI_SUCCESS && set;
}

static void win_get_attr_f(MPI_Fint *win, MPI_Fint *keyval, MPI_Aint *value, MPI_Fint *flag, MPI_Fint *ierr)
{
    static void *real;
    MPI_Win w = PMPI_Win_f2c(*win);
    int key = *keyval;
    if (!ghost_win_find(w) || !is_predefined_win_keyval(key)) {
        ((fort_attr_get_fn *)next_symbol(&real, "ompi_win_get_attr_f"))(win, keyval, value, flag, ierr);
        return;
    }
    void *v;
    int set = 0;
    *ierr = PMPI_Win_get_attr(w, key, &v, &set);
    if (*ierr == MPI_SUCCESS && set)
        *value = key == MPI_WIN_BASE ? (MPI_Aint)v : key == MPI_WIN_SIZE ? *(MPI_Aint *)v : *(int *)v;
    *flag = *ierr == MPI_SUCCESS && set;
}

#define FORTRAN_NAMES(lower, upper, fn)                                                                  \
    void lower(MPI_Fint *, MPI_Fint *, MPI_Aint *, MPI_Fint *, MPI_Fint *) __attribute__((alias(#fn)));  \
    void lower##_(MPI_Fint *, MPI_Fint *, MPI_Aint *, MPI_Fint *, MPI_Fint *) __attribute__((alias(#fn))); \
    void lower##__(MPI_Fint *, MPI_Fint *, MPI_Aint *, MPI_Fint *, MPI_Fint *) __attribute__((alias(#fn)));\
    void upper(MPI_Fint *, MPI_Fint *, MPI_Aint *, MPI_Fint *, MPI_Fint *) __attribute__((alias(#fn)));
FORTRAN_NAMES(mpi_comm_get_attr, MPI_COMM_GET_ATTR, comm_get_attr_f)
FORTRAN_NAMES(pmpi_comm_get_attr, PMPI_COMM_GET_ATTR, comm_get_attr_f)
FORTRAN_NAMES(mpi_win_get_attr, MPI_WIN_GET_ATTR, win_get_attr_f)
FORTRAN_NAMES(pmpi_win_get_attr, PMPI_WIN_GET_ATTR, win_get_attr_f)
#endif /* GHOST_ABI_OPENMPI */
