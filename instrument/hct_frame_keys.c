/* hct_frame_keys.c: a worker thread of the tracer that asks libdw for the
 * inline chains of sampled addresses while samples are drained. The first
 * sight of an address reads DWARF (tens of microseconds, page faults on
 * first touch of a module's debug sections); done on the draining application
 * thread, that work would be counted in the application's task-clock and
 * page-fault counters and show in its regions. The worker blocks every
 * signal, is created with the real pthread_create (never traced), and answers
 * one request at a time. Where it cannot be created, the caller's thread does
 * the work. After a lookup of over RELEASE_LOOKUP_NS of its CPU time, and when
 * no request came for RELEASE_AFTER_MS after a lookup, the
 * worker drops the resident pages of the debug sections libdw read
 * (hct_symbolizer_release_pages): a burst of first sights (a run's first
 * iteration) leaves no MiB of DWARF in the process's resident memory. At the
 * end the same pages are dropped before the events are written
 * (hct_frame_keys_release), and naming the frames (hct_frame_name) drops what
 * it read once its lookups took RELEASE_NAMING_PAGES page faults: the peak of
 * a rank's memory is at the end (docs/benchmarks.md, "Peak resident memory").
 * The worker's own stack pages below its idle frame go with them (up to 0.2 MiB
 * after a unit's DIE tree was walked: hct_stack_pages_release).
 * Page faults, not CPU time: the naming's lookups are short, and their CPU
 * time depends on the machine's load (a 1 ms rule released under load only). */
#include "hct_frame_keys.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "hca_clock.h"
#include "hct_stack_pages.h"
#include "hct_tooltime.h"

#define RELEASE_AFTER_MS 50
#define RELEASE_LOOKUP_NS 1000000ull
/* naming at the end: a release after the lookups took this many page faults
 * (each maps up to 16 pages of a file); on LULESH 1 rank, 4: 21.7 MiB peak,
 * +20 ms CPU; 8: 21.8, +3 ms; 16: 22.0; 64: 22.5, as never (docs/benchmarks.md) */
#define RELEASE_NAMING_PAGES 8
#define STACK_KEEP (16u << 10) /* of the worker's stack below its idle frame */

typedef int (*create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

static struct {
    pthread_mutex_t lock;
    pthread_cond_t request, answer;
    int started, failed, pending;
    uintptr_t address;
    uint64_t keys[HCT_INLINE_MAX];
    int nkeys;
    hct_symbolizer *symbols;
    int symbols_failed;
    int unreleased; /* lookups since the last hct_symbolizer_release_pages */
} W = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0, 0, { 0 }, 0,
        NULL, 0, 0 };

hct_symbolizer *hct_frame_symbolizer(void)
{
    if (!W.symbols && !W.symbols_failed) {
        W.symbols = hct_symbolizer_open(0);
        W.symbols_failed = W.symbols == NULL;
    }
    return W.symbols;
}

static int compute(uintptr_t address, uint64_t *keys)
{
    hct_symbolizer *s = hct_frame_symbolizer();
    if (s)
        return hct_symbol_keys(s, address, keys);
    keys[0] = ((uint64_t)address << 1) | 1; /* no symbols at all: the address is the node */
    return 1;
}

/* The worker's release: libdw's pages and its own stack's. Called with W.lock held. */
static void worker_release(void)
{
    hct_symbolizer_release_pages(W.symbols);
    hct_stack_pages_release(STACK_KEEP);
    W.unreleased = 0;
}

static void *worker(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&W.lock);
    /* the modules reported now, and libdw's one-time loads done, before the
     * first drain or region enter waits for the worker */
    hct_symbolizer_warm(hct_frame_symbolizer());
    for (;;) {
        while (!W.pending) {
            if (!W.unreleased) {
                pthread_cond_wait(&W.request, &W.lock);
                continue;
            }
            struct timespec until;
            clock_gettime(CLOCK_REALTIME, &until);
            until.tv_nsec += RELEASE_AFTER_MS * 1000000L;
            if (until.tv_nsec >= 1000000000L) {
                until.tv_sec++;
                until.tv_nsec -= 1000000000L;
            }
            if (pthread_cond_timedwait(&W.request, &W.lock, &until) == ETIMEDOUT && !W.pending)
                worker_release();
        }
        uint64_t cpu0 = hct_thread_cpu_ns();
        W.nkeys = compute(W.address, W.keys);
        W.unreleased = 1;
        /* the worker's own CPU time: a lookup merely waiting for a core on a
         * loaded machine is not taken for a unit's DIE tree walked */
        if (hct_thread_cpu_ns() - cpu0 > RELEASE_LOOKUP_NS)
            worker_release();
        W.pending = 0;
        pthread_cond_signal(&W.answer);
    }
    return NULL;
}

void hct_frame_keys_release(void)
{
    /* not during a lookup of the worker; and never waiting: the end may come
     * from a signal handler that interrupted a thread holding the lock */
    if (pthread_mutex_trylock(&W.lock) != 0)
        return;
    if (W.symbols && W.unreleased) {
        hct_symbolizer_release_pages(W.symbols);
        W.unreleased = 0;
    }
    pthread_mutex_unlock(&W.lock);
}

/* The calling thread's minor page faults so far. */
static long minor_faults(void)
{
    struct rusage ru;
    return getrusage(RUSAGE_THREAD, &ru) == 0 ? ru.ru_minflt : 0;
}

int hct_frame_name(uintptr_t address, hct_symbol *out, int max)
{
    static long unreleased; /* pages the lookups touched since the last release */
    long faults = minor_faults();
    int n = hct_symbolize_inline(hct_frame_symbolizer(), address, out, max);
    unreleased += minor_faults() - faults;
    if (unreleased > RELEASE_NAMING_PAGES) {
        hct_symbolizer_release_pages(W.symbols);
        unreleased = 0;
    }
    return n;
}

/* a forked child has no worker: it starts its own when it needs one */
static void after_fork_in_child(void)
{
    pthread_mutex_init(&W.lock, NULL);
    pthread_cond_init(&W.request, NULL);
    pthread_cond_init(&W.answer, NULL);
    W.started = W.failed = W.pending = 0;
}

/* Called with W.lock held. */
static void start_worker(void)
{
    create_fn real = (create_fn)dlsym(RTLD_NEXT, "pthread_create");
    sigset_t all, old;
    sigfillset(&all);
    pthread_t th;
    pthread_attr_t attr;
    W.failed = 1;
    if (!real || pthread_attr_init(&attr) != 0)
        return;
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    /* the worker inherits a mask that blocks every signal */
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = real(&th, &attr, worker, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&attr);
    if (rc == 0) {
        W.failed = 0;
        W.started = 1;
        pthread_atfork(NULL, NULL, after_fork_in_child);
    }
}

void hct_frame_keys_start(void)
{
    pthread_mutex_lock(&W.lock);
    if (!W.started && !W.failed)
        start_worker();
    pthread_mutex_unlock(&W.lock);
}

HCT_TLS uint64_t hct_frame_keys_waited;

int hct_frame_keys(uintptr_t address, uint64_t *keys)
{
    uint64_t t0 = hca_clock_now();
    pthread_mutex_lock(&W.lock);
    if (!W.started && !W.failed)
        start_worker();
    int n;
    if (W.started) {
        W.address = address;
        W.pending = 1;
        pthread_cond_signal(&W.request);
        while (W.pending)
            pthread_cond_wait(&W.answer, &W.lock);
        n = W.nkeys;
        memcpy(keys, W.keys, (size_t)n * sizeof(*keys));
    } else {
        n = compute(address, keys);
    }
    pthread_mutex_unlock(&W.lock);
    hct_frame_keys_waited += hca_clock_now() - t0;
    return n;
}
