/* score.c: `hcafold --score TRACE` (score.h), what tracing cost per region, as
 * scorep-score reports for Score-P. One pass over every location's events with
 * the OTF2 reader:
 * - bytes: each record's size in the event files, from OTF2's encoding (a
 *   type byte, a record-length byte, compressed integers: a length byte and
 *   the value's significant bytes, 0 and the undefined value in one byte; a
 *   9-byte timestamp record before each event whose time differs from the
 *   previous one). A region's bytes are its CallingContextEnter/Leave, the
 *   Metric records written with them (counter values, the tracer's time), the
 *   MPI and OpenMP records inside its instances; samples and the rest are rows
 *   of their own. The event files' real size is printed beside the estimate.
 * - the tracer's time: measured in the trace itself where it records it
 *   ("tool:time", written with every boundary and sample): the increase from
 *   one such value to the next is the work between them; the increase ending
 *   at a region's boundary, when no sample lies between, is that boundary's
 *   cost; the rest of the location's total is the samples'. Without it, the
 *   costs per boundary and sample of docs/benchmarks.md.
 * - HCATRACE_THIN N,DURATION: the instances it would not write (after the
 *   first N per location and key, shorter than DURATION, holding no sample and
 *   nothing nested) and their records; HCATRACE_FILTER: the records of the
 *   regions it names. Both act on OpenMP constructs and user regions only.
 * - the suggested filter: those regions with at least 1 % of the bytes whose
 *   instances last less than 10 times the tracer's time per instance. */
#include "score.h"

#include <dirent.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <otf2/otf2.h>

#include "hca_schema.h"
#include "hca_schema_read.h"
#include "../instrument/hct_filter.h" /* HCATRACE_FILTER's parsing and matching, the tracer's own */

#define MAX_DEPTH 256
#define TS_BYTES 9          /* OTF2_BUFFER_TIMESTAMP and the full 64-bit time */
#define HEADER_BYTES 2      /* record type and one-byte record length */
/* docs/benchmarks.md, for traces without the tracer's time: a region boundary
 * with software counters (one read()), without counters, one sample */
#define COST_BOUNDARY_COUNTERS_NS 1000.0
#define COST_BOUNDARY_NS 150.0
#define COST_SAMPLE_NS 45000.0
#define SUGGEST_SHARE 0.01  /* of the trace's bytes */
#define SUGGEST_RATIO 10.0  /* instances shorter than this many times their cost */

#define HIST_BINS 64 /* instance durations: bin k holds [2^k, 2^(k+1)) ns */

typedef struct {
    uint64_t visits, boundaries, clean_boundaries, thinned, thin_visits;
    double bytes, thin_bytes, time_ns, clean_tool_ns;
    uint64_t hist[HIST_BINS];
    int filterable; /* HCATRACE_FILTER and HCATRACE_THIN act on it */
    int thinnable;  /* HCATRACE_THIN acts on it (also OpenMP parallel regions) */
} score_region;

typedef struct {
    uint32_t region;
    uint64_t t0, index, tool0; /* tool0: the tracer's time at the enter */
    double bytes;
    int held; /* a sample landed in it or an instance nested in it */
} score_frame;

typedef struct {
    hca_trace_defs D;
    score_region *regions;
    int8_t *class_kind;    /* per metric class: 0 counters, 1 tool time, 2 statistics */
    int *class_tool;       /* member index of tool:time in a tool class */
    /* the location being read */
    uint64_t last_ts, last_tool;
    int have_ts, have_tool, prev_was_sample;
    double pending, tool_delta;
    int tool_pending;
    score_frame stack[MAX_DEPTH];
    int depth;
    uint64_t *instances; /* per region: instances entered on this location */
    /* totals */
    uint64_t samples;
    double sample_bytes, other_bytes, tool_total_ns;
    int has_tool, has_counters;
    unsigned long thin_first;
    unsigned long long thin_ns;
} score_state;

static int nbytes64(uint64_t v)
{
    int n = 1;
    while (n < 8 && (v >> (8 * n)) != 0)
        n++;
    return n;
}

/* OTF2's compressed unsigned integers */
static double cu32(uint32_t v)
{
    return v == 0 || v == UINT32_MAX ? 1 : 1 + nbytes64(v);
}

static double cu64(uint64_t v)
{
    return v == 0 || v == UINT64_MAX ? 1 : 1 + nbytes64(v);
}

static double ts_bytes(score_state *S, uint64_t ts)
{
    double b = !S->have_ts || ts > S->last_ts ? TS_BYTES : 0;
    S->have_ts = 1;
    S->last_ts = ts;
    return b;
}

static uint32_t region_of_cc(const score_state *S, uint32_t cc)
{
    return cc < S->D.nccs && S->D.ccs[cc].defined && S->D.ccs[cc].region < S->D.nregions ? S->D.ccs[cc].region
                                                                                          : UINT32_MAX;
}

/* bytes of a record inside the innermost open instance (MPI, OpenMP records) */
static void inside(score_state *S, double bytes)
{
    if (S->depth > 0) {
        score_frame *f = &S->stack[S->depth - 1];
        f->bytes += bytes;
        S->regions[f->region].bytes += bytes;
    } else {
        S->other_bytes += bytes;
    }
}

/* the tracer's time up to a boundary of region r (UINT32_MAX: a sample) */
static void tool_at(score_state *S, uint32_t r)
{
    if (!S->tool_pending)
        return;
    S->tool_pending = 0;
    if (r != UINT32_MAX && !S->prev_was_sample) {
        S->regions[r].clean_tool_ns += S->tool_delta;
        S->regions[r].clean_boundaries++;
    }
    S->prev_was_sample = r == UINT32_MAX;
}

static OTF2_CallbackCode on_metric(OTF2_LocationRef loc, OTF2_TimeStamp ts, uint64_t pos, void *u,
                                   OTF2_AttributeList *a, OTF2_MetricRef metric, uint8_t n, const OTF2_Type *types,
                                   const OTF2_MetricValue *values)
{
    (void)loc, (void)pos, (void)a;
    score_state *S = u;
    double b = ts_bytes(S, ts) + HEADER_BYTES + cu32(metric) + 1 + n;
    for (uint8_t i = 0; i < n; i++)
        b += types[i] == OTF2_TYPE_DOUBLE ? 8 : cu64(values[i].unsigned_int);
    S->pending += b;
    if (metric < S->D.nclasses && S->class_kind[metric] == 1) {
        int k = S->class_tool[metric];
        if (k >= 0 && k < n && types[k] == OTF2_TYPE_UINT64) {
            uint64_t v = values[k].unsigned_int;
            S->tool_delta = S->have_tool && v > S->last_tool ? (double)(v - S->last_tool) : 0;
            S->tool_pending = S->have_tool;
            S->have_tool = 1;
            S->last_tool = v;
        }
    } else if (metric < S->D.nclasses && S->class_kind[metric] == 0) {
        S->has_counters = 1;
    }
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_enter(OTF2_LocationRef loc, OTF2_TimeStamp ts, uint64_t pos, void *u,
                                  OTF2_AttributeList *a, OTF2_CallingContextRef cc, uint32_t unwind)
{
    (void)loc, (void)pos, (void)a;
    score_state *S = u;
    double b = ts_bytes(S, ts) + HEADER_BYTES + cu32(cc) + cu32(unwind) + S->pending;
    S->pending = 0;
    uint32_t r = region_of_cc(S, cc);
    if (r == UINT32_MAX || S->depth >= MAX_DEPTH) {
        S->other_bytes += b;
        return OTF2_CALLBACK_SUCCESS;
    }
    tool_at(S, r);
    score_region *R = &S->regions[r];
    R->visits++;
    R->boundaries++;
    R->bytes += b;
    S->stack[S->depth++] = (score_frame){ r, ts, ++S->instances[r], S->last_tool, b, 0 };
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_leave(OTF2_LocationRef loc, OTF2_TimeStamp ts, uint64_t pos, void *u,
                                  OTF2_AttributeList *a, OTF2_CallingContextRef cc)
{
    (void)loc, (void)pos, (void)a;
    score_state *S = u;
    double b = ts_bytes(S, ts) + HEADER_BYTES + cu32(cc) + S->pending;
    S->pending = 0;
    uint32_t r = region_of_cc(S, cc);
    if (r == UINT32_MAX || S->depth == 0 || S->stack[S->depth - 1].region != r) {
        S->other_bytes += b;
        return OTF2_CALLBACK_SUCCESS;
    }
    tool_at(S, r);
    score_frame *f = &S->stack[--S->depth];
    score_region *R = &S->regions[r];
    R->boundaries++;
    R->bytes += b;
    f->bytes += b;
    /* its duration as if untraced: without the tracer's time inside it */
    uint64_t d = ts - f->t0, tool = S->have_tool && S->last_tool > f->tool0 ? S->last_tool - f->tool0 : 0;
    d = d > tool ? d - tool : 0;
    R->time_ns += (double)d;
    R->hist[d ? 63 - __builtin_clzll(d) : 0]++;
    /* HCATRACE_THIN: not written unless it lasts, holds a sample or holds a
     * written instance; a written one holds its parent */
    if (R->thinnable && f->index > S->thin_first && d < S->thin_ns && !f->held) {
        R->thin_visits++;
        R->thin_bytes += f->bytes;
    } else if (S->depth > 0) {
        S->stack[S->depth - 1].held = 1;
    }
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_sample(OTF2_LocationRef loc, OTF2_TimeStamp ts, uint64_t pos, void *u,
                                   OTF2_AttributeList *a, OTF2_CallingContextRef cc, uint32_t unwind,
                                   OTF2_InterruptGeneratorRef igen)
{
    (void)loc, (void)pos, (void)a;
    score_state *S = u;
    S->sample_bytes += ts_bytes(S, ts) + HEADER_BYTES + cu32(cc) + cu32(unwind) + cu32(igen) + S->pending;
    S->pending = 0;
    S->samples++;
    tool_at(S, UINT32_MAX);
    for (int i = 0; i < S->depth; i++)
        S->stack[i].held = 1;
    return OTF2_CALLBACK_SUCCESS;
}

/* records with no bytes of their own beyond the header and these fields */
static void record(score_state *S, uint64_t ts, double fields)
{
    inside(S, ts_bytes(S, ts) + HEADER_BYTES + fields);
}

static OTF2_CallbackCode on_send(OTF2_LocationRef l, OTF2_TimeStamp ts, uint64_t p, void *u, OTF2_AttributeList *a,
                                 uint32_t peer, OTF2_CommRef comm, uint32_t tag, uint64_t len)
{
    (void)l, (void)p, (void)a;
    record(u, ts, cu32(peer) + cu32(comm) + cu32(tag) + cu64(len));
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_isend(OTF2_LocationRef l, OTF2_TimeStamp ts, uint64_t p, void *u, OTF2_AttributeList *a,
                                  uint32_t peer, OTF2_CommRef comm, uint32_t tag, uint64_t len, uint64_t req)
{
    (void)l, (void)p, (void)a;
    record(u, ts, cu32(peer) + cu32(comm) + cu32(tag) + cu64(len) + cu64(req));
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_request(OTF2_LocationRef l, OTF2_TimeStamp ts, uint64_t p, void *u,
                                    OTF2_AttributeList *a, uint64_t req)
{
    (void)l, (void)p, (void)a;
    record(u, ts, cu64(req));
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_coll_begin(OTF2_LocationRef l, OTF2_TimeStamp ts, uint64_t p, void *u,
                                       OTF2_AttributeList *a)
{
    (void)l, (void)p, (void)a;
    record(u, ts, 0);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_coll_end(OTF2_LocationRef l, OTF2_TimeStamp ts, uint64_t p, void *u,
                                     OTF2_AttributeList *a, OTF2_CollectiveOp op, OTF2_CommRef comm, uint32_t root,
                                     uint64_t sent, uint64_t received)
{
    (void)l, (void)p, (void)a, (void)op;
    record(u, ts, 1 + cu32(comm) + cu32(root) + cu64(sent) + cu64(received));
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_nbc_complete(OTF2_LocationRef l, OTF2_TimeStamp ts, uint64_t p, void *u,
                                         OTF2_AttributeList *a, OTF2_CollectiveOp op, OTF2_CommRef comm,
                                         uint32_t root, uint64_t sent, uint64_t received, uint64_t req)
{
    (void)l, (void)p, (void)a, (void)op;
    record(u, ts, 1 + cu32(comm) + cu32(root) + cu64(sent) + cu64(received) + cu64(req));
    return OTF2_CALLBACK_SUCCESS;
}

/* a fork and a team's begin come before the parallel region's enter: its bytes */
static OTF2_CallbackCode on_fork(OTF2_LocationRef l, OTF2_TimeStamp ts, uint64_t p, void *u, OTF2_AttributeList *a,
                                 OTF2_Paradigm model, uint32_t nthreads)
{
    (void)l, (void)p, (void)a, (void)model;
    score_state *S = u;
    S->pending += ts_bytes(S, ts) + HEADER_BYTES + 1 + cu32(nthreads);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_join(OTF2_LocationRef l, OTF2_TimeStamp ts, uint64_t p, void *u, OTF2_AttributeList *a,
                                 OTF2_Paradigm model)
{
    (void)l, (void)p, (void)a, (void)model;
    record(u, ts, 1);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_team_begin(OTF2_LocationRef l, OTF2_TimeStamp ts, uint64_t p, void *u,
                                       OTF2_AttributeList *a, OTF2_CommRef team)
{
    (void)l, (void)p, (void)a;
    score_state *S = u;
    S->pending += ts_bytes(S, ts) + HEADER_BYTES + cu32(team);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_team_end(OTF2_LocationRef l, OTF2_TimeStamp ts, uint64_t p, void *u,
                                     OTF2_AttributeList *a, OTF2_CommRef team)
{
    (void)l, (void)p, (void)a;
    record(u, ts, cu32(team));
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_program_begin(OTF2_LocationRef l, OTF2_TimeStamp ts, uint64_t p, void *u,
                                          OTF2_AttributeList *a, OTF2_StringRef name, uint32_t nargs,
                                          const OTF2_StringRef *args)
{
    (void)l, (void)p, (void)a;
    score_state *S = u;
    double b = ts_bytes(S, ts) + HEADER_BYTES + cu32(name) + cu32(nargs);
    for (uint32_t i = 0; i < nargs; i++)
        b += cu32(args[i]);
    S->other_bytes += b;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_program_end(OTF2_LocationRef l, OTF2_TimeStamp ts, uint64_t p, void *u,
                                        OTF2_AttributeList *a, int64_t status)
{
    (void)l, (void)p, (void)a;
    score_state *S = u;
    /* compressed like an unsigned integer; undefined (INT64_MIN, a thread's end) in one byte */
    uint64_t magnitude = status < 0 ? 0 - (uint64_t)status : (uint64_t)status;
    S->other_bytes += ts_bytes(S, ts) + HEADER_BYTES + (status == INT64_MIN ? 1 : cu64(magnitude));
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_flush(OTF2_LocationRef l, OTF2_TimeStamp ts, uint64_t p, void *u, OTF2_AttributeList *a,
                                  OTF2_TimeStamp stop)
{
    (void)l, (void)p, (void)a, (void)stop;
    score_state *S = u;
    S->other_bytes += ts_bytes(S, ts) + HEADER_BYTES + 8;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_EvtReaderCallbacks *callbacks(void)
{
    OTF2_EvtReaderCallbacks *c = OTF2_EvtReaderCallbacks_New();
    if (!c)
        return NULL;
    OTF2_EvtReaderCallbacks_SetMetricCallback(c, on_metric);
    OTF2_EvtReaderCallbacks_SetCallingContextEnterCallback(c, on_enter);
    OTF2_EvtReaderCallbacks_SetCallingContextLeaveCallback(c, on_leave);
    OTF2_EvtReaderCallbacks_SetCallingContextSampleCallback(c, on_sample);
    OTF2_EvtReaderCallbacks_SetMpiSendCallback(c, on_send);
    OTF2_EvtReaderCallbacks_SetMpiRecvCallback(c, on_send);
    OTF2_EvtReaderCallbacks_SetMpiIsendCallback(c, on_isend);
    OTF2_EvtReaderCallbacks_SetMpiIrecvCallback(c, on_isend);
    OTF2_EvtReaderCallbacks_SetMpiIsendCompleteCallback(c, on_request);
    OTF2_EvtReaderCallbacks_SetMpiIrecvRequestCallback(c, on_request);
    OTF2_EvtReaderCallbacks_SetMpiRequestCancelledCallback(c, on_request);
    OTF2_EvtReaderCallbacks_SetNonBlockingCollectiveRequestCallback(c, on_request);
    OTF2_EvtReaderCallbacks_SetMpiCollectiveBeginCallback(c, on_coll_begin);
    OTF2_EvtReaderCallbacks_SetMpiCollectiveEndCallback(c, on_coll_end);
    OTF2_EvtReaderCallbacks_SetNonBlockingCollectiveCompleteCallback(c, on_nbc_complete);
    OTF2_EvtReaderCallbacks_SetThreadForkCallback(c, on_fork);
    OTF2_EvtReaderCallbacks_SetThreadJoinCallback(c, on_join);
    OTF2_EvtReaderCallbacks_SetThreadTeamBeginCallback(c, on_team_begin);
    OTF2_EvtReaderCallbacks_SetThreadTeamEndCallback(c, on_team_end);
    OTF2_EvtReaderCallbacks_SetProgramBeginCallback(c, on_program_begin);
    OTF2_EvtReaderCallbacks_SetProgramEndCallback(c, on_program_end);
    OTF2_EvtReaderCallbacks_SetBufferFlushCallback(c, on_flush);
    return c;
}

/* what each metric class is, and which regions HCATRACE_THIN and _FILTER act on */
static int classify(score_state *S)
{
    hca_trace_defs *D = &S->D;
    S->regions = calloc(D->nregions + 1, sizeof(*S->regions));
    S->instances = calloc(D->nregions + 1, sizeof(*S->instances));
    S->class_kind = calloc(D->nclasses + 1, sizeof(*S->class_kind));
    S->class_tool = calloc(D->nclasses + 1, sizeof(*S->class_tool));
    if (!S->regions || !S->instances || !S->class_kind || !S->class_tool)
        return -1;
    for (size_t k = 0; k < D->nclasses; k++) {
        S->class_tool[k] = -1;
        for (uint8_t m = 0; D->classes[k].defined && m < D->classes[k].n; m++) {
            const char *name = hca_trace_defs_member_name(D, D->classes[k].members[m], "");
            if (hca_is_stats_member(name))
                S->class_kind[k] = 2;
            else if (hca_is_tool_member(name))
                S->class_kind[k] = 1;
            if (strcmp(name, HCA_TOOL_TIME) == 0)
                S->class_tool[k] = m;
        }
        S->has_tool |= S->class_tool[k] >= 0;
    }
    for (size_t r = 0; r < D->nregions; r++) {
        const hca_read_region *R = &D->regions[r];
        S->regions[r].filterable = R->defined && (R->paradigm == OTF2_PARADIGM_USER ||
                                                  (R->paradigm == OTF2_PARADIGM_OPENMP &&
                                                   R->role != OTF2_REGION_ROLE_PARALLEL));
        S->regions[r].thinnable = R->defined && (R->paradigm == OTF2_PARADIGM_USER || R->paradigm == OTF2_PARADIGM_OPENMP);
    }
    for (size_t i = 0; i < D->nthinned; i++)
        if (D->thinned[i].region < D->nregions)
            S->regions[D->thinned[i].region].thinned += D->thinned[i].instances;
    return 0;
}

static int read_events(score_state *S, OTF2_Reader *r)
{
    hca_trace_defs *D = &S->D;
    for (size_t i = 0; i < D->nlocations; i++)
        OTF2_Reader_SelectLocation(r, D->locations[i].id);
    int have_defs = OTF2_Reader_OpenDefFiles(r) == OTF2_SUCCESS;
    OTF2_Reader_OpenEvtFiles(r);
    OTF2_EvtReaderCallbacks *cb = callbacks();
    int status = cb ? 0 : -1;
    for (size_t i = 0; cb && i < D->nlocations; i++) {
        uint64_t id = D->locations[i].id, n;
        if (have_defs) {
            OTF2_DefReader *d = OTF2_Reader_GetDefReader(r, id);
            if (d) {
                OTF2_Reader_ReadAllLocalDefinitions(r, d, &n);
                OTF2_Reader_CloseDefReader(r, d);
            }
        }
        OTF2_EvtReader *e = OTF2_Reader_GetEvtReader(r, id);
        if (!e) {
            status = -1;
            continue;
        }
        OTF2_EvtReader_ApplyClockOffsets(e, false);
        S->have_ts = S->have_tool = S->tool_pending = S->prev_was_sample = S->depth = 0;
        S->last_tool = 0;
        S->pending = 0;
        memset(S->instances, 0, (D->nregions + 1) * sizeof(*S->instances));
        OTF2_Reader_RegisterEvtCallbacks(r, e, cb, S);
        if (OTF2_Reader_ReadAllLocalEvents(r, e, &n) != OTF2_SUCCESS)
            status = -1;
        OTF2_Reader_CloseEvtReader(r, e);
        S->other_bytes += S->pending;
        if (S->have_tool)
            S->tool_total_ns += (double)S->last_tool;
    }
    if (cb)
        OTF2_EvtReaderCallbacks_Delete(cb);
    if (have_defs)
        OTF2_Reader_CloseDefFiles(r);
    OTF2_Reader_CloseEvtFiles(r);
    return status;
}

/* bytes of DIR/traces/ (*.evt), where DIR holds the anchor file at path */
static double event_file_bytes(const char *path)
{
    char dir[4096];
    const char *slash = strrchr(path, '/');
    int n = slash ? snprintf(dir, sizeof(dir), "%.*s/traces", (int)(slash - path), path)
                  : snprintf(dir, sizeof(dir), "traces");
    if (n < 0 || (size_t)n >= sizeof(dir))
        return 0;
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    double total = 0;
    const struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        size_t len = strlen(de->d_name);
        char file[4400];
        struct stat st;
        if (len > 4 && strcmp(de->d_name + len - 4, ".evt") == 0 &&
            snprintf(file, sizeof(file), "%s/%s", dir, de->d_name) < (int)sizeof(file) && stat(file, &st) == 0)
            total += (double)st.st_size;
    }
    closedir(d);
    return total;
}

/* the tracer's time per region: measured boundaries scaled to all of them,
 * or the documented costs */
static double region_tool_ns(const score_state *S, const score_region *R)
{
    if (S->has_tool)
        return R->clean_boundaries ? R->clean_tool_ns * (double)R->boundaries / (double)R->clean_boundaries : 0;
    return (double)R->boundaries * (S->has_counters ? COST_BOUNDARY_COUNTERS_NS : COST_BOUNDARY_NS);
}

static const char *region_type(const hca_read_region *R)
{
    if (R->paradigm == OTF2_PARADIGM_MPI)
        return "MPI";
    if (R->paradigm == OTF2_PARADIGM_OPENMP)
        return R->role == OTF2_REGION_ROLE_PARALLEL ? "OMP-PAR" : "OMP";
    return R->paradigm == OTF2_PARADIGM_USER ? "USR" : "OTHER";
}

static int by_bytes(const void *a, const void *b, void *u)
{
    const score_region *R = u;
    double x = R[*(const size_t *)a].bytes, y = R[*(const size_t *)b].bytes;
    return x < y ? 1 : x > y ? -1 : 0;
}

static void sort_regions(size_t *order, size_t n, score_region *R)
{
    qsort_r(order, n, sizeof(*order), by_bytes, R);
}

/* the median instance's duration, ns (the upper end of its bin) */
static double median_ns(const score_region *R)
{
    uint64_t n = 0, half = (R->visits + 1) / 2;
    for (int k = 0; k < HIST_BINS; k++)
        if ((n += R->hist[k]) >= half)
            return ldexp(1.0, k + 1);
    return INFINITY;
}

static int suggested(const score_state *S, const score_region *R, double total)
{
    if (!R->filterable || R->visits == 0 || R->bytes < SUGGEST_SHARE * total)
        return 0;
    double per_visit_tool = region_tool_ns(S, R) / (double)R->visits;
    return median_ns(R) < SUGGEST_RATIO * per_visit_tool;
}

static void print_size(FILE *out, double bytes)
{
    if (bytes >= 1e9)
        fprintf(out, "%.2f GB", bytes / 1e9);
    else if (bytes >= 1e6)
        fprintf(out, "%.2f MB", bytes / 1e6);
    else
        fprintf(out, "%.1f kB", bytes / 1e3);
}

static int report(score_state *S, const char *path, const fold_score_options *o, const hct_filter *filter,
                  FILE *out, char *err, size_t errlen)
{
    hca_trace_defs *D = &S->D;
    size_t n = D->nregions, *order = calloc(n + 1, sizeof(*order));
    if (!order) {
        snprintf(err, errlen, "out of memory");
        return 1;
    }
    double total = S->sample_bytes + S->other_bytes, thin = 0, filtered = 0, both = 0, tool_regions = 0;
    size_t m = 0;
    for (size_t r = 0; r < n; r++) {
        const score_region *R = &S->regions[r];
        if (!R->visits && !R->thinned)
            continue;
        order[m++] = r;
        total += R->bytes;
        thin += R->thin_bytes;
        tool_regions += region_tool_ns(S, R);
        int f = filter && R->filterable && hct_filter_match(filter, hca_trace_defs_string(D, D->regions[r].name, ""));
        filtered += f ? R->bytes : 0;
        both += f ? R->bytes : R->thin_bytes;
    }
    sort_regions(order, m, S->regions);
    double samples_tool = S->has_tool ? fmax(0, S->tool_total_ns - tool_regions) : (double)S->samples * COST_SAMPLE_NS;
    double real = event_file_bytes(path), tool = tool_regions + samples_tool;
    fprintf(out, "score of %s: %zu location%s\n", path, D->nlocations, D->nlocations == 1 ? "" : "s");
    fprintf(out, "estimated event records: ");
    print_size(out, total);
    fprintf(out, " (%.0f bytes); the event files hold ", total);
    print_size(out, real);
    fprintf(out, " (%.0f bytes)\n", real);
    fprintf(out, "tracer time: %.3f s (%s)\n", tool * 1e-9,
            S->has_tool ? "measured in the trace: tool:time" : "the costs per boundary and sample of docs/benchmarks.md");
    fprintf(out, "with HCATRACE_THIN=%lu,%lluus: ", S->thin_first, S->thin_ns / 1000);
    print_size(out, total - thin);
    fprintf(out, " (%.0f bytes, -%.1f %%)\n", total - thin, total > 0 ? 100 * thin / total : 0);
    if (filter) {
        fprintf(out, "with HCATRACE_FILTER=%s: ", o->filter);
        print_size(out, total - filtered);
        fprintf(out, " (%.0f bytes, -%.1f %%); with both: ", total - filtered, total > 0 ? 100 * filtered / total : 0);
        print_size(out, total - both);
        fprintf(out, " (%.0f bytes, -%.1f %%)\n", total - both, total > 0 ? 100 * both / total : 0);
    }
    fprintf(out, "\nflt type    %12s %10s %10s %6s %10s %10s %10s %10s  region\n", "instances", "thinned", "bytes",
            "%", "time s", "median us", "tracer s", "THIN saves");
    for (size_t i = 0; i < m; i++) {
        const score_region *R = &S->regions[order[i]];
        const hca_read_region *def = &D->regions[order[i]];
        fprintf(out, " %c  %-7s %12" PRIu64 " %10" PRIu64 " %10.0f %6.2f %10.6f %10.1f %10.6f %10.0f  %s\n",
                R->filterable ? '+' : R->thinnable ? 't' : '-', region_type(def), R->visits, R->thinned, R->bytes,
                total > 0 ? 100 * R->bytes / total : 0, R->time_ns * 1e-9, R->visits ? median_ns(R) * 1e-3 : 0,
                region_tool_ns(S, R) * 1e-9, R->thin_bytes, hca_trace_defs_string(D, def->name, "?"));
    }
    fprintf(out, "    %-7s %12" PRIu64 " %10s %10.0f %6.2f %10s %10s %10.6f %10s  (samples)\n", "SAMPLE", S->samples,
            "", S->sample_bytes, total > 0 ? 100 * S->sample_bytes / total : 0, "", "", samples_tool * 1e-9, "");
    fprintf(out, "    %-7s %12s %10s %10.0f %6.2f %10s %10s %10s %10s  (program begin/end, flushes)\n", "OTHER", "", "",
            S->other_bytes, total > 0 ? 100 * S->other_bytes / total : 0, "", "", "", "");
    FILE *sf = NULL;
    if (o->suggest_path && !(sf = fopen(o->suggest_path, "w"))) {
        snprintf(err, errlen, "cannot write %s", o->suggest_path);
        free(order);
        return 3;
    }
    if (sf)
        fprintf(sf, "# HCATRACE_FILTER file suggested by hcafold --score %s\n", path);
    int any = 0;
    for (size_t i = 0; i < m; i++)
        if (suggested(S, &S->regions[order[i]], total)) {
            const char *name = hca_trace_defs_string(D, D->regions[order[i]].name, "?");
            if (!any++)
                fprintf(out, "\nsuggested filter (regions with >= %.0f %% of the bytes, shorter than %.0fx what the "
                             "tracer spends on them):\n", 100 * SUGGEST_SHARE, SUGGEST_RATIO);
            fprintf(out, "  %s\n", name);
            if (sf)
                fprintf(sf, "%s\n", name);
        }
    if (!any)
        fprintf(out, "\nsuggested filter: none (no region both frequent and shorter than its tracing cost)\n");
    free(order);
    if (sf && fclose(sf) != 0) {
        snprintf(err, errlen, "cannot write %s", o->suggest_path);
        return 3;
    }
    return 0;
}

int fold_score(const char *path, const fold_score_options *o, FILE *out, char *err, size_t errlen)
{
    hct_filter filter;
    if (o->filter && hct_filter_parse(&filter, o->filter, err, errlen) != 0)
        return 2;
    score_state *S = calloc(1, sizeof(*S));
    if (!S) {
        snprintf(err, errlen, "out of memory");
        return 1;
    }
    S->thin_first = o->thin_first;
    S->thin_ns = o->thin_ns;
    int rc = 1;
    OTF2_Reader *r = OTF2_Reader_Open(path);
    if (!r || OTF2_Reader_SetSerialCollectiveCallbacks(r) != OTF2_SUCCESS) {
        snprintf(err, errlen, "%s: cannot open the trace", path);
        goto out;
    }
    OTF2_GlobalDefReader *gd = OTF2_Reader_GetGlobalDefReader(r);
    OTF2_ErrorCode ec = gd ? hca_read_global_defs(r, gd, &S->D) : OTF2_ERROR_FILE_CAN_NOT_OPEN;
    if (gd)
        OTF2_Reader_CloseGlobalDefReader(r, gd);
    if (ec != OTF2_SUCCESS || S->D.bad) {
        snprintf(err, errlen, "%s: cannot read the definitions", path);
        goto out;
    }
    if (classify(S) != 0 || read_events(S, r) != 0) {
        snprintf(err, errlen, "%s: cannot read the events", path);
        goto out;
    }
    rc = report(S, path, o, o->filter ? &filter : NULL, out, err, errlen);
out:
    if (r)
        OTF2_Reader_Close(r);
    hca_trace_defs_free(&S->D);
    free(S->regions);
    free(S->instances);
    free(S->class_kind);
    free(S->class_tool);
    free(S);
    return rc;
}
