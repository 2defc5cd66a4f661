/* tracestat.c: test tool that reads an hcatrace OTF2 archive with the OTF2
 * reader and prints facts the end-to-end tests assert on, one per line:
 *   location <id> rank <r> events <n> mpi_calls <n> balanced <yes|no> monotonic <yes|no>
 *            samples <n> program_begin <n> program_end <n>
 *   callsite <region> <caller> <file>:<line> <count>      (summed over locations)
 *   context <count> <region>@<file>:<line> < <fn>@<file>:<line> ...   (the same
 *       calling context's whole path, innermost first, to the root)
 *   comm <name> size <n>
 *   threads <loc> fork <n> join <n> team_begin <n> team_end <n> nesting <ok|bad>
 *       OpenMP records of the location (printed when it has any); nesting ok:
 *       every join closes a fork and every team end the innermost team begin
 *       of the same team, with region instances balanced inside, none left open
 *   records <kind> <count>                              (message and collective records)
 * Counters and samples (docs/trace-format.md, "Counters and samples"):
 *   metricclass <id> <kind: counters|sampling|tool> <member>,<member>,...
 *   counters <loc> metrics <n> classes <k> monotonic <yes|no> boundaries <n> with_counters <n>
 *            placement <ok|bad> first_class <id> mpi_enters_bare <n> mpi_leaves_bare <n>
 *       classes: counter-set classes used on the location; monotonic: no member
 *       ever decreases; with_counters: region events preceded by a counter
 *       Metric at their time; placement: every counter Metric is followed by a
 *       region or sample event, another Metric or the ProgramEnd, at its time;
 *       mpi_enters_bare: MPI call enters without counter values (written so
 *       after a short compute burst without a sample, hct_mpi_burst.h);
 *       mpi_leaves_bare: MPI call leaves without them (before a burst
 *       predicted short, hct_mpi_burst.h)
 *   counter <loc> <member> first <v> last <v> n <count>
 *   sampling <loc> <member>=<value> ...                  (last statistics of the location)
 *   tool <loc> metrics <n> monotonic <yes|no> <member>=<value> ...   (the tracer's own time, last values)
 *   region <name> instances <n> samples <n> [<member>=<sum of deltas> ...]
 *       summed over locations; samples taken inside the innermost open instance;
 *       deltas of members read at both ends of an instance
 *   thinned <region> instances <n> time_ns <t>    (HCATRACE::THINNED, summed over locations)
 *   stack <count> <fn>@<file>:<line> < <fn>@<file>:<line> ...   (leaf first, up to 8 frames)
 * Exit status 0 when the archive could be read, 1 otherwise.
 * Archive properties (the anchor file only):
 *   tracestat -P ARCHIVE        property <NAME> <value>, one per line, with '\' as
 *                               '\\' and newlines as '\n'
 *   tracestat -p NAME ARCHIVE   the value of one property, verbatim; exit
 *                               status 1 when the archive has no such property */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <otf2/otf2.h>

#include "hca_schema.h"
#include "hca_schema_read.h"

#define MAXDEPTH 256
#define MAXVALUES 256 /* metric members */
#define UNSET UINT64_MAX

typedef struct {
    uint64_t v[MAXVALUES]; /* by member; UNSET when not read */
} values_t;

typedef struct {
    uint64_t id;
    uint32_t group;
    uint64_t events, mpi_calls, samples, program_begin, program_end;
    uint32_t stack[MAXDEPTH];
    int depth, balanced, monotonic;
    /* OpenMP: fork/join and team begin/end counts; open teams (comm, region depth) */
    uint64_t forks, joins, team_begins, team_ends;
    int open_forks, nteams, threads_bad;
    uint32_t team_comm[MAXDEPTH];
    int team_depth[MAXDEPTH];
    uint64_t last_ts;
    /* counters */
    uint64_t metrics, boundaries, with_counters;
    uint64_t mpi_enters_bare; /* MPI call enters without counter values (after a short burst) */
    uint64_t mpi_leaves_bare; /* MPI call leaves without counter values (before a burst predicted short) */
    int counters_monotonic, placement_bad, pending; /* pending: a counter Metric awaits its event */
    uint64_t pending_ts, last_counter_ts;
    uint32_t classes_used; /* bit mask */
    int first_class;       /* of the first counter Metric */
    uint64_t first[MAXVALUES], last[MAXVALUES], nvalues[MAXVALUES];
    values_t at_boundary;   /* member values of the counter Metric at last_counter_ts */
    values_t *open_values;  /* per open region instance */
    uint64_t stats[MAXVALUES];
    int have_stats;
    /* the tracer's own time ("tool:" class) */
    uint64_t tool[MAXVALUES], tool_metrics;
    int tool_decreased;
} loc_t;

/* the global definitions: the schema's reading side (src/hca_schema_read.h) */
static hca_trace_defs D;

typedef struct {
    uint64_t *cc_count; /* region events per calling context */
    uint32_t ncc_count;
    loc_t *locs;
    uint32_t nlocs;
    uint64_t rec_send, rec_recv, rec_isend, rec_isend_complete, rec_irecv_request, rec_irecv, rec_coll_begin,
        rec_coll_end, rec_nbc_request, rec_nbc_complete;
} trace_t;

static trace_t T;

/* metrics and samples */
typedef struct {
    struct {
        uint8_t n;
        uint32_t members[64];
        int sampling; /* the sampling statistics class */
        int tool;     /* the tracer's own time */
    } *classes;
    uint64_t *cc_samples; /* samples per calling context, all locations */
    struct {
        uint64_t instances, samples;
        uint64_t delta[MAXVALUES];
        uint8_t has[MAXVALUES];
    } *region_stats; /* by region */
    uint32_t nclasses, ncc_samples, nregion_stats;
} metrics_t;

static metrics_t M;

#define GROW(arr, n, idx)                                                                        \
    do {                                                                                         \
        if ((idx) >= (n)) {                                                                      \
            uint32_t nn_ = (idx) + 1;                                                            \
            void *p_ = realloc((arr), nn_ * sizeof(*(arr)));                                     \
            if (!p_)                                                                             \
                abort();                                                                         \
            (arr) = p_;                                                                          \
            memset(&(arr)[(n)], 0, (nn_ - (n)) * sizeof(*(arr)));                                \
            (n) = nn_;                                                                           \
        }                                                                                        \
    } while (0)

static const char *str(uint32_t id)
{
    return hca_trace_defs_string(&D, id, "?");
}

/* The tool's tables from the definitions: locations in definition order,
 * metric classes (at most 64 members each) and what they hold. */
static void load_definitions(void)
{
    for (size_t i = 0; i < D.nlocations; i++) {
        uint32_t k = T.nlocs;
        GROW(T.locs, T.nlocs, k);
        T.locs[k].id = D.locations[i].id;
        T.locs[k].group = D.locations[i].group;
        T.locs[k].balanced = 1;
        T.locs[k].monotonic = 1;
        T.locs[k].counters_monotonic = 1;
    }
    if (D.nccs)
        GROW(T.cc_count, T.ncc_count, (uint32_t)D.nccs - 1);
    for (uint32_t c = 0; c < D.nclasses; c++) {
        GROW(M.classes, M.nclasses, c);
        M.classes[c].n = D.classes[c].n < 64 ? D.classes[c].n : 64;
        for (uint8_t k = 0; k < M.classes[c].n; k++)
            M.classes[c].members[k] = D.classes[c].members[k];
        M.classes[c].sampling = hca_trace_defs_class_is_stats(&D, c);
        M.classes[c].tool =
            M.classes[c].n && hca_is_tool_member(hca_trace_defs_member_name(&D, M.classes[c].members[0], "?"));
    }
}

static void event(loc_t *l, OTF2_TimeStamp ts)
{
    l->events++;
    if (ts < l->last_ts)
        l->monotonic = 0;
    l->last_ts = ts;
}

/* A region or sample event at ts: the counter Metric before it, if any. */
static int counted_event(loc_t *l, OTF2_TimeStamp ts)
{
    if (l->pending && l->pending_ts != ts)
        l->placement_bad = 1;
    l->pending = 0;
    return l->last_counter_ts == ts && l->metrics > 0;
}

static void region_stat_grow(uint32_t region)
{
    GROW(M.region_stats, M.nregion_stats, region);
}

static OTF2_CallbackCode ev_metric(OTF2_LocationRef loc, OTF2_TimeStamp ts, uint64_t pos, void *u,
                                   OTF2_AttributeList *a, OTF2_MetricRef metric, uint8_t n, const OTF2_Type *types,
                                   const OTF2_MetricValue *values)
{
    (void)loc;
    (void)pos;
    (void)a;
    (void)types;
    loc_t *l = u;
    event(l, ts);
    if (metric >= M.nclasses || M.classes[metric].n != n)
        return OTF2_CALLBACK_SUCCESS;
    if (M.classes[metric].sampling) {
        for (uint8_t k = 0; k < n; k++)
            if (M.classes[metric].members[k] < MAXVALUES)
                l->stats[M.classes[metric].members[k]] = values[k].unsigned_int;
        l->have_stats = 1;
        return OTF2_CALLBACK_SUCCESS;
    }
    if (M.classes[metric].tool) {
        for (uint8_t k = 0; k < n; k++) {
            uint32_t m = M.classes[metric].members[k];
            if (m >= MAXVALUES)
                continue;
            l->tool_decreased |= values[k].unsigned_int < l->tool[m];
            l->tool[m] = values[k].unsigned_int;
        }
        l->tool_metrics++;
        return OTF2_CALLBACK_SUCCESS;
    }
    if (l->pending && l->pending_ts != ts)
        l->placement_bad = 1;
    l->pending = 1;
    l->pending_ts = ts;
    if (l->last_counter_ts != ts || l->metrics == 0)
        for (int m = 0; m < MAXVALUES; m++)
            l->at_boundary.v[m] = UNSET;
    l->last_counter_ts = ts;
    if (l->metrics == 0)
        l->first_class = (int)metric;
    l->metrics++;
    if (metric < 32)
        l->classes_used |= 1u << metric;
    for (uint8_t k = 0; k < n; k++) {
        uint32_t m = M.classes[metric].members[k];
        if (m >= MAXVALUES)
            continue;
        uint64_t v = values[k].unsigned_int;
        if (l->nvalues[m] == 0)
            l->first[m] = v;
        else if (v < l->last[m])
            l->counters_monotonic = 0;
        l->last[m] = v;
        l->nvalues[m]++;
        l->at_boundary.v[m] = v;
    }
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_cc_enter(OTF2_LocationRef loc, OTF2_TimeStamp ts, uint64_t pos, void *u,
                                     OTF2_AttributeList *a, OTF2_CallingContextRef cc, uint32_t unwind)
{
    (void)loc;
    (void)pos;
    (void)a;
    (void)unwind;
    loc_t *l = u;
    event(l, ts);
    l->boundaries++;
    int counted = counted_event(l, ts);
    l->with_counters += counted;
    if (l->depth >= MAXDEPTH || cc >= D.nccs) {
        l->balanced = 0;
        return OTF2_CALLBACK_SUCCESS;
    }
    if (!l->open_values && !(l->open_values = calloc(MAXDEPTH, sizeof(values_t))))
        abort();
    for (int m = 0; m < MAXVALUES; m++)
        l->open_values[l->depth].v[m] = counted ? l->at_boundary.v[m] : UNSET;
    l->stack[l->depth++] = cc;
    T.cc_count[cc]++;
    uint32_t region = D.ccs[cc].region;
    if (region < D.nregions && D.regions[region].paradigm == OTF2_PARADIGM_MPI) {
        l->mpi_calls++;
        l->mpi_enters_bare += !counted;
    }
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_cc_leave(OTF2_LocationRef loc, OTF2_TimeStamp ts, uint64_t pos, void *u,
                                     OTF2_AttributeList *a, OTF2_CallingContextRef cc)
{
    (void)loc;
    (void)pos;
    (void)a;
    loc_t *l = u;
    event(l, ts);
    l->boundaries++;
    int counted = counted_event(l, ts);
    l->with_counters += counted;
    if (l->depth == 0 || l->stack[l->depth - 1] != cc) {
        l->balanced = 0;
        return OTF2_CALLBACK_SUCCESS;
    }
    l->depth--;
    uint32_t region = D.ccs[cc].region;
    if (region < D.nregions && D.regions[region].paradigm == OTF2_PARADIGM_MPI)
        l->mpi_leaves_bare += !counted;
    region_stat_grow(region);
    M.region_stats[region].instances++;
    for (int m = 0; counted && m < MAXVALUES; m++) {
        uint64_t b = l->open_values[l->depth].v[m], e = l->at_boundary.v[m];
        if (b != UNSET && e != UNSET) {
            M.region_stats[region].delta[m] += e - b;
            M.region_stats[region].has[m] = 1;
        }
    }
    return OTF2_CALLBACK_SUCCESS;
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
    loc_t *l = u;
    event(l, ts);
    counted_event(l, ts);
    l->samples++;
    GROW(M.cc_samples, M.ncc_samples, cc);
    M.cc_samples[cc]++;
    if (l->depth > 0) {
        uint32_t region = D.ccs[l->stack[l->depth - 1]].region;
        region_stat_grow(region);
        M.region_stats[region].samples++;
    }
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_enter(OTF2_LocationRef loc, OTF2_TimeStamp ts, uint64_t pos, void *u,
                                  OTF2_AttributeList *a, OTF2_RegionRef r)
{
    (void)loc;
    (void)pos;
    (void)a;
    (void)r;
    /* the schema records regions as calling-context events only */
    loc_t *l = u;
    event(l, ts);
    l->balanced = 0;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_program_begin(OTF2_LocationRef loc, OTF2_TimeStamp ts, uint64_t pos, void *u,
                                          OTF2_AttributeList *a, OTF2_StringRef name, uint32_t n,
                                          const OTF2_StringRef *args)
{
    (void)loc;
    (void)pos;
    (void)a;
    (void)name;
    (void)n;
    (void)args;
    loc_t *l = u;
    event(l, ts);
    l->program_begin++;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_program_end(OTF2_LocationRef loc, OTF2_TimeStamp ts, uint64_t pos, void *u,
                                        OTF2_AttributeList *a, int64_t status)
{
    (void)loc;
    (void)pos;
    (void)a;
    (void)status;
    loc_t *l = u;
    event(l, ts);
    counted_event(l, ts); /* the master's totals come with the end of the program */
    l->program_end++;
    return OTF2_CALLBACK_SUCCESS;
}

/* Message and collective records: counted, and timestamps checked. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#define COUNTING_CB(fn, counter, ...)                                                                      \
    static OTF2_CallbackCode fn(OTF2_LocationRef loc, OTF2_TimeStamp ts, uint64_t pos, void *u,           \
                                OTF2_AttributeList *a, __VA_ARGS__)                                       \
    {                                                                                                      \
        (void)loc;                                                                                         \
        (void)pos;                                                                                         \
        (void)a;                                                                                           \
        event(u, ts);                                                                                      \
        T.counter++;                                                                                       \
        return OTF2_CALLBACK_SUCCESS;                                                                      \
    }
COUNTING_CB(ev_send, rec_send, uint32_t r, OTF2_CommRef c, uint32_t t, uint64_t b)
COUNTING_CB(ev_recv, rec_recv, uint32_t r, OTF2_CommRef c, uint32_t t, uint64_t b)
COUNTING_CB(ev_isend, rec_isend, uint32_t r, OTF2_CommRef c, uint32_t t, uint64_t b, uint64_t q)
COUNTING_CB(ev_isend_complete, rec_isend_complete, uint64_t q)
COUNTING_CB(ev_irecv_request, rec_irecv_request, uint64_t q)
COUNTING_CB(ev_irecv, rec_irecv, uint32_t r, OTF2_CommRef c, uint32_t t, uint64_t b, uint64_t q)
COUNTING_CB(ev_coll_end, rec_coll_end, OTF2_CollectiveOp op, OTF2_CommRef c, uint32_t r, uint64_t s, uint64_t v)
COUNTING_CB(ev_nbc_request, rec_nbc_request, uint64_t q)
COUNTING_CB(ev_nbc_complete, rec_nbc_complete, OTF2_CollectiveOp op, OTF2_CommRef c, uint32_t r, uint64_t s,
            uint64_t v, uint64_t q)
#pragma GCC diagnostic pop

static OTF2_CallbackCode ev_coll_begin(OTF2_LocationRef loc, OTF2_TimeStamp ts, uint64_t pos, void *u,
                                       OTF2_AttributeList *a)
{
    (void)loc;
    (void)pos;
    (void)a;
    event(u, ts);
    T.rec_coll_begin++;
    return OTF2_CALLBACK_SUCCESS;
}

static const char *member(uint32_t m)
{
    return hca_trace_defs_member_name(&D, m, "?");
}

/* fn@file:line of a calling context */
static void print_frame(uint32_t cc)
{
    uint32_t region = D.ccs[cc].region, scl = D.ccs[cc].scl;
    printf("%s@%s:%u", region < D.nregions ? str(D.regions[region].name) : "?",
           scl < D.nscls ? str(D.scls[scl].file) : "-", scl < D.nscls ? D.scls[scl].line : 0);
}

/* ---- OpenMP thread records ---- */
static OTF2_CallbackCode ev_fork(OTF2_LocationRef loc, OTF2_TimeStamp ts, uint64_t pos, void *u, OTF2_AttributeList *a,
                                 OTF2_Paradigm paradigm, uint32_t requested)
{
    (void)loc;
    (void)pos;
    (void)a;
    (void)paradigm;
    (void)requested;
    loc_t *l = u;
    event(l, ts);
    l->forks++;
    l->open_forks++;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_join(OTF2_LocationRef loc, OTF2_TimeStamp ts, uint64_t pos, void *u, OTF2_AttributeList *a,
                                 OTF2_Paradigm paradigm)
{
    (void)loc;
    (void)pos;
    (void)a;
    (void)paradigm;
    loc_t *l = u;
    event(l, ts);
    l->joins++;
    if (l->open_forks-- <= 0)
        l->threads_bad = 1;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_team_begin(OTF2_LocationRef loc, OTF2_TimeStamp ts, uint64_t pos, void *u, OTF2_AttributeList *a,
                                       OTF2_CommRef team)
{
    (void)loc;
    (void)pos;
    (void)a;
    loc_t *l = u;
    event(l, ts);
    l->team_begins++;
    if (l->nteams >= MAXDEPTH) {
        l->threads_bad = 1;
        return OTF2_CALLBACK_SUCCESS;
    }
    l->team_comm[l->nteams] = team;
    l->team_depth[l->nteams++] = l->depth;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_team_end(OTF2_LocationRef loc, OTF2_TimeStamp ts, uint64_t pos, void *u, OTF2_AttributeList *a,
                                     OTF2_CommRef team)
{
    (void)loc;
    (void)pos;
    (void)a;
    loc_t *l = u;
    event(l, ts);
    l->team_ends++;
    if (l->nteams <= 0 || l->team_comm[l->nteams - 1] != team || l->team_depth[l->nteams - 1] != l->depth)
        l->threads_bad = 1;
    else
        l->nteams--;
    return OTF2_CALLBACK_SUCCESS;
}

static void print_counters_and_samples(void)
{
    for (uint32_t c = 0; c < M.nclasses; c++) {
        printf("metricclass %u %s ", c, M.classes[c].sampling ? "sampling" : M.classes[c].tool ? "tool" : "counters");
        for (uint8_t k = 0; k < M.classes[c].n; k++)
            printf("%s%s", k ? "," : "", member(M.classes[c].members[k]));
        printf("\n");
    }
    for (uint32_t i = 0; i < T.nlocs; i++) {
        const loc_t *l = &T.locs[i];
        if (l->metrics) {
            printf("counters %" PRIu64 " metrics %" PRIu64 " classes %d monotonic %s boundaries %" PRIu64
                   " with_counters %" PRIu64 " placement %s first_class %d mpi_enters_bare %" PRIu64
                   " mpi_leaves_bare %" PRIu64 "\n",
                   l->id, l->metrics, __builtin_popcount(l->classes_used), l->counters_monotonic ? "yes" : "no",
                   l->boundaries, l->with_counters, l->placement_bad || l->pending ? "bad" : "ok", l->first_class,
                   l->mpi_enters_bare, l->mpi_leaves_bare);
            for (uint32_t m = 0; m < D.nmembers && m < MAXVALUES; m++)
                if (l->nvalues[m])
                    printf("counter %" PRIu64 " %s first %" PRIu64 " last %" PRIu64 " n %" PRIu64 "\n", l->id,
                           member(m), l->first[m], l->last[m], l->nvalues[m]);
        }
        if (l->have_stats) {
            printf("sampling %" PRIu64, l->id);
            for (uint32_t m = 0; m < D.nmembers && m < MAXVALUES; m++)
                if (hca_is_stats_member(member(m)))
                    printf(" %s=%" PRIu64, member(m) + strlen(HCA_STATS_PREFIX), l->stats[m]);
            printf("\n");
        }
        if (l->tool_metrics) {
            printf("tool %" PRIu64 " metrics %" PRIu64 " monotonic %s", l->id, l->tool_metrics,
                   l->tool_decreased ? "no" : "yes");
            for (uint32_t m = 0; m < D.nmembers && m < MAXVALUES; m++)
                if (hca_is_tool_member(member(m)))
                    printf(" %s=%" PRIu64, member(m) + strlen(HCA_TOOL_PREFIX), l->tool[m]);
            printf("\n");
        }
    }
    for (uint32_t r = 0; r < M.nregion_stats; r++) {
        if (!M.region_stats[r].instances)
            continue;
        printf("region %s instances %" PRIu64 " samples %" PRIu64, r < D.nregions ? str(D.regions[r].name) : "?",
               M.region_stats[r].instances, M.region_stats[r].samples);
        for (uint32_t m = 0; m < D.nmembers && m < MAXVALUES; m++)
            if (M.region_stats[r].has[m])
                printf(" %s=%" PRIu64, member(m), M.region_stats[r].delta[m]);
        printf("\n");
    }
    for (size_t i = 0; i < D.nthinned; i++) {
        uint64_t n = 0, ns = 0;
        int seen = 0; /* summed at the region's first entry */
        for (size_t k = 0; k < i; k++)
            seen |= D.thinned[k].region == D.thinned[i].region;
        if (seen)
            continue;
        for (size_t k = i; k < D.nthinned; k++)
            if (D.thinned[k].region == D.thinned[i].region) {
                n += D.thinned[k].instances;
                ns += D.thinned[k].time_ns;
            }
        uint32_t r = D.thinned[i].region;
        printf("thinned %s instances %" PRIu64 " time_ns %" PRIu64 "\n", r < D.nregions ? str(D.regions[r].name) : "?",
               n, ns);
    }
    /* stacks: samples of contexts with the same symbolic path are summed */
    typedef struct {
        char *text;
        uint64_t n;
    } path_t;
    path_t *paths = NULL;
    uint32_t npaths = 0;
    for (uint32_t cc = 0; cc < M.ncc_samples; cc++) {
        if (!M.cc_samples[cc])
            continue;
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        if (!f)
            abort();
        FILE *saved = stdout;
        stdout = f;
        uint32_t c = cc;
        for (int d = 0; d < 8 && c < D.nccs; d++, c = D.ccs[c].parent) {
            if (d)
                printf(" < ");
            print_frame(c);
        }
        stdout = saved;
        fclose(f);
        uint32_t p = 0;
        while (p < npaths && strcmp(paths[p].text, buf) != 0)
            p++;
        if (p == npaths) {
            path_t *np = realloc(paths, (npaths + 1) * sizeof(*np));
            if (!np)
                abort();
            paths = np;
            paths[npaths].text = buf;
            paths[npaths++].n = 0;
        } else {
            free(buf);
        }
        paths[p].n += M.cc_samples[cc];
    }
    for (uint32_t p = 0; p < npaths; p++) {
        printf("stack %" PRIu64 " %s\n", paths[p].n, paths[p].text);
        free(paths[p].text);
    }
    free(paths);
}

/* members of a group; COMM_SELF has one */
static uint32_t group_size(uint32_t group)
{
    if (group >= D.ngroups)
        return 0;
    return D.groups[group].type == OTF2_GROUP_TYPE_COMM_SELF ? 1 : D.groups[group].size;
}

/* -P: every property, escaped; -p NAME: one, verbatim */
static int print_properties(const char *archive, const char *only)
{
    OTF2_Reader *r = OTF2_Reader_Open(archive);
    if (!r) {
        fprintf(stderr, "tracestat: cannot open %s\n", archive);
        return 1;
    }
    hca_properties props;
    int status = only ? 1 : 0;
    if (hca_read_properties(r, &props) != 0) {
        fprintf(stderr, "tracestat: out of memory reading the properties of %s\n", archive);
        status = 1;
    }
    for (size_t i = 0; i < props.n; i++) {
        const char *value = props.values[i];
        if (only && strcmp(props.names[i], only) != 0)
            continue;
        if (only) {
            fputs(value, stdout);
            status = 0;
        } else {
            printf("property %s ", props.names[i]);
            for (const char *c = value; *c; c++)
                if (*c == '\\')
                    fputs("\\\\", stdout);
                else if (*c == '\n')
                    fputs("\\n", stdout);
                else
                    putchar(*c);
            putchar('\n');
        }
    }
    hca_properties_free(&props);
    OTF2_Reader_Close(r);
    return status;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "-P") == 0)
        return print_properties(argv[2], NULL);
    if (argc == 4 && strcmp(argv[1], "-p") == 0)
        return print_properties(argv[3], argv[2]);
    if (argc != 2) {
        fprintf(stderr, "usage: tracestat ARCHIVE/traces.otf2 | -P ARCHIVE | -p NAME ARCHIVE\n");
        return 2;
    }
    OTF2_Reader *r = OTF2_Reader_Open(argv[1]);
    if (!r || OTF2_Reader_SetSerialCollectiveCallbacks(r) != OTF2_SUCCESS) {
        fprintf(stderr, "tracestat: cannot open %s\n", argv[1]);
        return 1;
    }
    OTF2_GlobalDefReader *gd = OTF2_Reader_GetGlobalDefReader(r);
    OTF2_ErrorCode rc = gd ? hca_read_global_defs(r, gd, &D) : OTF2_ERROR_FILE_CAN_NOT_OPEN;
    if (gd)
        OTF2_Reader_CloseGlobalDefReader(r, gd);
    if (rc != OTF2_SUCCESS) {
        fprintf(stderr, "tracestat: cannot read definitions of %s\n", argv[1]);
        return 1;
    }
    load_definitions();

    for (uint32_t i = 0; i < T.nlocs; i++)
        OTF2_Reader_SelectLocation(r, T.locs[i].id);
    int have_defs = OTF2_Reader_OpenDefFiles(r) == OTF2_SUCCESS;
    OTF2_Reader_OpenEvtFiles(r);
    OTF2_EvtReaderCallbacks *ecb = OTF2_EvtReaderCallbacks_New();
    OTF2_EvtReaderCallbacks_SetCallingContextEnterCallback(ecb, ev_cc_enter);
    OTF2_EvtReaderCallbacks_SetCallingContextLeaveCallback(ecb, ev_cc_leave);
    OTF2_EvtReaderCallbacks_SetCallingContextSampleCallback(ecb, ev_sample);
    OTF2_EvtReaderCallbacks_SetEnterCallback(ecb, ev_enter);
    OTF2_EvtReaderCallbacks_SetProgramBeginCallback(ecb, ev_program_begin);
    OTF2_EvtReaderCallbacks_SetProgramEndCallback(ecb, ev_program_end);
    OTF2_EvtReaderCallbacks_SetMetricCallback(ecb, ev_metric);
    OTF2_EvtReaderCallbacks_SetMpiSendCallback(ecb, ev_send);
    OTF2_EvtReaderCallbacks_SetMpiRecvCallback(ecb, ev_recv);
    OTF2_EvtReaderCallbacks_SetMpiIsendCallback(ecb, ev_isend);
    OTF2_EvtReaderCallbacks_SetMpiIsendCompleteCallback(ecb, ev_isend_complete);
    OTF2_EvtReaderCallbacks_SetMpiIrecvRequestCallback(ecb, ev_irecv_request);
    OTF2_EvtReaderCallbacks_SetMpiIrecvCallback(ecb, ev_irecv);
    OTF2_EvtReaderCallbacks_SetMpiCollectiveBeginCallback(ecb, ev_coll_begin);
    OTF2_EvtReaderCallbacks_SetMpiCollectiveEndCallback(ecb, ev_coll_end);
    OTF2_EvtReaderCallbacks_SetNonBlockingCollectiveRequestCallback(ecb, ev_nbc_request);
    OTF2_EvtReaderCallbacks_SetNonBlockingCollectiveCompleteCallback(ecb, ev_nbc_complete);
    OTF2_EvtReaderCallbacks_SetThreadForkCallback(ecb, ev_fork);
    OTF2_EvtReaderCallbacks_SetThreadJoinCallback(ecb, ev_join);
    OTF2_EvtReaderCallbacks_SetThreadTeamBeginCallback(ecb, ev_team_begin);
    OTF2_EvtReaderCallbacks_SetThreadTeamEndCallback(ecb, ev_team_end);
    int status = 0;
    for (uint32_t i = 0; i < T.nlocs; i++) {
        loc_t *l = &T.locs[i];
        if (have_defs) {
            OTF2_DefReader *d = OTF2_Reader_GetDefReader(r, l->id);
            if (d) {
                uint64_t n;
                OTF2_Reader_ReadAllLocalDefinitions(r, d, &n);
                OTF2_Reader_CloseDefReader(r, d);
            }
        }
        OTF2_EvtReader *e = OTF2_Reader_GetEvtReader(r, l->id);
        if (!e) {
            status = 1;
            continue;
        }
        /* raw local clock: monotonicity is a property of each location's writer */
        OTF2_EvtReader_ApplyClockOffsets(e, false);
        OTF2_Reader_RegisterEvtCallbacks(r, e, ecb, l);
        uint64_t n;
        if (OTF2_Reader_ReadAllLocalEvents(r, e, &n) != OTF2_SUCCESS)
            status = 1;
        OTF2_Reader_CloseEvtReader(r, e);
        if (l->depth != 0)
            l->balanced = 0;
    }
    OTF2_EvtReaderCallbacks_Delete(ecb);
    if (have_defs)
        OTF2_Reader_CloseDefFiles(r);
    OTF2_Reader_CloseEvtFiles(r);
    OTF2_Reader_Close(r);

    printf("locations %u\n", T.nlocs);
    for (uint32_t i = 0; i < T.nlocs; i++) {
        const loc_t *l = &T.locs[i];
        printf("location %" PRIu64 " rank %u events %" PRIu64 " mpi_calls %" PRIu64
               " balanced %s monotonic %s samples %" PRIu64 " program_begin %" PRIu64 " program_end %" PRIu64 "\n",
               l->id, l->group, l->events, l->mpi_calls, l->balanced ? "yes" : "no", l->monotonic ? "yes" : "no",
               l->samples, l->program_begin, l->program_end);
    }
    for (uint32_t i = 0; i < T.nlocs; i++) {
        const loc_t *l = &T.locs[i];
        if (l->forks || l->joins || l->team_begins || l->team_ends)
            printf("threads %" PRIu64 " fork %" PRIu64 " join %" PRIu64 " team_begin %" PRIu64 " team_end %" PRIu64
                   " nesting %s\n",
                   l->id, l->forks, l->joins, l->team_begins, l->team_ends,
                   l->threads_bad || l->open_forks || l->nteams ? "bad" : "ok");
    }
    for (uint32_t i = 0; i < D.nccs; i++) {
        if (!T.cc_count[i])
            continue;
        uint32_t region = D.ccs[i].region, parent = D.ccs[i].parent;
        const char *caller = "-", *file = "-";
        uint32_t line = 0;
        if (parent < D.nccs) {
            caller = str(D.regions[D.ccs[parent].region].name);
            uint32_t scl = D.ccs[parent].scl;
            if (scl < D.nscls) {
                file = str(D.scls[scl].file);
                line = D.scls[scl].line;
            }
        }
        printf("callsite %s %s %s:%u %" PRIu64 "\n", str(D.regions[region].name), caller, file, line, T.cc_count[i]);
        printf("context %" PRIu64 " ", T.cc_count[i]);
        print_frame(i);
        for (uint32_t c = parent, k = 0; c < D.nccs && k < D.nccs; c = D.ccs[c].parent, k++) {
            printf(" < ");
            print_frame(c);
        }
        printf("\n");
    }
    print_counters_and_samples();
    for (uint32_t i = 0; i < D.ncomms; i++)
        printf("comm %s size %u\n", str(D.comms[i].name),
               group_size(D.comms[i].group));
    printf("records send %" PRIu64 "\nrecords recv %" PRIu64 "\nrecords isend %" PRIu64
           "\nrecords isend_complete %" PRIu64 "\nrecords irecv_request %" PRIu64 "\nrecords irecv %" PRIu64
           "\nrecords collective_begin %" PRIu64 "\nrecords collective_end %" PRIu64
           "\nrecords nbc_request %" PRIu64 "\nrecords nbc_complete %" PRIu64 "\n",
           T.rec_send, T.rec_recv, T.rec_isend, T.rec_isend_complete, T.rec_irecv_request, T.rec_irecv,
           T.rec_coll_begin, T.rec_coll_end, T.rec_nbc_request, T.rec_nbc_complete);
    return status;
}
