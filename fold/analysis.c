/* analysis.c: folds a whole trace (see analysis.h): read, group, and per region
 * fold every counter, fit it, segment the region into phases shared by all
 * counters, find the source bands, and fill the report. */
#include "analysis.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anchor.h"
#include "forks.h"
#include "hca_schema.h"
#include "model.h"
#include "points.h"
#include "read.h"
#include "regions.h"
#include "runstats.h"
#include "variability.h"

#define PLOT_POINTS 4000 /* folded points kept per counter for the plots */
/* A fold from samples placed by CPU time (HCATRACE_SAMPLING_CLOCK=cpu) is
 * warned about below this CPU share: samples then crowd where the threads ran
 * and miss where they waited (docs/benchmarks.md, "Sampling clock against
 * truth") */
#define CPU_SAMPLING_MIN_SHARE 0.9
#define MIN_EVENTS_TO_SEGMENT 10.0 /* mean events per instance for a counter to place phase boundaries */
/* A fold is coarse when the 95 % band of a counter that places boundaries is
 * wider than +-4.5 % of its mean rate on average. On the synthetic truths of
 * bench/bands.sh the bands are about 3 times the fit's mean error (since they
 * hold the smoothing bias too: bootstrap.c); at +-3.5 % half the five-phase
 * folds at 4 samples per instance, 0.7 % error, were warned (docs/
 * benchmarks.md, "Confidence bands"). */
#define COARSE_BAND_WIDTH 0.045
/* A phase boundary whose 95 % interval is at most this wide (in normalized
 * time) is a step: the curves are fitted again with their rate free to jump
 * there (fold_fit_options.breaks). On an idle machine the boundaries of
 * truth_app's steps have intervals of 0.002-0.005; where the instances'
 * phase changes are spread by preemption, 0.03-0.06 (docs/benchmarks.md,
 * "Steps kept sharp"). */
#define STEP_MAX_INTERVAL 0.02

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
    fold_bootstrap_defaults(&o->bootstrap);
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

/* The used-instance index of each of n points of a counter's cloud: point
 * chosen[i] (or i when chosen is NULL), ascending. */
static void instance_of_points(const fold_counter_points *cp, const size_t *chosen, size_t n, size_t *out)
{
    size_t j = 0;
    for (size_t i = 0; i < n; i++) {
        size_t q = chosen ? chosen[i] : i;
        while (j + 1 < cp->instances && cp->first[j + 1] <= q)
            j++;
        out[i] = cp->inst[j];
    }
}

/* The cloud a counter's fit takes: all its points, or at most cap of them
 * (fold_cap_points; cap 0: all) copied into *ox, *oy (NULL when not capped,
 * else the caller's to free); the used-instance index of each in pi (all.n
 * entries at least). Returns 0, or -1 when memory ran out. */
static int capped_cloud(const fold_counter_points *cp, fold_cloud all, size_t cap, fold_cloud *out, double **ox,
                        double **oy, size_t *pi)
{
    *ox = *oy = NULL;
    *out = all;
    if (!cap || all.n <= cap) {
        instance_of_points(cp, NULL, all.n, pi);
        return 0;
    }
    size_t *chosen = malloc(cap * sizeof(*chosen));
    double *x = malloc(cap * sizeof(*x)), *y = malloc(cap * sizeof(*y));
    if (!chosen || !x || !y) {
        free(chosen);
        free(x);
        free(y);
        return -1;
    }
    size_t n = fold_cap_points(all.n, cap, chosen);
    for (size_t i = 0; i < n; i++) {
        x[i] = all.x[chosen[i]];
        y[i] = all.y[chosen[i]];
    }
    instance_of_points(cp, chosen, n, pi);
    free(chosen);
    *ox = x;
    *oy = y;
    *out = (fold_cloud){ x, y, n };
    return 0;
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

/* What refit_curves needs. */
typedef struct {
    fold_region_result *g;
    fold_bootstrap_counter *boot;
    const fold_options *o;
} steps_context;

/* Where one counter's rate changes near the region's boundaries. The
 * boundaries are shared by the counters (the phases), but counters need not
 * change at the same instant: truth_app's page faults start with its first
 * burst, 0.005-0.01 of the region before its task-clock falls, and a step at
 * the shared boundary made the task-clock overshoot one CPU before it and
 * undershoot after (docs/benchmarks.md, "Steps per counter"). A boundary
 * whose interval (bound_lo, bound_hi) does not hold the counter's own
 * continuous two-line (hinge) least-squares position, in its points alone
 * (fold_segment_frame_refit over its one cloud), moves there, by at most
 * STEP_MAX_INTERVAL; the others stay. Only for counters that placed the
 * boundaries with others (the caller: with a single voter the boundary is
 * already its own, and its hinge from a few dozen points only noisier).
 * Overwrites own[1..np-1] where a step moves; own holds the shared
 * boundaries on entry. Returns -1 only when memory ran out. */
static int counter_steps(const fold_bootstrap_counter *b, double offset, const fold_segmentation *ph,
                         const double *bound_lo, const double *bound_hi, const fold_segment_options *so, double *own)
{
    size_t np = ph->nphases;
    if (np < 2)
        return 0;
    fold_segment_frame *fr = fold_segment_frame_new(&b->cloud, 1, &offset);
    double *hinge = malloc((np + 1) * sizeof(*hinge));
    int rc = fr && hinge ? 0 : -1;
    if (rc == 0 && fold_segment_frame_refit(fr, NULL, NULL, ph->bounds, np, so, hinge, NULL) == 0)
        for (size_t q = 1; q < np; q++)
            if (hinge[q] < bound_lo[q] || hinge[q] > bound_hi[q])
                own[q] = ph->bounds[q] + fmax(-STEP_MAX_INTERVAL, fmin(STEP_MAX_INTERVAL, hinge[q] - ph->bounds[q]));
    fold_segment_frame_free(fr);
    free(hinge);
    return rc;
}

/* The counters' curves fitted again with a step at every boundary whose
 * interval is at most STEP_MAX_INTERVAL wide (the boundaries are in the
 * points' x after their offset, as the fit's knots), each counter's step
 * where its own rate changes (counter_steps), each kept when its
 * generalized cross-validation score is lower than without (a counter that
 * does not change at a step keeps its curve); then, when a phase is a trend, with the trend's penalty
 * (fold_fit_options.trend; and the steps), kept likewise when its score is
 * lower still: the default penalty pulls a linear rate's ends towards the
 * mean where the curve is pinned to its anchors (+7.8 % at the start of
 * bench/bands.sh's ramp at 0.25 samples per instance, in every seed, a bias
 * its replicates shared, so the band missed it). The rates of g's counters
 * updated. Called by the bootstrap once the boundaries are final
 * (fold_bootstrap_refit). Returns 0, or -1 when memory ran out. */
static int refit_curves(void *ctx, const fold_segmentation *ph, const double *bound_lo, const double *bound_hi)
{
    const steps_context *sc = ctx;
    fold_region_result *g = sc->g;
    size_t np = ph->nphases, nsteps = 0;
    int trend = 0;
    for (size_t q = 0; ph->trend && q < np; q++)
        trend |= ph->trend[q];
    for (size_t b = 1; b < np; b++)
        nsteps += bound_hi[b] - bound_lo[b] <= STEP_MAX_INTERVAL;
    size_t voters = 0, nc = g->ncounters, width = np ? np : 1;
    for (size_t c = 0; c < nc; c++)
        voters += (size_t)sc->boot[c].votes;
    /* each counter's steps (its own where its rate changes: counter_steps),
     * the same for both candidates: their fits keep the counter's offset */
    double *steps = malloc((nc ? nc : 1) * width * sizeof(*steps)), *own = malloc((np + 1) * sizeof(*own));
    int rc = steps && own ? 0 : -1;
    for (size_t c = 0; rc == 0 && nsteps && c < nc; c++) {
        memcpy(own, ph->bounds, (np + 1) * sizeof(*own));
        if (voters > 1 && sc->boot[c].votes &&
            counter_steps(&sc->boot[c], g->counters[c].curve.offset, ph, bound_lo, bound_hi, &sc->o->segment, own) != 0)
            rc = -1;
        for (size_t b = 1, i = 0; b < np; b++)
            if (bound_hi[b] - bound_lo[b] <= STEP_MAX_INTERVAL)
                steps[c * width + i++] = own[b];
    }
    /* the candidates: with steps; with a trend's penalty (and the steps) */
    for (int cand = 0; rc == 0 && cand < 2; cand++) {
        if (cand == 0 ? !nsteps : !trend)
            continue;
        for (size_t c = 0; c < nc; c++) {
            fold_counter_result *k = &g->counters[c];
            fold_fit_options fit = sc->o->fit;
            fit.max_points = 0; /* the cloud is capped (fold_counters) */
            fit.offset_given = 1;
            fit.offset = k->curve.offset;
            fit.breaks = nsteps ? steps + c * width : NULL;
            fit.nbreaks = nsteps;
            fit.trend = cand == 1;
            fold_curve curve;
            if (fold_fit_cumulative(&sc->boot[c].cloud, &fit, &curve) != 0) {
                rc = -1;
                break;
            }
            if (!(curve.gcv < k->curve.gcv)) { /* it does not fit this counter's points better */
                fold_curve_free(&curve);
                continue;
            }
            if (curve.nbreaks && !sc->boot[c].smooth_rate) {
                sc->boot[c].smooth_rate = k->curve.rate; /* the band holds the fit without steps too */
                k->curve.rate = NULL;
            }
            fold_curve_free(&k->curve);
            k->curve = curve;
            for (size_t i = 0; i < k->curve.grid; i++)
                k->rate[i] = k->curve.rate[i] * k->rate_scale;
        }
    }
    free(steps);
    free(own);
    return rc;
}

static int fold_counters(const fold_trace *t, const fold_points *p, const fold_options *o, fold_region_result *g)
{
    g->counters = calloc(t->ncounters + 1, sizeof(*g->counters));
    fold_cloud *clouds = calloc(t->ncounters + 1, sizeof(*clouds));
    fold_bootstrap_counter *boot = calloc(t->ncounters + 1, sizeof(*boot));
    double *offsets = calloc(t->ncounters + 1, sizeof(*offsets)); /* measured on the fractions */
    double *max_rate = calloc(t->ncounters + 1, sizeof(*max_rate)); /* in the clouds' units; 0: none */
    int rc = 0;
    /* the capped clouds (the same deterministic choice feeds the fit and the
     * segmentation) and their points' instances, owned here */
    double **cx = calloc(t->ncounters + 1, sizeof(*cx)), **cy = calloc(t->ncounters + 1, sizeof(*cy));
    size_t **pinst = calloc(t->ncounters + 1, sizeof(*pinst));
    if (!g->counters || !clouds || !boot || !offsets || !max_rate || !cx || !cy || !pinst) {
        free(clouds);
        free(boot);
        free(offsets);
        free(max_rate);
        free(cx);
        free(cy);
        free(pinst);
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
        k->description = t->counters[c].description;
        k->instances = cp->instances;
        k->mean_total = fold_points_mean_total(cp);
        k->rate_scale = fold_points_rate_factor(cp);
        /* CPU time (task-clock, ns): at most one CPU (1e9 ns/s) per thread, a location */
        max_rate[g->ncounters] = t->counters[c].counts_cpu && k->rate_scale > 0.0 ? 1e9 / k->rate_scale : 0.0;
        fold_cloud all = fold_points_cloud(p, c), cloud;
        size_t *pi = malloc(all.n * sizeof(*pi));
        if (!pi || capped_cloud(cp, all, o->fit.max_points, &cloud, &cx[g->ncounters], &cy[g->ncounters], pi) != 0) {
            free(pi);
            rc = -1;
            break;
        }
        pinst[g->ncounters] = pi;
        fold_fit_options fit = o->fit;
        fit.max_points = 0; /* capped here: the segmentation and the bootstrap take the same points */
        fit.offset_given = 1;
        fit.offset = offsets[g->ncounters] = points_offset(cp);
        int fitted = fold_fit_cumulative(&cloud, &fit, &k->curve);
        size_t raised = fitted == 0 ? fold_fit_raised_cap(&o->fit, all.n, &k->curve) : 0;
        if (raised) { /* coarse at the cap: again with more points */
            fold_curve_free(&k->curve);
            free(cx[g->ncounters]);
            free(cy[g->ncounters]);
            cx[g->ncounters] = cy[g->ncounters] = NULL;
            if (capped_cloud(cp, all, raised, &cloud, &cx[g->ncounters], &cy[g->ncounters], pi) != 0) {
                free(pi);
                pinst[g->ncounters] = NULL;
                rc = -1;
                break;
            }
            fitted = fold_fit_cumulative(&cloud, &fit, &k->curve);
        }
        if (fitted != 0) {
            free(cx[g->ncounters]);
            free(cy[g->ncounters]);
            free(pinst[g->ncounters]);
            cx[g->ncounters] = cy[g->ncounters] = NULL;
            pinst[g->ncounters] = NULL;
            continue;
        }
        k->points_used = k->curve.used;
        k->points_folded = cp->n;
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
        boot[g->ncounters] = (fold_bootstrap_counter){ cloud, pi, &k->curve, cp->instances, cp->inst,
                                                       cp->total, cp->duration_ns, k->rate_scale, 0, NULL };
        g->ncounters++;
    }
    /* phases: shared by all counters; a region without counters is one phase.
     * Counters with a handful of events per instance (page faults in a compute
     * loop) make cumulative fractions that jump 0 -> 1 at random times: they
     * do not vote on the boundaries, unless no counter has more. */
    size_t nvoters = 0;
    for (size_t c = 0; rc == 0 && c < g->ncounters; c++)
        if (g->counters[c].mean_total >= MIN_EVENTS_TO_SEGMENT)
            boot[c].votes = 1;
    for (size_t c = 0; rc == 0 && c < g->ncounters; c++)
        nvoters += (size_t)boot[c].votes;
    if (rc == 0 && nvoters == 0)
        for (size_t c = 0; c < g->ncounters; c++)
            boot[c].votes = 1, nvoters++;
    for (size_t c = 0, v = 0; rc == 0 && c < g->ncounters; c++)
        if (boot[c].votes) {
            clouds[v] = clouds[c];
            max_rate[v] = max_rate[c];
            offsets[v++] = offsets[c];
        }
    fold_segment_options seg = o->segment;
    seg.offsets = offsets;
    seg.max_rate = max_rate;
    if (rc == 0 && nvoters &&
        (fold_segment(clouds, nvoters, &seg, &g->phases) != 0 ||
         fold_segment_trends(clouds, nvoters, offsets, max_rate, &g->phases) != 0))
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
    double **phase_rate = calloc(g->ncounters + 1, sizeof(*phase_rate));
    if (!phase_rate)
        rc = -1;
    for (size_t c = 0; c < g->ncounters && rc == 0; c++) {
        g->counters[c].phase_rate = phase_rate[c] = malloc((g->phases.nphases + 1) * sizeof(double));
        if (!phase_rate[c])
            rc = -1;
    }
    fold_region_interval iv;
    steps_context sc = { g, boot, o }; /* steps kept sharp once the boundaries are placed */
    if (rc == 0 && g->ncounters &&
        fold_bootstrap_region(boot, g->ncounters, p->used_instances, &o->segment, &o->bootstrap, &g->phases,
                              phase_rate, &iv, refit_curves, &sc) != 0)
        rc = -1;
    if (rc == 0 && g->ncounters && iv.replicates) { /* the result takes the intervals */
        g->replicates = iv.replicates;
        g->level = iv.level;
        g->bound_lo = iv.bound_lo;
        g->bound_hi = iv.bound_hi;
        iv.bound_lo = iv.bound_hi = NULL;
        for (size_t c = 0; c < g->ncounters; c++) {
            fold_counter_result *k = &g->counters[c];
            fold_counter_interval *ci = &iv.counters[c];
            k->rate_lo = ci->rate_lo;
            k->rate_hi = ci->rate_hi;
            k->phase_lo = ci->phase_lo;
            k->phase_hi = ci->phase_hi;
            k->band_width = ci->band_width;
            ci->rate_lo = ci->rate_hi = ci->phase_lo = ci->phase_hi = NULL;
        }
        fold_region_interval_free(&iv);
    }
    for (size_t c = 0, v = 0; rc == 0 && c < g->ncounters; c++) { /* the trends' ends */
        fold_counter_result *k = &g->counters[c];
        size_t np = g->phases.nphases, nv = g->phases.nclouds, voter = boot[c].votes ? v++ : SIZE_MAX;
        k->phase_start = malloc((np + 1) * sizeof(double));
        k->phase_end = malloc((np + 1) * sizeof(double));
        if (!k->phase_start || !k->phase_end) {
            rc = -1;
            break;
        }
        for (size_t q = 0; q < np; q++) {
            int trend = g->phases.trend && g->phases.trend[q] && voter < nv;
            k->phase_start[q] = trend ? g->phases.trend_start[q * nv + voter] * k->rate_scale : k->phase_rate[q];
            k->phase_end[q] = trend ? g->phases.trend_end[q * nv + voter] * k->rate_scale : k->phase_rate[q];
        }
    }
    free(phase_rate);
    for (size_t i = 0; i < g->ncounters; i++) {
        free(cx[i]);
        free(cy[i]);
        free(pinst[i]);
    }
    free(cx);
    free(cy);
    free(pinst);
    free(clouds);
    for (size_t c = 0; c < g->ncounters; c++)
        free(boot[c].smooth_rate);
    free(boot);
    free(offsets);
    free(max_rate);
    return rc;
}

/* Source bands and the line scatter from the samples' calling contexts. */
/* The sampled frames of `ctx`'s path into path[], leaf first: the nodes of
 * instrumented regions (an MPI call, an OpenMP region, a marker a sample was
 * taken in) are left out, and so is the frame that called a region when the
 * sample's frame under the region runs the same function (a marker's caller:
 * one frame seen at two lines). Returns their number. */
static uint32_t sampled_frames(const fold_trace *t, uint32_t ctx, uint32_t *path)
{
    uint32_t n = 0, below_region = FOLD_NONE; /* the function of the frame under a region node */
    for (uint32_t c = ctx; c != FOLD_NONE && c < t->ncontexts; c = t->contexts[c].parent) {
        uint32_t r = t->contexts[c].region;
        if (r >= t->nregions)
            continue;
        if (t->regions[r].kind != FOLD_KIND_FUNCTION) {
            below_region = n ? t->contexts[path[n - 1]].region : FOLD_NONE;
            continue;
        }
        if (r != below_region)
            path[n++] = c;
        below_region = FOLD_NONE;
    }
    return n;
}

/* The depth (from the root) of the outermost of n frames (leaf first) running
 * function `name`, or UINT32_MAX. */
static uint32_t anchor_depth(const fold_trace *t, const uint32_t *path, uint32_t n, const char *name)
{
    for (uint32_t d = 0; name && d < n; d++) {
        uint32_t r = t->contexts[path[n - 1 - d]].region;
        if (t->regions[r].name && strcmp(t->regions[r].name, name) == 0)
            return d;
    }
    return UINT32_MAX;
}

/* Whether every chosen sample's stack runs function `name` (path: scratch
 * room for the deepest stack); 0 for a NULL name. */
static int every_stack_holds(const fold_trace *t, const fold_points *p, const size_t *chosen, size_t nchosen,
                             const char *name, uint32_t *path)
{
    if (!name)
        return 0;
    for (size_t k = 0; k < nchosen; k++) {
        uint32_t ctx = p->scontext[chosen[k]];
        if (ctx != FOLD_NONE && ctx < t->ncontexts && anchor_depth(t, path, sampled_frames(t, ctx, path), name) == UINT32_MAX)
            return 0;
    }
    return 1;
}

/* OpenMP (anchor set): stacks are cut at the outlined function the region's
 * code runs in (anchor; else anchor2, its caller), so that threads entering
 * the same code from different places (an OpenMP master and its workers) line
 * up. Other regions (anchor NULL): at anchor2 (the function holding the
 * opening call) if every stack holds it, then all stacks at their deepest
 * common caller below it (anchor.h); callers[] hold the region's boundary
 * calls. (A burst's stacks cut at anchor2 where they held it, the others
 * not, split at the root: bands named `_start`.) */
static int fold_source(const fold_trace *t, const fold_points *p, const fold_options *o, const char *anchor,
                       const char *anchor2, const char *const *callers, size_t ncallers, fold_anchors *known,
                       fold_region_result *g)
{
    /* at most max_points samples, the same deterministic choice as the fits */
    size_t *chosen = malloc((p->ns + 1) * sizeof(*chosen));
    if (!chosen)
        return -1;
    size_t nchosen = fold_cap_points(p->ns, o->fit.max_points ? o->fit.max_points : p->ns, chosen);
    size_t nframes = 0, nexpiries = 0;
    uint32_t max_depth = 0;
    for (size_t k = 0; k < nchosen; k++) {
        size_t i = chosen[k];
        nexpiries += p->sexpiries[i];
        if (p->scontext[i] != FOLD_NONE && p->scontext[i] < t->ncontexts) {
            nframes += t->contexts[p->scontext[i]].depth + 1;
            if (t->contexts[p->scontext[i]].depth + 1 > max_depth)
                max_depth = t->contexts[p->scontext[i]].depth + 1;
        }
    }
    uint32_t *path = malloc((max_depth + 1) * sizeof(*path));
    fold_frame *frames = calloc(nframes + 1, sizeof(*frames));
    fold_stack_sample *stacks = malloc((nexpiries + 1) * sizeof(*stacks));
    size_t *stack_instance = malloc((nexpiries + 1) * sizeof(*stack_instance));
    double *share_lo = NULL, *share_hi = NULL;
    g->line_x = malloc((p->ns + 1) * sizeof(double));
    g->line_no = malloc((p->ns + 1) * sizeof(uint32_t));
    g->line_fn = malloc((p->ns + 1) * sizeof(char *));
    uint32_t *bodies = fold_fork_bodies(t);
    int rc = -1;
    if (!path || !frames || !stacks || !stack_instance || !g->line_x || !g->line_no || !g->line_fn || !bodies)
        goto out;
    if (!anchor && !every_stack_holds(t, p, chosen, nchosen, anchor2, path))
        anchor2 = NULL; /* cut and uncut stacks would split at the root */
    size_t used = 0, nstacks = 0;
    for (size_t k = 0; k < nchosen; k++) {
        size_t i = chosen[k];
        uint32_t ctx = p->scontext[i];
        if (ctx == FOLD_NONE || ctx >= t->ncontexts)
            continue;
        uint32_t body, n = sampled_frames(t, ctx, path), kept = fold_fork_cut(t, bodies, path, n, &body);
        const uint32_t *fr = path + (n - kept); /* leaf first, without the runtime's frames below a fork */
        n = kept;
        uint32_t cut = anchor_depth(t, fr, n, anchor);
        if (cut == UINT32_MAX)
            cut = anchor_depth(t, fr, n, anchor2);
        if (cut == UINT32_MAX)
            cut = 0;
        uint32_t depth = n - cut;
        fold_frame *f = frames + used;
        /* root to leaf into frames[0 .. depth-1], the anchor's frame at 0 */
        for (uint32_t d = 0; d < depth; d++) {
            const fold_context_def *c = &t->contexts[fr[depth - 1 - d]];
            f[d] = (fold_frame){ c->region, c->line };
        }
        /* the fork's runtime frame: the body it runs; a barrier's: the barrier, at its line
         * in the frame above */
        if (body != FOLD_NONE && depth)
            f[depth - 1] = (fold_frame){ body, t->regions[body].kind != FOLD_KIND_FUNCTION && depth >= 2
                                                   ? f[depth - 2].line
                                                   : 0 };
        /* a sample standing for several expiries of the wall-clock timer (points.h,
         * fold_sample_expiries): one stack at each, spread evenly back to the
         * instance's previous sample, where the timer's schedule put them */
        uint32_t m = p->sexpiries[i];
        double from = i > 0 && p->sinstance[i - 1] == p->sinstance[i] ? p->sx[i - 1] : 0.0;
        for (uint32_t e = 1; e <= m; e++) {
            stack_instance[nstacks] = p->sinstance[i];
            stacks[nstacks++] = (fold_stack_sample){ e == m ? p->sx[i] : from + (p->sx[i] - from) * e / m, f, depth };
        }
        used += depth;
        const fold_context_def *leaf = &t->contexts[ctx];
        g->line_x[g->nlines] = p->sx[i];
        g->line_no[g->nlines] = leaf->line;
        g->line_fn[g->nlines] = leaf->region < t->nregions ? t->regions[leaf->region].name : "?";
        g->nlines++;
    }
    if (!anchor) { /* every stack cut at the deepest common caller */
        uint32_t cut = fold_anchor_depth(t, stacks, nstacks, callers, ncallers, known);
        for (size_t i = 0; i < nstacks; i++) {
            uint32_t c = stacks[i].depth > cut ? cut : (stacks[i].depth ? stacks[i].depth - 1 : 0);
            stacks[i].frames += c;
            stacks[i].depth -= c;
        }
    }
    fold_band *bands = NULL;
    size_t nbands = 0;
    uint32_t best = 0;
    fold_band_options bo = o->bands;
    /* frame 0 of every stack is the anchor's, when it was found */
    bo.anchor_function = nstacks && stacks[0].depth ? stacks[0].frames[0].function : UINT32_MAX;
    if (fold_bands(stacks, nstacks, &bo, &bands, &nbands, &best) != 0)
        goto out;
    share_lo = malloc((nbands + 1) * sizeof(*share_lo));
    share_hi = malloc((nbands + 1) * sizeof(*share_hi));
    if (!share_lo || !share_hi ||
        fold_bootstrap_bands(stacks, stack_instance, nstacks, p->used_instances, &bo, bands, nbands, &o->bootstrap,
                             share_lo, share_hi) != 0) {
        free(bands);
        goto out;
    }
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
            const char *caller = NULL, *file = r ? r->file : "";
            double mid = (bands[i].start + bands[i].end) / 2;
            for (size_t k = 0; k < nbands && bands[i].depth > 0; k++)
                if (bands[k].depth + 1 == bands[i].depth && bands[k].start <= mid && mid < bands[k].end &&
                    r && bands[k].function < t->nregions) {
                    caller = t->regions[bands[k].function].name;
                    /* a construct (omp barrier): its line is in its caller's file */
                    if ((!file || !*file) && r->kind != FOLD_KIND_FUNCTION)
                        file = t->regions[bands[k].function].file;
                }
            g->bands[g->nbands++] = (fold_band_result){ r ? r->name : "?", file, caller,
                                                        bands[i].line, bands[i].start, bands[i].end,
                                                        bands[i].share, bands[i].purity, bands[i].depth,
                                                        share_lo[i], share_hi[i] };
        }
        if (pass == 0)
            g->nbands_shown = g->nbands;
    }
    free(bands);
    rc = 0;
out:
    free(chosen);
    free(path);
    free(bodies);
    free(frames);
    free(stacks);
    free(stack_instance);
    free(share_lo);
    free(share_hi);
    return rc;
}

/* "A -> B (path 1 of 2: path_smooth) (duration group 2 of 2)" */
static char *display_name(const fold_region *f)
{
    char name[1200];
    size_t len = (size_t)snprintf(name, sizeof(name), "%s", f->name);
    if (f->npaths > 1 && len < sizeof(name))
        len += (size_t)snprintf(name + len, sizeof(name) - len, " (path %u of %u: %s)", f->path + 1, f->npaths,
                                f->path_label ? f->path_label : "?");
    if (f->ngroups > 1 && len < sizeof(name))
        snprintf(name + len, sizeof(name) - len, " (duration group %u of %u)", f->group + 1, f->ngroups);
    return strdup(name);
}

static int fold_one(const fold_trace *t, const fold_region *f, size_t index, const fold_options *o,
                    fold_anchors *known, fold_region_result *g)
{
    fold_points p;
    if (fold_points_build(t, f, &p) != 0)
        return -1;
    char *name = display_name(f);
    if (!name) {
        fold_points_free(&p);
        return -1;
    }
    g->name = name;
    g->slug = make_slug(index, name);
    g->kind = kind_name(f->kind);
    g->open_site = strdup(f->open_site ? f->open_site : "");
    g->close_site = strdup(f->close_site ? f->close_site : "");
    g->path = f->path;
    g->paths = f->npaths;
    g->path_functions = f->path_label;
    g->call_sites = f->sites;
    g->instances_found = f->ninstances;
    g->instances_used = f->nused;
    g->instances_excluded = f->nexcluded;
    g->groups = f->ngroups;
    g->grouped_on_cpu = f->grouped_on_cpu;
    g->samples_used = p.used_samples;
    g->mean_duration_s = p.mean_duration_ns / 1e9;
    g->total_time_s = f->total_ns / 1e9;
    g->tool_time_s = f->tool_ns / 1e9;
    int rc = (!g->name || !g->slug || !g->open_site || !g->close_site) ? -1 : 0;
    if (rc == 0)
        rc = fold_variability(t, f, g);
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
    const char *callers[2] = { caller, NULL };
    if (f->close_context < t->ncontexts) {
        uint32_t parent = t->contexts[f->close_context].parent;
        if (parent < t->ncontexts && t->contexts[parent].region < t->nregions)
            callers[1] = t->regions[t->contexts[parent].region].name;
    }
    if (rc == 0)
        rc = fold_source(t, &p, o, f->kind == FOLD_KIND_OPENMP ? own : NULL, caller, callers, 2, known, g);
    g->cpu_share = NAN;
    for (size_t c = 0; c < t->ncounters && c < p.ncounters; c++)
        if (strcmp(t->counters[c].name, "task-clock") == 0 && p.counters[c].instances)
            g->cpu_share = fold_points_share(&p.counters[c]);
    double per_instance = f->nused ? (double)p.used_samples / (double)f->nused : 0;
    /* coarse: by the estimated error (the widest band of a counter that
     * places boundaries), or by samples per instance without a bootstrap */
    const fold_counter_result *widest = NULL;
    for (size_t c = 0; rc == 0 && c < g->ncounters; c++)
        if (g->counters[c].rate_lo && g->counters[c].mean_total >= MIN_EVENTS_TO_SEGMENT &&
            (!widest || g->counters[c].band_width > widest->band_width))
            widest = &g->counters[c];
    char w[600] = "";
    size_t wl = 0;
    char advice[96];
    fold_coarse_advice(widest, "sample faster or run longer", advice, sizeof advice);
    if (widest && widest->band_width > COARSE_BAND_WIDTH)
        wl += (size_t)snprintf(w, sizeof(w),
                               "the %.0f %% band of %s is +-%.1f %% of its mean rate on average (%.2f samples per "
                               "instance): the fold is coarse; %s",
                               100 * g->level, widest->name, 100 * widest->band_width, per_instance, advice);
    else if (rc == 0 && g->replicates == 0 && per_instance < 0.5)
        wl += (size_t)snprintf(w, sizeof(w),
                               "%.2f samples per instance: the fold is coarse; sample faster or run longer",
                               per_instance);
    const char *clock = fold_trace_property(t, HCA_PROP_SAMPLING_CLOCK);
    if (clock && strcmp(clock, "cpu") == 0 && g->cpu_share < CPU_SAMPLING_MIN_SHARE && wl < sizeof(w))
        snprintf(w + wl, sizeof(w) - wl,
                 "%ssamples placed by CPU time on threads that had %.0f %% of a CPU here: where they fall "
                 "depends on when the threads ran; trace with HCATRACE_SAMPLING_CLOCK=wall",
                 wl ? "; " : "", 100.0 * g->cpu_share);
    if (w[0] && !(g->warning = strdup(w)))
        rc = -1;
    fold_points_free(&p);
    return rc;
}

/* 1 when a --counter names no counter of the trace, with the message in err. */
static int unknown_counter(const fold_trace *t, const fold_options *o, char *err, size_t errlen)
{
    for (size_t i = 0; o->counters && i < o->ncounters; i++) {
        size_t c = 0;
        while (c < t->ncounters && strcmp(t->counters[c].name, o->counters[i]) != 0)
            c++;
        if (c < t->ncounters)
            continue;
        int len = snprintf(err, errlen, "%s has no counter '%s' (its counters:", t->path, o->counters[i]);
        for (c = 0; c < t->ncounters && len >= 0 && (size_t)len < errlen; c++)
            len += snprintf(err + len, errlen - (size_t)len, "%s %s", c ? "," : "", t->counters[c].name);
        if (len >= 0 && (size_t)len < errlen)
            snprintf(err + len, errlen - (size_t)len, "%s)", t->ncounters ? "" : " none");
        return 1;
    }
    return 0;
}

/* The writers of the format: hcatrace and its synthesizer. */
static int written_by_hcatrace(const fold_trace *t)
{
    return t->creator && (strncmp(t->creator, "hcatrace", 8) == 0 || strncmp(t->creator, "hcasynth", 8) == 0);
}

/* A key left unfolded: its facts and the reason, both thresholds it missed named. */
static int add_skipped(fold_report *report, const fold_region *f, const fold_options *o)
{
    fold_skipped_region *k = &report->skipped[report->regions_skipped];
    char reason[200] = "";
    int few_instances = f->nused < o->min_instances, few_samples = f->nsamples_used < o->min_samples;
    if (few_instances)
        snprintf(reason, sizeof(reason), "%zu used instance%s (--min-instances %zu)", f->nused,
                 f->nused == 1 ? "" : "s", o->min_instances);
    if (few_samples) {
        size_t len = strlen(reason);
        snprintf(reason + len, sizeof(reason) - len, "%s%zu sample%s (--min-samples %zu)", len ? ", " : "",
                 f->nsamples_used, f->nsamples_used == 1 ? "" : "s", o->min_samples);
    }
    *k = (fold_skipped_region){ display_name(f), kind_name(f->kind), f->ninstances, f->nused, f->nsamples_used,
                                f->total_ns / 1e9, strdup(reason) };
    report->regions_skipped++;
    return k->name && k->reason ? 0 : -1;
}

static int skipped_by_time_desc(const void *a, const void *b)
{
    const fold_skipped_region *x = a, *y = b;
    return x->total_time_s < y->total_time_s ? 1 : x->total_time_s > y->total_time_s ? -1 : 0;
}

struct progress_adapter {
    const fold_options *o;
};

static void read_progress(void *user, uint64_t done, uint64_t total)
{
    const struct progress_adapter *a = user;
    a->o->progress(FOLD_PROGRESS_EVENTS, (size_t)done, (size_t)(total ? total : done), NULL);
}

static void location_progress(void *user, uint64_t done, uint64_t total)
{
    const struct progress_adapter *a = user;
    a->o->progress(FOLD_PROGRESS_LOCATIONS, (size_t)done, (size_t)total, NULL);
}

/* The regions fold_analyze considers (not MPI calls unless asked; those --region selects). */
static int considered(const fold_region *f, const fold_options *o)
{
    return (f->kind != FOLD_KIND_MPI || o->include_mpi) && selected(f->name, o->regions, o->nregions);
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
    ro.keep_tool_time = o->keep_tool_time;
    struct progress_adapter adapter = { o };
    ro.progress = o->progress ? read_progress : NULL;
    ro.location_progress = o->progress ? location_progress : NULL;
    ro.progress_user = &adapter;
    char msg[512] = "";
    int st = fold_read(trace_path, &ro, t, msg, sizeof(msg));
    if (st != FOLD_OK) {
        snprintf(err, errlen, "%s: %s", trace_path, msg);
        return st == FOLD_ERR_NOMEM ? FOLD_ANALYSIS_NO_MEMORY : FOLD_ANALYSIS_BAD_TRACE;
    }
    report->trace = t->path; /* the anchor file, also when trace_path is its directory */
    trace_path = t->path;
    if (unknown_counter(t, o, err, errlen))
        return FOLD_ANALYSIS_BAD_SELECTION;
    fold_region_options rg;
    fold_region_defaults(&rg);
    rg.k = o->mad_k;
    if (fold_regions_build(t, &rg, msg, sizeof(msg)) != 0) { /* only when memory ran out */
        snprintf(err, errlen, "%s: %s", trace_path, msg);
        return FOLD_ANALYSIS_NO_MEMORY;
    }
    report->nlocations = t->nlocations;
    report->samples_lost = t->samples_lost;
    report->bare_bursts = t->bare_bursts;
    report->bursts = t->bursts;
    memcpy(report->samples_lost_why, t->samples_lost_why, sizeof(report->samples_lost_why));
    report->tool_time = t->tool_time && !o->keep_tool_time;
    report->thinned = t->thinned;
    report->nthinned = t->nthinned;
    report->regions = calloc(t->nfolds + 1, sizeof(*report->regions));
    report->skipped = calloc(t->nfolds + 1, sizeof(*report->skipped));
    if (!report->regions || !report->skipped || fold_run_build(t, &report->run) != 0) {
        snprintf(err, errlen, "out of memory");
        return FOLD_ANALYSIS_NO_MEMORY;
    }
    size_t candidates = 0, ncandidates = 0;
    for (size_t i = 0; i < t->nfolds; i++)
        ncandidates += (size_t)considered(&t->folds[i], o);
    fold_anchors known = { NULL, 0, 0 }; /* regions folded first (by total time) anchor the later ones */
    for (size_t i = 0; i < t->nfolds; i++) {
        const fold_region *f = &t->folds[i];
        if (!considered(f, o))
            continue;
        candidates++;
        if (f->nused < o->min_instances || f->nsamples_used < o->min_samples) {
            if (add_skipped(report, f, o) != 0) {
                free(known.functions);
                snprintf(err, errlen, "out of memory");
                return FOLD_ANALYSIS_NO_MEMORY;
            }
            if (o->progress)
                o->progress(FOLD_PROGRESS_SKIPPED, candidates, ncandidates,
                            report->skipped[report->regions_skipped - 1].name);
            continue;
        }
        fold_region_result *g = &report->regions[report->nregions++];
        if (fold_one(t, f, report->nregions - 1, o, &known, g) != 0) {
            free(known.functions);
            snprintf(err, errlen, "out of memory folding %s", f->name);
            return FOLD_ANALYSIS_NO_MEMORY;
        }
        if (o->progress)
            o->progress(FOLD_PROGRESS_FOLDED, candidates, ncandidates, g->name);
    }
    free(known.functions);
    if (report->regions_skipped > 1)
        qsort(report->skipped, report->regions_skipped, sizeof(*report->skipped), skipped_by_time_desc);
    if (report->nregions == 0) {
        if (t->samples_read == 0 && !written_by_hcatrace(t))
            snprintf(err, errlen, "%s was written by %s, not by hcatrace: hcafold folds the samples and regions "
                     "hcatrace records", trace_path, t->creator && *t->creator ? t->creator : "an unnamed OTF2 writer");
        else if (t->samples_read == 0)
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

/* Raising --max-points is advised when fitting all the folded points would
 * add at least this share to those fitted: a coarse fold's band narrows as
 * the square root of the points and its resolution as their cube root, so
 * 25 % more points narrow the band by 11 % at most and less is not worth a
 * rerun of hcafold (issue 17: truth_app at 2 ms, 20,024 points folded and
 * 20,000 fitted, had been told to raise the cap; docs/benchmarks.md "Page
 * faults to 2 % (issue 17, branch pf2)"). */
#define RAISE_CAP_GAIN 1.25

void fold_coarse_advice(const fold_counter_result *k, const char *otherwise, char *buf, size_t size)
{
    if (k && (double)k->points_folded >= RAISE_CAP_GAIN * (double)k->points_used)
        (void)snprintf(buf, size, "raise --max-points (%zu of %zu points fitted)", k->points_used, k->points_folded);
    else
        (void)snprintf(buf, size, "%s", otherwise);
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
            free(k->phase_start);
            free(k->phase_end);
            free(k->rate_lo);
            free(k->rate_hi);
            free(k->phase_lo);
            free(k->phase_hi);
            free(k->px);
            free(k->py);
            free(k->ex);
            free(k->ey);
        }
        free(g->counters);
        free(g->zero_counters);
        fold_segmentation_free(&g->phases);
        free(g->bound_lo);
        free(g->bound_hi);
        free(g->bands);
        free(g->line_x);
        free(g->line_no);
        free(g->line_fn);
        free(g->name);
        free(g->slug);
        free(g->open_site);
        free(g->close_site);
        free(g->warning);
        free(g->per_location);
    }
    free(r->regions);
    r->regions = NULL;
    r->nregions = 0;
    for (size_t i = 0; r->skipped && i < r->regions_skipped; i++) {
        free(r->skipped[i].name);
        free(r->skipped[i].reason);
    }
    free(r->skipped);
    r->skipped = NULL;
    r->regions_skipped = 0;
    fold_run_free(&r->run);
    if (r->owner) { /* the trace the result's names point into */
        fold_trace_free(r->owner);
        free(r->owner);
        r->owner = NULL;
    }
}
