/*
 * Hand-written wrappers that set up and tear down the user/ghost split, and
 * the comm-taking calls that need more than a plain MPI_COMM_WORLD swap.
 * Like the generated ones, each defines PMPI_name and aliases MPI_name to it.
 */
#define _GNU_SOURCE /* RTLD_DEFAULT, dladdr */
#include "ghost.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

MPI_Comm ghost_user_world = MPI_COMM_WORLD;
int ghost_total_ghosts = 0;

static int is_split(void) { return ghost_user_world != MPI_COMM_WORLD; }

/* libghost.so links no MPI library (its DT_NEEDED names only libc): it is
 * preloaded into programs linked with MPICH, whose libmpi the loader maps
 * with the program before running any constructor of a preloaded object
 * that needs it, so RTLD_NEXT finds MPICH's symbols here. A program without
 * MPICH gets the clear error of require_abi at MPI_Init.
 * libghost-openmpi.so links Open MPI's libmpi: its code refers to the
 * globals that Open MPI's predefined handles are the addresses of, which
 * must be there when it loads, also in a program that loads libmpi only
 * later (Python with mpi4py). */
__attribute__((constructor)) static void resolve_real(void) { ghost_resolve_real(); }

/* Names the library file that holds sym, for the errors below. */
static const char *library_of(void *sym, const char *otherwise)
{
    Dl_info info;
    return sym && dladdr(sym, &info) && info.dli_fname ? info.dli_fname : otherwise;
}

/* Stops a program built for the other ABI with one line and status 1,
 * before MPI is initialized: its MPI would get handles it cannot read and
 * crash. abort() would add the launcher's signal report and a core file to
 * a configuration mistake. cmd/ghost refuses such programs before launch,
 * from their DT_NEEDED. */
static void require_abi(void)
{
#ifdef GHOST_ABI_MPICH
    /* Open MPI's MPI_COMM_WORLD is the address of this global; MPICH has
     * no such symbol. Name the library by one of its functions: the global
     * itself is often a copy relocated into the program. */
    void *ompi = dlsym(RTLD_DEFAULT, "ompi_mpi_comm_world");
    if (ompi != NULL) {
        void *in_library = dlsym(RTLD_DEFAULT, "ompi_mpi_init");
        fprintf(stderr,
                "ghost: error: libghost.so was built for MPICH's ABI; this program uses Open MPI (%s), whose "
                "handles it cannot pass: rebuild it with MPICH's compiler wrappers (mpicc.mpich), or run it "
                "without Ghost; see docs/openmpi.md\n",
                library_of(in_library ? in_library : ompi, "libmpi.so.40"));
        _exit(1);
    }
#else
    /* Open MPI's symbols are always here (this library links libmpi), so
     * MPICH's presence is what tells an MPICH program: one of its
     * functions that Open MPI has no counterpart of. */
    void *mpich = dlsym(RTLD_DEFAULT, "MPII_Comm_get_attr");
    if (mpich != NULL) {
        fprintf(stderr,
                "ghost: error: libghost-openmpi.so was built for Open MPI's ABI; this program uses MPICH (%s), "
                "whose handles it cannot pass: run it with libghost.so (ghost run picks the library from the "
                "program), or without Ghost; see docs/openmpi.md\n",
                library_of(mpich, "libmpich.so.12"));
        _exit(1);
    }
#endif
    if (GHOST_REAL(MPI_Init) == NULL || GHOST_REAL(MPI_Init_thread) == NULL) {
        fprintf(stderr, "ghost: error: " GHOST_ABI_NAME "'s PMPI_Init was not found; this library works only "
                        "in programs linked with " GHOST_ABI_NAME "'s libmpi\n");
        _exit(1);
    }
}

/* ---- MPI loaded with dlopen --------------------------------------------- */

#ifdef GHOST_ABI_MPICH
/* libghost.so links no MPI, and Python maps none until a script imports
 * mpi4py: its MPI module, and the MPI library below it, come with dlopen,
 * after the constructor above found nothing to resolve, and the module's
 * first call (MPI_Initialized, before MPI_Init) binds to Ghost's wrapper,
 * whose pointer is still NULL: a segmentation fault, where Debian's mpi4py
 * (Open MPI) should get require_abi's line. So every dlopen is watched
 * until an MPI library arrives; then the library that defines PMPI_Init is
 * made global (as mpi4py itself does for Open MPI; Python opens modules
 * RTLD_LOCAL, where RTLD_NEXT would not see it), the pointers are
 * resolved, and the ABI check of MPI_Init runs at once, during the import,
 * before any wrapper is used. Afterwards the hook costs one branch per
 * dlopen. One difference remains: glibc reads the caller of dlopen to
 * search a bare name along the caller's RUNPATH, and the caller is now
 * this library, which has none; names with a slash, and bare names found
 * through LD_LIBRARY_PATH or ldconfig's cache (mpi4py's libmpi.so.40), are
 * found as before. libghost-openmpi.so links Open MPI's libmpi, so its
 * pointers are resolved at load and it needs no hook. */
void *dlopen(const char *file, int mode)
{
    static void *(*real_dlopen)(const char *, int);
    if (real_dlopen == NULL)
        real_dlopen = (void *(*)(const char *, int))dlsym(RTLD_NEXT, "dlopen");
    void *handle = real_dlopen(file, mode);
    if (handle == NULL || GHOST_REAL(MPI_Init) != NULL)
        return handle;
    void *init = dlsym(handle, "PMPI_Init");
    Dl_info info;
    if (init == NULL || !dladdr(init, &info) || info.dli_fname == NULL)
        return handle;
    real_dlopen(info.dli_fname, RTLD_NOW | RTLD_GLOBAL | RTLD_NOLOAD);
    ghost_resolve_real();
    require_abi();
    return handle;
}
#endif

/* ---- init and finalize -------------------------------------------------- */

int PMPI_Init(int *argc, char ***argv)
{
    require_abi();
    ghost_unpreload();
    ghost_stdout_stash();
    ghost_mpi_initializing = 1;
    int rc = GHOST_REAL(MPI_Init)(argc, argv);
    ghost_mpi_initializing = 0;
    if (rc != MPI_SUCCESS) {
        ghost_stdout_restore();
        return rc;
    }
    ghost_type_table_init();
    int provided = MPI_THREAD_SINGLE;
    GHOST_REAL(MPI_Query_thread)(&provided);
    rc = ghostAfterInit(provided); /* a ghost never returns */
    ghost_stdout_restore();
    return rc;
}
int MPI_Init(int *argc, char ***argv) __attribute__((alias("PMPI_Init")));

int PMPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    require_abi();
    ghost_unpreload();
    ghost_stdout_stash();
    ghost_mpi_initializing = 1;
    int rc = GHOST_REAL(MPI_Init_thread)(argc, argv, required, provided);
    ghost_mpi_initializing = 0;
    if (rc == MPI_SUCCESS) {
        ghost_type_table_init();
        rc = ghostAfterInit(*provided); /* a ghost never returns */
    }
    ghost_stdout_restore();
    return rc;
}
int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
    __attribute__((alias("PMPI_Init_thread")));

int PMPI_Finalize(void)
{
    GHOST_CALL_BEGINS(); /* a collective: it may wait */
    ghostBeforeFinalize();
    return GHOST_REAL(MPI_Finalize)();
}
int MPI_Finalize(void) __attribute__((alias("PMPI_Finalize")));

/* The MPI's messages about a process (its abort notice, its fatal errors,
 * the launcher's report) name it by its rank in the MPI's world, which
 * counts the ghosts: say, before MPICH prints anything, which rank the application
 * knows it by. what says what happened, detail (or "") follows. */
static void say_user_rank(const char *what, const char *detail)
{
    int user = -1, world = -1;
    GHOST_REAL(MPI_Comm_rank)(ghost_user_world, &user);
    GHOST_REAL(MPI_Comm_rank)(MPI_COMM_WORLD, &world);
    if (is_split())
        fprintf(stderr,
                "ghost: %s rank %d of MPI_COMM_WORLD; " GHOST_ABI_NAME "'s messages call it rank %d, counting %d ghost "
                "process(es)%s%s\n",
                what, user, world, ghost_total_ghosts, *detail ? ": " : "", detail);
    else
        fprintf(stderr, "ghost: %s rank %d of MPI_COMM_WORLD%s%s\n", what, user, *detail ? ": " : "", detail);
    fflush(stderr);
    /* hydra's proxy forwards the line through a pipe, and the abort that
     * follows may kill it first (about one run in eight here): give the
     * line time to get through, as the configuration errors do. */
    usleep(200000);
}

int PMPI_Abort(MPI_Comm comm, int errorcode)
{
    if (is_split()) {
        char what[64];
        snprintf(what, sizeof what, "MPI_Abort(%d) called by", errorcode);
        say_user_rank(what, "");
    }
    /* Aborting the user world would leave MPICH to decide whether ghosts go
     * too; aborting the real world says so explicitly. */
    return GHOST_REAL(MPI_Abort)(comm, errorcode);
}

/* An error under MPI_ERRORS_ARE_FATAL, on a communicator the application
 * made from MPI_COMM_WORLD or on one of Ghost's windows: what MPICH's own
 * fatal handler does (print the error, abort the job with the error's
 * class as its status), with the rank named as the application knows it.
 * For windows it also replaces MPICH's handler reached through
 * MPI_Win_call_errhandler, which on 2 fake nodes left mpiexec hanging
 * after "unable to write data to proxy" (plain MPICH too). */
void ghost_fatal_error(int code)
{
    char detail[MPI_MAX_ERROR_STRING];
    int len = 0, class = code;
    if (GHOST_REAL(MPI_Error_string)(code, detail, &len) != MPI_SUCCESS)
        snprintf(detail, sizeof detail, "MPI error %d", code);
    GHOST_REAL(MPI_Error_class)(code, &class);
    say_user_rank("fatal error (MPI_ERRORS_ARE_FATAL) on", detail);
    GHOST_REAL(MPI_Abort)(MPI_COMM_WORLD, class);
    _exit(class); /* MPI_Abort does not return */
}

static void fatal_note_fn(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    ghost_fatal_error(*code);
}

/* The handler that stands for MPI_ERRORS_ARE_FATAL on the user world, and
 * so on every communicator made from it; MPI_ERRHANDLER_NULL before the
 * split. MPI_Comm_get_errhandler reports it as MPI_ERRORS_ARE_FATAL. */
static MPI_Errhandler fatal_note = MPI_ERRHANDLER_NULL;

int ghost_fatal_note_setup(void)
{
    int rc = GHOST_REAL(MPI_Comm_create_errhandler)(fatal_note_fn, &fatal_note);
    if (rc == MPI_SUCCESS)
        rc = GHOST_REAL(MPI_Comm_set_errhandler)(ghost_user_world, fatal_note);
    return rc;
}
int MPI_Abort(MPI_Comm comm, int errorcode) __attribute__((alias("PMPI_Abort")));

/* ---- predefined attributes ---------------------------------------------- */

int ghost_is_predefined_comm_keyval(int keyval)
{
    switch (keyval) {
    case MPI_TAG_UB:
    case MPI_HOST:
    case MPI_IO:
    case MPI_WTIME_IS_GLOBAL:
    case MPI_UNIVERSE_SIZE:
    case MPI_LASTUSEDCODE:
    case MPI_APPNUM:
        return 1;
    }
    return 0;
}

/* MPICH keeps the predefined attributes on the built-in MPI_COMM_WORLD only,
 * so they are read there; user keyvals go to the user world like any call. */
static int get_comm_attr(MPI_Comm comm, int keyval, void *attribute_val, int *flag,
                         int (*get)(MPI_Comm, int, void *, int *))
{
    static int universe_size;
    if (comm != MPI_COMM_WORLD || !ghost_is_predefined_comm_keyval(keyval))
        return get(GHOST_USER_COMM(comm), keyval, attribute_val, flag);
    int rc = get(MPI_COMM_WORLD, keyval, attribute_val, flag);
    if (rc == MPI_SUCCESS && *flag && keyval == MPI_UNIVERSE_SIZE && is_split()) {
        /* Ghost slots are not available to the application. */
        int real = **(int **)attribute_val;
        universe_size = real > ghost_total_ghosts ? real - ghost_total_ghosts : real;
        *(int **)attribute_val = &universe_size;
    }
    return rc;
}

int PMPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag)
{
    return get_comm_attr(comm, comm_keyval, attribute_val, flag, GHOST_REAL(MPI_Comm_get_attr));
}
int MPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag)
    __attribute__((alias("PMPI_Comm_get_attr")));

int PMPI_Attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag)
{
    return get_comm_attr(comm, keyval, attribute_val, flag, GHOST_REAL(MPI_Attr_get));
}
int MPI_Attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag)
    __attribute__((alias("PMPI_Attr_get")));

/* ---- errhandlers on the world -------------------------------------------
 *
 * An errhandler function receives the communicator it fired on. For the
 * world that would be the internal user world, which the application has
 * never seen. So user-created handlers set on MPI_COMM_WORLD are reached
 * through a trampoline that passes MPI_COMM_WORLD instead. The handler is
 * also set on the real world: that keeps the user's handle alive and
 * answers MPI_Comm_get_errhandler, and it catches errors tied to no object,
 * which MPI raises on MPI_COMM_WORLD.
 */

#define MAX_USER_ERRHANDLERS 256

/* fortran: a handler made from Fortran, called with Fortran handles. Under
 * MPICH they are the C ones (ints), and MPICH's Fortran binding goes
 * through the C function, so only Open MPI's entry point below sets it. */
static struct {
    MPI_Errhandler handle;
    MPI_Comm_errhandler_function *fn;
    int fortran;
} user_errhandlers[MAX_USER_ERRHANDLERS];
static int n_user_errhandlers;
static pthread_mutex_t errhandler_lock = PTHREAD_MUTEX_INITIALIZER;

/* One trampoline per user function set on the world. A communicator made
 * from the world inherits the world's errhandler, the trampoline, and must
 * keep calling the function that was set when it was made, even after the
 * world gets another one: so each function gets a slot of its own, with its
 * own trampoline and handle, instead of one global pointer. A trampoline
 * cannot carry data (MPI passes the function only the communicator and the
 * code), so the slots are separate functions. */
#define TRAMPOLINE_SLOTS 16
static MPI_Comm_errhandler_function *slot_fn[TRAMPOLINE_SLOTS];
static int slot_fortran[TRAMPOLINE_SLOTS];
static MPI_Errhandler slot_handle[TRAMPOLINE_SLOTS];

static void fire(int slot, MPI_Comm *comm, int *code)
{
    MPI_Comm seen = (*comm == ghost_user_world) ? MPI_COMM_WORLD : *comm;
    MPI_Comm_errhandler_function *fn = __atomic_load_n(&slot_fn[slot], __ATOMIC_ACQUIRE);
    if (!fn)
        return;
    if (slot_fortran[slot]) {
        MPI_Fint fcomm = PMPI_Comm_c2f(seen), fcode = *code;
        ((void (*)(MPI_Fint *, MPI_Fint *))fn)(&fcomm, &fcode);
        return;
    }
    fn(&seen, code);
}

#define TRAMPOLINE(i)                                          \
    static void trampoline_##i(MPI_Comm *comm, int *code, ...) \
    {                                                          \
        fire(i, comm, code);                                   \
    }
TRAMPOLINE(0) TRAMPOLINE(1) TRAMPOLINE(2) TRAMPOLINE(3) TRAMPOLINE(4) TRAMPOLINE(5) TRAMPOLINE(6) TRAMPOLINE(7)
TRAMPOLINE(8) TRAMPOLINE(9) TRAMPOLINE(10) TRAMPOLINE(11) TRAMPOLINE(12) TRAMPOLINE(13) TRAMPOLINE(14) TRAMPOLINE(15)
static MPI_Comm_errhandler_function *const trampolines[TRAMPOLINE_SLOTS] = {
    trampoline_0,  trampoline_1,  trampoline_2,  trampoline_3,  trampoline_4,  trampoline_5,
    trampoline_6,  trampoline_7,  trampoline_8,  trampoline_9,  trampoline_10, trampoline_11,
    trampoline_12, trampoline_13, trampoline_14, trampoline_15};

/* The trampoline handle for fn, made at its first use (under
 * errhandler_lock); MPI_ERRHANDLER_NULL when every slot is taken. */
static MPI_Errhandler trampoline_for(MPI_Comm_errhandler_function *fn, int fortran)
{
    for (int i = 0; i < TRAMPOLINE_SLOTS; i++) {
        if (slot_fn[i] == fn && slot_fortran[i] == fortran)
            return slot_handle[i];
        if (slot_fn[i] == NULL) {
            if (GHOST_REAL(MPI_Comm_create_errhandler)(trampolines[i], &slot_handle[i]) != MPI_SUCCESS)
                return MPI_ERRHANDLER_NULL;
            slot_fortran[i] = fortran;
            __atomic_store_n(&slot_fn[i], fn, __ATOMIC_RELEASE);
            return slot_handle[i];
        }
    }
    return MPI_ERRHANDLER_NULL;
}

static void remember_errhandler(MPI_Errhandler handle, MPI_Comm_errhandler_function *fn, int fortran)
{
    pthread_mutex_lock(&errhandler_lock);
    /* Handles are recycled after MPI_Errhandler_free: overwrite a stale entry. */
    int slot = n_user_errhandlers;
    for (int i = 0; i < n_user_errhandlers; i++)
        if (user_errhandlers[i].handle == handle)
            slot = i;
    if (slot < MAX_USER_ERRHANDLERS) {
        user_errhandlers[slot].handle = handle;
        user_errhandlers[slot].fn = fn;
        user_errhandlers[slot].fortran = fortran;
        if (slot == n_user_errhandlers)
            n_user_errhandlers++;
    }
    pthread_mutex_unlock(&errhandler_lock);
}

int PMPI_Comm_create_errhandler(MPI_Comm_errhandler_function *fn, MPI_Errhandler *errhandler)
{
    int rc = GHOST_REAL(MPI_Comm_create_errhandler)(fn, errhandler);
    if (rc == MPI_SUCCESS)
        remember_errhandler(*errhandler, fn, 0);
    return rc;
}
int MPI_Comm_create_errhandler(MPI_Comm_errhandler_function *fn, MPI_Errhandler *errhandler)
    __attribute__((alias("PMPI_Comm_create_errhandler")));

#ifdef GHOST_ABI_OPENMPI
/* Open MPI's Fortran MPI_COMM_CREATE_ERRHANDLER makes the handler inside
 * libmpi (ompi_comm_create_errhandler_f), not through the C function, so
 * Ghost defines its Fortran entry points (mpif.h and `use mpi` call
 * mpi_comm_create_errhandler_, `use mpi_f08` pmpi_comm_create_errhandler_)
 * and remembers the handler as Fortran's: set on MPI_COMM_WORLD, it is
 * reached through a trampoline that passes MPI_COMM_WORLD's Fortran handle. */
typedef void fort_errh_create_fn(void (*fn)(void), MPI_Fint *errhandler, MPI_Fint *ierr);

static void comm_create_errhandler_f(void (*fn)(void), MPI_Fint *errhandler, MPI_Fint *ierr)
{
    static fort_errh_create_fn *real;
    fort_errh_create_fn *f = __atomic_load_n(&real, __ATOMIC_ACQUIRE);
    if (!f) {
        f = (fort_errh_create_fn *)dlsym(RTLD_NEXT, "ompi_comm_create_errhandler_f");
        __atomic_store_n(&real, f, __ATOMIC_RELEASE);
    }
    f(fn, errhandler, ierr);
    if (*ierr == MPI_SUCCESS)
        remember_errhandler(PMPI_Errhandler_f2c(*errhandler), (MPI_Comm_errhandler_function *)(void *)fn, 1);
}
#define FORTRAN_ERRH_NAME(name)                                                                         \
    void name(void (*)(void), MPI_Fint *, MPI_Fint *) __attribute__((alias("comm_create_errhandler_f")));
FORTRAN_ERRH_NAME(mpi_comm_create_errhandler)
FORTRAN_ERRH_NAME(mpi_comm_create_errhandler_)
FORTRAN_ERRH_NAME(mpi_comm_create_errhandler__)
FORTRAN_ERRH_NAME(MPI_COMM_CREATE_ERRHANDLER)
FORTRAN_ERRH_NAME(pmpi_comm_create_errhandler)
FORTRAN_ERRH_NAME(pmpi_comm_create_errhandler_)
FORTRAN_ERRH_NAME(pmpi_comm_create_errhandler__)
FORTRAN_ERRH_NAME(PMPI_COMM_CREATE_ERRHANDLER)
#endif

static MPI_Comm_errhandler_function *lookup_user_errhandler(MPI_Errhandler eh, int *fortran)
{
    MPI_Comm_errhandler_function *fn = NULL;
    pthread_mutex_lock(&errhandler_lock);
    for (int i = 0; i < n_user_errhandlers; i++)
        if (user_errhandlers[i].handle == eh) {
            fn = user_errhandlers[i].fn;
            *fortran = user_errhandlers[i].fortran;
        }
    pthread_mutex_unlock(&errhandler_lock);
    return fn;
}

static int set_comm_errhandler(MPI_Comm comm, MPI_Errhandler eh,
                               int (*set)(MPI_Comm, MPI_Errhandler))
{
    if (comm != MPI_COMM_WORLD)
        return set(comm, eh);
    int rc = set(MPI_COMM_WORLD, eh);
    if (rc != MPI_SUCCESS || !is_split())
        return rc;
    int fortran = 0;
    MPI_Comm_errhandler_function *fn = lookup_user_errhandler(eh, &fortran);
    if (fn == NULL) /* predefined */
        return set(ghost_user_world, eh == MPI_ERRORS_ARE_FATAL && fatal_note != MPI_ERRHANDLER_NULL ? fatal_note : eh);
    pthread_mutex_lock(&errhandler_lock);
    MPI_Errhandler trampoline = trampoline_for(fn, fortran);
    pthread_mutex_unlock(&errhandler_lock);
    if (trampoline == MPI_ERRHANDLER_NULL) {
        /* More distinct handlers than slots: the function still runs, but
         * sees the internal user world instead of MPI_COMM_WORLD. */
        static int warned;
        if (!__atomic_exchange_n(&warned, 1, __ATOMIC_RELAXED))
            fprintf(stderr, "ghost: warning: more than %d distinct errhandler functions set on "
                            "MPI_COMM_WORLD: the newest receive Ghost's internal communicator instead of "
                            "MPI_COMM_WORLD\n", TRAMPOLINE_SLOTS);
        return set(ghost_user_world, eh);
    }
    return set(ghost_user_world, trampoline);
}

int PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler)
{
    return set_comm_errhandler(comm, errhandler, GHOST_REAL(MPI_Comm_set_errhandler));
}
int MPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler)
    __attribute__((alias("PMPI_Comm_set_errhandler")));

/* MPI-1's names, removed in MPI-3: only where the library still has them. */
#ifdef GHOST_ABI_MPICH
int PMPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler errhandler)
{
    return set_comm_errhandler(comm, errhandler, GHOST_REAL(MPI_Errhandler_set));
}
int MPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler errhandler)
    __attribute__((alias("PMPI_Errhandler_set")));
#endif

/* The real world carries the handle the user set (see above); other
 * communicators made from the user world may carry fatal_note, which is
 * MPI_ERRORS_ARE_FATAL as far as the application can tell. */
static int get_comm_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler,
                               int (*get)(MPI_Comm, MPI_Errhandler *))
{
    int rc = get(comm, errhandler);
    if (rc == MPI_SUCCESS && fatal_note != MPI_ERRHANDLER_NULL && *errhandler == fatal_note) {
        GHOST_REAL(MPI_Errhandler_free)(errhandler); /* the reference get handed out */
        *errhandler = MPI_ERRORS_ARE_FATAL;
    }
    return rc;
}

int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    return get_comm_errhandler(comm, errhandler, GHOST_REAL(MPI_Comm_get_errhandler));
}
int MPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler)
    __attribute__((alias("PMPI_Comm_get_errhandler")));

#ifdef GHOST_ABI_MPICH
int PMPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    return get_comm_errhandler(comm, errhandler, GHOST_REAL(MPI_Errhandler_get));
}
int MPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler *errhandler)
    __attribute__((alias("PMPI_Errhandler_get")));
#endif
