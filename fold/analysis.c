/* analysis.c: folds a whole trace (see analysis.h): read, group, and per region
 * fold every counter, fit it, segment the region into phases shared by all
 * counters, find the source bands, and fill the report. */
#include "analysis.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hca_schema.h"
#include "model.h"
#include "points.h"
#include "read.h"
#include "regions.h"

#define PLOT_POINTS 4000 /* folded points kept per counter for the plots */
/* A fold from samples placed by CPU time (HCATRACE_SAMPLING_CLOCK=cpu) is
 * warned about below this CPU share: samples then crowd where the threads ran
 * and miss where they waited (docs/benchmarks.md, "Sampling clock against
 * truth") */
#define CPU_SAMPLING_MIN_SHARE 0.9
#define MIN_EVENTS_TO_SEGMENT 10.0 /* mean events per instance for a counter to place phase boundaries */

void fold_options_defaults(fold_options *o)
{
    memset(o, 0, sizeof(*o));
    o->jobs = 1;
    o->min_instances = 10;
    o->min_samples = 20;
    o->mad_k = 1.5;
    fold_fit_defaults(&o->fit);
    fold_segment_defaults(&o->segment);
    fold_band_defaults(&o->bands);
}

static const char *kind_name(int kind)
{
    switch (kind) {
    case FOLD_KIND_USER:
        return "user";
    case FOLD_KIND_OPENMP:
        return "openmp";
    case FOLD_KIND_BURST:
        return "burst";
    case FOLD_KIND_MPI:
        return "mpi";
    default:
        return "function";
    }
}

static int selected(const char *name, const char *const *list, size_t n)
{
    if (!list || n == 0)
        return 1;
    for (size_t i = 0; i < n; i++)
        if (strstr(name, list[i]))
            return 1;
    return 0;
}

static int counter_selected(const char *name, const fold_options *o)
{
    if (!o->counters || o->ncounters == 0)
        return 1;
    for (size_t i = 0; i < o->ncounters; i++)
        if (strcmp(name, o->counters[i]) == 0)
            return 1;
    return 0;
}

/* "02-mpi_waitall_mpi_phases_c_139-mpi_allreduce": the index keeps slugs unique. */
static char *make_slug(size_t index, const char *name)
{
    char buf[96];
    int n = snprintf(buf, sizeof(buf), "%02zu-", index + 1);
    size_t len = (size_t)n;
    int last_sep = 1;
    for (const char *p = name; *p && len < 70; p++) {
        if (isalnum((unsigned char)*p)) {
            buf[len++] = (char)tolower((unsigned char)*p);
            last_sep = 0;
        } else if (!last_sep) {
            buf[len++] = '_';
            last_sep = 1;
        }
    }
    while (len > (size_t)n && buf[len - 1] == '_')
        len--;
    buf[len] = 0;
    return strdup(buf);
}

static char *site_label(const fold_trace *t, uint32_t context)
{
    char buf[512];
    if (context == FOLD_NONE)
        return strdup("");
    fold_context_label(t, context, buf, sizeof(buf));
    return strdup(buf);
}

/* Copies at most PLOT_POINTS points, chosen by the deterministic cap. */
static int copy_points(const double *x, const double *y, size_t n, double **ox, double **oy, size_t *on)
{
    size_t *chosen = malloc((n ? n : 1) * sizeof(*chosen));
    *ox = malloc((n ? n : 1) * sizeof(double));
    *oy = malloc((n ? n : 1) * sizeof(double));
    if (!chosen || !*ox || !*oy) {
        free(chosen);
        return -1;
    }
    size_t k = fold_cap_points(n, PLOT_POINTS, chosen);
    for (size_t i = 0; i < k; i++) {
        (*ox)[i] = x[chosen[i]];
        (*oy)[i] = y[chosen[i]];
    }
    *on = k;
    free(chosen);
    return 0;
}

/* The fitted cumulative fraction at x, interpolated on the grid. */
static double curve_at(const fold_curve *c, double x)
{
    if (c->grid < 2)
        return x;
    double pos = x * (double)(c->grid - 1);
    size_t i = (size_t)pos;
    if (i >= c->grid - 1)
        return c->cum[c->grid - 1];
    double f = pos - (double)i;
    return c->cum[i] * (1 - f) + c->cum[i + 1] * f;
}

/* The measurement skew of a counter's points: fold_cloud_offset of x and the
 * fractions fy, where each instance's own curve ends exactly at 1; its y ends
 * at its rate over the region's, a scatter that would hide a skew of a few
 * microseconds. */
static double points_offset(const fold_counter_points *c)
{
    fold_cloud fractions = { c->x, c->fy, c->n };
    return c->n ? fold_cloud_offset(&fractions) : 0.0;
}

static int fold_counters(const fold_trace *t, const fold_points *p, const fold_options *o, fold_region_result *g)
{
    g->counters = calloc(t->ncounters + 1, sizeof(*g->counters));
    fold_cloud *clouds = calloc(t->ncounters + 1, sizeof(*clouds));
    double *factor = calloc(t->ncounters + 1, sizeof(*factor));
    double *offsets = calloc(t->ncounters + 1, sizeof(*offsets)); /* measured on the fractions */
    int rc = 0;
    /* the capped clouds (the same deterministic choice feeds the fit and the
     * segmentation), owned here */
    double **cx = calloc(t->ncounters + 1, sizeof(*cx)), **cy = calloc(t->ncounters + 1, sizeof(*cy));
    if (!g->counters || !clouds || !factor || !offsets || !cx || !cy) {
        free(clouds);
        free(factor);
        free(offsets);
        free(cx);
        free(cy);
        return -1;
    }
    for (size_t c = 0; c < t->ncounters; c++) {
        const fold_counter_points *cp = &p->counters[c];
        if (!counter_selected(t->counters[c].name, o) || cp->instances == 0)
            continue;
        if (cp->n == 0 && cp->zero_total == cp->instances) { /* measured, never counted anything */
            const char **z = realloc(g->zero_counters, (g->nzero_counters + 1) * sizeof(*z));
            if (!z) {
                rc = -1;
                break;
            }
            g->zero_counters = z;
            g->zero_counters[g->nzero_counters++] = t->counters[c].name;
            continue;
        }
        if (cp->n == 0)
            continue;
        fold_counter_result *k = &g->counters[g->ncounters];
        k->name = t->counters[c].name;
        k->unit = t->counters[c].unit;
        k->instances = cp->instances;
        k->mean_total = fold_points_mean_total(cp);
        k->rate_scale = fold_points_rate_factor(cp);
        fold_cloud cloud = fold_points_cloud(p, c);
        size_t cap = o->fit.max_points;
        if (cap && cloud.n > cap) {
            size_t *chosen = malloc(cloud.n * sizeof(*chosen));
            double *x = malloc(cap * sizeof(*x)), *y = malloc(cap * sizeof(*y));
            if (!chosen || !x || !y) {
                free(chosen);
                free(x);
                free(y);
                continue;
            }
            size_t n = fold_cap_points(cloud.n, cap, chosen);
            for (size_t i = 0; i < n; i++) {
                x[i] = cloud.x[chosen[i]];
                y[i] = cloud.y[chosen[i]];
            }
            free(chosen);
            cx[g->ncounters] = x;
            cy[g->ncounters] = y;
            cloud = (fold_cloud){ x, y, n };
        }
        fold_fit_options fit = o->fit;
        fit.offset_given = 1;
        fit.offset = offsets[g->ncounters] = points_offset(cp);
        if (fold_fit_cumulative(&cloud, &fit, &k->curve) != 0) {
            free(cx[g->ncounters]);
            free(cy[g->ncounters]);
            cx[g->ncounters] = cy[g->ncounters] = NULL;
            continue;
        }
        k->points_used = k->curve.used;
        k->rate = malloc(k->curve.grid * sizeof(double));
        if (!k->rate || copy_points(cp->x, cp->y, cp->n, &k->px, &k->py, &k->npoints) != 0 ||
            copy_points(cp->ex_x, cp->ex_y, cp->nex, &k->ex, &k->ey, &k->nexcluded) != 0) {
            g->ncounters++; /* its clouds are freed below */
            rc = -1;
            break;
        }
        for (size_t i = 0; i < k->curve.grid; i++)
            k->rate[i] = k->curve.rate[i] * k->rate_scale;
        clouds[g->ncounters] = cloud;
        factor[g->ncounters] = k->rate_scale;
        g->ncounters++;
    }
    /* phases: shared by all counters; a region without counters is one phase.
     * Counters with a handful of events per instance (page faults in a compute
     * loop) make cumulative fractions that jump 0 -> 1 at random times: they
     * do not vote on the boundaries, unless no counter has more. */
    size_t *voter = calloc(g->ncounters + 1, sizeof(*voter)), nvoters = 0;
    if (!voter)
        rc = -1;
    for (size_t c = 0; rc == 0 && c < g->ncounters; c++)
        if (g->counters[c].mean_total >= MIN_EVENTS_TO_SEGMENT)
            voter[nvoters++] = c;
    if (rc == 0 && nvoters == 0)
        for (size_t c = 0; c < g->ncounters; c++)
            voter[nvoters++] = c;
    for (size_t i = 0; i < nvoters; i++) {
        clouds[i] = clouds[voter[i]];
        offsets[i] = offsets[voter[i]];
    }
    fold_segment_options seg = o->segment;
    seg.offsets = offsets;
    if (rc == 0 && nvoters && fold_segment(clouds, nvoters, &seg, &g->phases) != 0)
        rc = -1;
    if (rc == 0 && !g->ncounters) {
        g->phases.nphases = 1;
        g->phases.bounds = malloc(2 * sizeof(double));
        if (!g->phases.bounds)
            rc = -1;
        else {
            g->phases.bounds[0] = 0;
            g->phases.bounds[1] = 1;
        }
    }
    for (size_t c = 0; c < g->ncounters && rc == 0; c++) {
        fold_counter_result *k = &g->counters[c];
        k->phase_rate = malloc((g->phases.nphases + 1) * sizeof(double));
        if (!k->phase_rate) {
            rc = -1;
            break;
        }
        size_t v = 0;
        while (v < nvoters && voter[v] != c)
            v++;
        for (size_t ph = 0; ph < g->phases.nphases; ph++) {
            double slope = v < nvoters ? g->phases.slopes[ph * g->phases.nclouds + v] : -1;
            if (!(slope >= 0)) {
                /* a line through few noisy points can fall (or the counter did
                 * not vote): take the mean slope of the monotone fit instead */
                double a = g->phases.bounds[ph], b = g->phases.bounds[ph + 1];
                slope = b > a ? (curve_at(&k->curve, b) - curve_at(&k->curve, a)) / (b - a) : 0;
            }
            k->phase_rate[ph] = slope * factor[c];
        }
    }
    free(voter);
    for (size_t i = 0; i < g->ncounters; i++) {
        free(cx[i]);
        free(cy[i]);
    }
    free(cx);
    free(cy);
    free(clouds);
    free(offsets);
    free(factor);
    return rc;
}

/* Source bands and the line scatter from the samples' calling contexts. */
/* The depth of the outermost frame of `ctx`'s stack running function `name`,
 * or UINT32_MAX. */
static uint32_t anchor_depth(const fold_trace *t, uint32_t ctx, const char *name)
{
    uint32_t found = UINT32_MAX;
    for (uint32_t c = ctx; name && c != FOLD_NONE && c < t->ncontexts; c = t->contexts[c].parent) {
        uint32_t r = t->contexts[c].region;
        if (r < t->nregions && t->regions[r].name && strcmp(t->regions[r].name, name) == 0)
            found = t->contexts[c].depth;
    }
    return found;
}

/* anchor: the name of the function the region's code runs in (its caller for
 * bursts and user regions, the outlined function for OpenMP); stacks are cut
 * above it, so that threads entering the same code from different places (an
 * OpenMP master and its workers) line up. */
static int fold_source(const fold_trace *t, const fold_points *p, const fold_options *o, const char *anchor,
                       const char *anchor2, fold_region_result *g)
{
    /* at most max_points samples, the same deterministic choice as the fits */
    size_t *chosen = malloc((p->ns + 1) * sizeof(*chosen));
    if (!chosen)
        return -1;
    size_t nchosen = fold_cap_points(p->ns, o->fit.max_points ? o->fit.max_points : p->ns, chosen);
    size_t nframes = 0;
    for (size_t k = 0; k < nchosen; k++) {
        size_t i = chosen[k];
        if (p->scontext[i] != FOLD_NONE && p->scontext[i] < t->ncontexts)
            nframes += t->contexts[p->scontext[i]].depth + 1;
    }
    fold_frame *frames = calloc(nframes + 1, sizeof(*frames));
    fold_stack_sample *stacks = malloc((p->ns + 1) * sizeof(*stacks));
    g->line_x = malloc((p->ns + 1) * sizeof(double));
    g->line_no = malloc((p->ns + 1) * sizeof(uint32_t));
    g->line_fn = malloc((p->ns + 1) * sizeof(char *));
    int rc = -1;
    if (!frames || !stacks || !g->line_x || !g->line_no || !g->line_fn)
        goto out;
    size_t used = 0, nstacks = 0;
    for (size_t k = 0; k < nchosen; k++) {
        size_t i = chosen[k];
        uint32_t ctx = p->scontext[i];
        if (ctx == FOLD_NONE || ctx >= t->ncontexts)
            continue;
        uint32_t depth = t->contexts[ctx].depth + 1, cut = anchor_depth(t, ctx, anchor);
        if (cut == UINT32_MAX)
            cut = anchor_depth(t, ctx, anchor2);
        if (cut == UINT32_MAX)
            cut = 0;
        depth -= cut;
        fold_frame *f = frames + used;
        /* leaf to root into frames[depth-1 .. 0], the anchor's frame at 0 */
        for (uint32_t d = depth, c = ctx; d > 0 && c != FOLD_NONE && c < t->ncontexts; d--) {
            f[d - 1] = (fold_frame){ t->contexts[c].region, t->contexts[c].line };
            c = t->contexts[c].parent;
        }
        stacks[nstacks++] = (fold_stack_sample){ p->sx[i], f, depth };
        used += depth;
        const fold_context_def *leaf = &t->contexts[ctx];
        g->line_x[g->nlines] = p->sx[i];
        g->line_no[g->nlines] = leaf->line;
        g->line_fn[g->nlines] = leaf->region < t->nregions ? t->regions[leaf->region].name : "?";
        g->nlines++;
    }
    fold_band *bands = NULL;
    size_t nbands = 0;
    uint32_t best = 0;
    fold_band_options bo = o->bands;
    /* frame 0 of every stack is the anchor's, when it was found */
    bo.anchor_function = nstacks && stacks[0].depth ? stacks[0].frames[0].function : UINT32_MAX;
    if (fold_bands(stacks, nstacks, &bo, &bands, &nbands, &best) != 0)
        goto out;
    g->bands = calloc(nbands + 1, sizeof(*g->bands));
    if (!g->bands) {
        free(bands);
        goto out;
    }
    /* the bands of the best depth first, then the others by depth */
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < nbands; i++) {
            if ((bands[i].depth == best) != (pass == 0))
                continue;
            const fold_region_def *r = bands[i].function < t->nregions ? &t->regions[bands[i].function] : NULL;
            /* the caller: the band one depth up over this band's middle */
            const char *caller = NULL;
            double mid = (bands[i].start + bands[i].end) / 2;
            for (size_t k = 0; k < nbands && bands[i].depth > 0; k++)
                if (bands[k].depth + 1 == bands[i].depth && bands[k].start <= mid && mid < bands[k].end &&
                    bands[k].function < t->nregions)
                    caller = t->regions[bands[k].function].name;
            g->bands[g->nbands++] = (fold_band_result){ r ? r->name : "?", r ? r->file : "", caller,
                                                        bands[i].line, bands[i].start, bands[i].end,
                                                        bands[i].share, bands[i].purity, bands[i].depth };
        }
        if (pass == 0)
            g->nbands_shown = g->nbands;
    }
    free(bands);
    rc = 0;
out:
    free(chosen);
    free(frames);
    free(stacks);
    return rc;
}

static int fold_one(const fold_trace *t, const fold_region *f, size_t index, const fold_options *o,
                    fold_region_result *g)
{
    fold_points p;
    if (fold_points_build(t, f, &p) != 0)
        return -1;
    char name[600];
    if (f->ngroups > 1)
        snprintf(name, sizeof(name), "%s (duration group %u of %u)", f->name, f->group + 1, f->ngroups);
    else
        snprintf(name, sizeof(name), "%s", f->name);
    g->name = strdup(name);
    g->slug = make_slug(index, name);
    g->kind = kind_name(f->kind);
    g->open_site = site_label(t, f->open_context);
    g->close_site = site_label(t, f->close_context);
    g->instances_found = f->ninstances;
    g->instances_used = f->nused;
    g->instances_excluded = f->nexcluded;
    g->groups = f->ngroups;
    g->samples_used = p.used_samples;
    g->mean_duration_s = p.mean_duration_ns / 1e9;
    g->total_time_s = f->total_ns / 1e9;
    int rc = (!g->name || !g->slug || !g->open_site || !g->close_site) ? -1 : 0;
    if (rc == 0)
        rc = fold_counters(t, &p, o, g);
    /* the function the region's code runs in: its own name for OpenMP
     * outlined code, else (and for OpenMP constructs such as barriers) the
     * caller of its opening context */
    const char *own = NULL, *caller = NULL;
    if (f->open_context < t->ncontexts) {
        uint32_t self = f->open_context, parent = t->contexts[self].parent;
        if (t->contexts[self].region < t->nregions)
            own = t->regions[t->contexts[self].region].name;
        if (parent < t->ncontexts && t->contexts[parent].region < t->nregions)
            caller = t->regions[t->contexts[parent].region].name;
    }
    const char *anchor = f->kind == FOLD_KIND_OPENMP ? own : caller, *anchor2 = caller;
    if (rc == 0)
        rc = fold_source(t, &p, o, anchor, anchor2, g);
    g->cpu_share = NAN;
    for (size_t c = 0; c < t->ncounters && c < p.ncounters; c++)
        if (strcmp(t->counters[c].name, "task-clock") == 0 && p.counters[c].instances)
            g->cpu_share = fold_points_share(&p.counters[c]);
    double per_instance = f->nused ? (double)p.used_samples / (double)f->nused : 0;
    char w[400];
    size_t wl = 0;
    w[0] = 0;
    if (per_instance < 0.5)
        wl += (size_t)snprintf(w + wl, sizeof(w) - wl,
                               "%.2f samples per instance: the fold is coarse; sample faster or run longer",
                               per_instance);
    const char *clock = fold_trace_property(t, HCA_PROP_SAMPLING_CLOCK);
    if (clock && strcmp(clock, "cpu") == 0 && g->cpu_share < CPU_SAMPLING_MIN_SHARE && wl < sizeof(w))
        snprintf(w + wl, sizeof(w) - wl,
                 "%ssamples placed by CPU time on threads that had %.0f %% of a CPU here: where they fall "
                 "depends on when the threads ran; trace with HCATRACE_SAMPLING_CLOCK=wall",
                 wl ? "; " : "", 100.0 * g->cpu_share);
    if (rc == 0 && w[0])
        g->warning = strdup(w);
    fold_points_free(&p);
    return rc;
}

struct progress_adapter {
    const fold_options *o;
};

static void read_progress(void *user, uint64_t done, uint64_t total)
{
    const struct progress_adapter *a = user;
    if (a->o->progress)
        a->o->progress("reading", (size_t)done, (size_t)(total ? total : done));
}

enum fold_analysis_status fold_analyze(const char *trace_path, const fold_options *o, fold_report *report, char *err, size_t errlen)
{
    memset(report, 0, sizeof(*report));
    report->trace = trace_path;
    fold_trace *t = calloc(1, sizeof(*t));
    if (!t) {
        snprintf(err, errlen, "out of memory");
        return FOLD_ANALYSIS_NO_MEMORY;
    }
    report->owner = t;
    fold_read_options ro;
    fold_read_defaults(&ro);
    ro.jobs = o->jobs;
    ro.mpi_regions = o->include_mpi;
    struct progress_adapter adapter = { o };
    ro.progress = read_progress;
    ro.progress_user = &adapter;
    char msg[512] = "";
    int st = fold_read(trace_path, &ro, t, msg, sizeof(msg));
    if (st != FOLD_OK) {
        snprintf(err, errlen, "%s: %s", trace_path, msg);
        return st == FOLD_ERR_NOMEM ? FOLD_ANALYSIS_NO_MEMORY : FOLD_ANALYSIS_BAD_TRACE;
    }
    report->trace = t->path; /* the anchor file, also when trace_path is its directory */
    trace_path = t->path;
    fold_region_options rg;
    fold_region_defaults(&rg);
    rg.k = o->mad_k;
    if (fold_regions_build(t, &rg, msg, sizeof(msg)) != 0) { /* only when memory ran out */
        snprintf(err, errlen, "%s: %s", trace_path, msg);
        return FOLD_ANALYSIS_NO_MEMORY;
    }
    report->nlocations = t->nlocations;
    report->samples_lost = t->samples_lost;
    report->regions = calloc(t->nfolds + 1, sizeof(*report->regions));
    if (!report->regions) {
        snprintf(err, errlen, "out of memory");
        return FOLD_ANALYSIS_NO_MEMORY;
    }
    size_t candidates = 0;
    for (size_t i = 0; i < t->nfolds; i++) {
        const fold_region *f = &t->folds[i];
        if ((f->kind == FOLD_KIND_MPI && !o->include_mpi) || !selected(f->name, o->regions, o->nregions))
            continue;
        candidates++;
        if (o->progress)
            o->progress("folding", i, t->nfolds);
        if (f->nused < o->min_instances || f->nsamples_used < o->min_samples) {
            report->regions_skipped++;
            continue;
        }
        fold_region_result *g = &report->regions[report->nregions++];
        if (fold_one(t, f, report->nregions - 1, o, g) != 0) {
            snprintf(err, errlen, "out of memory folding %s", f->name);
            return FOLD_ANALYSIS_NO_MEMORY;
        }
    }
    if (o->progress)
        o->progress("folding", t->nfolds, t->nfolds);
    if (report->nregions == 0) {
        if (t->samples_read == 0)
            snprintf(err, errlen, "%s has no samples: nothing to fold (was it traced with HCATRACE_SAMPLING=off?)",
                     trace_path);
        else if (candidates == 0)
            snprintf(err, errlen, "%s: no region%s", trace_path, o->nregions ? " matches --region" : " found");
        else
            snprintf(err, errlen,
                     "%s: no region has %zu used instances and %zu samples (%zu regions, all too small; "
                     "see --min-instances, --min-samples)",
                     trace_path, o->min_instances, o->min_samples, candidates);
        return FOLD_ANALYSIS_NOTHING;
    }
    return FOLD_ANALYSIS_OK;
}

void fold_report_free(fold_report *r)
{
    if (r->model) {
        fold_model_report_free(r->model);
        free(r->model);
        r->model = NULL;
    }
    for (size_t i = 0; i < r->nregions; i++) {
        fold_region_result *g = &r->regions[i];
        for (size_t c = 0; c < g->ncounters; c++) {
            fold_counter_result *k = &g->counters[c];
            fold_curve_free(&k->curve);
            free(k->rate);
            free(k->phase_rate);
            free(k->px);
            free(k->py);
            free(k->ex);
            free(k->ey);
        }
        free(g->counters);
        free(g->zero_counters);
        fold_segmentation_free(&g->phases);
        free(g->bands);
        free(g->line_x);
        free(g->line_no);
        free(g->line_fn);
        free(g->name);
        free(g->slug);
        free(g->open_site);
        free(g->close_site);
        free(g->warning);
    }
    free(r->regions);
    r->regions = NULL;
    r->nregions = 0;
    if (r->owner) { /* the trace the result's names point into */
        fold_trace_free(r->owner);
        free(r->owner);
        r->owner = NULL;
    }
}
