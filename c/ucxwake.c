/*
 * Waking a sleeping ghost on traffic from another node (MPICH over UCX).
 *
 * An origin on the ghost's own node rings its doorbell (doorbell.c). An
 * origin on another node cannot: its operations and wake messages reach
 * the ghost through MPICH's network module, which the ghost sees only when
 * it polls. So a dozing ghost used to serve another node's origin at its
 * next timed wake, up to the policy's ceiling later (shim/internal/wait).
 *
 * UCX can signal a file descriptor when traffic arrives at a worker that
 * was armed (ucp_worker_get_efd, ucp_worker_arm), if its context was
 * created with UCP_FEATURE_WAKEUP. MPICH does not ask for that feature, so
 * Ghost adds it where MPICH creates its context (ucp_init_version, which
 * ucp_init calls, inside MPI_Init: a context the application creates for
 * itself is left alone) and notes the worker MPICH creates. A ghost of a
 * job on more than one node then arms the worker before a doze (on shared
 * cores, only before a long one: wait.Policy.WakeOnRemote), and a thread of
 * its own waits on the descriptor and rings the ghost's doorbell when
 * traffic arrives, so the doze, a futex wait that local origins already
 * end, ends for remote ones too. The thread makes no UCX call: the ghost's serving thread, the only
 * one that drives MPI, arms the worker itself.
 *
 * What the feature changes for the processes that never arm (users): UCX
 * selects for each endpoint the transports that can signal events. Between
 * processes (shared memory, TCP, InfiniBand) those are the transports it
 * chose before; only the endpoint to the process itself no longer uses
 * UCX's loopback transport for active messages. GHOST_NG=0 and
 * GHOST_UCX_WAKE=off leave MPICH's UCX untouched.
 */
#define _GNU_SOURCE
#include "doorbell.h"
#include "ghost.h"

int ghost_mpi_initializing;

#if defined(GHOST_ABI_MPICH) && __has_include(<ucp/api/ucp.h>)
#include <ucp/api/ucp.h>

#include <dlfcn.h>
#include <linux/futex.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

static ucp_worker_h worker;   /* MPICH's worker, when it created exactly one */
static int workers_created;
static int wakeup_asked;      /* UCP_FEATURE_WAKEUP was added to MPICH's context */

/* GHOST_NG=0 is pure pass-through: MPICH's UCX stays as MPICH asked. Any
 * other value may make ghosts (config.Load checks it after MPI_Init). */
static int ghosts_disabled(void)
{
    const char *ng = getenv("GHOST_NG");
    return ng && *ng && strspn(ng, "0") == strlen(ng);
}

ucs_status_t ucp_init_version(unsigned api_major, unsigned api_minor, const ucp_params_t *params,
                              const ucp_config_t *config, ucp_context_h *context)
{
    static ucs_status_t (*real)(unsigned, unsigned, const ucp_params_t *, const ucp_config_t *, ucp_context_h *);
    if (!real)
        real = (ucs_status_t (*)(unsigned, unsigned, const ucp_params_t *, const ucp_config_t *,
                                 ucp_context_h *))dlsym(RTLD_NEXT, "ucp_init_version");
    if (!params || !ghost_mpi_initializing || ghosts_disabled() || wakeup_asked || !ghostUCXWakeWanted())
        return real(api_major, api_minor, params, config, context);
    ucp_params_t with_wakeup = *params;
    if (!(with_wakeup.field_mask & UCP_PARAM_FIELD_FEATURES)) {
        with_wakeup.field_mask |= UCP_PARAM_FIELD_FEATURES;
        with_wakeup.features = 0;
    }
    with_wakeup.features |= UCP_FEATURE_WAKEUP;
    ucs_status_t rc = real(api_major, api_minor, &with_wakeup, config, context);
    if (rc == UCS_OK) {
        wakeup_asked = 1;
        return rc;
    }
    /* No transport could signal events: MPICH gets the context it asked for. */
    return real(api_major, api_minor, params, config, context);
}

ucs_status_t ucp_worker_create(ucp_context_h context, const ucp_worker_params_t *params, ucp_worker_h *out)
{
    static ucs_status_t (*real)(ucp_context_h, const ucp_worker_params_t *, ucp_worker_h *);
    if (!real)
        real = (ucs_status_t (*)(ucp_context_h, const ucp_worker_params_t *, ucp_worker_h *))dlsym(
            RTLD_NEXT, "ucp_worker_create");
    ucs_status_t rc = real(context, params, out);
    if (rc == UCS_OK && wakeup_asked && ghost_mpi_initializing && ++workers_created == 1)
        worker = *out;
    return rc;
}

static ucs_status_t (*worker_arm)(ucp_worker_h);
static int event_fd = -1;        /* UCX's descriptor for the worker */
static int stop_fd = -1;         /* ends the waiter thread */
static uint32_t arms;            /* futex word: bumped at each arming */
static int waiter_idle;          /* the waiter sleeps on arms, not on UCX's descriptor */
static int waiter_ghost;         /* the local ghost index whose doorbell the waiter rings */
static pthread_t waiter;
static int waiting;              /* setup succeeded */
static unsigned long rings;      /* times UCX's descriptor fired */

/* The waiter thread: after each arming, wait for UCX's descriptor and ring
 * the ghost's doorbell. Once it rang, the descriptor stays readable until
 * the next arming drains it, so it waits for that arming first. Until it
 * rings, it stays in poll: an arming that finds it there needs no wake (a
 * thread switch onto a core the ranks share, at every doze of a ghost whose
 * node gets no traffic from other nodes). */
static void *wait_for_traffic(void *unused)
{
    (void)unused;
    uint32_t seen = 0;
    for (;;) {
        uint32_t now;
        __atomic_store_n(&waiter_idle, 1, __ATOMIC_SEQ_CST);
        while ((now = __atomic_load_n(&arms, __ATOMIC_SEQ_CST)) == seen)
            ghost_futex(&arms, FUTEX_WAIT_PRIVATE, seen, NULL);
        __atomic_store_n(&waiter_idle, 0, __ATOMIC_RELAXED);
        seen = now;
        struct pollfd fds[2] = {{.fd = event_fd, .events = POLLIN}, {.fd = stop_fd, .events = POLLIN}};
        while (poll(fds, 2, -1) < 0)
            ;
        if (fds[1].revents)
            return NULL;
        if (fds[0].revents) {
            ghost_ring_slow(waiter_ghost);
            __atomic_add_fetch(&rings, 1, __ATOMIC_RELAXED);
        }
    }
}

int ghost_ucx_wake_setup(int local_ghost)
{
    if (!worker || workers_created != 1 || !ghost_node_ctl)
        return 0;
    ucs_status_t (*get_efd)(ucp_worker_h, int *) =
        (ucs_status_t (*)(ucp_worker_h, int *))dlsym(RTLD_DEFAULT, "ucp_worker_get_efd");
    worker_arm = (ucs_status_t (*)(ucp_worker_h))dlsym(RTLD_DEFAULT, "ucp_worker_arm");
    if (!get_efd || !worker_arm || get_efd(worker, &event_fd) != UCS_OK)
        return 0;
    stop_fd = eventfd(0, EFD_CLOEXEC);
    if (stop_fd < 0)
        return 0;
    waiter_ghost = local_ghost;
    /* The thread takes no signal: the application's handlers and the Go
     * runtime's are for the threads they know. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(&waiter, NULL, wait_for_traffic, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        close(stop_fd);
        stop_fd = -1;
        return 0;
    }
    waiting = 1;
    return 1;
}

int ghost_ucx_wake_arm(void)
{
    if (!waiting)
        return 1;
    if (worker_arm(worker) == UCS_ERR_BUSY)
        return 0; /* events are pending: the ghost has work, not a doze */
    /* The waiter sets its flag before it reads arms, this side bumps arms
     * before it reads the flag: one of the two sees the other. */
    __atomic_add_fetch(&arms, 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&waiter_idle, __ATOMIC_SEQ_CST))
        ghost_futex(&arms, FUTEX_WAKE_PRIVATE, 1, NULL);
    return 1;
}

unsigned long ghost_ucx_wake_rings(void) { return __atomic_load_n(&rings, __ATOMIC_RELAXED); }

void ghost_ucx_wake_teardown(void)
{
    if (!waiting)
        return;
    uint64_t one = 1;
    if (write(stop_fd, &one, sizeof one) == sizeof one) {
        __atomic_add_fetch(&arms, 1, __ATOMIC_RELEASE); /* out of its futex wait, into the poll */
        ghost_futex(&arms, FUTEX_WAKE_PRIVATE, 1, NULL);
        pthread_join(waiter, NULL);
    }
    close(stop_fd);
    stop_fd = -1;
    waiting = 0;
}

#else /* Open MPI, or an MPICH without UCX: remote origins wait for the ghost's timed wakes */

int ghost_ucx_wake_setup(int local_ghost)
{
    (void)local_ghost;
    return 0;
}
int ghost_ucx_wake_arm(void) { return 1; }
unsigned long ghost_ucx_wake_rings(void) { return 0; }
void ghost_ucx_wake_teardown(void) {}

#endif
