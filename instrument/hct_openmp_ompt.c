/* hct_openmp_ompt.c: LLVM's OpenMP runtime (libomp) seen through its tool
 * interface, OMPT: libomp calls ompt_start_tool (exported here) when it starts,
 * and the callbacks registered in initialize record through hct_openmp.c what
 * the GOMP wrappers record on libgomp: ThreadFork/ThreadJoin on the master
 * (parallel_begin/end), each thread's share of a region (implicit_task begin,
 * up to the implicit barrier that ends the region), barriers (sync_region),
 * worksharing constructs (work) and critical sections (mutex_acquire/released).
 * This adapter claims the recording at initialization, before any region: the
 * GOMP wrappers, which libomp's GOMP_ entries of a GCC-built program go through,
 * then only pass hints (outlined function, call site). docs/openmp.md. */
#include "hct_ompt.h"
#include "hct_openmp.h"

#include <link.h>

#include "hct_diag.h"

#define EXPORT __attribute__((visibility("default")))
#define MAX_NEST 16

/* ---- parallel regions on their master ------------------------------------------ */

typedef struct {
    hct_omp_fork f;
    int traced;
    const void *fn;      /* the outlined function, when a GOMP wrapper told */
    const void *codeptr; /* as libomp reports it: the join barrier's on the master */
} parallel_region;

/* The regions the calling thread opened, innermost last; parallel_data->ptr
 * points here (read by the team's threads at their implicit task's begin). */
static HCT_TLS parallel_region parallels[MAX_NEST];
static HCT_TLS int nparallels; /* may exceed MAX_NEST: those are not traced */

static int recording(void)
{
    return atomic_load_explicit(&hct.active, memory_order_relaxed);
}

static void on_parallel_begin(ompt_data_t *encountering_task_data, const ompt_frame_t *encountering_task_frame,
                              ompt_data_t *parallel_data, unsigned int requested_parallelism, int flags,
                              const void *codeptr_ra)
{
    (void)encountering_task_data;
    (void)encountering_task_frame;
    (void)flags;
    hct_omp_hint hint = hct_omp_hints; /* from a GOMP wrapper: this region's */
    hct_omp_hints.fn = NULL;
    hct_omp_hints.site = NULL;
    parallel_region *r = nparallels < MAX_NEST ? &parallels[nparallels] : NULL;
    nparallels++;
    parallel_data->ptr = NULL;
    if (!r || !recording())
        return;
    r->codeptr = codeptr_ra;
    r->fn = hint.fn;
    uint32_t key = hint.fn ? hct_omp_parallel_key(hint.fn, NULL) : hct_omp_parallel_key(NULL, codeptr_ra);
    const void *site = hint.site ? hint.site : codeptr_ra;
    r->traced = hct_omp_fork_begin(&r->f, key, site, NULL, NULL, requested_parallelism ? requested_parallelism : 1);
    if (r->traced)
        parallel_data->ptr = r;
}

static void on_parallel_end(ompt_data_t *parallel_data, ompt_data_t *encountering_task_data, int flags,
                            const void *codeptr_ra)
{
    (void)encountering_task_data;
    (void)flags;
    (void)codeptr_ra;
    if (nparallels > 0)
        nparallels--;
    parallel_region *r = parallel_data ? parallel_data->ptr : NULL;
    if (r && r->traced) {
        r->traced = 0;
        hct_omp_fork_end(&r->f);
    }
}

/* ---- code addresses that are not the program's -------------------------------------- */

/* The executable ranges of libomp and of this library, found at initialize:
 * libomp reports code addresses inside them when a GCC-built program calls it
 * through a GOMP wrapper, or with a tail call from an outlined function. */
typedef struct {
    uintptr_t lo, hi;
} text_range;
static text_range runtime_text, tool_text;

static int find_text(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    text_range *want = data; /* lo: an address inside; set to the object's range */
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && want->lo >= lo && want->lo < hi) {
            *want = (text_range){ lo, hi };
            return 1;
        }
    }
    return 0;
}

static text_range text_of(const void *inside)
{
    text_range r = { (uintptr_t)inside, 0 };
    if (!inside || !dl_iterate_phdr(find_text, &r))
        return (text_range){ 0, 0 };
    return r;
}

static int in_range(const void *a, text_range r)
{
    return (uintptr_t)a >= r.lo && (uintptr_t)a < r.hi;
}

/* ---- constructs: barriers, worksharing, critical sections ------------------------ */

typedef struct {
    hct_omp_region r;
    uint32_t key;
    int on;
} open_construct;

static HCT_TLS open_construct constructs[MAX_NEST];
static HCT_TLS int nconstructs; /* may exceed MAX_NEST: those are not traced */

/* The outlined function of the calling thread's innermost share (if known). */
static HCT_TLS const void *share_fn;

/* The call site to record for a construct: the GOMP wrapper's, else libomp's
 * code address unless it is inside libomp or this library (then the outlined
 * function's start, as the GOMP adapter does for tail calls). */
static const void *construct_site(const void *codeptr)
{
    const void *site = hct_omp_hints.site ? hct_omp_hints.site : codeptr;
    hct_omp_hints.site = NULL; /* taken */
    if (site && !in_range(site, runtime_text) && !in_range(site, tool_text))
        return site;
    return share_fn ? (const char *)share_fn + 1 : NULL; /* symbolized at the address before: the entry */
}

static void construct_enter(uint32_t key, const void *codeptr)
{
    if (nconstructs < MAX_NEST) {
        open_construct *c = &constructs[nconstructs];
        const void *site = construct_site(codeptr);
        c->key = key;
        c->on = recording() && hct_omp_region_enter(&c->r, key, site, NULL, NULL); /* the program's frame unknown */
    }
    nconstructs++;
}

/* Leaves the innermost construct if it is a `key` one (ends the runtime does not
 * pair are dropped). */
static void construct_leave(uint32_t key)
{
    if (nconstructs == 0)
        return;
    if (nconstructs <= MAX_NEST) {
        open_construct *c = &constructs[nconstructs - 1];
        if (c->key != key)
            return;
        if (c->on)
            hct_omp_region_leave(&c->r);
    }
    nconstructs--;
}

/* Leaves every construct above `depth` (a share ends with them open). */
static void constructs_close(int depth)
{
    while (nconstructs > depth) {
        nconstructs--;
        if (nconstructs < MAX_NEST && constructs[nconstructs].on)
            hct_omp_region_leave(&constructs[nconstructs].r);
    }
}

/* ---- each thread's share: implicit task begin ... the region's join barrier ---- */

typedef struct {
    hct_omp_share s;
    const void *outer_fn; /* share_fn before this share */
    int on;
    int constructs; /* nconstructs at the begin */
    const void *codeptr; /* the region's, as libomp reports it */
} open_share;

static HCT_TLS open_share shares[MAX_NEST];
static HCT_TLS int nshares; /* may exceed MAX_NEST: those are not traced */

static void share_close(open_share *o)
{
    if (!o->on)
        return;
    o->on = 0;
    constructs_close(o->constructs);
    share_fn = o->outer_fn;
    hct_omp_share_end(&o->s);
}

static void on_implicit_task(ompt_scope_endpoint_t endpoint, ompt_data_t *parallel_data, ompt_data_t *task_data,
                             unsigned int actual_parallelism, unsigned int index, int flags)
{
    if (flags & ompt_task_initial)
        return;
    if (endpoint == ompt_scope_begin) {
        open_share *o = nshares < MAX_NEST ? &shares[nshares] : NULL;
        nshares++;
        task_data->ptr = o;
        if (!o)
            return;
        o->on = 0;
        o->constructs = nconstructs;
        parallel_region *r = parallel_data ? parallel_data->ptr : NULL;
        if (!r || !recording())
            return;
        o->codeptr = r->codeptr;
        o->outer_fn = share_fn;
        o->on = hct_omp_share_begin(&o->s, r->f.master, r->f.level, index,
                                    actual_parallelism ? actual_parallelism : 1, &r->f, NULL);
        if (o->on)
            share_fn = r->fn;
        return;
    }
    if (nshares == 0)
        return;
    nshares--;
    if (nshares < MAX_NEST) /* normally already closed at the join barrier */
        share_close(&shares[nshares]);
}

static void on_sync_region(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint, ompt_data_t *parallel_data,
                           ompt_data_t *task_data, const void *codeptr_ra)
{
    (void)parallel_data;
    (void)task_data;
    uint32_t key;
    switch (kind) {
    case ompt_sync_region_barrier_implicit:
    case ompt_sync_region_barrier_implicit_parallel:
        /* The implicit barrier that ends a parallel region ends the thread's
         * share (as on libgomp, where it follows the outlined function). libomp
         * 14 reports it as barrier_implicit with the region's code address on
         * the master and none on the workers; newer ones as _parallel. */
        if (endpoint == ompt_scope_begin && nshares > 0 && nshares <= MAX_NEST) {
            open_share *o = &shares[nshares - 1];
            if (o->on && (kind == ompt_sync_region_barrier_implicit_parallel || !codeptr_ra ||
                          codeptr_ra == o->codeptr)) {
                share_close(o);
                return;
            }
        }
        if (kind == ompt_sync_region_barrier_implicit_parallel)
            return;
        key = HCT_OMP_KEY_IBARRIER;
        break;
    case ompt_sync_region_barrier_implicit_workshare:
        key = HCT_OMP_KEY_IBARRIER;
        break;
    case ompt_sync_region_barrier:
    case ompt_sync_region_barrier_explicit:
    case ompt_sync_region_barrier_implementation: /* libomp's GOMP_barrier */
        key = HCT_OMP_KEY_BARRIER;
        break;
    case ompt_sync_region_taskwait:
        key = HCT_OMP_KEY_TASKWAIT;
        break;
    default:
        return;
    }
    if (endpoint == ompt_scope_begin)
        construct_enter(key, codeptr_ra);
    else
        construct_leave(key);
}

static void on_work(ompt_work_t wstype, ompt_scope_endpoint_t endpoint, ompt_data_t *parallel_data,
                    ompt_data_t *task_data, uint64_t count, const void *codeptr_ra)
{
    (void)parallel_data;
    (void)task_data;
    (void)count;
    uint32_t key;
    switch (wstype) {
    case ompt_work_loop:
        key = HCT_OMP_KEY_LOOP;
        break;
    case ompt_work_sections:
        key = HCT_OMP_KEY_SECTIONS;
        break;
    case ompt_work_single_executor:
    case ompt_work_single_other:
        key = HCT_OMP_KEY_SINGLE;
        break;
    default:
        return;
    }
    if (endpoint == ompt_scope_begin)
        construct_enter(key, codeptr_ra);
    else
        construct_leave(key);
}

static void on_mutex_acquire(ompt_mutex_t kind, unsigned int hint, unsigned int impl, ompt_wait_id_t wait_id,
                             const void *codeptr_ra)
{
    (void)hint;
    (void)impl;
    (void)wait_id;
    if (kind == ompt_mutex_critical)
        construct_enter(HCT_OMP_KEY_CRITICAL, codeptr_ra);
}

static void on_mutex_released(ompt_mutex_t kind, ompt_wait_id_t wait_id, const void *codeptr_ra)
{
    (void)wait_id;
    (void)codeptr_ra;
    if (kind == ompt_mutex_critical)
        construct_leave(HCT_OMP_KEY_CRITICAL);
}

/* ---- the tool -------------------------------------------------------------------------- */

EXPORT ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version, const char *runtime_version);

static int initialize(ompt_function_lookup_t lookup, int initial_device_num, ompt_data_t *tool_data)
{
    (void)initial_device_num;
    (void)tool_data;
    ompt_set_callback_t set = (ompt_set_callback_t)lookup("ompt_set_callback");
    if (!set || !hct_omp_claim(HCT_OMP_OMPT))
        return 0; /* not active: the GOMP wrappers record, if anything */
    runtime_text = text_of((const void *)set);
    tool_text = text_of((const void *)ompt_start_tool);
    static const struct {
        ompt_callbacks_t event;
        ompt_callback_t fn;
    } callbacks[] = {
        { ompt_callback_parallel_begin, (ompt_callback_t)on_parallel_begin },
        { ompt_callback_parallel_end, (ompt_callback_t)on_parallel_end },
        { ompt_callback_implicit_task, (ompt_callback_t)on_implicit_task },
        { ompt_callback_sync_region, (ompt_callback_t)on_sync_region },
        { ompt_callback_work, (ompt_callback_t)on_work },
        { ompt_callback_mutex_acquire, (ompt_callback_t)on_mutex_acquire },
        { ompt_callback_mutex_released, (ompt_callback_t)on_mutex_released },
    };
    for (size_t i = 0; i < sizeof(callbacks) / sizeof(callbacks[0]); i++)
        if (set(callbacks[i].event, callbacks[i].fn) == ompt_set_error)
            hct_message("OMPT: the runtime refused callback %d", (int)callbacks[i].event);
    return 1;
}

static void finalize(ompt_data_t *tool_data)
{
    (void)tool_data; /* the trace is written at the process's end, as without OMPT */
}

/* Called by libomp at its start (never by libgomp). */
EXPORT ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version, const char *runtime_version)
{
    (void)omp_version;
    (void)runtime_version;
    static ompt_start_tool_result_t result = { initialize, finalize, { 0 } };
    return &result;
}
