/* read_events.c: one location's events into instances and samples. The state
 * is a stack of open calling contexts, the burst opened by the last MPI call,
 * and the pending Metric values: a Metric event gives its values to the
 * calling-context event (enter, leave, sample) that follows it at the same
 * timestamp (docs/trace-format.md). The tracer's own time ("tool:" metrics,
 * running totals) is removed as it is read: instances and samples get the
 * location's time minus the tracer's time before them, CPU-time counters
 * their value minus the tracer's CPU time (docs/output.md, "Tool time").
 * Only instances and the samples inside open
 * instances are kept; counter values live in a per-location arena of
 * fixed-size chunks, so the pointers into it stay valid. */
#include "read_internal.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "hca_schema_read.h"

#define EVENTS_PER_CHUNK (1u << 18) /* events read between progress reports */
#define ARENA_ROWS 4096

typedef struct chunk {
    struct chunk *next;
    size_t used, cap; /* doubles */
    double v[];
} chunk;

typedef struct {
    uint32_t cc;
    int16_t kind;
    uint64_t t0, tool0; /* ns without the tracer's time; the tracer's time before it */
    uint64_t traced0;   /* ns as traced (the run summary's MPI time) */
    const double *c0;
    size_t first;
} frame;

typedef struct {
    const fold_trace *t;
    fold_location *L;
    int mpi_regions;
    int keep_tool_time; /* the tracer's running totals ignored: nothing removed */
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
    /* the tracer's own time so far (the last "tool:" values), ns; the last
     * time returned by untraced_ns */
    uint64_t tool_ns, tool_cpu_ns, last_untraced;
    /* the burst opened by the last MPI call */
    int burst_open;
    uint32_t burst_cc;
    uint64_t burst_t0, burst_tool0;
    const double *burst_c0;
    size_t burst_first;
    size_t cap_samples, cap_instances, cap_sites;
    size_t last_site;  /* index of the MPI call site last added to */
    OTF2_TimeStamp first_ts;
    int seen;          /* an event was read: first_ts is set */
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

/* A timestamp as ns of the program's own time: minus the tracer's time before
 * it, never before the previous one (a tool total measured a little long). */
static uint64_t untraced_ns(loc_state *S, OTF2_TimeStamp ts)
{
    uint64_t ns = to_ns(S, ts);
    ns = ns > S->tool_ns ? ns - S->tool_ns : 0;
    if (ns < S->last_untraced)
        ns = S->last_untraced;
    S->last_untraced = ns;
    return ns;
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
        for (size_t i = 0; i < S->t->ncounters; i++)
            if (S->t->counters[i].counts_cpu)
                row[i] -= (double)S->tool_cpu_ns;
        v = row;
    }
    if (S->pend_have)
        clear_pending(S);
    return v;
}

/* The tracer's wall time removed from an instance is at most its CPU time
 * removed plus the instance's time off CPU: a thread's CPU time never exceeds
 * its wall time, so neither can what is left of them. Where the two totals
 * disagree (the tracer's wall time measured longer than it was, as in
 * LULESH's 3.4 us OpenMP regions with 8 ranks on 2 cores: 0.071 s removed,
 * 0.064 s left, 1.04 CPUs), the duration gets back what was removed too much:
 * it is at least the instance's CPU time left (docs/output.md, "Tool time"). */
static void bound_removal(const loc_state *S, fold_instance *in, const double *c0, const double *c1)
{
    for (size_t i = 0; c0 && c1 && i < S->t->ncounters; i++) {
        if (!S->t->counters[i].counts_cpu || !isfinite(c0[i]) || !isfinite(c1[i]))
            continue;
        double cpu = c1[i] - c0[i], wall = (double)(in->t1 - in->t0);
        if (!(cpu > wall) || cpu > wall + (double)in->tool_ns)
            continue; /* within the wall time, or more than the removal explains (another cause) */
        uint64_t back = (uint64_t)ceil(cpu - wall);
        in->t1 += back;
        in->back_ns += back;
        in->tool_ns -= back < in->tool_ns ? back : in->tool_ns;
    }
}

/* An instance from t0 to t1 (ns, untraced_ns) that began when the tracer's
 * time was tool0. */
static int add_instance(loc_state *S, int kind, uint32_t open_cc, uint32_t close_cc, uint64_t t0, uint64_t t1,
                        uint64_t tool0, const double *c0, const double *c1, size_t first)
{
    fold_location *L = S->L;
    if (hca_grow((void **)&L->instances, &S->cap_instances, L->ninstances + 1, sizeof(*L->instances))) {
        S->bad = FOLD_ERR_NOMEM;
        return -1;
    }
    fold_instance *in = &L->instances[L->ninstances++];
    in->t0 = t0;
    in->t1 = t1;
    in->tool_ns = S->tool_ns > tool0 ? S->tool_ns - tool0 : 0;
    in->back_ns = 0;
    in->tool0_ns = tool0;
    bound_removal(S, in, c0, c1);
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
    if (!S->seen) {
        S->first_ts = ts;
        S->seen = 1;
    }
    S->last_ts = ts;
    return 0;
}

/* An outermost MPI call of context cc took ns: added to its call site's time
 * (a loop calls few sites in turn: the last one is tried first). */
static void add_mpi_time(loc_state *S, uint32_t cc, uint64_t ns)
{
    fold_location *L = S->L;
    size_t i = S->last_site;
    if (i >= L->nmpi_sites || L->mpi_sites[i].context != cc)
        for (i = 0; i < L->nmpi_sites && L->mpi_sites[i].context != cc; i++)
            ;
    if (i == L->nmpi_sites) {
        if (hca_grow((void **)&L->mpi_sites, &S->cap_sites, L->nmpi_sites + 1, sizeof(*L->mpi_sites))) {
            S->bad = FOLD_ERR_NOMEM;
            return;
        }
        L->mpi_sites[L->nmpi_sites++] = (fold_site_time){ cc, 0, 0 };
    }
    L->mpi_sites[i].calls++;
    L->mpi_sites[i].ns += ns;
    S->last_site = i;
}

/* ProgramBegin and ProgramEnd only bound the location's time. */
static OTF2_CallbackCode ev_program_begin(OTF2_LocationRef loc, OTF2_TimeStamp ts, uint64_t pos, void *u,
                                          OTF2_AttributeList *a, OTF2_StringRef name, uint32_t nargs,
                                          const OTF2_StringRef *args)
{
    (void)loc;
    (void)pos;
    (void)a;
    (void)name;
    (void)nargs;
    (void)args;
    return backwards(u, ts) ? OTF2_CALLBACK_INTERRUPT : OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_program_end(OTF2_LocationRef loc, OTF2_TimeStamp ts, uint64_t pos, void *u,
                                        OTF2_AttributeList *a, int64_t status)
{
    (void)loc;
    (void)pos;
    (void)a;
    (void)status;
    return backwards(u, ts) ? OTF2_CALLBACK_INTERRUPT : OTF2_CALLBACK_SUCCESS;
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
    if (set->tool) { /* running totals: the tracer's time up to this timestamp */
        if (S->keep_tool_time)
            return OTF2_CALLBACK_SUCCESS;
        if (set->tool_time >= 0 && types[set->tool_time] == OTF2_TYPE_UINT64 &&
            values[set->tool_time].unsigned_int > S->tool_ns)
            S->tool_ns = values[set->tool_time].unsigned_int;
        if (set->tool_cpu >= 0 && types[set->tool_cpu] == OTF2_TYPE_UINT64 &&
            values[set->tool_cpu].unsigned_int > S->tool_cpu_ns)
            S->tool_cpu_ns = values[set->tool_cpu].unsigned_int;
        return OTF2_CALLBACK_SUCCESS;
    }
    if (set->statistics) { /* running counts: the last event has the totals */
        uint64_t lost = 0;
        memset(S->L->samples_lost_why, 0, sizeof(S->L->samples_lost_why));
        for (uint8_t i = 0; i < n; i++)
            if (set->lost[i]) {
                uint64_t v = types[i] == OTF2_TYPE_DOUBLE ? (uint64_t)values[i].floating_point : values[i].unsigned_int;
                lost += v;
                S->L->samples_lost_why[set->lost_why[i] < FOLD_LOST_WHY ? set->lost_why[i] : 0] += v;
            }
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
    uint64_t at = untraced_ns(S, ts);
    if (kind == FOLD_KIND_MPI) {
        if (S->mpi_depth == 0 && S->burst_open) {
            if (t->ncounters) { /* hcatrace leaves out the values after a short burst without samples,
                                   and before one it predicts short (hct_mpi_burst.h) */
                S->L->bursts++;
                S->L->bare_bursts += c == t->nan_row || S->burst_c0 == t->nan_row;
            }
            add_instance(S, FOLD_KIND_BURST, S->burst_cc, cc, S->burst_t0, at, S->burst_tool0, S->burst_c0, c,
                         S->burst_first);
            S->burst_open = 0;
        }
        S->mpi_depth++;
    }
    if (hca_grow((void **)&S->stack, &S->cap_stack, S->depth + 1, sizeof(*S->stack))) {
        S->bad = FOLD_ERR_NOMEM;
        return OTF2_CALLBACK_INTERRUPT;
    }
    S->stack[S->depth++] = (frame){ cc, (int16_t)kind, at, S->tool_ns, to_ns(S, ts), c, S->L->nsamples };
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
    uint64_t at = untraced_ns(S, ts);
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
            add_instance(S, FOLD_KIND_MPI, cc, cc, f.t0, at, f.tool0, f.c0, c, f.first);
        if (S->mpi_depth == 0) {
            add_mpi_time(S, cc, to_ns(S, ts) - f.traced0); /* the run as traced, as its elapsed time */
            S->burst_open = 1;
            S->burst_cc = cc;
            S->burst_t0 = at;
            S->burst_tool0 = S->tool_ns;
            S->burst_c0 = c;
            S->burst_first = S->L->nsamples;
        }
    } else {
        add_instance(S, f.kind, cc, cc, f.t0, at, f.tool0, f.c0, c, f.first);
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
    uint64_t at = untraced_ns(S, ts);
    if (!keep)
        return OTF2_CALLBACK_SUCCESS;
    if (cc != OTF2_UNDEFINED_CALLING_CONTEXT && cc >= S->t->ncontexts)
        return corrupt(S, "calling context", cc);
    if (hca_grow((void **)&L->samples, &S->cap_samples, L->nsamples + 1, sizeof(*L->samples))) {
        S->bad = FOLD_ERR_NOMEM;
        return OTF2_CALLBACK_INTERRUPT;
    }
    L->samples[L->nsamples++] =
        (fold_sample){ at, cc == OTF2_UNDEFINED_CALLING_CONTEXT ? FOLD_NONE : cc, c, S->tool_ns };
    return S->bad ? OTF2_CALLBACK_INTERRUPT : OTF2_CALLBACK_SUCCESS;
}

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

int fold_read_location(fold_worker *w, OTF2_Reader *r, OTF2_EvtReaderCallbacks *cbs, int have_defs, size_t index)
{
    fold_trace *t = w->t;
    fold_location *L = &t->locations[index];
    loc_state S;
    memset(&S, 0, sizeof(S));
    S.t = t;
    S.L = L;
    S.mpi_regions = w->o->mpi_regions;
    S.keep_tool_time = w->o->keep_tool_time;
    S.index = (uint32_t)index;
    S.tick_ns = t->clock_resolution && t->clock_resolution != 1000000000u ? 1e9 / (double)t->clock_resolution
                                                                          : 1.0;
    S.pend = malloc((t->ncounters + 1) * sizeof(double));
    if (!S.pend)
        return fold_fail(w->err, sizeof(w->err), FOLD_ERR_NOMEM, "out of memory");
    clear_pending(&S);
    fold_otf2_message[0] = 0;
    if (!local_defs_exist(w->anchor, L->id)) {
        free(S.pend);
        return fold_fail(w->err, sizeof(w->err), FOLD_ERR_CORRUPT,
                         "location %" PRIu64 ": its local definitions (mapping tables, clock offsets) are missing",
                         L->id);
    }
    OTF2_DefReader *d = have_defs ? OTF2_Reader_GetDefReader(r, L->id) : NULL;
    if (have_defs && !d) { /* an empty or unreadable file: its mapping tables and clock offsets are lost */
        free(S.pend);
        return fold_fail(w->err, sizeof(w->err), FOLD_ERR_CORRUPT,
                         "location %" PRIu64 ": cannot read its local definitions (%s)", L->id,
                         fold_otf2_message[0] ? fold_otf2_message : "empty or corrupt file");
    }
    if (d) {
        uint64_t n;
        OTF2_ErrorCode rc = OTF2_Reader_ReadAllLocalDefinitions(r, d, &n);
        OTF2_Reader_CloseDefReader(r, d);
        if (rc != OTF2_SUCCESS) {
            free(S.pend);
            return fold_fail(w->err, sizeof(w->err), FOLD_ERR_CORRUPT,
                             "location %" PRIu64 ": corrupt local definitions (%s)", L->id, fold_otf2_reason(rc));
        }
    }
    OTF2_EvtReader *e = OTF2_Reader_GetEvtReader(r, L->id);
    if (!e) {
        free(S.pend);
        return fold_fail(w->err, sizeof(w->err), FOLD_ERR_CORRUPT, "location %" PRIu64 ": cannot open its events (%s)",
                         L->id, fold_otf2_message[0] ? fold_otf2_message : "missing file");
    }
    OTF2_EvtReader_ApplyClockOffsets(e, w->o->clock_offsets != 0);
    OTF2_Reader_RegisterEvtCallbacks(r, e, cbs, &S);
    OTF2_ErrorCode rc = OTF2_SUCCESS;
    for (;;) {
        uint64_t n = 0;
        rc = OTF2_Reader_ReadLocalEvents(r, e, EVENTS_PER_CHUNK, &n);
        L->nevents += n;
        if (w->progress && w->progress->cb && n) {
            pthread_mutex_lock(&w->progress->lock);
            w->progress->done += n;
            w->progress->cb(w->progress->user, w->progress->done, w->progress->total);
            pthread_mutex_unlock(&w->progress->lock);
        }
        if (rc != OTF2_SUCCESS || n < EVENTS_PER_CHUNK || S.bad)
            break;
    }
    OTF2_Reader_CloseEvtReader(r, e);
    if (S.seen) {
        L->t_begin = to_ns(&S, S.first_ts);
        L->t_end = to_ns(&S, S.last_ts);
    }
    int status = FOLD_OK;
    if (S.bad)
        status = fold_fail(w->err, sizeof(w->err), S.bad, "location %" PRIu64 ": %s", L->id,
                           S.bad == FOLD_ERR_NOMEM ? "out of memory" : S.why);
    else if (rc != OTF2_SUCCESS)
        status = fold_fail(w->err, sizeof(w->err), FOLD_ERR_CORRUPT,
                           "location %" PRIu64 ": truncated or corrupt events after %" PRIu64 " (%s)", L->id,
                           L->nevents, fold_otf2_reason(rc));
    else if (L->nevents < w->expected[index])
        status = fold_fail(w->err, sizeof(w->err), FOLD_ERR_CORRUPT,
                           "location %" PRIu64 ": %" PRIu64 " of %" PRIu64 " events: truncated", L->id, L->nevents,
                           w->expected[index]);
    for (size_t i = 0; i < S.depth; i++)
        if (S.stack[i].kind != FOLD_KIND_MPI)
            L->unclosed++;
    free(S.stack);
    free(S.pend);
    return status;
}

void fold_event_callbacks_set(OTF2_EvtReaderCallbacks *cbs)
{
    OTF2_EvtReaderCallbacks_SetMetricCallback(cbs, ev_metric);
    OTF2_EvtReaderCallbacks_SetCallingContextEnterCallback(cbs, ev_enter);
    OTF2_EvtReaderCallbacks_SetCallingContextLeaveCallback(cbs, ev_leave);
    OTF2_EvtReaderCallbacks_SetCallingContextSampleCallback(cbs, ev_sample);
    OTF2_EvtReaderCallbacks_SetProgramBeginCallback(cbs, ev_program_begin);
    OTF2_EvtReaderCallbacks_SetProgramEndCallback(cbs, ev_program_end);
}

void fold_location_arena_free(fold_location *L)
{
    chunk *c = L->arena;
    while (c) {
        chunk *next = c->next;
        free(c);
        c = next;
    }
    L->arena = NULL;
}
