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
 * time depends on the machine's load (a 1 ms rule released under load only).
 *
 * In an MPI job with several ranks on the node, the answers are shared
 * (hct_node_symbols.h): an address's file and offset (hct_code_files.h) is
 * looked up in the node's table first, then asked of the node's owner, the
 * first rank past MPI_Init, whose server thread answers the others from
 * its libdw session; only the owner opens libdw (or a process whose owner
 * is gone or could not answer). Keys are then mixed with the file's
 * identity rather than the module's load address, the same for an answer
 * read or computed. Every libdw use of the process (the worker, the
 * server, the naming at the end) holds N.libdw. */
#include "hct_frame_keys.h"

#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "hca_clock.h"
#include "hct_code_files.h"
#include "hct_diag.h"
#include "hct_node_symbols.h"
#include "hct_stack_pages.h"
#include "hct_tooltime.h"

#define RELEASE_AFTER_MS 50
#define RELEASE_LOOKUP_NS 1000000ull
/* naming at the end: a release after the lookups took this many page faults
 * (each maps up to 16 pages of a file); on LULESH 1 rank, 4: 21.7 MiB peak,
 * +20 ms CPU; 8: 21.8, +3 ms; 16: 22.0; 64: 22.5, as never (docs/benchmarks.md) */
#define RELEASE_NAMING_PAGES 8
/* the node owner's lookups: a release after this many page faults; LULESH 8
 * ranks, the owner's peak: main 25.9-26.4 MiB, 8: 24.5-24.8, 2: 24.3-24.7 */
#define OWNER_RELEASE_FAULTS 2
/* how long a process waits for the node's owner to answer one address */
#define OWNER_LIMIT_NS 2000000000ull
/* how often a process reads its maps file again for an address in none */
#define MAPS_READS 16
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

/* Sharing with the node's other processes (hct_node_symbols.h). */
static struct {
    pthread_mutex_t libdw; /* one libdw user at a time in the process */
    pthread_mutex_t files_lock;
    hct_code_files files;
    int decided, possible, shared, owner, closed;
    int joined; /* this process is a rank past MPI_Init (hct_frame_keys_node_join) */
    int no_owner; /* the owner gone or silent once: not asked again */
    hct_symbol names[HCT_INLINE_MAX]; /* under libdw: the chain published */
    uint64_t keys[HCT_INLINE_MAX];    /* under libdw: the server's */
} N = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER, { NULL, 0, 0 }, 0, 0, 0, 0, 0, 0, 0, { { "", "", "", 0, 0 } },
        { 0 } };

hct_symbolizer *hct_frame_symbolizer(void)
{
    if (!W.symbols && !W.symbols_failed) {
        W.symbols = hct_symbolizer_open(0);
        W.symbols_failed = W.symbols == NULL;
    }
    return W.symbols;
}

static uint64_t tagged(uint64_t tag, uint64_t key)
{
    uint64_t h = tag ^ (key + 0x9e3779b97f4a7c15ull + (tag << 6) + (tag >> 2));
    return (h * 0xff51afd7ed558ccdull) | 1;
}

/* address -> its file and offset; the maps file read again (a library loaded
 * since) at most MAPS_READS times. 0, or -1. */
static int code_file_of(uintptr_t address, uint64_t *file, uint64_t *offset)
{
    pthread_mutex_lock(&N.files_lock);
    int rc = hct_code_files_find(&N.files, address, file, offset);
    if (rc != 0 && N.files.reads < MAPS_READS && hct_code_files_read(&N.files, "/proc/self/maps") == 0)
        rc = hct_code_files_find(&N.files, address, file, offset);
    pthread_mutex_unlock(&N.files_lock);
    return rc;
}

static uintptr_t address_of(uint64_t file, uint64_t offset)
{
    pthread_mutex_lock(&N.files_lock);
    uintptr_t a = hct_code_files_address(&N.files, file, offset);
    if (!a && N.files.reads < MAPS_READS && hct_code_files_read(&N.files, "/proc/self/maps") == 0)
        a = hct_code_files_address(&N.files, file, offset);
    pthread_mutex_unlock(&N.files_lock);
    return a;
}

/* Could this process share with the node's? (sharing on, an MPI job with
 * several ranks on the node: the environment says it, unchanged over the
 * process's life). Then its keys are mixed with the file's identity from
 * its first lookup on, before the rank joins as after. */
static int node_possible(void)
{
    pthread_mutex_lock(&N.files_lock);
    if (!N.decided) {
        char path[256];
        N.decided = 1;
        N.possible = hct.cfg.node_symbols && hct_node_symbols_path(path, sizeof(path)) == 0;
    }
    int possible = N.possible;
    pthread_mutex_unlock(&N.files_lock);
    return possible;
}

/* Shared with the node's processes? The file attached (or not) as the rank
 * joined (hct_frame_keys_node_join), before the job's ranks have all met
 * (hct_frame_keys_node_joined). */
static int node_shared(void)
{
    pthread_mutex_lock(&N.files_lock);
    int shared = N.shared;
    pthread_mutex_unlock(&N.files_lock);
    return shared;
}

/* libdw's keys of address with this process's symbolizer (N.libdw held);
 * shared: its names too, published for the node's other processes, and
 * the keys mixed with the file's identity. */
static int lookup(uintptr_t address, uint64_t *keys)
{
    hct_symbolizer *s = hct_frame_symbolizer();
    if (!s) {
        keys[0] = ((uint64_t)address << 1) | 1; /* no symbols at all: the address is the node */
        return 1;
    }
    uint64_t module = 0, file = 0, offset = 0;
    int n = hct_symbol_keys(s, address, keys, &module);
    if (!module)
        return n;
    if (node_possible() && code_file_of(address, &file, &offset) == 0) {
        if (node_shared()) {
            int m = hct_symbolize_inline(s, address, N.names, HCT_INLINE_MAX);
            hct_node_symbols_publish(file, offset, keys, n, N.names, m);
        }
        module = file;
    }
    for (int i = 0; i < n; i++)
        keys[i] = tagged(module, keys[i]);
    return n;
}

/* The calling thread's minor page faults so far. */
static long minor_faults(void)
{
    struct rusage ru;
    return getrusage(RUSAGE_THREAD, &ru) == 0 ? ru.ru_minflt : 0;
}

/* After a libdw call (N.libdw held) that took `faults` page faults: the
 * frames' symbolizer's debug pages given back once the calls counted in
 * *unreleased took more than limit. 1 if given back. */
static int release_after_faults(long *unreleased, long faults, long limit)
{
    *unreleased += faults;
    if (*unreleased <= limit)
        return 0;
    hct_symbolizer_release_pages(W.symbols);
    *unreleased = 0;
    return 1;
}

/* The node owner's lookup (N.libdw held): it answers the node's ranks, a
 * burst of first sights at their start and more later, with its server
 * thread (which never idles as the worker does) and its worker, so it
 * gives back the debug sections' pages as it goes, after OWNER_RELEASE_FAULTS
 * page faults of its lookups (each maps up to 16 pages), and the server its
 * stack pages below its frame: the node's owner held 1.5-2.7 MiB more of
 * file pages than a rank without libdw at its peak (docs/benchmarks.md,
 * "The node owner's peak"). */
static int owner_lookup(uintptr_t address, uint64_t *keys, int server)
{
    static long unreleased; /* under N.libdw */
    long faults = minor_faults();
    int n = lookup(address, keys);
    if (release_after_faults(&unreleased, minor_faults() - faults, OWNER_RELEASE_FAULTS) && server)
        hct_stack_pages_release(STACK_KEEP);
    return n;
}

/* The owner's server: another process's address, by file and offset. */
static void serve_one(uint64_t file, uint64_t offset, void *arg)
{
    (void)arg;
    uintptr_t address = address_of(file, offset);
    if (!address)
        return;
    pthread_mutex_lock(&N.libdw);
    owner_lookup(address, N.keys, 1);
    pthread_mutex_unlock(&N.libdw);
}

static void *server(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&N.libdw);
    hct_symbolizer_warm(hct_frame_symbolizer());
    pthread_mutex_unlock(&N.libdw);
    hct_node_symbols_serve(serve_one, NULL);
    return NULL;
}

static int start_thread(void *(*fn)(void *));

/* The node's answer for address: keys (tagged) and up to max names. 1 if
 * found or given by the owner, else 0. */
static int node_answer(uintptr_t address, uint64_t *keys, int *nkeys, hct_symbol *names, int max, int *nnames)
{
    uint64_t file = 0, offset = 0;
    hct_node_answer a;
    if (!node_shared() || code_file_of(address, &file, &offset) != 0)
        return 0;
    if (!hct_node_symbols_find(file, offset, &a, names, max)) {
        if (N.owner || N.no_owner)
            return 0;
        int asked = hct_node_symbols_request(file, offset, OWNER_LIMIT_NS);
        pthread_mutex_lock(&N.files_lock);
        N.no_owner = asked < 0 && N.joined; /* before MPI_Init there may be none yet */
        pthread_mutex_unlock(&N.files_lock);
        if (asked <= 0 || !hct_node_symbols_find(file, offset, &a, names, max))
            return 0;
    }
    if (a.nkeys < 1 || (names && a.nnames < 1))
        return 0;
    if (keys) {
        for (int i = 0; i < a.nkeys; i++)
            keys[i] = tagged(file, a.keys[i]);
        *nkeys = a.nkeys;
    }
    if (nnames)
        *nnames = a.nnames;
    return 1;
}

static int compute(uintptr_t address, uint64_t *keys)
{
    int n = 0;
    if (node_answer(address, keys, &n, NULL, 0, NULL))
        return n;
    pthread_mutex_lock(&N.libdw);
    n = N.owner ? owner_lookup(address, keys, 0) : lookup(address, keys);
    pthread_mutex_unlock(&N.libdw);
    return n;
}

/* Only a rank past MPI_Init attaches, and the first to attach owns the work
 * and starts its server: never a program mpirun started around the ranks (a
 * shell, GNU time, a tool's wrapper) with the tracer preloaded, which would
 * own the node without ever answering for the ranks' files, or remove the
 * file's name as it exits (docs/benchmarks.md, "The node owner's peak"). */
void hct_frame_keys_node_join(void)
{
    char path[256];
    int possible = node_possible();
    pthread_mutex_lock(&N.files_lock);
    N.joined = 1;
    N.shared = possible && !N.closed && hct_node_symbols_path(path, sizeof(path)) == 0 &&
               hct_node_symbols_attach(path) == 0;
    if (N.shared && hct_node_symbols_claim()) {
        N.owner = 1;
        if (start_thread(server) != 0) {
            N.shared = 0; /* the others find no server and no answers: they ask their own libdw */
            N.owner = 0;
        }
    }
    pthread_mutex_unlock(&N.files_lock);
}

void hct_frame_keys_node_joined(void)
{
    char path[256];
    pthread_mutex_lock(&N.files_lock);
    N.closed = 1; /* a process not attached by now never creates the file again */
    pthread_mutex_unlock(&N.files_lock);
    if (N.shared && hct_node_symbols_path(path, sizeof(path)) == 0)
        hct_node_symbols_unlink(path);
}

/* A process that shared but never passed hct_mpi_start (a program that is
 * not an MPI program, started by mpirun): the name removed as it exits. */
__attribute__((destructor)) static void node_unlink_at_exit(void)
{
    char path[256];
    if (N.shared && !N.closed && hct_node_symbols_path(path, sizeof(path)) == 0)
        hct_node_symbols_unlink(path);
}

void hct_frame_keys_node_report(int rank)
{
    hct_node_stats st;
    hct_node_symbols_stats(&st);
    hct_message("rank %d: frames symbolized %s; libdw %s; %llu answers read from the node's table, %llu asked of "
                "its owner, %llu published",
                rank, !N.shared ? "alone" : N.owner ? "for the node (its owner)" : "by the node's owner",
                W.symbols ? "opened" : "not opened", (unsigned long long)st.found, (unsigned long long)st.asked,
                (unsigned long long)st.published);
}

/* The worker's release: libdw's pages and its own stack's. Called with W.lock held. */
static void worker_release(void)
{
    hct_symbolizer_release_pages(W.symbols);
    if (N.owner)
        malloc_trim(0); /* the server's and the worker's arenas: what libdw freed after the burst */
    hct_stack_pages_release(STACK_KEEP);
    W.unreleased = 0;
}

static void *worker(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&W.lock);
    /* the modules reported now, and libdw's one-time loads done, before the
     * first drain or region enter waits for the worker; shared with the
     * node: by the owner's server as it starts (the others may never need
     * libdw) */
    if (!node_possible()) {
        pthread_mutex_lock(&N.libdw);
        hct_symbolizer_warm(hct_frame_symbolizer());
        pthread_mutex_unlock(&N.libdw);
    }
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

int hct_frame_name(uintptr_t address, hct_symbol *out, int max)
{
    static long unreleased; /* pages the lookups touched since the last release */
    int n = 0;
    if (max > 0 && node_answer(address, NULL, NULL, out, max, &n))
        return n;
    /* not forever: the end may come from a signal handler that interrupted
     * this process's libdw user (the owner's server serves on meanwhile) */
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 5;
    if (pthread_mutex_timedlock(&N.libdw, &until) != 0) {
        memset(out, 0, sizeof(*out));
        snprintf(out->function, sizeof(out->function), "0x%lx", (unsigned long)address);
        snprintf(out->signature, sizeof(out->signature), "0x%lx", (unsigned long)address);
        return max > 0;
    }
    hct_symbolizer *s = hct_frame_symbolizer();
    if (!s) {
        pthread_mutex_unlock(&N.libdw);
        return 0;
    }
    long faults = minor_faults();
    n = hct_symbolize_inline(s, address, out, max);
    release_after_faults(&unreleased, minor_faults() - faults, RELEASE_NAMING_PAGES);
    pthread_mutex_unlock(&N.libdw);
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

/* A detached thread of the tracer's own running fn, created with the real
 * pthread_create (never traced), blocking every signal. 0, or -1. */
static int start_thread(void *(*fn)(void *))
{
    create_fn real = (create_fn)dlsym(RTLD_NEXT, "pthread_create");
    sigset_t all, old;
    sigfillset(&all);
    pthread_t th;
    pthread_attr_t attr;
    if (!real || pthread_attr_init(&attr) != 0)
        return -1;
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    /* the thread inherits a mask that blocks every signal */
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = real(&th, &attr, fn, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&attr);
    return rc == 0 ? 0 : -1;
}

/* Called with W.lock held. */
static void start_worker(void)
{
    W.failed = 1;
    if (start_thread(worker) == 0) {
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
