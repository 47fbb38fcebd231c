//go:build openmpi

/*
 * A stack trace when a process of the Open MPI build dies of a fault.
 *
 * Plain Open MPI prints one for SIGSEGV, SIGBUS, SIGFPE and SIGILL in a
 * rank (its opal_signal handler), but only where no handler is installed
 * by the time MPI_Init runs. Go's runtime installs one for each when
 * libghost-openmpi.so loads, and for a fault outside Go code it passes the
 * signal to the handler that was there before it, or dies without a word.
 * So a fault inside Open MPI under Ghost used to end with "exited on signal
 * 11" alone (the ompi-g1-auto crashes, docs/openmpi.md). This handler is
 * installed before Go's runtime starts (constructor priority 101 comes
 * before the runtime's own entry in .init_array), so Go keeps it as the
 * handler of faults in C code: it prints the frames, as Open MPI would,
 * then dies of the same signal, so the launcher reports the same status.
 * Faults in Go code stay Go's (a panic with Go's trace).
 */
#define _GNU_SOURCE
/* The context's registers and the call encodings below are x86-64's;
 * elsewhere the library installs nothing, as before. */
#if defined(__x86_64__)
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <execinfo.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

static const int faults[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL};

static void say(const char *s) { (void)!write(STDERR_FILENO, s, strlen(s)); }

/* Whether the code before return address a is a call: e8 rel32, or ff /2
 * in its register, memory and displacement forms. */
static int after_call(const unsigned char *a)
{
    return a[-5] == 0xe8 || (a[-2] == 0xff && (a[-1] & 0x38) == 0x10) ||
           (a[-3] == 0xff && (a[-2] & 0x38) == 0x10) || (a[-6] == 0xff && (a[-5] & 0x38) == 0x10) ||
           (a[-7] == 0xff && (a[-6] & 0x38) == 0x10);
}

/* Whether a is inside a function of a loaded object (its symbol table
 * says so), past a call instruction: only then are its bytes read. */
static int return_address(uintptr_t a)
{
    Dl_info d;
    const ElfW(Sym) *sym = NULL;
    if (a < 4096 || !dladdr1((void *)a, &d, (void **)&sym, RTLD_DL_SYMENT) || !sym || !d.dli_saddr)
        return 0;
    uintptr_t off = a - (uintptr_t)d.dli_saddr;
    return ELF64_ST_TYPE(sym->st_info) == STT_FUNC && off >= 7 && off <= sym->st_size &&
           after_call((const unsigned char *)a);
}

/* Go calls this handler from its own, so unwinding from here stops in Go's
 * signal trampoline; the frames are taken from the faulting context
 * instead: its instruction pointer, then, since Open MPI's libraries keep
 * no frame pointers, every word of the stack above it that points just
 * after a call instruction in a loaded object (a return address, or now
 * and then a stale one: the trace says it is a scan). A scan that ran off
 * the stack's end would fault again with the signal blocked, which kills
 * the process with it all the same. */
static void on_fault(int sig, siginfo_t *info, void *ctx)
{
    (void)info;
    /* The first line goes out in one write: the ranks share the launcher's
     * stderr, and a line of another process once landed inside it. */
    char line[160] = "ghost: process ", num[24];
    int n = 0;
    for (pid_t p = getpid(); p > 0 && n < (int)sizeof num; p /= 10)
        num[n++] = (char)('0' + p % 10);
    size_t at = strlen(line);
    while (n > 0)
        line[at++] = num[--n];
    line[at] = 0;
    strcat(line, sig == SIGSEGV ? ": SIGSEGV" : sig == SIGBUS ? ": SIGBUS" : sig == SIGFPE ? ": SIGFPE" : ": SIGILL");
    strcat(line, " outside Go code; where it happened, then return addresses found on its stack:\n");
    say(line);
    const mcontext_t *mc = &((const ucontext_t *)ctx)->uc_mcontext;
    void *frames[33];
    int depth = 0;
    frames[depth++] = (void *)mc->gregs[REG_RIP];
    const uintptr_t *sp = (const uintptr_t *)mc->gregs[REG_RSP];
    for (int i = 0; i < 512 && depth < 33; i++) {
        if (return_address(sp[i]))
            frames[depth++] = (void *)sp[i];
    }
    backtrace_symbols_fd(frames, depth, STDERR_FILENO);
    signal(sig, SIG_DFL);
    raise(sig);
}

__attribute__((constructor(101))) static void install_fault_trace(void)
{
    /* backtrace_symbols_fd must not load anything inside the handler. */
    void *warm[1];
    backtrace(warm, 1);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof faults / sizeof faults[0]; i++) {
        struct sigaction old;
        /* A program's own handler stays. */
        if (sigaction(faults[i], NULL, &old) == 0 && old.sa_handler == SIG_DFL)
            sigaction(faults[i], &sa, NULL);
    }
}
#endif /* __x86_64__ */
