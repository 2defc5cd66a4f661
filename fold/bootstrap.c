/* bootstrap.c: confidence intervals of a fold by the bootstrap over instances
 * (bootstrap.h; the method in docs/output.md, "Confidence").
 *
 * A replicate draws the region's used instances with replacement, in blocks
 * of consecutive instances when there are more than FOLD_BOOTSTRAP_MAX_BLOCKS
 * (each block one draw), from GSL's MT19937 seeded with the options' seed and
 * the replicate's number: the same trace gives the same bytes. A drawn
 * instance weighs its points by how often it was drawn, so a replicate is the
 * same points under other weights: the fits reuse the knots and the
 * smoothing weight the fit of the data chose and find the robust penalty's
 * weights again (fold_fit_refit), and the segmentation moves each boundary to
 * its best place between the midpoints of the phases next to it; the curves
 * are undersmoothed (BAND_UNDERSMOOTH). The interval
 * of a quantity is the estimate +- z x the standard deviation over the
 * replicates (z = 1.96 for 95 %): with a few dozen replicates a standard
 * deviation is steadier than the extreme percentiles. A rate's band reaches
 * from the data's fit to the replicates' mean first (bias-aware: the
 * undersmoothed mean minus the fit estimates the fit's smoothing bias), and
 * when the curve took steps (analysis.c) to the fit without them too. The
 * boundaries are bootstrapped first: once they are final, the caller may fit
 * the curves again with steps at the narrowly placed ones (refit), and the
 * curves' replicates are fitted with the same knots. */
#include "bootstrap.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_rng.h>

/* The replicates' curves are fitted with this fraction of the smoothing
 * weight the data's fit chose: a smoother's band built from its own
 * replicates sees its variance but not its bias (a smoothed step, the
 * rounded end of a ramp), and misses the truth there. A smaller weight
 * has less bias and more variance; the band (around the data's fit) is
 * wider and covers the truth better. A 4 times smaller weight covered 95 %
 * of the grid points away from jumps instead of 89 % (bench/bands.sh,
 * docs/benchmarks.md). The replicates' mean is then less biased than the
 * data's fit, and the band reaches to it (fold_bootstrap_region). (Points in absolute units, which carried the
 * instances' rate scatter, needed a 20 times smaller one; the points of
 * points.h scatter as little as fractions of each instance's total.) */
#define BAND_UNDERSMOOTH 0.25

/* A boundary is placed when its interval is at most this fraction of the
 * narrower phase next to it. */
#define BOUNDARY_WIDTH_FRACTION 0.5

void fold_bootstrap_defaults(fold_bootstrap_options *o)
{
    o->replicates = FOLD_BOOTSTRAP_REPLICATES;
    o->level = 0.95;
    o->seed = 1;
}

void fold_mean_sd(const double *v, size_t n, size_t stride, double *mean, double *sd)
{
    double s = 0.0, ss = 0.0;
    for (size_t i = 0; i < n; i++)
        s += v[i * stride];
    double m = n ? s / (double)n : 0.0;
    for (size_t i = 0; i < n; i++)
        ss += (v[i * stride] - m) * (v[i * stride] - m);
    *mean = m;
    *sd = n > 1 ? sqrt(ss / (double)(n - 1)) : 0.0;
}

/* The cumulative curve at x, interpolated on the grid. */
static double cum_at(const double *cum, size_t grid, double x)
{
    if (grid < 2)
        return x;
    double pos = x * (double)(grid - 1);
    size_t i = (size_t)pos;
    if (i >= grid - 1)
        return cum[grid - 1];
    double f = pos - (double)i;
    return cum[i] * (1 - f) + cum[i + 1] * f;
}

void fold_phase_rates(const double *bounds, size_t nphases, const double *slopes, size_t nvoters, size_t voter,
                      const double *cum, size_t grid, double scale, double *out)
{
    for (size_t p = 0; p < nphases; p++) {
        double slope = voter < nvoters && slopes ? slopes[p * nvoters + voter] : -1.0;
        if (!(slope >= 0.0)) {
            double a = bounds[p], b = bounds[p + 1];
            slope = b > a ? (cum_at(cum, grid, b) - cum_at(cum, grid, a)) / (b - a) : 0.0;
        }
        out[p] = slope * scale;
    }
}

/* The draws of the replicates. */
typedef struct {
    size_t ninstances, nblocks;
    unsigned long seed;
    gsl_rng *rng;
    double *count; /* per block: times drawn in the current replicate */
} resampler;

/* 0, or -1 when memory ran out (then resampler_free). */
static int resampler_init(resampler *s, size_t ninstances, unsigned long seed)
{
    s->ninstances = ninstances;
    s->nblocks = ninstances < FOLD_BOOTSTRAP_MAX_BLOCKS ? ninstances : FOLD_BOOTSTRAP_MAX_BLOCKS;
    s->seed = seed;
    s->rng = gsl_rng_alloc(gsl_rng_mt19937);
    s->count = malloc((s->nblocks ? s->nblocks : 1) * sizeof(*s->count));
    return s->rng && s->count ? 0 : -1;
}

static void resampler_free(resampler *s)
{
    if (s->rng)
        gsl_rng_free(s->rng);
    free(s->count);
    memset(s, 0, sizeof(*s));
}

static size_t block_of(const resampler *s, size_t instance)
{
    return (size_t)((uint64_t)instance * s->nblocks / s->ninstances);
}

static void draw(resampler *s, size_t replicate)
{
    gsl_rng_set(s->rng, s->seed * 1000003ul + replicate + 1);
    memset(s->count, 0, s->nblocks * sizeof(*s->count));
    for (size_t i = 0; i < s->nblocks; i++)
        s->count[gsl_rng_uniform_int(s->rng, s->nblocks)] += 1.0;
}

/* What a counter's replicates need: the block of every point, the totals
 * and durations per block; and what they give. */
typedef struct {
    size_t *pblock;
    double *btotal, *bdur;
    double *w;          /* point weights of the current replicate */
    double *cum, *rate; /* R x grid: replicate curves (rate in events/s) */
    double *scale;      /* R: replicate rate scales */
} counter_work;

static void work_free(counter_work *w, size_t n)
{
    for (size_t c = 0; w && c < n; c++) {
        free(w[c].pblock);
        free(w[c].btotal);
        free(w[c].bdur);
        free(w[c].w);
        free(w[c].cum);
        free(w[c].rate);
        free(w[c].scale);
    }
    free(w);
}

static int work_init(counter_work *w, const fold_bootstrap_counter *k, const resampler *s, size_t R)
{
    size_t n = k->cloud.n, grid = k->curve->grid;
    w->pblock = malloc((n ? n : 1) * sizeof(*w->pblock));
    w->w = malloc((n ? n : 1) * sizeof(*w->w));
    w->btotal = calloc(s->nblocks, sizeof(*w->btotal));
    w->bdur = calloc(s->nblocks, sizeof(*w->bdur));
    w->cum = malloc(R * grid * sizeof(*w->cum));
    w->rate = malloc(R * grid * sizeof(*w->rate));
    w->scale = malloc(R * sizeof(*w->scale));
    if (!w->pblock || !w->w || !w->btotal || !w->bdur || !w->cum || !w->rate || !w->scale)
        return -1;
    for (size_t i = 0; i < n; i++)
        w->pblock[i] = block_of(s, k->point_instance[i]);
    for (size_t i = 0; i < k->ninstances; i++) {
        size_t b = block_of(s, k->instance[i]);
        w->btotal[b] += k->total[i];
        w->bdur[b] += k->duration_ns[i];
    }
    return 0;
}

static void weigh_points(counter_work *w, size_t n, const resampler *s)
{
    for (size_t i = 0; i < n; i++)
        w->w[i] = s->count[w->pblock[i]];
}

/* The factor that puts a counter's points (y in units of the data's rate
 * factor) into units of a replicate's rate factor `scale` (fold_y_rescale). */
static double replicate_yscale(const fold_bootstrap_counter *k, double scale)
{
    return scale > 0.0 && k->rate_scale > 0.0 ? k->rate_scale / scale : 1.0;
}

/* Every counter's rate scale in every replicate (its instances' totals over
 * their durations). */
static void replicate_scales(const fold_bootstrap_counter *k, size_t nk, counter_work *work, resampler *s, size_t R)
{
    for (size_t r = 0; r < R; r++) {
        draw(s, r);
        for (size_t c = 0; c < nk; c++) {
            counter_work *w = &work[c];
            double st = 0.0, sd = 0.0;
            for (size_t b = 0; b < s->nblocks; b++) {
                st += s->count[b] * w->btotal[b];
                sd += s->count[b] * w->bdur[b];
            }
            w->scale[r] = sd > 0.0 ? st / (sd * 1e-9) : k[c].rate_scale;
        }
    }
}

/* Every counter's curve refitted in every replicate (after replicate_scales). */
static int curve_replicates(const fold_bootstrap_counter *k, size_t nk, counter_work *work, resampler *s, size_t R)
{
    fold_fit_design **design = calloc(nk, sizeof(fold_fit_design *));
    if (!design)
        return -1;
    int rc = 0;
    for (size_t c = 0; c < nk && rc == 0; c++)
    {
        fold_curve like = *k[c].curve; /* undersmoothed: see BAND_UNDERSMOOTH */
        like.lambda *= BAND_UNDERSMOOTH;
        if (!(design[c] = fold_fit_design_new(&k[c].cloud, &like)))
            rc = -1;
    }
    for (size_t r = 0; r < R && rc == 0; r++) {
        draw(s, r);
        for (size_t c = 0; c < nk && rc == 0; c++) {
            counter_work *w = &work[c];
            size_t grid = k[c].curve->grid;
            weigh_points(w, k[c].cloud.n, s);
            double *cum = w->cum + r * grid, *rate = w->rate + r * grid;
            /* the points are in units of the data's rate factor (points.h):
             * put into units of the replicate's own, in which its weighted
             * mean is the mean of its instances' increases (it ends at 1 in
             * both, as the fit's anchor does) */
            if (fold_fit_refit(design[c], w->w, replicate_yscale(&k[c], w->scale[r]), cum, rate) != 0) {
                rc = -1;
                break;
            }
            for (size_t g = 0; g < grid; g++)
                rate[g] *= w->scale[r];
        }
    }
    for (size_t c = 0; c < nk; c++)
        fold_fit_design_free(design[c]);
    free(design);
    return rc;
}

/* The boundaries and the voters' slopes in every replicate, into
 * rb (R x (np + 1)) and rs (R x np x nv; slopes in units of the replicate's
 * rate factor, as its curves: vys, nv, the voters' y scales). */
static int boundary_replicates(const fold_bootstrap_counter *k, size_t nk, counter_work *work, resampler *s,
                               size_t R, fold_segment_frame *frame, const double **vw, double *vys,
                               const fold_segmentation *ph, const fold_segment_options *so, double *rb, double *rs)
{
    size_t np = ph->nphases, nv = ph->nclouds;
    for (size_t r = 0; r < R; r++) {
        draw(s, r);
        size_t v = 0;
        for (size_t c = 0; c < nk; c++)
            if (k[c].votes) {
                weigh_points(&work[c], k[c].cloud.n, s);
                vys[v] = replicate_yscale(&k[c], work[c].scale[r]);
                vw[v++] = work[c].w;
            }
        if (fold_segment_frame_refit(frame, vw, vys, ph->bounds, np, so, rb + r * (np + 1), rs + r * np * nv) != 0)
            return -1;
    }
    return 0;
}

/* Removes boundary k of the segmentation; the slopes of the voters' clouds
 * at the remaining ones. */
static int merge_at(fold_segmentation *ph, size_t k, const fold_cloud *vclouds, const double *voff)
{
    size_t nv = ph->nclouds;
    for (size_t q = k; q < ph->nphases; q++)
        ph->bounds[q] = ph->bounds[q + 1];
    for (size_t q = k; ph->trend && q < ph->nphases; q++) { /* phase k - 1 takes phase k */
        ph->trend[q - 1] = q == k ? 0 : ph->trend[q];
        for (size_t c = 0; c < nv; c++) {
            ph->trend_start[(q - 1) * nv + c] = q == k ? 0.0 : ph->trend_start[q * nv + c];
            ph->trend_end[(q - 1) * nv + c] = q == k ? 0.0 : ph->trend_end[q * nv + c];
        }
    }
    ph->nphases--;
    return fold_segment_slopes(vclouds, ph->nclouds, voff, ph->bounds, ph->nphases, ph->slopes);
}

void fold_region_interval_free(fold_region_interval *r)
{
    for (size_t c = 0; r->counters && c < r->ncounters; c++) {
        free(r->counters[c].rate_lo);
        free(r->counters[c].rate_hi);
        free(r->counters[c].phase_lo);
        free(r->counters[c].phase_hi);
    }
    free(r->counters);
    free(r->bound_lo);
    free(r->bound_hi);
    memset(r, 0, sizeof(*r));
}

/* 1 when a phase of the segmentation is a trend. The slopes of the
 * continuous piecewise-linear model take a trend for a line: its curvature
 * goes into the neighbours' slopes, which continuity ties to it (a ramp of
 * task-clock from 0.1 to 0.95 CPUs then a phase at 1.00 showed that phase at
 * 1.24 CPUs). The phase rates are then the fitted curve's chords. */
static int has_trend(const fold_segmentation *ph)
{
    for (size_t q = 0; ph->trend && q < ph->nphases; q++)
        if (ph->trend[q])
            return 1;
    return 0;
}

static void main_phase_rates(const fold_bootstrap_counter *k, size_t nk, const fold_segmentation *ph,
                             double **phase_rate)
{
    size_t v = 0;
    const double *slopes = has_trend(ph) ? NULL : ph->slopes;
    for (size_t c = 0; c < nk; c++) {
        size_t voter = k[c].votes ? v++ : SIZE_MAX;
        fold_phase_rates(ph->bounds, ph->nphases, slopes, ph->nclouds, voter, k[c].curve->cum, k[c].curve->grid,
                         k[c].rate_scale, phase_rate[c]);
    }
}

int fold_bootstrap_region(const fold_bootstrap_counter *k, size_t nk, size_t ninstances,
                          const fold_segment_options *so, const fold_bootstrap_options *o,
                          fold_segmentation *ph, double **phase_rate, fold_region_interval *out,
                          fold_bootstrap_refit refit, void *ctx)
{
    memset(out, 0, sizeof(*out));
    size_t R = o->replicates, np0 = ph->nphases, nv = ph->nclouds;
    if (R < 2 || ninstances < 2 || nk == 0) {
        main_phase_rates(k, nk, ph, phase_rate);
        return 0;
    }
    double z = gsl_cdf_ugaussian_Pinv(0.5 + 0.5 * o->level);
    resampler s;
    int ok = resampler_init(&s, ninstances, o->seed) == 0;
    counter_work *work = calloc(nk, sizeof(*work));
    fold_cloud *vclouds = calloc(nv + 1, sizeof(*vclouds));
    double *voff = calloc(nv + 1, sizeof(*voff)), *vys = calloc(nv + 1, sizeof(*vys)); /* voters' offsets, y scales */
    const double **vw = calloc(nv + 1, sizeof(*vw));
    double *rb = malloc(R * (np0 + 1) * sizeof(*rb));
    double *rs = malloc(R * np0 * (nv + 1) * sizeof(*rs));
    double *tmp = malloc(R * (np0 + 1) * sizeof(*tmp));
    fold_segment_frame *frame = NULL;
    out->counters = calloc(nk, sizeof(*out->counters));
    out->bound_lo = malloc((np0 + 1) * sizeof(double));
    out->bound_hi = malloc((np0 + 1) * sizeof(double));
    int rc = -1;
    if (!ok || !work || !vclouds || !voff || !vys || !vw || !rb || !rs || !tmp || !out->counters || !out->bound_lo ||
        !out->bound_hi)
        goto done;
    out->ncounters = nk;
    out->replicates = R;
    out->level = o->level;
    for (size_t c = 0, v = 0; c < nk; c++) {
        if (work_init(&work[c], &k[c], &s, R) != 0)
            goto done;
        if (k[c].votes && v < nv) {
            voff[v] = k[c].curve->offset; /* the fit's (analysis.c: on the fractions) */
            vclouds[v++] = k[c].cloud;
        }
    }
    replicate_scales(k, nk, work, &s, R);

    /* the boundaries: refitted per replicate; unplaced ones removed */
    if (nv > 0 && ph->nphases > 1) {
        frame = fold_segment_frame_new(vclouds, nv, voff);
        if (!frame)
            goto done;
    }
    for (;;) {
        size_t np = ph->nphases;
        out->nphases = np;
        out->bound_lo[0] = out->bound_hi[0] = 0.0;
        out->bound_lo[np] = out->bound_hi[np] = 1.0;
        if (!frame || np < 2)
            break;
        if (boundary_replicates(k, nk, work, &s, R, frame, vw, vys, ph, so, rb, rs) != 0)
            goto done;
        size_t worst = 0;
        double worst_excess = 0.0;
        for (size_t b = 1; b < np; b++) {
            double mean, sd, est = ph->bounds[b];
            fold_mean_sd(rb + b, R, np + 1, &mean, &sd);
            out->bound_lo[b] = fmax(est - z * sd, 0.0);
            out->bound_hi[b] = fmin(est + z * sd, 1.0);
            double narrower = fmin(est - ph->bounds[b - 1], ph->bounds[b + 1] - est);
            double excess = 2.0 * z * sd / (BOUNDARY_WIDTH_FRACTION * narrower);
            if (excess > 1.0 && excess > worst_excess) {
                worst_excess = excess;
                worst = b;
            }
        }
        if (worst == 0)
            break;
        if (merge_at(ph, worst, vclouds, voff) != 0)
            goto done;
    }
    /* the boundaries are final: the curves may be fitted again (steps), and
     * their replicates are fitted as they are */
    if (refit && refit(ctx, ph, out->bound_lo, out->bound_hi) != 0)
        goto done;
    /* the curves' bands */
    if (curve_replicates(k, nk, work, &s, R) != 0)
        goto done;
    for (size_t c = 0; c < nk; c++) {
        fold_counter_interval *ci = &out->counters[c];
        const fold_curve *cv = k[c].curve;
        size_t grid = cv->grid;
        ci->rate_lo = malloc(grid * sizeof(double));
        ci->rate_hi = malloc(grid * sizeof(double));
        ci->phase_lo = malloc((np0 + 1) * sizeof(double));
        ci->phase_hi = malloc((np0 + 1) * sizeof(double));
        if (!ci->rate_lo || !ci->rate_hi || !ci->phase_lo || !ci->phase_hi)
            goto done;
        double width = 0.0;
        for (size_t g = 0; g < grid; g++) {
            double mean, sd, est = cv->rate[g] * k[c].rate_scale;
            fold_mean_sd(work[c].rate + g, R, grid, &mean, &sd);
            /* bias-aware: the band reaches from the data's fit to the
             * undersmoothed replicates' mean (the smoothing bias as they
             * estimate it), and z x their spread beyond */
            double lo = fmin(est, mean), hi = fmax(est, mean);
            if (k[c].smooth_rate) { /* and to the fit without steps: whether the rate jumps there or turns */
                double alt = k[c].smooth_rate[g] * k[c].rate_scale;
                lo = fmin(lo, alt);
                hi = fmax(hi, alt);
            }
            ci->rate_lo[g] = fmax(lo - z * sd, 0.0);
            ci->rate_hi[g] = hi + z * sd;
            width += z * sd + 0.5 * (hi - lo);
        }
        ci->band_width = k[c].rate_scale > 0.0 ? width / (double)grid / k[c].rate_scale : 0.0;
    }

    main_phase_rates(k, nk, ph, phase_rate);

    /* the phase rates: per replicate from its boundaries, slopes, curves */
    size_t np = ph->nphases;
    if (!frame || np < 2) { /* the boundaries are fixed: the curves' chords */
        for (size_t r = 0; r < R; r++)
            for (size_t q = 0; q <= np; q++)
                rb[r * (np + 1) + q] = ph->bounds[q];
    }
    int slopes = frame && np > 1 && !has_trend(ph); /* the replicates' slopes, else the curves' chords */
    for (size_t c = 0, v = 0; c < nk; c++) {
        size_t voter = k[c].votes ? v++ : SIZE_MAX;
        size_t grid = k[c].curve->grid;
        for (size_t r = 0; r < R; r++)
            fold_phase_rates(rb + r * (np + 1), np, slopes ? rs + r * np * nv : NULL, nv, voter,
                             work[c].cum + r * grid, grid, work[c].scale[r], tmp + r * np);
        for (size_t q = 0; q < np; q++) {
            double mean, sd;
            fold_mean_sd(tmp + q, R, np, &mean, &sd);
            out->counters[c].phase_lo[q] = fmax(phase_rate[c][q] - z * sd, 0.0);
            out->counters[c].phase_hi[q] = phase_rate[c][q] + z * sd;
        }
    }
    rc = 0;
done:
    if (rc != 0)
        fold_region_interval_free(out);
    fold_segment_frame_free(frame);
    work_free(work, nk);
    resampler_free(&s);
    free(vclouds);
    free(voff);
    free(vys);
    free(vw);
    free(rb);
    free(rs);
    free(tmp);
    return rc;
}

int fold_bootstrap_bands(const fold_stack_sample *stacks, const size_t *stack_instance, size_t n,
                         size_t ninstances, const fold_band_options *bo, const fold_band *bands, size_t nbands,
                         const fold_bootstrap_options *o, double *lo, double *hi)
{
    for (size_t i = 0; i < nbands; i++)
        lo[i] = hi[i] = bands[i].share;
    size_t R = o->replicates;
    if (R < 2 || ninstances < 2 || n == 0 || nbands == 0)
        return 0;
    double z = gsl_cdf_ugaussian_Pinv(0.5 + 0.5 * o->level);
    resampler s;
    size_t *block = malloc(n * sizeof(*block)), *pick = malloc(n * sizeof(*pick));
    double *share = malloc(R * nbands * sizeof(*share));
    fold_stack_sample *rep = NULL;
    size_t cap = n + n / 2 + 16, nrep = 0;
    int rc = -1;
    if (resampler_init(&s, ninstances, o->seed) != 0 || !block || !pick || !share || !(rep = malloc(cap * sizeof(*rep))))
        goto done;
    /* at most FOLD_BOOTSTRAP_MAX_STACKS stacks, by a fixed stride (fold_cap_points) */
    size_t nsub = fold_cap_points(n, FOLD_BOOTSTRAP_MAX_STACKS, pick);
    for (size_t k = 0; k < nsub; k++)
        block[k] = block_of(&s, stack_instance[pick[k]]);
    for (size_t r = 0; r < R; r++) {
        draw(&s, r);
        nrep = 0;
        for (size_t i = 0; i < nsub; i++)
            for (unsigned m = (unsigned)s.count[block[i]]; m > 0; m--) {
                if (nrep == cap) {
                    fold_stack_sample *grown = realloc(rep, 2 * cap * sizeof(*rep));
                    if (!grown)
                        goto done;
                    rep = grown;
                    cap *= 2;
                }
                rep[nrep++] = stacks[pick[i]];
            }
        fold_band *rb = NULL;
        size_t nrb = 0;
        uint32_t best;
        if (fold_bands(rep, nrep, bo, &rb, &nrb, &best) != 0)
            goto done;
        for (size_t i = 0; i < nbands; i++) {
            double sum = 0.0;
            for (size_t k = 0; k < nrb; k++)
                if (rb[k].depth == bands[i].depth && rb[k].function == bands[i].function &&
                    rb[k].start < bands[i].end && rb[k].end > bands[i].start)
                    sum += rb[k].share;
            share[r * nbands + i] = sum;
        }
        free(rb);
    }
    /* a subsample's replicates vary more: as 1 / sqrt(samples) */
    double narrower = sqrt((double)nsub / (double)n);
    for (size_t i = 0; i < nbands; i++) {
        double mean, sd;
        fold_mean_sd(share + i, R, nbands, &mean, &sd);
        sd *= narrower;
        lo[i] = fmax(bands[i].share - z * sd, 0.0);
        hi[i] = fmin(bands[i].share + z * sd, 1.0);
    }
    rc = 0;
done:
    resampler_free(&s);
    free(block);
    free(pick);
    free(share);
    free(rep);
    return rc;
}
