/* foldstat.c: test and benchmark tool of hcafold's reading side. Reads an
 * archive with fold_read (--jobs N), groups it with fold_regions_build, and
 * prints facts the end-to-end tests assert on, tab-separated, one per line:
 *   trace <anchor>
 *   locations <n>  events <n>  samples_read <n>  samples_kept <n>  samples_lost <n>  counters <a,b,...>
 *   location <id> <rank> <thread> <events> <samples_read> <samples_kept> <unbalanced> <unclosed>
 *   region <name> <kind> <group>/<ngroups> <instances> <used> <excluded> <samples> <samples_used> <median_ns>
 *          <instances holding a sample> <excluded of those> <tracer's time removed, ns>
 *          <traced wall time of the excluded instances, ns> <of all instances, ns>
 *   counter <region> <counter> <instances> <points> <mean_total> <rate_factor/s> <y at x in [0.38,0.42)> (with --points)
 *   band <region> <function> <file>:<line> <samples>  (leaf functions of the used samples, with --points)
 *   digest <hex>   (of everything read: equal for any --jobs)
 * --bench R: read R times, print the best read rate of fold_read and of a plain
 * OTF2 read of the same archive (all event callbacks, doing nothing) as
 *   rate fold_read jobs <n> <events/s>   and   rate otf2_raw <events/s>
 * Exit status: 0, or the fold_read status with its message on stderr. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <otf2/otf2.h>

#include "points.h"
#include "read.h"
#include "regions.h"

static const char *kind_name(int kind)
{
    static const char *const names[] = { "user", "openmp", "burst", "mpi", "function" };
    return kind >= 0 && kind <= FOLD_KIND_FUNCTION ? names[kind] : "?";
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- digest of everything read ------------------------------------------ */

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

static uint64_t digest_values(uint64_t h, const double *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        double x = isnan(v[i]) ? -1.0 : v[i];
        h = fnv(h, &x, sizeof(x));
    }
    return h;
}

static uint64_t digest(const fold_trace *t)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < t->nlocations; i++) {
        const fold_location *L = &t->locations[i];
        h = fnv(h, &L->id, sizeof(L->id));
        h = fnv(h, &L->nevents, sizeof(L->nevents));
        h = fnv(h, &L->nsamples, sizeof(L->nsamples));
        for (size_t s = 0; s < L->nsamples; s++) {
            h = fnv(h, &L->samples[s].t, sizeof(L->samples[s].t));
            h = fnv(h, &L->samples[s].context, sizeof(L->samples[s].context));
            h = digest_values(h, L->samples[s].values, t->ncounters);
        }
    }
    for (size_t f = 0; f < t->nfolds; f++) {
        const fold_region *r = &t->folds[f];
        h = fnv(h, r->name, strlen(r->name));
        for (size_t i = 0; i < r->ninstances; i++) {
            const fold_instance *in = &r->instances[i];
            h = fnv(h, &in->t0, sizeof(in->t0));
            h = fnv(h, &in->t1, sizeof(in->t1));
            h = fnv(h, &in->location, sizeof(in->location));
            h = fnv(h, &in->first_sample, sizeof(in->first_sample));
            h = fnv(h, &in->nsamples, sizeof(in->nsamples));
            h = fnv(h, &in->excluded, sizeof(in->excluded));
            h = digest_values(h, in->c0, t->ncounters);
            h = digest_values(h, in->c1, t->ncounters);
        }
    }
    return h;
}

/* ---- plain OTF2 read, for the rate comparison ---------------------------- */

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
static OTF2_CallbackCode raw_metric(OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t p, void *u, OTF2_AttributeList *a,
                                    OTF2_MetricRef m, uint8_t n, const OTF2_Type *ty, const OTF2_MetricValue *v)
{
    return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode raw_enter(OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t p, void *u, OTF2_AttributeList *a,
                                   OTF2_CallingContextRef c, uint32_t d)
{
    return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode raw_leave(OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t p, void *u, OTF2_AttributeList *a,
                                   OTF2_CallingContextRef c)
{
    return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode raw_sample(OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t p, void *u, OTF2_AttributeList *a,
                                    OTF2_CallingContextRef c, uint32_t d, OTF2_InterruptGeneratorRef g)
{
    return OTF2_CALLBACK_SUCCESS;
}
#pragma GCC diagnostic pop

/* Events per second of one OTF2 reader reading every location of t, with the
 * callbacks fold_read registers (doing nothing); local definitions included. */
static double raw_rate(const fold_trace *t)
{
    double start = now();
    OTF2_Reader *r = OTF2_Reader_Open(t->path);
    if (!r)
        return 0;
    OTF2_Reader_SetSerialCollectiveCallbacks(r);
    for (size_t i = 0; i < t->nlocations; i++)
        OTF2_Reader_SelectLocation(r, t->locations[i].id);
    int defs = OTF2_Reader_OpenDefFiles(r) == OTF2_SUCCESS;
    OTF2_Reader_OpenEvtFiles(r);
    OTF2_EvtReaderCallbacks *cb = OTF2_EvtReaderCallbacks_New();
    OTF2_EvtReaderCallbacks_SetMetricCallback(cb, raw_metric);
    OTF2_EvtReaderCallbacks_SetCallingContextEnterCallback(cb, raw_enter);
    OTF2_EvtReaderCallbacks_SetCallingContextLeaveCallback(cb, raw_leave);
    OTF2_EvtReaderCallbacks_SetCallingContextSampleCallback(cb, raw_sample);
    uint64_t total = 0;
    for (size_t i = 0; i < t->nlocations; i++) {
        if (defs) {
            OTF2_DefReader *d = OTF2_Reader_GetDefReader(r, t->locations[i].id);
            if (d) {
                uint64_t n;
                OTF2_Reader_ReadAllLocalDefinitions(r, d, &n);
                OTF2_Reader_CloseDefReader(r, d);
            }
        }
        OTF2_EvtReader *e = OTF2_Reader_GetEvtReader(r, t->locations[i].id);
        if (!e)
            continue;
        OTF2_Reader_RegisterEvtCallbacks(r, e, cb, NULL);
        uint64_t n = 0;
        OTF2_Reader_ReadAllLocalEvents(r, e, &n);
        total += n;
        OTF2_Reader_CloseEvtReader(r, e);
    }
    OTF2_EvtReaderCallbacks_Delete(cb);
    if (defs)
        OTF2_Reader_CloseDefFiles(r);
    OTF2_Reader_CloseEvtFiles(r);
    OTF2_Reader_Close(r);
    double dt = now() - start;
    return dt > 0 ? (double)total / dt : 0;
}

/* ---- output ------------------------------------------------------------- */

static void print_points(const fold_trace *t, const fold_region *r)
{
    fold_points p;
    if (fold_points_build(t, r, &p)) {
        fprintf(stderr, "foldstat: out of memory\n");
        return;
    }
    for (size_t c = 0; c < p.ncounters; c++) {
        const fold_counter_points *cp = &p.counters[c];
        double sum = 0;
        size_t n = 0;
        for (size_t i = 0; i < cp->n; i++)
            if (cp->x[i] >= 0.38 && cp->x[i] < 0.42) {
                sum += cp->y[i];
                n++;
            }
        printf("counter\t%s\t%s\t%zu\t%zu\t%.6g\t%.6g\t%.4f\n", r->name, t->counters[c].name, cp->instances, cp->n,
               fold_points_mean_total(cp), fold_points_rate_factor(cp), n ? sum / (double)n : NAN);
    }
    /* leaf functions of the used samples */
    size_t *count = calloc(t->ncontexts + 1, sizeof(*count));
    for (size_t i = 0; count && i < p.ns; i++)
        count[p.scontext[i] < t->ncontexts ? p.scontext[i] : t->ncontexts]++;
    for (size_t c = 0; count && c < t->ncontexts; c++)
        if (count[c]) {
            const fold_context_def *cx = &t->contexts[c];
            printf("band\t%s\t%s\t%s:%u\t%zu\n", r->name, t->regions[cx->region].name, cx->file ? cx->file : "-",
                   cx->line, count[c]);
        }
    free(count);
    fold_points_free(&p);
}

static void usage(void)
{
    fprintf(stderr, "usage: foldstat [--jobs N] [--mpi] [--points] [--bench R] [--k K] [--no-split] ARCHIVE\n");
}

int main(int argc, char **argv)
{
    fold_read_options ro;
    fold_read_defaults(&ro);
    fold_region_options go;
    fold_region_defaults(&go);
    int points = 0, bench = 0;
    const char *path = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--jobs") == 0 && i + 1 < argc)
            ro.jobs = (unsigned)atoi(argv[++i]);
        else if (strcmp(argv[i], "--mpi") == 0)
            ro.mpi_regions = 1;
        else if (strcmp(argv[i], "--points") == 0)
            points = 1;
        else if (strcmp(argv[i], "--bench") == 0 && i + 1 < argc)
            bench = atoi(argv[++i]);
        else if (strcmp(argv[i], "--k") == 0 && i + 1 < argc)
            go.k = atof(argv[++i]);
        else if (strcmp(argv[i], "--no-split") == 0)
            go.split = 0;
        else if (argv[i][0] == '-' || path) {
            usage();
            return 64;
        } else
            path = argv[i];
    }
    if (!path) {
        usage();
        return 64;
    }
    fold_trace t;
    char err[512];
    double best = 0;
    for (int rep = 0; rep < (bench > 0 ? bench : 1); rep++) {
        double start = now();
        int rc = fold_read(path, &ro, &t, err, sizeof(err));
        double dt = now() - start;
        if (rc != FOLD_OK) {
            fprintf(stderr, "foldstat: %s\n", err);
            return rc;
        }
        if (dt > 0 && (double)t.nevents / dt > best)
            best = (double)t.nevents / dt;
        if (rep + 1 < bench)
            fold_trace_free(&t);
    }
    if (bench > 0) {
        double raw = 0;
        for (int rep = 0; rep < bench; rep++) {
            double r = raw_rate(&t);
            if (r > raw)
                raw = r;
        }
        printf("rate\tfold_read\tjobs\t%u\t%.0f\n", ro.jobs ? ro.jobs : 1, best);
        printf("rate\totf2_raw\t%.0f\n", raw);
    }
    if (fold_regions_build(&t, &go, err, sizeof(err))) {
        fprintf(stderr, "foldstat: %s\n", err);
        fold_trace_free(&t);
        return FOLD_ERR_NOMEM;
    }
    printf("trace\t%s\n", t.path);
    printf("locations\t%zu\nevents\t%" PRIu64 "\nsamples_read\t%" PRIu64 "\nsamples_kept\t%" PRIu64
           "\nsamples_lost\t%" PRIu64 "\n",
           t.nlocations, t.nevents, t.samples_read, t.samples_kept, t.samples_lost);
    printf("sample_period_ns\t%" PRIu64 "\ncounters\t", t.sample_period_ns);
    for (size_t c = 0; c < t.ncounters; c++)
        printf("%s%s", c ? "," : "", t.counters[c].name);
    printf("\n");
    for (size_t i = 0; i < t.nlocations; i++) {
        const fold_location *L = &t.locations[i];
        printf("location\t%" PRIu64 "\t%u\t%u\t%" PRIu64 "\t%" PRIu64 "\t%zu\t%" PRIu64 "\t%" PRIu64 "\n", L->id,
               L->rank, L->thread, L->nevents, L->samples_read, L->nsamples, L->unbalanced, L->unclosed);
    }
    for (size_t f = 0; f < t.nfolds; f++) {
        const fold_region *r = &t.folds[f];
        size_t sampled = 0, sampled_excluded = 0;
        double wall_excluded = 0, wall = 0; /* as traced: the program's time and the tracer's */
        for (size_t k = 0; k < r->ninstances; k++) {
            const fold_instance *in = &r->instances[k];
            double w = (double)(in->t1 - in->t0) + (double)in->tool_ns;
            wall += w;
            wall_excluded += in->excluded != FOLD_USED ? w : 0;
            if (in->nsamples) {
                sampled++;
                sampled_excluded += in->excluded != FOLD_USED;
            }
        }
        printf("region\t%s\t%s\t%u/%u\t%zu\t%zu\t%zu\t%zu\t%zu\t%.0f\t%zu\t%zu\t%.0f\t%.0f\t%.0f\n", r->name,
               kind_name(r->kind), r->group, r->ngroups, r->ninstances, r->nused, r->nexcluded, r->nsamples,
               r->nsamples_used, r->median_ns, sampled, sampled_excluded, r->tool_ns, wall_excluded, wall);
        if (points)
            print_points(&t, r);
    }
    printf("digest\t%016" PRIx64 "\n", digest(&t));
    fold_trace_free(&t);
    return 0;
}
