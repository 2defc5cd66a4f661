/* read.c: reads an hcatrace OTF2 archive into a fold_trace (see read.h).
 *
 * Global definitions are read once, in the calling thread. Locations are then
 * dealt to --jobs workers (largest first, to the least loaded worker); each
 * worker opens its own OTF2_Reader on the archive, reads the local definitions
 * (mapping tables, clock offsets) and the events of its locations. Per location
 * the state is a stack of open calling contexts, the burst opened by the last
 * MPI call, and the pending Metric values: a Metric event gives its values to
 * the calling-context event (enter, leave, sample) that follows it at the same
 * timestamp. Only instances and the samples inside open instances are kept;
 * counter values live in a per-location arena of fixed-size chunks, so the
 * pointers into it stay valid. Nothing is shared between workers but the
 * read-only definitions. */
#include "read.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include <otf2/otf2.h>

#define MAX_DEF_ID (1u << 26)       /* definition IDs above this are treated as corrupt */
#define EVENTS_PER_CHUNK (1u << 18) /* events read between progress reports */
#define ARENA_ROWS 4096
#define STATS_PREFIX "sampling:" /* metric members of the tracer's sampling statistics */

/* ---- messages ----------------------------------------------------------- */

static _Thread_local char otf2_message[256];

static OTF2_ErrorCode otf2_error_cb(void *user, const char *file, uint64_t line, const char *function,
                                    OTF2_ErrorCode code, const char *fmt, va_list va)
{
    (void)user;
    (void)file;
    (void)line;
    (void)function;
    if (fmt && *fmt)
        vsnprintf(otf2_message, sizeof(otf2_message), fmt, va);
    else
        snprintf(otf2_message, sizeof(otf2_message), "%s", OTF2_Error_GetDescription(code));
    return code;
}

/* The OTF2 message of the last failure in this thread, or the code's description. */
static const char *otf2_reason(OTF2_ErrorCode code)
{
    if (otf2_message[0])
        return otf2_message;
    return OTF2_Error_GetDescription(code);
}

static int fail(char *err, size_t errlen, int status, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int fail(char *err, size_t errlen, int status, const char *fmt, ...)
{
    if (err && errlen) {
        va_list va;
        va_start(va, fmt);
        vsnprintf(err, errlen, fmt, va);
        va_end(va);
        for (char *p = err; *p; p++) /* one line */
            if (*p == '\n')
                *p = ' ';
    }
    return status;
}

const char *fold_status_string(int status)
{
    switch (status) {
    case FOLD_OK:
        return "success";
    case FOLD_ERR_ARGS:
        return "bad arguments";
    case FOLD_ERR_OPEN:
        return "cannot open";
    case FOLD_ERR_NOT_OTF2:
        return "not an OTF2 archive";
    case FOLD_ERR_CORRUPT:
        return "truncated or corrupt archive";
    case FOLD_ERR_NOMEM:
        return "out of memory";
    default:
        return "unknown error";
    }
}

void fold_read_defaults(fold_read_options *o)
{
    memset(o, 0, sizeof(*o));
    o->jobs = 1;
    o->clock_offsets = 1;
}

/* ---- growable arrays ---------------------------------------------------- */

static int grow(void **arr, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return 0;
    size_t n = *cap ? *cap : 16;
    while (n < need)
        n *= 2;
    void *p = realloc(*arr, n * size);
    if (!p)
        return -1;
    memset((char *)p + *cap * size, 0, (n - *cap) * size);
    *arr = p;
    *cap = n;
    return 0;
}

/* ---- global definitions ------------------------------------------------- */

typedef struct {
    uint32_t name, file, line, paradigm, role, defined;
} raw_region;
typedef struct {
    uint32_t file, line, defined;
} raw_scl;
typedef struct {
    uint32_t region, scl, parent, defined;
} raw_cc;
typedef struct {
    uint32_t name, unit, defined;
} raw_member;
typedef struct {
    uint64_t id, nevents;
    uint32_t group;
} raw_loc;

typedef struct {
    fold_trace *t;
    size_t cap_strings;
    raw_region *regions;
    size_t nregions, cap_regions;
    raw_scl *scls;
    size_t nscls, cap_scls;
    raw_cc *ccs;
    size_t nccs, cap_ccs;
    raw_member *members;
    size_t nmembers, cap_members;
    fold_counter_set *sets;
    size_t nsets, cap_sets;
    raw_loc *locs;
    size_t nlocs, cap_locs;
    int bad;    /* -1 no memory, 1 corrupt */
    char why[128];
} defs_state;

#define DEF_SLOT(st, arr, n, cap, id)                                                             \
    do {                                                                                          \
        if ((id) >= MAX_DEF_ID) {                                                                 \
            (st)->bad = 1;                                                                        \
            snprintf((st)->why, sizeof((st)->why), "definition ID %" PRIu64 " out of range",       \
                     (uint64_t)(id));                                                             \
            return OTF2_CALLBACK_INTERRUPT;                                                       \
        }                                                                                         \
        if (grow((void **)&(st)->arr, &(st)->cap, (size_t)(id) + 1, sizeof(*(st)->arr))) {        \
            (st)->bad = -1;                                                                       \
            return OTF2_CALLBACK_INTERRUPT;                                                       \
        }                                                                                         \
        if ((size_t)(id) >= (st)->n)                                                              \
            (st)->n = (size_t)(id) + 1;                                                           \
    } while (0)

static OTF2_CallbackCode def_clock(void *u, uint64_t res, uint64_t offset, uint64_t length, uint64_t realtime)
{
    defs_state *st = u;
    (void)realtime;
    st->t->clock_resolution = res;
    st->t->global_offset = offset;
    st->t->trace_length = length;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_string(void *u, OTF2_StringRef self, const char *s)
{
    defs_state *st = u;
    DEF_SLOT(st, t->strings, t->nstrings, cap_strings, self);
    free(st->t->strings[self]);
    st->t->strings[self] = strdup(s ? s : "");
    if (!st->t->strings[self]) {
        st->bad = -1;
        return OTF2_CALLBACK_INTERRUPT;
    }
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_region(void *u, OTF2_RegionRef self, OTF2_StringRef name, OTF2_StringRef canon,
                                    OTF2_StringRef descr, OTF2_RegionRole role, OTF2_Paradigm paradigm,
                                    OTF2_RegionFlag flags, OTF2_StringRef file, uint32_t begin, uint32_t end)
{
    defs_state *st = u;
    (void)canon;
    (void)descr;
    (void)flags;
    (void)end;
    DEF_SLOT(st, regions, nregions, cap_regions, self);
    st->regions[self] = (raw_region){ name, file, begin, paradigm, role, 1 };
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_scl(void *u, OTF2_SourceCodeLocationRef self, OTF2_StringRef file, uint32_t line)
{
    defs_state *st = u;
    DEF_SLOT(st, scls, nscls, cap_scls, self);
    st->scls[self] = (raw_scl){ file, line, 1 };
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_cc(void *u, OTF2_CallingContextRef self, OTF2_RegionRef region,
                                OTF2_SourceCodeLocationRef scl, OTF2_CallingContextRef parent)
{
    defs_state *st = u;
    DEF_SLOT(st, ccs, nccs, cap_ccs, self);
    st->ccs[self] = (raw_cc){ region, scl, parent, 1 };
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_member(void *u, OTF2_MetricMemberRef self, OTF2_StringRef name, OTF2_StringRef descr,
                                    OTF2_MetricType type, OTF2_MetricMode mode, OTF2_Type value_type, OTF2_Base base,
                                    int64_t exponent, OTF2_StringRef unit)
{
    defs_state *st = u;
    (void)descr;
    (void)type;
    (void)mode;
    (void)value_type;
    (void)base;
    (void)exponent;
    DEF_SLOT(st, members, nmembers, cap_members, self);
    st->members[self] = (raw_member){ name, unit, 1 };
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_class(void *u, OTF2_MetricRef self, uint8_t n, const OTF2_MetricMemberRef *members,
                                   OTF2_MetricOccurrence occurrence, OTF2_RecorderKind recorder)
{
    defs_state *st = u;
    (void)occurrence;
    (void)recorder;
    DEF_SLOT(st, sets, nsets, cap_sets, self);
    fold_counter_set *s = &st->sets[self];
    free(s->counters);
    free(s->lost);
    s->counters = calloc(n ? n : 1, sizeof(*s->counters));
    s->lost = calloc(n ? n : 1, sizeof(*s->lost));
    if (!s->counters || !s->lost) {
        st->bad = -1;
        return OTF2_CALLBACK_INTERRUPT;
    }
    s->n = n;
    for (uint8_t i = 0; i < n; i++)
        s->counters[i] = members[i];
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_location(void *u, OTF2_LocationRef self, OTF2_StringRef name, OTF2_LocationType type,
                                      uint64_t nevents, OTF2_LocationGroupRef group)
{
    defs_state *st = u;
    (void)name;
    (void)type;
    if (grow((void **)&st->locs, &st->cap_locs, st->nlocs + 1, sizeof(*st->locs))) {
        st->bad = -1;
        return OTF2_CALLBACK_INTERRUPT;
    }
    st->locs[st->nlocs++] = (raw_loc){ self, nevents, group };
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_igen(void *u, OTF2_InterruptGeneratorRef self, OTF2_StringRef name,
                                  OTF2_InterruptGeneratorMode mode, OTF2_Base base, int64_t exponent, uint64_t period)
{
    defs_state *st = u;
    (void)name;
    (void)mode;
    if (st->t->sample_period_ns == 0 || self == 0) {
        double p = (double)period * pow(base == OTF2_BASE_BINARY ? 2.0 : 10.0, (double)exponent) * 1e9;
        st->t->sample_period_ns = p > 0 && p < 1e18 ? (uint64_t)llround(p) : 0;
    }
    return OTF2_CALLBACK_SUCCESS;
}

static int cmp_loc(const void *a, const void *b)
{
    const raw_loc *x = a, *y = b;
    return x->id < y->id ? -1 : x->id > y->id;
}

static const char *string_or(const fold_trace *t, uint32_t ref, const char *dflt)
{
    return ref < t->nstrings && t->strings[ref] ? t->strings[ref] : dflt;
}

static int region_kind(uint32_t paradigm)
{
    switch (paradigm) {
    case OTF2_PARADIGM_MPI:
        return FOLD_KIND_MPI;
    case OTF2_PARADIGM_USER:
        return FOLD_KIND_USER;
    case OTF2_PARADIGM_OPENMP:
        return FOLD_KIND_OPENMP;
    default:
        return FOLD_KIND_FUNCTION;
    }
}

/* Turns the raw definitions into the trace's tables; validates references. */
static int finish_defs(defs_state *st, char *err, size_t errlen)
{
    fold_trace *t = st->t;
    t->nregions = st->nregions;
    t->regions = calloc(st->nregions + 1, sizeof(*t->regions));
    t->ncontexts = st->nccs;
    t->contexts = calloc(st->nccs + 1, sizeof(*t->contexts));
    t->ncounters = st->nmembers;
    t->counters = calloc(st->nmembers + 1, sizeof(*t->counters));
    t->nan_row = malloc((st->nmembers + 1) * sizeof(double));
    t->nlocations = st->nlocs;
    t->locations = calloc(st->nlocs + 1, sizeof(*t->locations));
    if (!t->regions || !t->contexts || !t->counters || !t->nan_row || !t->locations)
        return fail(err, errlen, FOLD_ERR_NOMEM, "out of memory reading the definitions");
    for (size_t i = 0; i <= st->nmembers; i++)
        t->nan_row[i] = NAN;
    for (size_t i = 0; i < st->nregions; i++) {
        const raw_region *r = &st->regions[i];
        fold_region_def *d = &t->regions[i];
        d->name = string_or(t, r->name, "?");
        d->file = string_or(t, r->file, "");
        d->line = r->line;
        d->paradigm = (int)r->paradigm;
        d->role = (int)r->role;
        d->kind = region_kind(r->paradigm);
    }
    for (size_t i = 0; i < st->nccs; i++) {
        const raw_cc *c = &st->ccs[i];
        fold_context_def *d = &t->contexts[i];
        if (!c->defined || c->region >= st->nregions || !st->regions[c->region].defined ||
            (c->parent != OTF2_UNDEFINED_CALLING_CONTEXT && c->parent >= st->nccs))
            return fail(err, errlen, FOLD_ERR_CORRUPT, "corrupt definitions: calling context %zu", i);
        d->region = c->region;
        d->parent = c->parent == OTF2_UNDEFINED_CALLING_CONTEXT ? FOLD_NONE : c->parent;
        d->file = NULL;
        if (c->scl != OTF2_UNDEFINED_SOURCE_CODE_LOCATION && c->scl < st->nscls && st->scls[c->scl].defined) {
            d->file = string_or(t, st->scls[c->scl].file, "");
            d->line = st->scls[c->scl].line;
        }
    }
    /* depths; a cycle of parents is corrupt */
    for (size_t i = 0; i < t->ncontexts; i++) {
        uint32_t depth = 0, p = t->contexts[i].parent;
        while (p != FOLD_NONE) {
            if (++depth > t->ncontexts)
                return fail(err, errlen, FOLD_ERR_CORRUPT, "corrupt definitions: calling contexts form a cycle");
            p = t->contexts[p].parent;
        }
        t->contexts[i].depth = depth;
    }
    /* counters: the members but the tracer's sampling statistics */
    uint32_t *counter_of = malloc((st->nmembers + 1) * sizeof(*counter_of));
    if (!counter_of)
        return fail(err, errlen, FOLD_ERR_NOMEM, "out of memory reading the definitions");
    t->ncounters = 0;
    for (size_t i = 0; i < st->nmembers; i++) {
        const char *name = string_or(t, st->members[i].name, "?");
        counter_of[i] = FOLD_NONE;
        if (strncmp(name, STATS_PREFIX, strlen(STATS_PREFIX)) == 0)
            continue;
        counter_of[i] = (uint32_t)t->ncounters;
        t->counters[t->ncounters].name = name;
        t->counters[t->ncounters].unit = string_or(t, st->members[i].unit, "");
        t->ncounters++;
    }
    for (size_t i = 0; i < st->nsets; i++) {
        fold_counter_set *set = &st->sets[i];
        for (size_t k = 0; k < set->n; k++)
            if (set->counters[k] >= st->nmembers || !st->members[set->counters[k]].defined) {
                free(counter_of);
                return fail(err, errlen, FOLD_ERR_CORRUPT, "corrupt definitions: metric class %zu", i);
            }
        for (size_t k = 0; k < set->n; k++) {
            const char *name = string_or(t, st->members[set->counters[k]].name, "?");
            set->lost[k] = strncmp(name, STATS_PREFIX "lost", strlen(STATS_PREFIX "lost")) == 0;
            set->statistics |= counter_of[set->counters[k]] == FOLD_NONE;
        }
        for (size_t k = 0; k < set->n; k++)
            set->counters[k] = set->statistics ? FOLD_NONE : counter_of[set->counters[k]];
    }
    free(counter_of);
    t->sets = st->sets;
    t->nsets = st->nsets;
    st->sets = NULL;
    st->nsets = 0;
    qsort(st->locs, st->nlocs, sizeof(*st->locs), cmp_loc);
    for (size_t i = 0; i < st->nlocs; i++) {
        if (i && st->locs[i].id == st->locs[i - 1].id)
            return fail(err, errlen, FOLD_ERR_CORRUPT, "corrupt definitions: location %" PRIu64 " defined twice",
                        st->locs[i].id);
        t->locations[i].id = st->locs[i].id;
        t->locations[i].rank = st->locs[i].group;
        t->locations[i].thread = (uint32_t)(st->locs[i].id >> 32);
    }
    return FOLD_OK;
}

static void free_defs_state(defs_state *st)
{
    for (size_t i = 0; i < st->nsets; i++) {
        free(st->sets[i].counters);
        free(st->sets[i].lost);
    }
    free(st->sets);
    free(st->regions);
    free(st->scls);
    free(st->ccs);
    free(st->members);
    free(st->locs);
}

/* ---- per-location reading ----------------------------------------------- */

typedef struct chunk {
    struct chunk *next;
    size_t used, cap; /* doubles */
    double v[];
} chunk;

typedef struct {
    uint32_t cc;
    int16_t kind;
    uint64_t t0;
    const double *c0;
    size_t first;
} frame;

typedef struct {
    const fold_trace *t;
    fold_location *L;
    int mpi_regions;
    uint32_t index;    /* of the location */
    double tick_ns;    /* ns per tick, 1 for hcatrace */
    /* pending Metric values */
    double *pend;
    uint64_t pend_t;
    int pend_have;
    /* open calling contexts */
    frame *stack;
    size_t depth, cap_stack;
    unsigned mpi_depth;
    OTF2_TimeStamp last_ts;
    /* the burst opened by the last MPI call */
    int burst_open;
    uint32_t burst_cc;
    uint64_t burst_t0;
    const double *burst_c0;
    size_t burst_first;
    size_t cap_samples, cap_instances;
    int bad;           /* FOLD_ERR_* */
    char why[160];
} loc_state;

static double *arena_row(loc_state *S)
{
    size_t n = S->t->ncounters;
    chunk *c = S->L->arena;
    if (!c || c->used + n > c->cap) {
        size_t cap = ARENA_ROWS * n;
        chunk *nc = malloc(sizeof(*nc) + cap * sizeof(double));
        if (!nc)
            return NULL;
        nc->next = c;
        nc->used = 0;
        nc->cap = cap;
        S->L->arena = c = nc;
    }
    double *row = c->v + c->used;
    c->used += n;
    return row;
}

static uint64_t to_ns(const loc_state *S, OTF2_TimeStamp ts)
{
    return S->tick_ns == 1.0 ? ts : (uint64_t)llround((double)ts * S->tick_ns);
}

static void clear_pending(loc_state *S)
{
    for (size_t i = 0; i < S->t->ncounters; i++)
        S->pend[i] = NAN;
    S->pend_have = 0;
}

/* The counter values of a calling-context event at time ts: the pending Metric
 * values if they have the same timestamp (copied into the arena when keep). */
static const double *take_values(loc_state *S, OTF2_TimeStamp ts, int keep)
{
    const double *v = S->t->nan_row;
    if (S->pend_have && S->pend_t == ts && keep && S->t->ncounters) {
        double *row = arena_row(S);
        if (!row) {
            S->bad = FOLD_ERR_NOMEM;
            return S->t->nan_row;
        }
        memcpy(row, S->pend, S->t->ncounters * sizeof(double));
        v = row;
    }
    if (S->pend_have)
        clear_pending(S);
    return v;
}

static int add_instance(loc_state *S, int kind, uint32_t open_cc, uint32_t close_cc, uint64_t t0, uint64_t t1,
                        const double *c0, const double *c1, size_t first)
{
    fold_location *L = S->L;
    if (grow((void **)&L->instances, &S->cap_instances, L->ninstances + 1, sizeof(*L->instances))) {
        S->bad = FOLD_ERR_NOMEM;
        return -1;
    }
    fold_instance *in = &L->instances[L->ninstances++];
    in->t0 = to_ns(S, t0);
    in->t1 = to_ns(S, t1);
    in->c0 = c0;
    in->c1 = c1;
    in->first_sample = first;
    in->nsamples = L->nsamples - first;
    in->location = S->index;
    in->open_context = open_cc;
    in->close_context = close_cc;
    in->kind = (int16_t)kind;
    in->excluded = FOLD_USED;
    return 0;
}

static OTF2_CallbackCode corrupt(loc_state *S, const char *what, uint64_t ref)
{
    S->bad = FOLD_ERR_CORRUPT;
    snprintf(S->why, sizeof(S->why), "%s %" PRIu64 " is not defined", what, ref);
    return OTF2_CALLBACK_INTERRUPT;
}

/* hcatrace's timestamps never decrease on a location (docs/trace-format.md). */
static int backwards(loc_state *S, OTF2_TimeStamp ts)
{
    if (ts < S->last_ts) {
        S->bad = FOLD_ERR_CORRUPT;
        snprintf(S->why, sizeof(S->why), "timestamp %" PRIu64 " before the previous event's %" PRIu64, ts,
                 S->last_ts);
        return 1;
    }
    S->last_ts = ts;
    return 0;
}

static OTF2_CallbackCode ev_metric(OTF2_LocationRef loc, OTF2_TimeStamp ts, uint64_t pos, void *u,
                                   OTF2_AttributeList *a, OTF2_MetricRef metric, uint8_t n, const OTF2_Type *types,
                                   const OTF2_MetricValue *values)
{
    (void)loc;
    (void)pos;
    (void)a;
    loc_state *S = u;
    const fold_trace *t = S->t;
    if (backwards(S, ts))
        return OTF2_CALLBACK_INTERRUPT;
    if (metric >= t->nsets || !t->sets[metric].counters)
        return OTF2_CALLBACK_SUCCESS; /* a metric instance or another tool's metric: not ours */
    const fold_counter_set *set = &t->sets[metric];
    if (set->n != n) {
        S->bad = FOLD_ERR_CORRUPT;
        snprintf(S->why, sizeof(S->why), "metric event with %u values for a class of %zu", n, set->n);
        return OTF2_CALLBACK_INTERRUPT;
    }
    if (set->statistics) { /* running counts: the last event has the totals */
        uint64_t lost = 0;
        for (uint8_t i = 0; i < n; i++)
            if (set->lost[i])
                lost += types[i] == OTF2_TYPE_DOUBLE ? (uint64_t)values[i].floating_point : values[i].unsigned_int;
        S->L->samples_lost = lost;
        return OTF2_CALLBACK_SUCCESS;
    }
    if (S->pend_have && S->pend_t != ts)
        clear_pending(S);
    for (uint8_t i = 0; i < n; i++) {
        double v;
        switch (types[i]) {
        case OTF2_TYPE_INT64:
            v = (double)values[i].signed_int;
            break;
        case OTF2_TYPE_DOUBLE:
            v = values[i].floating_point;
            break;
        default:
            v = (double)values[i].unsigned_int;
            break;
        }
        S->pend[set->counters[i]] = v;
    }
    S->pend_have = 1;
    S->pend_t = ts;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_enter(OTF2_LocationRef loc, OTF2_TimeStamp ts, uint64_t pos, void *u,
                                  OTF2_AttributeList *a, OTF2_CallingContextRef cc, uint32_t unwind)
{
    (void)loc;
    (void)pos;
    (void)a;
    (void)unwind;
    loc_state *S = u;
    const fold_trace *t = S->t;
    if (backwards(S, ts))
        return OTF2_CALLBACK_INTERRUPT;
    if (cc >= t->ncontexts)
        return corrupt(S, "calling context", cc);
    int kind = t->regions[t->contexts[cc].region].kind;
    const double *c = take_values(S, ts, 1);
    if (kind == FOLD_KIND_MPI) {
        if (S->mpi_depth == 0 && S->burst_open) {
            add_instance(S, FOLD_KIND_BURST, S->burst_cc, cc, S->burst_t0, ts, S->burst_c0, c, S->burst_first);
            S->burst_open = 0;
        }
        S->mpi_depth++;
    }
    if (grow((void **)&S->stack, &S->cap_stack, S->depth + 1, sizeof(*S->stack))) {
        S->bad = FOLD_ERR_NOMEM;
        return OTF2_CALLBACK_INTERRUPT;
    }
    S->stack[S->depth++] = (frame){ cc, (int16_t)kind, ts, c, S->L->nsamples };
    return S->bad ? OTF2_CALLBACK_INTERRUPT : OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_leave(OTF2_LocationRef loc, OTF2_TimeStamp ts, uint64_t pos, void *u,
                                  OTF2_AttributeList *a, OTF2_CallingContextRef cc)
{
    (void)loc;
    (void)pos;
    (void)a;
    loc_state *S = u;
    if (backwards(S, ts))
        return OTF2_CALLBACK_INTERRUPT;
    if (cc >= S->t->ncontexts)
        return corrupt(S, "calling context", cc);
    const double *c = take_values(S, ts, 1);
    size_t k = S->depth;
    while (k > 0 && S->stack[k - 1].cc != cc)
        k--;
    if (k == 0) {
        S->L->unbalanced++;
        return OTF2_CALLBACK_SUCCESS;
    }
    /* frames above the match were never left */
    while (S->depth > k) {
        frame *f = &S->stack[--S->depth];
        if (f->kind == FOLD_KIND_MPI && S->mpi_depth)
            S->mpi_depth--;
        S->L->unclosed++;
    }
    frame f = S->stack[--S->depth];
    if (f.kind == FOLD_KIND_MPI) {
        if (S->mpi_depth)
            S->mpi_depth--;
        if (S->mpi_regions)
            add_instance(S, FOLD_KIND_MPI, cc, cc, f.t0, ts, f.c0, c, f.first);
        if (S->mpi_depth == 0) {
            S->burst_open = 1;
            S->burst_cc = cc;
            S->burst_t0 = ts;
            S->burst_c0 = c;
            S->burst_first = S->L->nsamples;
        }
    } else {
        add_instance(S, f.kind, cc, cc, f.t0, ts, f.c0, c, f.first);
    }
    return S->bad ? OTF2_CALLBACK_INTERRUPT : OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_sample(OTF2_LocationRef loc, OTF2_TimeStamp ts, uint64_t pos, void *u,
                                   OTF2_AttributeList *a, OTF2_CallingContextRef cc, uint32_t unwind,
                                   OTF2_InterruptGeneratorRef gen)
{
    (void)loc;
    (void)pos;
    (void)a;
    (void)unwind;
    (void)gen;
    loc_state *S = u;
    fold_location *L = S->L;
    if (backwards(S, ts))
        return OTF2_CALLBACK_INTERRUPT;
    L->samples_read++;
    /* inside a burst, a region other than an MPI call, or a kept MPI call */
    int keep = S->burst_open || S->depth > S->mpi_depth || (S->mpi_regions && S->mpi_depth > 0);
    const double *c = take_values(S, ts, keep);
    if (!keep)
        return OTF2_CALLBACK_SUCCESS;
    if (cc != OTF2_UNDEFINED_CALLING_CONTEXT && cc >= S->t->ncontexts)
        return corrupt(S, "calling context", cc);
    if (grow((void **)&L->samples, &S->cap_samples, L->nsamples + 1, sizeof(*L->samples))) {
        S->bad = FOLD_ERR_NOMEM;
        return OTF2_CALLBACK_INTERRUPT;
    }
    L->samples[L->nsamples++] = (fold_sample){ to_ns(S, ts), cc == OTF2_UNDEFINED_CALLING_CONTEXT ? FOLD_NONE : cc, c };
    return S->bad ? OTF2_CALLBACK_INTERRUPT : OTF2_CALLBACK_SUCCESS;
}

/* ---- workers ------------------------------------------------------------ */

typedef struct {
    pthread_mutex_t lock;
    uint64_t done, total;
    void (*cb)(void *, uint64_t, uint64_t);
    void *user;
} progress_state;

typedef struct {
    fold_trace *t;
    const fold_read_options *o;
    const char *anchor;
    uint64_t *expected;  /* events per location from the definitions */
    size_t *locs;        /* location indices of this worker */
    size_t nlocs;
    uint64_t load;
    progress_state *progress;
    int status;
    char err[256];
    pthread_t thread;
} worker;

/* hcatrace writes a .def file for every location (its clock offsets at
 * least): <anchor without .otf2>/<location>.def. */
static int local_defs_exist(const char *anchor, uint64_t id)
{
    char path[4096];
    size_t n = strlen(anchor);
    if (n < 5 || n + 32 > sizeof(path))
        return 1;
    snprintf(path, sizeof(path), "%.*s/%" PRIu64 ".def", (int)(n - 5), anchor, id);
    struct stat st;
    return stat(path, &st) == 0;
}

static int read_location(worker *w, OTF2_Reader *r, OTF2_EvtReaderCallbacks *cbs, int have_defs, size_t index)
{
    fold_trace *t = w->t;
    fold_location *L = &t->locations[index];
    loc_state S;
    memset(&S, 0, sizeof(S));
    S.t = t;
    S.L = L;
    S.mpi_regions = w->o->mpi_regions;
    S.index = (uint32_t)index;
    S.tick_ns = t->clock_resolution && t->clock_resolution != 1000000000u ? 1e9 / (double)t->clock_resolution
                                                                          : 1.0;
    S.pend = malloc((t->ncounters + 1) * sizeof(double));
    if (!S.pend)
        return fail(w->err, sizeof(w->err), FOLD_ERR_NOMEM, "out of memory");
    clear_pending(&S);
    otf2_message[0] = 0;
    if (!local_defs_exist(w->anchor, L->id)) {
        free(S.pend);
        return fail(w->err, sizeof(w->err), FOLD_ERR_CORRUPT,
                    "location %" PRIu64 ": its local definitions (mapping tables, clock offsets) are missing", L->id);
    }
    if (have_defs) {
        OTF2_DefReader *d = OTF2_Reader_GetDefReader(r, L->id);
        if (d) {
            uint64_t n;
            OTF2_ErrorCode rc = OTF2_Reader_ReadAllLocalDefinitions(r, d, &n);
            OTF2_Reader_CloseDefReader(r, d);
            if (rc != OTF2_SUCCESS) {
                free(S.pend);
                return fail(w->err, sizeof(w->err), FOLD_ERR_CORRUPT,
                            "location %" PRIu64 ": corrupt local definitions (%s)", L->id, otf2_reason(rc));
            }
        }
    }
    OTF2_EvtReader *e = OTF2_Reader_GetEvtReader(r, L->id);
    if (!e) {
        free(S.pend);
        return fail(w->err, sizeof(w->err), FOLD_ERR_CORRUPT, "location %" PRIu64 ": cannot open its events (%s)",
                    L->id, otf2_message[0] ? otf2_message : "missing file");
    }
    OTF2_EvtReader_ApplyClockOffsets(e, w->o->clock_offsets != 0);
    OTF2_Reader_RegisterEvtCallbacks(r, e, cbs, &S);
    OTF2_ErrorCode rc = OTF2_SUCCESS;
    for (;;) {
        uint64_t n = 0;
        rc = OTF2_Reader_ReadLocalEvents(r, e, EVENTS_PER_CHUNK, &n);
        L->nevents += n;
        if (w->progress && n) {
            pthread_mutex_lock(&w->progress->lock);
            w->progress->done += n;
            w->progress->cb(w->progress->user, w->progress->done, w->progress->total);
            pthread_mutex_unlock(&w->progress->lock);
        }
        if (rc != OTF2_SUCCESS || n < EVENTS_PER_CHUNK || S.bad)
            break;
    }
    OTF2_Reader_CloseEvtReader(r, e);
    int status = FOLD_OK;
    if (S.bad)
        status = fail(w->err, sizeof(w->err), S.bad, "location %" PRIu64 ": %s", L->id,
                      S.bad == FOLD_ERR_NOMEM ? "out of memory" : S.why);
    else if (rc != OTF2_SUCCESS)
        status = fail(w->err, sizeof(w->err), FOLD_ERR_CORRUPT,
                      "location %" PRIu64 ": truncated or corrupt events after %" PRIu64 " (%s)", L->id,
                      L->nevents, otf2_reason(rc));
    else if (L->nevents < w->expected[index])
        status = fail(w->err, sizeof(w->err), FOLD_ERR_CORRUPT,
                      "location %" PRIu64 ": %" PRIu64 " of %" PRIu64 " events: truncated", L->id, L->nevents,
                      w->expected[index]);
    for (size_t i = 0; i < S.depth; i++)
        if (S.stack[i].kind != FOLD_KIND_MPI)
            L->unclosed++;
    free(S.stack);
    free(S.pend);
    return status;
}

static void *worker_main(void *arg)
{
    worker *w = arg;
    otf2_message[0] = 0;
    OTF2_Reader *r = OTF2_Reader_Open(w->anchor);
    if (!r || OTF2_Reader_SetSerialCollectiveCallbacks(r) != OTF2_SUCCESS) {
        w->status = fail(w->err, sizeof(w->err), FOLD_ERR_CORRUPT, "cannot open %s (%s)", w->anchor,
                         otf2_message[0] ? otf2_message : "OTF2 reader");
        OTF2_Reader_Close(r);
        return NULL;
    }
    for (size_t i = 0; i < w->nlocs; i++)
        OTF2_Reader_SelectLocation(r, w->t->locations[w->locs[i]].id);
    int have_defs = OTF2_Reader_OpenDefFiles(r) == OTF2_SUCCESS;
    OTF2_Reader_OpenEvtFiles(r);
    OTF2_EvtReaderCallbacks *cbs = OTF2_EvtReaderCallbacks_New();
    if (!cbs) {
        w->status = fail(w->err, sizeof(w->err), FOLD_ERR_NOMEM, "out of memory");
    } else {
        OTF2_EvtReaderCallbacks_SetMetricCallback(cbs, ev_metric);
        OTF2_EvtReaderCallbacks_SetCallingContextEnterCallback(cbs, ev_enter);
        OTF2_EvtReaderCallbacks_SetCallingContextLeaveCallback(cbs, ev_leave);
        OTF2_EvtReaderCallbacks_SetCallingContextSampleCallback(cbs, ev_sample);
        for (size_t i = 0; i < w->nlocs && w->status == FOLD_OK; i++)
            w->status = read_location(w, r, cbs, have_defs, w->locs[i]);
        OTF2_EvtReaderCallbacks_Delete(cbs);
    }
    if (have_defs)
        OTF2_Reader_CloseDefFiles(r);
    OTF2_Reader_CloseEvtFiles(r);
    OTF2_Reader_Close(r);
    return NULL;
}

/* ---- the archive -------------------------------------------------------- */

static int ends_with(const char *s, const char *suffix)
{
    if (!s)
        return 0;
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* The anchor file named by path (a file, or a directory holding one). */
static int find_anchor(const char *path, char **anchor, char *err, size_t errlen)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return fail(err, errlen, FOLD_ERR_OPEN, "cannot open %s: %s", path, strerror(errno));
    if (S_ISDIR(st.st_mode)) {
        DIR *d = opendir(path);
        if (!d)
            return fail(err, errlen, FOLD_ERR_OPEN, "cannot open %s: %s", path, strerror(errno));
        char *found = NULL;
        int several = 0, traces = 0;
        const struct dirent *e;
        while ((e = readdir(d))) {
            if (!ends_with(e->d_name, ".otf2") || strlen(e->d_name) == 5)
                continue;
            if (strcmp(e->d_name, "traces.otf2") == 0)
                traces = 1;
            if (found)
                several = 1;
            else
                found = strdup(e->d_name);
        }
        closedir(d);
        if (traces) {
            free(found);
            found = strdup("traces.otf2");
            several = 0;
            if (!found)
                return fail(err, errlen, FOLD_ERR_NOMEM, "out of memory");
        }
        if (!found)
            return fail(err, errlen, FOLD_ERR_NOT_OTF2, "%s is not an OTF2 archive: no .otf2 anchor file in it", path);
        if (several) {
            free(found);
            return fail(err, errlen, FOLD_ERR_NOT_OTF2, "%s holds several OTF2 archives: name the .otf2 file", path);
        }
        size_t n = strlen(path) + strlen(found) + 2;
        *anchor = malloc(n);
        if (*anchor)
            snprintf(*anchor, n, "%s/%s", path, found);
        free(found);
        return *anchor ? FOLD_OK : fail(err, errlen, FOLD_ERR_NOMEM, "out of memory");
    }
    FILE *f = fopen(path, "rb");
    if (!f)
        return fail(err, errlen, FOLD_ERR_OPEN, "cannot open %s: %s", path, strerror(errno));
    fclose(f);
    if (!S_ISREG(st.st_mode))
        return fail(err, errlen, FOLD_ERR_NOT_OTF2, "%s is not an OTF2 archive", path);
    *anchor = strdup(path);
    return *anchor ? FOLD_OK : fail(err, errlen, FOLD_ERR_NOMEM, "out of memory");
}

/* An OTF2 anchor file begins with a small header holding "OTF2". Checking it
 * first gives text files a clear message (and spares OTF2_Reader_Open, which
 * leaks its archive on a bad anchor, most bad inputs). */
static int has_otf2_magic(const char *anchor)
{
    unsigned char head[16];
    FILE *f = fopen(anchor, "rb");
    if (!f)
        return 0;
    size_t n = fread(head, 1, sizeof(head), f);
    fclose(f);
    for (size_t i = 0; i + 4 <= n; i++)
        if (memcmp(head + i, "OTF2", 4) == 0)
            return 1;
    return 0;
}

/* The archive's trace file properties (from the anchor file). */
static int read_properties(OTF2_Reader *r, fold_trace *t)
{
    uint32_t n = 0;
    char **names = NULL;
    if (OTF2_Reader_GetPropertyNames(r, &n, &names) != OTF2_SUCCESS || !names)
        return FOLD_OK;
    int status = FOLD_OK;
    t->property_names = calloc(n + 1, sizeof(char *));
    t->property_values = calloc(n + 1, sizeof(char *));
    if (!t->property_names || !t->property_values)
        status = FOLD_ERR_NOMEM;
    for (uint32_t i = 0; status == FOLD_OK && i < n; i++) {
        char *value = NULL;
        if (OTF2_Reader_GetProperty(r, names[i], &value) != OTF2_SUCCESS || !value)
            continue;
        t->property_names[t->nproperties] = strdup(names[i]);
        t->property_values[t->nproperties] = value; /* OTF2 allocates it with malloc: ours now */
        if (!t->property_names[t->nproperties])
            status = FOLD_ERR_NOMEM;
        t->nproperties++;
    }
    free(names);
    return status;
}

const char *fold_trace_property(const fold_trace *t, const char *name)
{
    for (size_t i = 0; i < t->nproperties; i++)
        if (strcasecmp(t->property_names[i], name) == 0)
            return t->property_values[i];
    return NULL;
}

static int read_global_defs(fold_trace *t, const char *anchor, uint64_t **expected, char *err, size_t errlen)
{
    otf2_message[0] = 0;
    if (!ends_with(anchor, ".otf2") || !has_otf2_magic(anchor))
        return fail(err, errlen, FOLD_ERR_NOT_OTF2, "%s is not an OTF2 archive (%s)", anchor,
                    ends_with(anchor, ".otf2") ? "no OTF2 anchor file header" : "an anchor file ends in .otf2");
    OTF2_Reader *r = OTF2_Reader_Open(anchor);
    if (!r)
        return fail(err, errlen, FOLD_ERR_NOT_OTF2, "%s is not an OTF2 archive (%s)", anchor,
                    otf2_message[0] ? otf2_message : "not a readable OTF2 anchor file");
    defs_state st;
    memset(&st, 0, sizeof(st));
    st.t = t;
    int status = read_properties(r, t);
    if (status != FOLD_OK) {
        OTF2_Reader_Close(r);
        return fail(err, errlen, status, "out of memory reading the trace properties");
    }
    OTF2_GlobalDefReader *gd = NULL;
    OTF2_GlobalDefReaderCallbacks *cb = NULL;
    if (OTF2_Reader_SetSerialCollectiveCallbacks(r) != OTF2_SUCCESS || !(gd = OTF2_Reader_GetGlobalDefReader(r))) {
        status = fail(err, errlen, FOLD_ERR_CORRUPT, "%s: cannot open the global definitions (%s)", anchor,
                      otf2_message[0] ? otf2_message : "missing file");
        goto out;
    }
    cb = OTF2_GlobalDefReaderCallbacks_New();
    if (!cb) {
        status = fail(err, errlen, FOLD_ERR_NOMEM, "out of memory");
        goto out;
    }
    OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(cb, def_clock);
    OTF2_GlobalDefReaderCallbacks_SetStringCallback(cb, def_string);
    OTF2_GlobalDefReaderCallbacks_SetRegionCallback(cb, def_region);
    OTF2_GlobalDefReaderCallbacks_SetSourceCodeLocationCallback(cb, def_scl);
    OTF2_GlobalDefReaderCallbacks_SetCallingContextCallback(cb, def_cc);
    OTF2_GlobalDefReaderCallbacks_SetMetricMemberCallback(cb, def_member);
    OTF2_GlobalDefReaderCallbacks_SetMetricClassCallback(cb, def_class);
    OTF2_GlobalDefReaderCallbacks_SetLocationCallback(cb, def_location);
    OTF2_GlobalDefReaderCallbacks_SetInterruptGeneratorCallback(cb, def_igen);
    OTF2_Reader_RegisterGlobalDefCallbacks(r, gd, cb, &st);
    uint64_t ndefs = 0;
    OTF2_ErrorCode rc = OTF2_Reader_ReadAllGlobalDefinitions(r, gd, &ndefs);
    if (st.bad < 0) {
        status = fail(err, errlen, FOLD_ERR_NOMEM, "out of memory reading the definitions");
        goto out;
    }
    if (st.bad > 0 || rc != OTF2_SUCCESS) {
        status = fail(err, errlen, FOLD_ERR_CORRUPT, "%s: truncated or corrupt global definitions (%s)", anchor,
                      st.bad ? st.why : otf2_reason(rc));
        goto out;
    }
    if (st.nlocs == 0) {
        status = fail(err, errlen, FOLD_ERR_CORRUPT, "%s: the archive defines no locations", anchor);
        goto out;
    }
    status = finish_defs(&st, err, errlen);
    if (status == FOLD_OK) {
        *expected = calloc(st.nlocs, sizeof(**expected));
        if (!*expected)
            status = fail(err, errlen, FOLD_ERR_NOMEM, "out of memory");
        for (size_t i = 0; *expected && i < st.nlocs; i++)
            (*expected)[i] = st.locs[i].nevents;
    }
out:
    if (cb)
        OTF2_GlobalDefReaderCallbacks_Delete(cb);
    if (gd)
        OTF2_Reader_CloseGlobalDefReader(r, gd);
    OTF2_Reader_Close(r);
    free_defs_state(&st);
    return status;
}

int fold_read(const char *path, const fold_read_options *opts, fold_trace *t, char *err, size_t errlen)
{
    fold_read_options dflt;
    if (!opts) {
        fold_read_defaults(&dflt);
        opts = &dflt;
    }
    memset(t, 0, sizeof(*t));
    if (err && errlen)
        err[0] = 0;
    if (!path || !*path)
        return fail(err, errlen, FOLD_ERR_ARGS, "no trace given");
    char *anchor = NULL;
    int status = find_anchor(path, &anchor, err, errlen);
    if (status != FOLD_OK)
        return status;
    OTF2_ErrorCallback previous = OTF2_Error_RegisterCallback(otf2_error_cb, NULL);
    uint64_t *expected = NULL;
    worker *workers = NULL;
    size_t *order = NULL;
    status = read_global_defs(t, anchor, &expected, err, errlen);
    if (status != FOLD_OK)
        goto out;
    if (!expected || t->nlocations == 0) {
        status = fail(err, errlen, FOLD_ERR_CORRUPT, "%s: the archive defines no locations", anchor);
        goto out;
    }
    t->path = anchor;
    anchor = NULL;

    size_t njobs = opts->jobs ? opts->jobs : 1;
    if (njobs > t->nlocations)
        njobs = t->nlocations;
    if (njobs == 0)
        njobs = 1;
    workers = calloc(njobs, sizeof(*workers));
    order = malloc((t->nlocations + 1) * sizeof(*order));
    size_t *slots = malloc((t->nlocations + 1) * sizeof(*slots));
    if (!workers || !order || !slots) {
        free(slots);
        status = fail(err, errlen, FOLD_ERR_NOMEM, "out of memory");
        goto out;
    }
    /* largest location first, to the least loaded worker */
    uint64_t total = 0;
    for (size_t i = 0; i < t->nlocations; i++) {
        order[i] = i;
        total += expected[i];
    }
    for (size_t i = 1; i < t->nlocations; i++) { /* insertion sort: stable, by events descending */
        size_t v = order[i], j = i;
        while (j > 0 && expected[order[j - 1]] < expected[v]) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = v;
    }
    for (size_t i = 0; i < njobs; i++) {
        workers[i].locs = slots;
        workers[i].nlocs = 0;
    }
    /* count first, then place, so each worker's list is contiguous in slots */
    size_t *assign = calloc(t->nlocations + 1, sizeof(*assign));
    if (!assign) {
        free(slots);
        status = fail(err, errlen, FOLD_ERR_NOMEM, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < t->nlocations; i++) {
        size_t best = 0;
        for (size_t k = 1; k < njobs; k++)
            if (workers[k].load < workers[best].load)
                best = k;
        workers[best].load += expected[order[i]] + 1;
        workers[best].nlocs++;
        assign[order[i]] = best;
    }
    size_t offset = 0;
    for (size_t k = 0; k < njobs; k++) {
        workers[k].locs = slots + offset;
        offset += workers[k].nlocs;
        workers[k].nlocs = 0;
    }
    for (size_t i = 0; i < t->nlocations; i++) {
        worker *w = &workers[assign[order[i]]];
        w->locs[w->nlocs++] = order[i];
    }
    free(assign);

    progress_state progress;
    memset(&progress, 0, sizeof(progress));
    pthread_mutex_init(&progress.lock, NULL);
    progress.total = total;
    progress.cb = opts->progress;
    progress.user = opts->progress_user;
    for (size_t k = 0; k < njobs; k++) {
        workers[k].t = t;
        workers[k].o = opts;
        workers[k].anchor = t->path;
        workers[k].expected = expected;
        workers[k].progress = opts->progress ? &progress : NULL;
    }
    if (njobs == 1) {
        worker_main(&workers[0]);
    } else {
        size_t started = 0;
        for (size_t k = 0; k < njobs; k++) {
            if (pthread_create(&workers[k].thread, NULL, worker_main, &workers[k]) != 0) {
                workers[k].status = fail(workers[k].err, sizeof(workers[k].err), FOLD_ERR_NOMEM,
                                         "cannot start a reader thread");
                break;
            }
            started++;
        }
        for (size_t k = 0; k < started; k++)
            pthread_join(workers[k].thread, NULL);
    }
    pthread_mutex_destroy(&progress.lock);
    /* the first failure in location order, so the message does not depend on --jobs */
    size_t first_bad = SIZE_MAX;
    for (size_t k = 0; k < njobs; k++)
        if (workers[k].status != FOLD_OK) {
            size_t idx = workers[k].nlocs ? workers[k].locs[0] : 0;
            for (size_t i = 0; i < workers[k].nlocs; i++)
                if (workers[k].locs[i] < idx)
                    idx = workers[k].locs[i];
            if (first_bad == SIZE_MAX || idx < first_bad) {
                first_bad = idx;
                status = fail(err, errlen, workers[k].status, "%s", workers[k].err);
            }
        }
    free(slots);
    if (status == FOLD_OK) {
        for (size_t i = 0; i < t->nlocations; i++) {
            t->nevents += t->locations[i].nevents;
            t->samples_read += t->locations[i].samples_read;
            t->samples_kept += t->locations[i].nsamples;
            t->samples_lost += t->locations[i].samples_lost;
        }
    }
out:
    OTF2_Error_RegisterCallback(previous, NULL);
    free(anchor);
    free(expected);
    free(workers);
    free(order);
    if (status != FOLD_OK)
        fold_trace_free(t);
    return status;
}

void fold_trace_free(fold_trace *t)
{
    for (size_t i = 0; i < t->nlocations; i++) {
        fold_location *L = &t->locations[i];
        free(L->samples);
        free(L->instances);
        chunk *c = L->arena;
        while (c) {
            chunk *next = c->next;
            free(c);
            c = next;
        }
    }
    free(t->locations);
    for (size_t i = 0; i < t->nfolds; i++) {
        free(t->folds[i].name);
        free(t->folds[i].instances);
    }
    free(t->folds);
    for (size_t i = 0; i < t->nsets; i++) {
        free(t->sets[i].counters);
        free(t->sets[i].lost);
    }
    free(t->sets);
    for (size_t i = 0; i < t->nstrings; i++)
        free(t->strings[i]);
    free(t->strings);
    free(t->regions);
    free(t->contexts);
    free(t->counters);
    free(t->nan_row);
    free(t->path);
    for (size_t i = 0; i < t->nproperties; i++) {
        free(t->property_names[i]);
        free(t->property_values[i]);
    }
    free(t->property_names);
    free(t->property_values);
    memset(t, 0, sizeof(*t));
}

static const char *basename_of(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

int fold_context_label(const fold_trace *t, uint32_t context, char *buf, size_t len)
{
    if (context >= t->ncontexts)
        return snprintf(buf, len, "?");
    const fold_context_def *c = &t->contexts[context];
    const char *name = t->regions[c->region].name;
    if (c->parent == FOLD_NONE)
        return snprintf(buf, len, "%s", name);
    const fold_context_def *p = &t->contexts[c->parent];
    if (p->file && *p->file)
        return snprintf(buf, len, "%s@%s:%u", name, basename_of(p->file), p->line);
    return snprintf(buf, len, "%s@%s", name, t->regions[p->region].name);
}
