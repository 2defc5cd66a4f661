/* hct_openmp.c: what the OpenMP adapters record, whatever the runtime. A
 * parallel region is ThreadFork ... ThreadJoin on its master and, on every
 * thread of the team, ThreadTeamBegin, a calling-context region named after
 * the outlined function (its key per function address, symbolized at the end),
 * ThreadTeamEnd. A team is a communicator named by (master thread, nesting
 * level, team size); its members are the threads that took part (the union
 * over its instances, when the runtime gave it other threads over time). Constructs (barriers, critical
 * sections) are calling-context regions keyed by their call site, like MPI
 * calls. Lookups are lock-free on hits; new keys and teams take a lock.
 * Per region a thread does user-space work and its counter reads only: a pool
 * worker's own stack is unwound once per runtime call site, the master's is
 * the fork's; a worker is parked (not sampled) between its shares. */
#include "hct_openmp.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hct_boundary.h"
#include "hct_comms.h"
#include "hct_diag.h"
#include "hct_frame_keys.h"
#include "hct_path_memo.h"
#include "hct_locations.h"
#include "hct_path_cache.h"
#include "hct_sampling.h"
#include "hct_symbols.h"
#include "hct_thin.h"
#include "hct_thin_counters.h"
#include "hct_ticks.h"
#include "hct_rescue.h"

/* ---- the adapter that records ---------------------------------------------- */

static _Atomic int adapter;
HCT_TLS hct_omp_hint hct_omp_hints;

int hct_omp_claim(enum hct_omp_adapter a)
{
    int none = HCT_OMP_NONE;
    return atomic_compare_exchange_strong(&adapter, &none, (int)a) || atomic_load(&adapter) == (int)a;
}

enum hct_omp_adapter hct_omp_adapter_of(void)
{
    return (enum hct_omp_adapter)atomic_load(&adapter);
}

/* ---- region keys of parallel regions ----------------------------------------- */

#define MAX_FNS 4096u
#define FN_SLOTS (2 * MAX_FNS)

typedef struct {
    _Atomic uintptr_t stored; /* address | kind bit, published last; 0 = empty */
    uint32_t index;
} fn_slot;

static fn_slot fn_table[FN_SLOTS];
static uintptr_t fn_address[MAX_FNS]; /* by index: address | 1 for a construct's code address */
static _Atomic uint32_t nfns;
static pthread_mutex_t fn_lock = PTHREAD_MUTEX_INITIALIZER;

static inline uint32_t hash_slot(uint64_t v, uint32_t mask)
{
    return (uint32_t)((v * 0x9e3779b97f4a7c15ull) >> 40) & mask;
}

uint32_t hct_omp_parallel_key(const void *fn, const void *codeptr)
{
    /* user-space addresses are below 2^63: the kind goes in bit 63 */
    uintptr_t stored = fn ? (uintptr_t)fn : ((uintptr_t)codeptr | ((uintptr_t)1 << 63));
    if (stored == 0)
        return HCA_UNDEF;
    uint32_t i = hash_slot(stored, FN_SLOTS - 1);
    for (uint32_t n = 0; n < FN_SLOTS; n++, i = (i + 1) & (FN_SLOTS - 1)) {
        uintptr_t s = atomic_load_explicit(&fn_table[i].stored, memory_order_acquire);
        if (s == stored)
            return HCT_OMP_KEY_FN_BASE + fn_table[i].index;
        if (s == 0)
            break;
    }
    uint32_t key = HCA_UNDEF;
    pthread_mutex_lock(&fn_lock);
    i = hash_slot(stored, FN_SLOTS - 1);
    for (uint32_t n = 0; n < FN_SLOTS; n++, i = (i + 1) & (FN_SLOTS - 1)) {
        uintptr_t s = atomic_load_explicit(&fn_table[i].stored, memory_order_relaxed);
        if (s == stored) {
            key = HCT_OMP_KEY_FN_BASE + fn_table[i].index;
            break;
        }
        if (s == 0) {
            uint32_t index = atomic_load(&nfns);
            if (index < MAX_FNS) {
                fn_address[index] = stored;
                atomic_store(&nfns, index + 1);
                fn_table[i].index = index;
                atomic_store_explicit(&fn_table[i].stored, stored, memory_order_release);
                key = HCT_OMP_KEY_FN_BASE + index;
            }
            break;
        }
    }
    pthread_mutex_unlock(&fn_lock);
    return key;
}

/* Names, files and lines of the parallel regions, found once (at the first
 * naming: the journal's first flush, or the end). With the frames' symbolizer
 * (hct_frame_name: the Dwfl the run's frames already read, its pages given back
 * as it goes); a symbolizer of its own, which reads separate debug files too,
 * only for a function left without a line there (its module holds no DWARF).
 * Opened for all of them, that second Dwfl read the program's DWARF a second
 * time while the first full event chunk waited for the journal: LULESH's
 * largest unit's line table and its scope index, +1.5 MiB of a rank's peak
 * for a moment (docs/benchmarks.md, "At 8 ranks, LULESH"). */
static hct_symbol *fn_symbols;
static uint32_t nfn_symbols;

static void symbolize_fns(void)
{
    uint32_t n = atomic_load(&nfns);
    fn_symbols = calloc(n + 1, sizeof(*fn_symbols));
    hct_symbol *chain = malloc(HCT_INLINE_MAX * sizeof(*chain));
    if (!fn_symbols || !chain) {
        free(chain);
        return;
    }
    hct_symbolizer *separate = NULL;
    for (uint32_t i = 0; i < n; i++) {
        uintptr_t a = fn_address[i];
        if (a >> 63)
            a = (a & ~((uintptr_t)1 << 63)) - 1; /* the call before the return address */
        /* the node's answer first: a rank whose frames the node's owner
         * named never opens libdw for these either */
        int k = hct_frame_name(a, chain, HCT_INLINE_MAX);
        if (k > 0)
            fn_symbols[i] = chain[k - 1];
        if (k > 0 && fn_symbols[i].line)
            continue;
        if (!separate)
            separate = hct_symbolizer_open(1);
        if (separate)
            hct_symbolize(separate, a, &fn_symbols[i]);
    }
    hct_symbolizer_close(separate);
    free(chain);
    nfn_symbols = n;
}

static const struct {
    const char *name;
    OTF2_RegionRole role;
} constructs[] = {
    { "omp barrier", OTF2_REGION_ROLE_BARRIER },
    { "omp implicit barrier", OTF2_REGION_ROLE_IMPLICIT_BARRIER },
    { "omp critical", OTF2_REGION_ROLE_CRITICAL },
    { "omp for", OTF2_REGION_ROLE_LOOP },
    { "omp sections", OTF2_REGION_ROLE_SECTIONS },
    { "omp single", OTF2_REGION_ROLE_SINGLE },
    { "omp taskwait", OTF2_REGION_ROLE_TASK_WAIT },
};

/* A construct's region name (HCATRACE_FILTER matches it), NULL for other keys. */
static const char *construct_name(uint32_t key)
{
    uint32_t k = key - HCT_OMP_KEY_BASE;
    return key >= HCT_OMP_KEY_BASE && k < sizeof(constructs) / sizeof(constructs[0]) ? constructs[k].name : NULL;
}

hca_ref hct_omp_region_def(hca_defs *d, uint32_t key)
{
    if (key < HCT_OMP_KEY_FN_BASE) {
        uint32_t k = key - HCT_OMP_KEY_BASE;
        if (k >= sizeof(constructs) / sizeof(constructs[0]))
            return HCA_UNDEF;
        return hca_defs_region(d, constructs[k].name, HCA_KIND_OPENMP, "", 0, 0, constructs[k].role,
                               OTF2_PARADIGM_OPENMP);
    }
    if (!fn_symbols)
        symbolize_fns();
    uint32_t i = key - HCT_OMP_KEY_FN_BASE;
    if (!fn_symbols || i >= nfn_symbols)
        return hca_defs_region(d, "omp parallel", HCA_KIND_OPENMP, "", 0, 0, OTF2_REGION_ROLE_PARALLEL,
                               OTF2_PARADIGM_OPENMP);
    const hct_symbol *s = &fn_symbols[i];
    if (fn_address[i] >> 63) { /* only the construct's place is known */
        char name[300];
        snprintf(name, sizeof(name), "omp parallel @%s", s->function);
        return hca_defs_region(d, name, HCA_KIND_OPENMP, s->file, s->line, 0, OTF2_REGION_ROLE_PARALLEL,
                               OTF2_PARADIGM_OPENMP);
    }
    return hca_defs_region_canonical(d, s->function, s->signature, HCA_KIND_OPENMP, s->file, s->function_line, 0,
                                     OTF2_REGION_ROLE_PARALLEL, OTF2_PARADIGM_OPENMP);
}

/* ---- thread teams ------------------------------------------------------------------- */

#define TEAM_SLOTS 2048u

typedef struct {
    _Atomic uint64_t stored; /* (master << 32 | level << 16 | size) + 1, published last; 0 = empty */
    uint32_t id;
    _Atomic uint64_t *members;
} team_slot;

static team_slot teams[TEAM_SLOTS];
static uint32_t nteams;
static pthread_mutex_t team_lock = PTHREAD_MUTEX_INITIALIZER;

typedef struct {
    uint64_t stored;
    uint32_t id;
    _Atomic uint64_t *members;
} team_cache;
static HCT_TLS team_cache last_team;

static team_cache team_lookup(uint64_t stored)
{
    uint32_t i = hash_slot(stored, TEAM_SLOTS - 1);
    for (uint32_t n = 0; n < TEAM_SLOTS; n++, i = (i + 1) & (TEAM_SLOTS - 1)) {
        uint64_t s = atomic_load_explicit(&teams[i].stored, memory_order_acquire);
        if (s == stored)
            return (team_cache){ stored, teams[i].id, teams[i].members };
        if (s == 0)
            break;
    }
    team_cache found = { 0, HCA_UNDEF, NULL };
    pthread_mutex_lock(&team_lock);
    i = hash_slot(stored, TEAM_SLOTS - 1);
    for (uint32_t n = 0; n < TEAM_SLOTS; n++, i = (i + 1) & (TEAM_SLOTS - 1)) {
        uint64_t s = atomic_load_explicit(&teams[i].stored, memory_order_relaxed);
        if (s == stored) {
            found = (team_cache){ stored, teams[i].id, teams[i].members };
            break;
        }
        if (s == 0) {
            if (nteams * 2 >= TEAM_SLOTS)
                break;
            uint32_t master = (uint32_t)((stored - 1) >> 32), level = (uint32_t)((stored - 1) >> 16) & 0xffffu,
                     size = (uint32_t)(stored - 1) & 0xffffu;
            char name[64];
            snprintf(name, sizeof(name), HCA_OPENMP_TEAM_NAME_FMT, hct.rank, master, level, size);
            uint32_t id, seq = (master << 16) | ((level & 0xfu) << 12) | (size & 0xfffu);
            _Atomic uint64_t *members = hct_comms_add_team(name, HCA_TEAM_KEY(hct.rank, seq), &id);
            if (members) {
                teams[i].id = id;
                teams[i].members = members;
                atomic_store_explicit(&teams[i].stored, stored, memory_order_release);
                nteams++;
                found = (team_cache){ stored, id, members };
            }
            break;
        }
    }
    pthread_mutex_unlock(&team_lock);
    return found;
}

/* The team's communicator; the calling thread becomes a member. */
static uint32_t team_join(uint32_t master, uint32_t level, uint32_t size, uint32_t thread)
{
    if (level > 0xfu || size > 0xfffu)
        return HCA_UNDEF; /* beyond the key's room: not recorded */
    uint64_t stored = (((uint64_t)master << 32) | (level << 16) | size) + 1;
    if (last_team.stored != stored) {
        team_cache c = team_lookup(stored);
        if (c.id == HCA_UNDEF)
            return HCA_UNDEF;
        last_team = c;
    }
    uint64_t bit = 1ull << (thread % 64);
    _Atomic uint64_t *word = &last_team.members[thread / 64];
    if (!(atomic_load_explicit(word, memory_order_relaxed) & bit))
        atomic_fetch_or(word, bit);
    return last_team.id;
}

/* Nesting level of the calling thread: the teams it is in now. */
static HCT_TLS uint32_t share_depth;

/* A pool worker's own stack below its shares' caller, unwound at its first
 * share from that caller (hct_omp_caller); one for its outermost shares,
 * one for deeper ones: a kept-back share copies its stack from here only if
 * it is written (share_stack), while a nested share may begin meanwhile. */
typedef struct {
    hct_omp_caller caller;
    int n;
    uintptr_t frames[HCT_PATH_FRAMES];
} cached_stack;
static HCT_TLS cached_stack worker_stacks[2];

/* The worker's cached stack for a share from caller at the thread's current
 * nesting level, unwound now if it is another caller's. */
static const cached_stack *worker_stack(const hct_omp_caller *caller)
{
    cached_stack *w = &worker_stacks[share_depth > 0];
    if (w->caller.ret != caller->ret || w->caller.frame != caller->frame) {
        w->n = hct_path_unwind(NULL, w->frames);
        w->caller = *caller;
    }
    return w;
}

/* The master's stack at the fork f (on the master, inside the fork's call):
 * unwound at the fork, or now if it was left for later (a kept-back team of
 * one, from the runtime call's frame, which outlives the team: the same
 * frames as at the fork). */
static void fork_frames(hct_thread *t, hct_omp_fork *f)
{
    if (f->nframes >= 0)
        return;
    f->nframes = hct_thin_unwind_late(t, f->site, f->ret, f->cfa, f->frames);
    if (f->nframes < 0) /* never: the frame is the one running the team */
        f->nframes = hct_path_unwind(f->site, f->frames);
}

/* The stack of a share from the fork's own call: the fork's stack, then the
 * runtime's call (caller->ret, hct_omp_caller); f: the fork, on its master. */
static int fork_stack(hct_thread *t, hct_omp_fork *f, const hct_omp_caller *caller, uintptr_t *frames)
{
    fork_frames(t, f);
    int drop = f->nframes == HCT_PATH_FRAMES; /* the innermost frames are kept */
    memcpy(frames, f->frames + drop, (size_t)(f->nframes - drop) * sizeof(frames[0]));
    frames[f->nframes - drop] = (uintptr_t)caller->ret - 1; /* the call instruction */
    return f->nframes - drop + 1;
}

/* The calling thread's stack, root first, without the tracer's frames
 * (fork: the region's, on its master). */
static int share_stack(hct_thread *t, hct_omp_fork *fork, int worker, const hct_omp_caller *caller,
                       uintptr_t *frames)
{
    if (!hct.cfg.callsites)
        return 0;
    if (!worker && caller && caller->fork)
        return fork_stack(t, fork, caller, frames);
    if (!worker || !caller)
        return hct_path_unwind(NULL, frames);
    const cached_stack *w = worker_stack(caller);
    memcpy(frames, w->frames, (size_t)w->n * sizeof(frames[0]));
    return w->n;
}

/* A kept-back share's stack, found again if it is written: what share_stack
 * gave at its begin (the fork and the cached stack of its level are still
 * those of then: hct_omp_share.caller). */
static int kept_share_stack(hct_thread *t, const hct_omp_share *s, uintptr_t *frames)
{
    if (!hct.cfg.callsites)
        return 0;
    if (!s->worker)
        return fork_stack(t, s->fork, s->caller, frames);
    const cached_stack *w = &worker_stacks[s->nested];
    memcpy(frames, w->frames, (size_t)w->n * sizeof(frames[0]));
    return w->n;
}

/* ---- records ----------------------------------------------------------------------------- */

/* A barrier's enter is the thread's arrival there, once the tracer's work on
 * it is done (hct_omp_sync.h). */
static void region_arrive(const hct_omp_region *r)
{
    if (r->barrier)
        hct_omp_sync_arrive(r->t, HCT_OMP_SYNC_BARRIER);
}

/* The time of a record that is not a region boundary: pending samples first. */
static uint64_t record_ts(hct_thread *t)
{
    hct_thin_flush(t);
    if (t->extras)
        hct_sampling_drain(t);
    return hct_timestamp(t);
}

/* Recording still on (checked inside the tool: the end waits for us). */
static int recording(const hct_thread *t)
{
    return t->writer && atomic_load_explicit(&hct.active, memory_order_relaxed);
}

/* The ThreadFork kept back, written now (the master writes something of
 * the instance); the master's older samples were written at the fork. */
static void write_fork(hct_thread *t, hct_omp_fork *f)
{
    f->held = 0;
    uint64_t ticks = hct_ticks_now(), mono = hca_clock_now(); /* its ticks as the monotonic time */
    uint64_t ts = hct_timestamp_at(t, hct_ticks_mono_at(f->ts, ticks, mono));
    hct_otf2_check(t, OTF2_EvtWriter_ThreadFork(t->writer, NULL, ts, OTF2_PARADIGM_OPENMP, f->requested));
}

int hct_omp_fork_begin(hct_omp_fork *f, uint32_t key, const void *return_address, const void *ret,
                       const void *cfa, uint32_t requested)
{
    hct_thread *t = hct_thread_get();
    if (!t || key == HCA_UNDEF)
        return 0;
    t->in_tool++;
    hct_thin_slot *slot;
    f->mode = (int)hct_thin_enter(t, key, NULL, &slot);
    f->slot = slot;
    f->probe = f->mode == HCT_THIN_FULL && hct_thin_probing(slot);
    uint64_t c0 = f->probe ? hca_clock_now() : 0;
    /* kept back with a team of one and nothing kept back before it: the
     * contexts only if its share is written, on this thread, whose path is
     * then still the one of now (what is entered meanwhile writes the share
     * first); the call path too, when the runtime's call outlives the team */
    f->ctx_later = f->mode == HCT_THIN_LAZY && requested == 1 && t->thin.npending == 0;
    f->site = return_address;
    f->ret = ret;
    f->cfa = cfa;
    /* the master's call path: kept back, from the cache when provably the same */
    int n = 0;
    if (f->ctx_later && cfa && hct.cfg.callsites) {
        n = -1; /* fork_frames */
    } else if (hct.cfg.callsites) {
        const void *anchor = HCT_PATH_ANCHOR();
        n = f->mode == HCT_THIN_LAZY ? hct_path_cache_get(&t->fork_paths, return_address, anchor, f->frames) : -1;
        if (n < 0) {
            n = hct_path_unwind(return_address, f->frames);
            hct_path_cache_put(&t->fork_paths, return_address, anchor, f->frames, n);
        }
    }
    f->nframes = n;
    uint32_t cc = f->ctx_later ? HCT_CC_PENDING : hct_path_memo_peek(&t->fork_ctx, &t->path, key, f->frames, n, &f->ctx);
    if (cc == HCA_UNDEF) {
        t->dropped_events++;
        hct_tool_exit(t);
        return 0;
    }
    f->t = t;
    f->cc = cc;
    f->master = t->index;
    f->level = share_depth + 1;
    if (!cfa || requested != 1) /* a GOMP team of one: its level is solo, nothing reads f->sync (hct_omp_sync.c) */
        hct_omp_sync_init(&f->sync, f->level);
    f->key = key;
    f->requested = requested;
    atomic_store_explicit(&f->keep, 0, memory_order_relaxed);
    f->held = f->mode == HCT_THIN_LAZY;
    if (f->held) { /* older records and samples now; the fork itself when needed, its time in ticks */
        hct_thin_flush(t);
        if (t->extras)
            hct_sampling_drain(t);
        f->ts = hct_ticks_now();
        f->samples = hct_sampling_taken(t);
    } else {
        hct_otf2_check(t, OTF2_EvtWriter_ThreadFork(t->writer, NULL, record_ts(t), OTF2_PARADIGM_OPENMP, requested));
    }
    if (f->probe) {
        f->probe_t = hca_clock_now();
        f->probe_cost = f->probe_t - c0;
        f->probe_share = 0;
        atomic_store_explicit(&f->probe_span, 0, memory_order_relaxed);
    }
    hct_tool_exit(t);
    return 1;
}

void hct_omp_fork_end(hct_omp_fork *f)
{
    hct_thread *t = f->t;
    t->in_tool++;
    uint64_t c0 = f->probe ? hca_clock_now() : 0;
    hct_omp_sync_join(t, &f->sync); /* waiting at the join for the team's tool time */
    if (f->held && recording(t)) {
        /* needed: a thread wrote its share (a long one, or one holding a
         * sample or something written), or a sample landed in it here */
        if (atomic_load_explicit(&f->keep, memory_order_acquire) || hct_sampling_taken(t) != f->samples)
            write_fork(t, f);
    }
    if (!f->held && recording(t))
        hct_otf2_check(t, OTF2_EvtWriter_ThreadJoin(t->writer, NULL, record_ts(t), OTF2_PARADIGM_OPENMP));
    if (f->probe) { /* the team's longest share; without one, the region's time on the master less the
                     * tracer's in its share */
        uint64_t between = c0 - f->probe_t, span = atomic_load_explicit(&f->probe_span, memory_order_relaxed);
        uint64_t duration = span ? span - 1 : between > f->probe_share ? between - f->probe_share : 0;
        hct_thin_probe(f->slot, duration, f->probe_cost + f->probe_share + hca_clock_now() - c0);
    }
    hct_tool_exit(t);
}

/* A probed region's share lasted `span` ns on its thread (without the
 * tracer's time at its begin and end): the team's longest so far. */
static void probe_span_max(hct_omp_fork *f, uint64_t span)
{
    uint64_t v = span + 1, cur = atomic_load_explicit(&f->probe_span, memory_order_relaxed);
    while (cur < v && !atomic_compare_exchange_weak_explicit(&f->probe_span, &cur, v, memory_order_relaxed,
                                                             memory_order_relaxed))
        ;
}

/* A share kept back, written now: the fork first on the master, when it was
 * kept back too; then the share's begin at its own time, entered in the
 * thread's path only now (the unwind distance is against the location's
 * last written event). */
/* The fork's contexts, found now if they were left for later (on its master,
 * before anything is entered on the master's path after the fork). */
static uint32_t fork_context(hct_thread *t, hct_omp_fork *f)
{
    if (f->ctx_later) {
        f->ctx_later = 0;
        fork_frames(t, f);
        f->cc = hct_path_memo_peek(&t->fork_ctx, &t->path, f->key, f->frames, f->nframes, &f->ctx);
    }
    return f->cc;
}

static uint32_t write_share(hct_thread *t, void *arg, uint64_t ts, const uintptr_t *frames, int n)
{
    hct_omp_share *s = arg;
    uintptr_t found[HCT_PATH_FRAMES];
    if (!frames) { /* not copied at its begin: found now (kept_share_stack) */
        n = kept_share_stack(t, s, found);
        frames = found;
    }
    if (!s->worker && s->fork->held)
        write_fork(t, s->fork);
    const hct_ctx *ctx = s->fork_ctx; /* the master's own fork: its contexts, found now if left for later */
    if (!s->worker)
        ctx = fork_context(t, s->fork) != HCA_UNDEF ? &s->fork->ctx : NULL;
    uint32_t unwind = 0, cc = ctx ? hct_path_enter_ctx(&t->path, ctx, frames, n, &unwind) : HCA_UNDEF;
    if (cc == HCA_UNDEF) {
        t->dropped_events++;
        return HCA_UNDEF;
    }
    ts = hct_timestamp_at(t, ts);
    hct_otf2_check(t, OTF2_EvtWriter_ThreadTeamBegin(t->writer, NULL, ts, s->team));
    hct_thin_counters_put(t, ts); /* its counter values, if read at its begin */
    hct_otf2_check(t, OTF2_EvtWriter_CallingContextEnter(t->writer, NULL, ts, cc, unwind));
    atomic_store_explicit(&s->fork->keep, 1, memory_order_release);
    return cc;
}

int hct_omp_share_begin(hct_omp_share *s, uint32_t master, uint32_t level, uint32_t num, uint32_t team_size,
                        hct_omp_fork *fork, const hct_omp_caller *caller)
{
    hct_thread *t = hct_thread_get();
    if (!t)
        return 0;
    t->in_tool++;
    uint64_t c0 = fork->probe && fork->t == t ? hca_clock_now() : 0; /* the master's, probed */
    if (t->omp_parked)
        hct_sampling_resume(t); /* a worker back from the runtime's pool */
    uint32_t team = team_join(master, level, team_size, t->index);
    if (team == HCA_UNDEF || t->path.nopen >= HCT_PATH_OPEN) {
        t->dropped_events++;
        hct_tool_exit(t);
        return 0;
    }
    s->worker = master != t->index;
    s->t = t;
    s->team = team;
    s->fork = fork;
    s->pend = HCA_UNDEF;
    s->probe_t = 0;
    if (!s->worker && fork->held && hct_sampling_taken(t) != fork->samples)
        write_fork(t, fork); /* a sample since the fork: it lies between fork and join */
    hct_thin_slot *slot = NULL; /* the key's in this thread's table: the fork's on the master */
    s->lazy = fork->mode == HCT_THIN_LAZY && t->thin.npending < HCT_THIN_DEPTH &&
              (slot = fork->t == t ? fork->slot : hct_thin_slot_of(&t->thin.keys, fork->key, NULL, NULL)) != NULL;
    if (s->worker && fork->ctx_later) { /* a team of one has no worker: never */
        t->dropped_events++;
        hct_tool_exit(t);
        return 0;
    }
    /* this thread's own stack: where its samples leave the region's path */
    uintptr_t frames[HCT_PATH_FRAMES];
    if (s->lazy) {
        hct_thin_flush(t);
        if (t->extras)
            hct_sampling_drain(t); /* older samples: under the enclosing context */
        /* kept back: its stack and the fork's context are read only if it is
         * written, where the fork outlives the share (GOMP: a caller, and on
         * the master the fork's own call); else copied now (libomp's fork
         * may end before a worker's share does) */
        s->caller = caller;
        s->nested = share_depth > 0;
        int later = caller && (s->worker || caller->fork);
        if (later && s->worker)
            (void)worker_stack(caller); /* unwound now if another caller's: it is this thread's stack of now */
        int n = later ? 0 : share_stack(t, fork, s->worker, caller, frames);
        s->fork_ctx = &fork->ctx;
        if (s->worker && !caller) {
            s->ctx.depth = fork->ctx.depth;
            memcpy(s->ctx.cc, fork->ctx.cc, (size_t)fork->ctx.depth * sizeof(fork->ctx.cc[0]));
            s->fork_ctx = &s->ctx;
        }
        hct_thin_defer_other(t, slot, write_share, s, later ? NULL : frames, n, &s->pend);
        share_depth++;
        hct_omp_sync_begin(t, &fork->sync, num, team_size, fork->mode == HCT_THIN_LAZY);
        hct_tool_exit(t);
        return 1;
    }
    if (!s->worker && fork_context(t, fork) == HCA_UNDEF) {
        t->dropped_events++;
        hct_tool_exit(t);
        return 0;
    }
    if (!s->worker && fork->held) /* not kept back after all (no room) */
        write_fork(t, fork);
    int n = share_stack(t, fork, s->worker, caller, frames);
    hct_otf2_check(t, OTF2_EvtWriter_ThreadTeamBegin(t->writer, NULL, record_ts(t), team));
    uint64_t ts = hct_boundary_ts(t, 1);
    uint32_t unwind = 0;
    s->cc = hct_path_enter_ctx(&t->path, &fork->ctx, frames, n, &unwind);
    hct_otf2_check(t, OTF2_EvtWriter_CallingContextEnter(t->writer, NULL, ts, s->cc, unwind));
    share_depth++;
    hct_omp_sync_begin(t, &fork->sync, num, team_size, fork->mode == HCT_THIN_LAZY);
    if (fork->probe) { /* the share's own time starts (every thread's: the longest is the region's) */
        s->probe_t = hca_clock_now();
        if (c0)
            fork->probe_share += s->probe_t - c0;
    }
    hct_tool_exit(t);
    return 1;
}

void hct_omp_share_end(hct_omp_share *s)
{
    hct_thread *t = s->t;
    t->in_tool++;
    hct_omp_fork *probed = !s->worker && s->probe_t ? s->fork : NULL;
    uint64_t c0 = s->probe_t ? hca_clock_now() : 0;
    if (c0)
        probe_span_max(s->fork, c0 - s->probe_t);
    share_depth--;
    if (s->lazy) {
        uint64_t ts = 0;
        if (recording(t)) { /* counted if short and nothing in it; else its records (hct_thin_counters.h) */
            uint32_t cc = hct_thin_leave(t, s->pend, &ts);
            if (cc != HCA_UNDEF) {
                hct_otf2_check(t, OTF2_EvtWriter_CallingContextLeave(t->writer, NULL, ts, cc));
                hct_otf2_check(t, OTF2_EvtWriter_ThreadTeamEnd(t->writer, NULL, ts, s->team));
                hct_path_leave(&t->path);
            }
        } else if (s->pend == HCT_CC_PENDING) {
            t->thin.npending -= t->thin.npending > 0; /* never written */
        } else if (s->pend != HCA_UNDEF) {
            hct_path_leave(&t->path); /* written before recording stopped */
        }
    } else {
        if (recording(t)) {
            uint64_t ts = hct_boundary_ts(t, 0);
            hct_otf2_check(t, OTF2_EvtWriter_CallingContextLeave(t->writer, NULL, ts, s->cc));
            hct_otf2_check(t, OTF2_EvtWriter_ThreadTeamEnd(t->writer, NULL, ts, s->team));
        }
        hct_path_leave(&t->path);
    }
    /* a worker of the outermost team goes back to wait in the runtime's pool:
     * its idle time there is not sampled (the master goes on with the program) */
    if (s->worker && share_depth == 0)
        hct_sampling_park(t);
    hct_omp_sync_arrive(t, s->worker ? HCT_OMP_SYNC_END_WORKER : HCT_OMP_SYNC_END); /* the region's end */
    if (probed)
        probed->probe_share += hca_clock_now() - c0;
    hct_tool_exit(t);
}

int hct_omp_region_enter(hct_omp_region *r, uint32_t key, const void *return_address, const void *ret,
                         const void *cfa)
{
    hct_thread *t = hct_thread_get();
    if (!t)
        return 0;
    t->in_tool++;
    r->t = t;
    r->barrier = key == HCT_OMP_KEY_BARRIER || key == HCT_OMP_KEY_IBARRIER;
    r->mode = (int)hct_thin_enter(t, key, construct_name(key), &r->slot);
    if (r->mode == HCT_THIN_FILTER) {
        r->t0 = hct_ticks_now();
        region_arrive(r);
        hct_tool_exit(t);
        return 1;
    }
    if (r->mode == HCT_THIN_LAZY && cfa && hct_thin_unwinds_late(r->slot)) {
        hct_thin_defer_site(t, key, r->slot, return_address, ret, cfa, &r->cc); /* unwound if written */
        region_arrive(r);
        hct_tool_exit(t);
        return 1;
    }
    uint64_t c0 = r->mode == HCT_THIN_FULL && hct_thin_probing(r->slot) ? hca_clock_now() : 0;
    uintptr_t frames[HCT_PATH_FRAMES];
    int n = hct.cfg.callsites ? hct_path_unwind(return_address, frames) : 0;
    if (r->mode == HCT_THIN_LAZY) {
        hct_thin_defer(t, key, r->slot, frames, n, &r->cc);
        region_arrive(r);
        hct_tool_exit(t);
        return 1;
    }
    uint64_t ts = hct_boundary_ts(t, 1);
    uint32_t unwind = 0, cc = hct_path_enter(&t->path, key, frames, n, &unwind);
    if (cc == HCA_UNDEF) {
        t->dropped_events++;
        hct_tool_exit(t);
        return 0;
    }
    r->t = t;
    r->cc = cc;
    hct_otf2_check(t, OTF2_EvtWriter_CallingContextEnter(t->writer, NULL, ts, cc, unwind));
    region_arrive(r);
    r->t0 = c0 ? hca_clock_now() : 0; /* probed: the enter's end and cost */
    r->cost = c0 ? r->t0 - c0 : 0;
    hct_tool_exit(t);
    return 1;
}

void hct_omp_region_leave(hct_omp_region *r)
{
    hct_thread *t = r->t;
    t->in_tool++;
    if (r->barrier)
        hct_omp_sync_leave(t); /* before its boundary: the tool time it waited for */
    if (r->mode == HCT_THIN_FILTER) {
        hct_thin_count(r->slot, hct_ticks_ns(hct_ticks_now() - r->t0));
        hct_tool_exit(t);
        return;
    }
    if (r->mode == HCT_THIN_LAZY) {
        uint64_t ts = 0;
        if (recording(t)) {
            uint32_t cc = hct_thin_leave(t, r->cc, &ts);
            if (cc != HCA_UNDEF) {
                hct_otf2_check(t, OTF2_EvtWriter_CallingContextLeave(t->writer, NULL, ts, cc));
                hct_path_leave(&t->path);
            }
        } else if (r->cc == HCT_CC_PENDING) {
            t->thin.npending -= t->thin.npending > 0; /* never written */
        } else if (r->cc != HCA_UNDEF) {
            hct_path_leave(&t->path); /* its enter was written before recording stopped */
        }
        hct_tool_exit(t);
        return;
    }
    uint64_t c0 = r->t0 ? hca_clock_now() : 0; /* probed */
    if (recording(t))
        hct_otf2_check(t, OTF2_EvtWriter_CallingContextLeave(t->writer, NULL, hct_boundary_ts(t, 0), r->cc));
    hct_path_leave(&t->path);
    if (c0)
        hct_thin_probe(r->slot, c0 - r->t0, r->cost + hca_clock_now() - c0);
    hct_tool_exit(t);
}
