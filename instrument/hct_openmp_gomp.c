/* hct_openmp_gomp.c: GCC's OpenMP runtime (libgomp, no OMPT) seen through its
 * entry points. The parallel-region entries run the outlined function through
 * a trampoline that records each thread's share (hct_openmp.c); barriers and
 * critical sections become regions around the real call. The real functions
 * come from dlsym(RTLD_NEXT). Everything passes straight through when tracing
 * is off, or when libomp's OMPT interface records instead (libomp exports these
 * GOMP_ entries too; they then only leave hints for hct_openmp_ompt.c). What is
 * and is not seen: docs/openmp.md. */
#include "hct_openmp.h"

#include <dlfcn.h>
#include <stdlib.h>

#include "hct_diag.h"

#define EXPORT __attribute__((visibility("default")))
#define MAX_NEST 16

typedef void (*outlined_fn)(void *);
typedef void (*void_fn)(void);
typedef void (*lock_fn)(void **);

static void *resolve(const char *name)
{
    void *p = dlsym(RTLD_NEXT, name);
    if (!p) {
        hct_message("cannot find the OpenMP runtime's %s", name);
        abort();
    }
    return p;
}

#define REAL(type, name)                                                                                     \
    static type real_;                                                                                       \
    if (!real_)                                                                                              \
        real_ = (type)resolve(#name);

typedef int (*int_fn)(void);

static uint32_t positive(int v)
{
    return v > 0 ? (uint32_t)v : 1;
}

/* The size of the calling thread's team. */
static uint32_t team_size(void)
{
    REAL(int_fn, omp_get_num_threads)
    return positive(real_());
}

/* The calling thread's number in its team. */
static uint32_t thread_num(void)
{
    REAL(int_fn, omp_get_thread_num)
    int v = real_();
    return v > 0 ? (uint32_t)v : 0;
}

static uint32_t max_threads(void)
{
    REAL(int_fn, omp_get_max_threads)
    return positive(real_());
}

/* This adapter records: tracing is on and OMPT does not record instead. The
 * first call initializes the runtime (libomp starts its OMPT tool then). */
static int recording_here(void)
{
    static _Atomic int state; /* 0 unknown, 1 this adapter records, 2 another does */
    if (!atomic_load_explicit(&hct.active, memory_order_relaxed))
        return 0;
    int s = atomic_load_explicit(&state, memory_order_acquire);
    if (s == 0) {
        (void)max_threads();
        s = hct_omp_claim(HCT_OMP_GOMP) ? 1 : 2;
        atomic_store_explicit(&state, s, memory_order_release);
    }
    return s == 1;
}

/* The call into libomp when its OMPT interface records: with the outlined
 * function and the program's call site as hints for the OMPT callbacks. */
#define HINTED(fnp, site, call)                                                                              \
    do {                                                                                                     \
        hct_omp_hint saved_ = hct_omp_hints;                                                                 \
        int hinted_ = hct_omp_adapter_of() == HCT_OMP_OMPT;                                                  \
        if (hinted_)                                                                                         \
            hct_omp_hints = (hct_omp_hint){ (fnp), (site) };                                                 \
        call;                                                                                                \
        if (hinted_)                                                                                         \
            hct_omp_hints = saved_;                                                                          \
    } while (0)

/* ---- parallel regions -------------------------------------------------------- */

struct helper {
    outlined_fn fn;
    void *data;
    int traced;
    int alone; /* a team of one asked for (libgomp gives it exactly): thread 0 of 1, no need to ask */
    uint32_t master, level;
    hct_omp_fork *f; /* the master's (its context, its thinning decision) */
    const hct_omp_fork *fork; /* the master's, when the runtime calls its share from the fork's call */
};

/* The outlined function the calling thread runs now, for calls it makes as
 * tail calls (their return address is then in the trampoline). */
static HCT_TLS outlined_fn current_fn;

/* Runs on every thread of the team; in a section of its own, so that return
 * addresses inside it are recognized. */
__attribute__((section("hct_omp_trampoline"), noinline)) static void trampoline(void *p)
{
    const struct helper *h = p;
    hct_omp_share s;
    const hct_omp_caller caller = { __builtin_return_address(0), __builtin_frame_address(0), h->fork };
    int on = h->traced && hct_omp_share_begin(&s, h->master, h->level, h->alone ? 0 : thread_num(),
                                              h->alone ? 1 : team_size(), h->f, &caller);
    outlined_fn outer = current_fn;
    current_fn = h->fn;
    h->fn(h->data);
    current_fn = outer;
    if (on)
        hct_omp_share_end(&s);
}

extern const char __start_hct_omp_trampoline[] __attribute__((visibility("hidden")));
extern const char __stop_hct_omp_trampoline[] __attribute__((visibility("hidden")));

/* The call site to record for a return address: a tail call from an outlined
 * function returns into the trampoline; its site is then the function's start. */
static const void *call_site(const void *return_address)
{
    const char *a = return_address;
    if (a >= __start_hct_omp_trampoline && a < __stop_hct_omp_trampoline && current_fn)
        return (const char *)(const void *)current_fn + 1; /* symbolized at the address before: the entry */
    return return_address;
}

/* Before the real call: ThreadFork, and the helper the trampoline needs. */
static void fork_begin(struct helper *h, hct_omp_fork *f, outlined_fn fn, void *data, unsigned nthreads,
                       const void *return_address, const void *ret, const void *cfa)
{
    h->fn = fn;
    h->data = data;
    h->traced = 0;
    if (!recording_here())
        return;
    uint32_t requested = nthreads ? nthreads : max_threads();
    uint32_t key = hct_omp_parallel_key((const void *)fn, NULL);
    if (!hct_omp_fork_begin(f, key, return_address, ret, cfa, requested))
        return;
    h->traced = 1;
    h->alone = requested == 1;
    h->master = f->master;
    h->level = f->level;
    h->f = f;
    h->fork = NULL;
}

#define PARAMS_OF(...) __VA_ARGS__

/* GOMP_parallel and its combined loop and sections forms: the same shape.
 * The entry point passes its return address and its caller's stack pointer
 * to the function that holds the fork (aligned, so its frame is realigned:
 * there __builtin_dwarf_cfa() gives the frame pointer's idea of the CFA, not
 * the caller's stack pointer, and the master's call path found late could
 * not be cached against it: hct_path_cache_unwind_from). */
#define PARALLEL(name, params, args, names)                                                                  \
    typedef void (*name##_fn) params;                                                                        \
    __attribute__((noinline)) static void name##_forked(const void *ret, const void *cfa, PARAMS_OF params)  \
    {                                                                                                        \
        REAL(name##_fn, name)                                                                                \
        struct helper h;                                                                                     \
        hct_omp_fork f;                                                                                      \
        const void *site = call_site(ret);                                                                   \
        fork_begin(&h, &f, fn, data, nthreads, site, ret, cfa);                                              \
        if (site == ret) /* the master's share: called from real_, below site */                             \
            h.fork = &f;                                                                                     \
        if (!h.traced) {                                                                                     \
            outlined_fn call = fn;                                                                           \
            void *arg = data;                                                                                \
            HINTED((const void *)fn, site, real_ args);                                                      \
            return;                                                                                          \
        }                                                                                                    \
        outlined_fn call = trampoline;                                                                       \
        void *arg = &h;                                                                                      \
        real_ args;                                                                                          \
        hct_omp_fork_end(&f);                                                                                \
    }                                                                                                        \
    EXPORT void name params                                                                                  \
    {                                                                                                        \
        name##_forked(__builtin_return_address(0), __builtin_dwarf_cfa(), PARAMS_OF names);                  \
    }

#define LOOP_PARAMS (outlined_fn fn, void *data, unsigned nthreads, long start, long end, long incr, long chunk, \
                     unsigned flags)
#define LOOP_ARGS (call, arg, nthreads, start, end, incr, chunk, flags)
#define LOOP_NAMES (fn, data, nthreads, start, end, incr, chunk, flags)
#define RUNTIME_PARAMS (outlined_fn fn, void *data, unsigned nthreads, long start, long end, long incr, unsigned flags)
#define RUNTIME_ARGS (call, arg, nthreads, start, end, incr, flags)
#define RUNTIME_NAMES (fn, data, nthreads, start, end, incr, flags)

PARALLEL(GOMP_parallel, (outlined_fn fn, void *data, unsigned nthreads, unsigned flags),
         (call, arg, nthreads, flags), (fn, data, nthreads, flags))
PARALLEL(GOMP_parallel_sections, (outlined_fn fn, void *data, unsigned nthreads, unsigned count, unsigned flags),
         (call, arg, nthreads, count, flags), (fn, data, nthreads, count, flags))
PARALLEL(GOMP_parallel_loop_static, LOOP_PARAMS, LOOP_ARGS, LOOP_NAMES)
PARALLEL(GOMP_parallel_loop_dynamic, LOOP_PARAMS, LOOP_ARGS, LOOP_NAMES)
PARALLEL(GOMP_parallel_loop_guided, LOOP_PARAMS, LOOP_ARGS, LOOP_NAMES)
PARALLEL(GOMP_parallel_loop_nonmonotonic_dynamic, LOOP_PARAMS, LOOP_ARGS, LOOP_NAMES)
PARALLEL(GOMP_parallel_loop_nonmonotonic_guided, LOOP_PARAMS, LOOP_ARGS, LOOP_NAMES)
PARALLEL(GOMP_parallel_loop_runtime, RUNTIME_PARAMS, RUNTIME_ARGS, RUNTIME_NAMES)
PARALLEL(GOMP_parallel_loop_nonmonotonic_runtime, RUNTIME_PARAMS, RUNTIME_ARGS, RUNTIME_NAMES)
PARALLEL(GOMP_parallel_loop_maybe_nonmonotonic_runtime, RUNTIME_PARAMS, RUNTIME_ARGS, RUNTIME_NAMES)

/* ---- the legacy split form: *_start, the master calls fn itself, GOMP_parallel_end ---- */

typedef struct {
    struct helper h; /* read by the team's threads until GOMP_parallel_end returns */
    hct_omp_fork f;
    hct_omp_share s;
    int shared;
} legacy_region;

static HCT_TLS legacy_region legacy[MAX_NEST];
static HCT_TLS int nlegacy; /* may exceed MAX_NEST: those levels are not traced */

#define PARALLEL_START(name, params, args)                                                                   \
    typedef void (*name##_fn) params;                                                                        \
    EXPORT void name params                                                                                  \
    {                                                                                                        \
        REAL(name##_fn, name)                                                                                \
        outlined_fn call = fn;                                                                               \
        void *arg = data;                                                                                    \
        legacy_region *r = nlegacy < MAX_NEST ? &legacy[nlegacy] : NULL;                                     \
        nlegacy++;                                                                                           \
        const void *site = call_site(__builtin_return_address(0));                                           \
        if (r) {                                                                                             \
            r->shared = 0;                                                                                   \
            fork_begin(&r->h, &r->f, fn, data, nthreads, site, NULL, NULL); /* returns before the shares */  \
            if (r->h.traced) {                                                                               \
                call = trampoline;                                                                           \
                arg = &r->h;                                                                                 \
            }                                                                                                \
        }                                                                                                    \
        HINTED((const void *)fn, site, real_ args);                                                          \
        if (r && r->h.traced) /* the master's share: it runs fn itself next */                               \
            r->shared = hct_omp_share_begin(&r->s, r->h.master, r->h.level, thread_num(), team_size(),       \
                                            r->h.f, NULL);                                                   \
    }

PARALLEL_START(GOMP_parallel_start, (outlined_fn fn, void *data, unsigned nthreads), (call, arg, nthreads))
PARALLEL_START(GOMP_parallel_sections_start, (outlined_fn fn, void *data, unsigned nthreads, unsigned count),
               (call, arg, nthreads, count))
#define LOOP_START_PARAMS (outlined_fn fn, void *data, unsigned nthreads, long start, long end, long incr, long chunk)
#define LOOP_START_ARGS (call, arg, nthreads, start, end, incr, chunk)
PARALLEL_START(GOMP_parallel_loop_static_start, LOOP_START_PARAMS, LOOP_START_ARGS)
PARALLEL_START(GOMP_parallel_loop_dynamic_start, LOOP_START_PARAMS, LOOP_START_ARGS)
PARALLEL_START(GOMP_parallel_loop_guided_start, LOOP_START_PARAMS, LOOP_START_ARGS)
PARALLEL_START(GOMP_parallel_loop_runtime_start,
               (outlined_fn fn, void *data, unsigned nthreads, long start, long end, long incr),
               (call, arg, nthreads, start, end, incr))

EXPORT void GOMP_parallel_end(void)
{
    REAL(void_fn, GOMP_parallel_end)
    legacy_region *r = nlegacy > 0 && nlegacy <= MAX_NEST ? &legacy[nlegacy - 1] : NULL;
    if (r && r->shared)
        hct_omp_share_end(&r->s);
    real_();
    if (nlegacy > 0)
        nlegacy--;
    if (r && r->h.traced)
        hct_omp_fork_end(&r->f);
}

/* ---- barriers --------------------------------------------------------------------- */

#define BARRIER(name, key)                                                                                   \
    EXPORT void name(void)                                                                                   \
    {                                                                                                        \
        REAL(void_fn, name)                                                                           \
        hct_omp_region r;                                                                                    \
        const void *site = call_site(__builtin_return_address(0));                                           \
        int on = recording_here() &&                                                                         \
                 hct_omp_region_enter(&r, key, site, __builtin_return_address(0), __builtin_dwarf_cfa());    \
        HINTED(NULL, site, real_());                                                                         \
        if (on)                                                                                              \
            hct_omp_region_leave(&r);                                                                        \
    }

BARRIER(GOMP_barrier, HCT_OMP_KEY_BARRIER)
BARRIER(GOMP_loop_end, HCT_OMP_KEY_IBARRIER)
BARRIER(GOMP_sections_end, HCT_OMP_KEY_IBARRIER)

/* ---- critical sections: a region from the start call to the end's return ---- */

typedef struct {
    hct_omp_region r;
    int on;
} open_critical;
static HCT_TLS open_critical criticals[MAX_NEST];
static HCT_TLS int ncriticals; /* may exceed MAX_NEST: those are not traced */

/* return_address: the call site; ret, cfa: the start's own return address and
 * its caller's stack pointer (hct_omp_region_enter). */
static void critical_enter(const void *return_address, const void *ret, const void *cfa)
{
    if (ncriticals < MAX_NEST) {
        open_critical *c = &criticals[ncriticals];
        c->on = recording_here() && hct_omp_region_enter(&c->r, HCT_OMP_KEY_CRITICAL, return_address, ret, cfa);
    }
    ncriticals++;
}

static void critical_leave(void)
{
    if (ncriticals == 0)
        return;
    ncriticals--;
    if (ncriticals < MAX_NEST && criticals[ncriticals].on)
        hct_omp_region_leave(&criticals[ncriticals].r);
}

EXPORT void GOMP_critical_start(void)
{
    REAL(void_fn, GOMP_critical_start)
    const void *site = call_site(__builtin_return_address(0));
    critical_enter(site, __builtin_return_address(0), __builtin_dwarf_cfa());
    HINTED(NULL, site, real_());
}

EXPORT void GOMP_critical_end(void)
{
    REAL(void_fn, GOMP_critical_end)
    real_();
    critical_leave();
}

EXPORT void GOMP_critical_name_start(void **lock)
{
    REAL(lock_fn, GOMP_critical_name_start)
    const void *site = call_site(__builtin_return_address(0));
    critical_enter(site, __builtin_return_address(0), __builtin_dwarf_cfa());
    HINTED(NULL, site, real_(lock));
}

EXPORT void GOMP_critical_name_end(void **lock)
{
    REAL(lock_fn, GOMP_critical_name_end)
    real_(lock);
    critical_leave();
}
