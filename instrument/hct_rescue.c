/* hct_rescue.c: the signals that end a traced process (see hct_rescue.h).
 *
 * What is async-signal-safe and what is best effort: the handler itself only claims
 * the end (an atomic exchange), arms a watchdog (alarm) and, after the end, restores
 * the previous disposition and re-raises (sigaction, sigprocmask, raise). The end it
 * calls stops recording and writes files with OTF2 and malloc, which is not
 * async-signal-safe: it works when the signal arrives outside malloc and outside an
 * OTF2 call of the interrupted thread (SIGTERM from mpirun or a batch system usually
 * finds ranks waiting in MPI or computing; a SIGSEGV in the application's code, too).
 * When it does not, the watchdog ends the process after HCT_RESCUE_SECONDS by the same
 * signal, with the same status, and the partial trace is what was flushed before. */
#include "hct_rescue.h"

#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#define HCT_RESCUE_SECONDS 20

static const int handled[] = { SIGTERM, SIGINT, SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
#define NHANDLED (sizeof(handled) / sizeof(handled[0]))

static struct sigaction previous[NHANDLED];
static void (*end_fn)(const char *how);
static int (*inside_fn)(void);
static atomic_int claimed;
static volatile sig_atomic_t ending_signal;
volatile sig_atomic_t hct_rescue_deferred;

int hct_rescue_claim(void)
{
    return atomic_exchange(&claimed, 1) == 0;
}

static const char *signal_name(int sig)
{
    switch (sig) {
    case SIGTERM: return "SIGTERM";
    case SIGINT: return "SIGINT";
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGABRT: return "SIGABRT";
    default: return "a signal";
    }
}

static int slot_of(int sig)
{
    for (size_t i = 0; i < NHANDLED; i++)
        if (handled[i] == sig)
            return (int)i;
    return -1;
}

/* The signal goes on as if we had not been there: to the previous disposition. */
static void pass_on(int sig, const struct sigaction *to)
{
    struct sigaction dfl;
    if (!to) {
        memset(&dfl, 0, sizeof(dfl));
        dfl.sa_handler = SIG_DFL;
        to = &dfl;
    }
    sigaction(sig, to, NULL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    sigprocmask(SIG_UNBLOCK, &set, NULL);
    raise(sig); /* the default action ends the process here; a handler runs and returns */
}

/* The end took too long (a lock held by the interrupted code): end by the signal. */
static void watchdog(int sig)
{
    (void)sig;
    pass_on(ending_signal, NULL);
}

static void on_signal(int sig, siginfo_t *info, void *uc)
{
    (void)info;
    (void)uc;
    int slot = slot_of(sig);
    if (sig == SIGTERM || sig == SIGINT) {
        /* asynchronous: inside the tracer, it waits for the section's end */
        if (inside_fn && inside_fn()) {
            if (!hct_rescue_deferred)
                hct_rescue_deferred = sig;
            return;
        }
    }
    if (hct_rescue_claim() && end_fn) {
        ending_signal = sig;
        struct sigaction w;
        memset(&w, 0, sizeof(w));
        w.sa_handler = watchdog;
        sigaction(SIGALRM, &w, NULL);
        sigset_t alrm;
        sigemptyset(&alrm);
        sigaddset(&alrm, SIGALRM);
        sigprocmask(SIG_UNBLOCK, &alrm, NULL);
        alarm(HCT_RESCUE_SECONDS);
        end_fn(signal_name(sig));
        alarm(0);
    }
    pass_on(sig, slot >= 0 ? &previous[slot] : NULL);
}

void hct_rescue_raise_deferred(void)
{
    int sig = hct_rescue_deferred;
    hct_rescue_deferred = 0;
    if (sig)
        raise(sig);
}

void hct_rescue_arm(void (*end)(const char *how), int (*inside_tracer)(void))
{
    if (end)
        end_fn = end;
    if (inside_tracer)
        inside_fn = inside_tracer;
    for (size_t i = 0; i < NHANDLED; i++) {
        struct sigaction cur;
        if (sigaction(handled[i], NULL, &cur) != 0)
            continue;
        if ((cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == on_signal)
            continue; /* ours already */
        if (!(cur.sa_flags & SA_SIGINFO) && cur.sa_handler == SIG_IGN)
            continue; /* ignored by the process: stays so */
        previous[i] = cur;
        struct sigaction ours;
        memset(&ours, 0, sizeof(ours));
        ours.sa_sigaction = on_signal;
        ours.sa_flags = SA_SIGINFO;
        sigfillset(&ours.sa_mask); /* sampling and the other ends wait */
        sigaction(handled[i], &ours, NULL);
    }
}
