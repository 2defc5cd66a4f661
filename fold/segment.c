/* segment.c: the phases of a region (fold/fit.h): optimal segmentation of one
 * or more folded cumulative curves, sharing the normalized-time axis, into
 * linear pieces.
 *
 * Method (Bai-Perron style optimal partition, with feasible weighted least
 * squares and a continuous refinement):
 *  - every cloud, its points moved along x by their offset from the anchors
 *    (fold_cloud_offset: a measurement skew, which the exact anchors would
 *    turn into narrow edge phases), with its anchors (0,0) and (1,1) (exact:
 *    each weighs as ANCHOR_WEIGHT points), is sorted by x and gathered into equal-width
 *    x-bins as weighted sufficient statistics (weight, sums of x, y, x^2,
 *    xy, y^2), so the residual sum of squares of a least-squares line over
 *    any run of bins is the exact RSS of the raw points in it, in O(1) from
 *    prefix sums;
 *  - dynamic programming over the bin boundaries gives, for every number of
 *    phases up to max_phases, the partition minimizing the RSS summed over
 *    clouds (O(bins^2 * phases * clouds)); the number of phases minimizes
 *    BIC, N log(RSS/N) + k log(N), k = 2 parameters per cloud per phase plus
 *    one per boundary, or RSS + penalty x phases;
 *  - folded points are heteroscedastic (instance-to-instance variation
 *    makes the spread grow from the anchors towards the middle, and differ
 *    between counters), which makes plain BIC add spurious phases where the
 *    spread is large. So a first unweighted pass gives residuals, from which
 *    a local variance of every cloud along x is estimated, and the search is
 *    run again with weights 1 / variance (each cloud in its own units:
 *    summing clouds is then fair too);
 *  - each boundary is refined on the raw points by the continuous model of a
 *    cumulative curve: two lines joined at the boundary ("hinge"), the join
 *    searched on a grid of 1/20 bin within two bins; free lines fit about as
 *    well anywhere near a change of slope, a joint does not;
 *  - every boundary is then checked with the continuous model: the phases
 *    whose removal (the other boundaries refined again) does not cost the
 *    continuous fit more than the phase's BIC price (or the fixed penalty)
 *    are dropped, weakest first: the free lines of the search can also buy
 *    small jumps of the curve, or two boundaries straddling one change;
 *  - the slopes come from the weighted least-squares continuous piecewise-
 *    linear curve through the anchors on the raw points, knots at the
 *    bounds: each slope is the phase's mean rate.
 * At most one phase per MIN_SAMPLES_PER_PHASE samples.
 * A phase at either edge is at least edge_width wide (narrower ones are what
 * a skew between samples and boundaries makes, not a phase); an edge phase
 * whose boundary stays pressed against that limit holds such a narrower
 * change, and is merged into its neighbour. Neighbouring phases whose rates
 * differ by less than 5 % in every cloud are one.
 * Ties always go to fewer phases, the lower bin, the boundary nearest the
 * original: the result is deterministic, and independent of the order of
 * the points. */
#include "fit.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define REFINE_BINS 2        /* refinement window: this many bins each side */
#define REFINE_PASSES 10
#define RSS_FLOOR 1e-24      /* mean squared residual floor for log() in BIC */
#define ANCHOR_WEIGHT 100.0  /* the anchors are exact: each weighs as many points */
#define VAR_MIN_POINTS 40    /* points behind each local variance estimate */
#define VAR_FLOOR_FRAC 0.02  /* local variance >= this fraction of the cloud's mean */
/* Samples per phase, at least, over the region: a phase's rate is the slope
 * of a line (two parameters) through the points around it; below 8 samples
 * per phase the slope's standard error exceeds 1/sqrt(8-2), 40 %, of the
 * points' spread across instances, as large as the changes searched for.
 * So n samples give at most n/8 phases (one below 16). Not per phase: with
 * CPU-time sampling a phase where the thread sleeps holds no sample at all,
 * and the points around it are what shows it. */
#define MIN_SAMPLES_PER_PHASE 8

void fold_segment_defaults(fold_segment_options *o)
{
    o->max_phases = 8;
    o->penalty = 0.0;
    o->bins = 200;
    o->min_width = 0.02;
    o->edge_width = FOLD_EDGE_WIDTH;
    o->offsets = NULL;
    o->max_rate = NULL;
}

void fold_segmentation_free(fold_segmentation *s)
{
    if (!s)
        return;
    free(s->bounds);
    free(s->slopes);
    free(s->trend);
    free(s->trend_start);
    free(s->trend_end);
    memset(s, 0, sizeof(*s));
}

/* Weighted sufficient statistics, in coordinates shifted by -0.5 to keep the
 * sums small; cnt counts the points. */
typedef struct {
    double cnt, w, sx, sy, sxx, sxy, syy;
} lsq;

static void lsq_add(lsq *s, double x, double y, double w)
{
    x -= 0.5;
    y -= 0.5;
    s->cnt += 1.0;
    s->w += w;
    s->sx += w * x;
    s->sy += w * y;
    s->sxx += w * x * x;
    s->sxy += w * x * y;
    s->syy += w * y * y;
}

static lsq lsq_diff(const lsq *a, const lsq *b)
{
    lsq d = { a->cnt - b->cnt, a->w - b->w, a->sx - b->sx, a->sy - b->sy,
              a->sxx - b->sxx, a->sxy - b->sxy, a->syy - b->syy };
    return d;
}

/* Intercept and slope (in the shifted coordinates) of the weighted
 * least-squares line; -1 when x does not vary (the line is then the mean). */
static int lsq_line(const lsq *s, double *a, double *b)
{
    *a = 0.0;
    *b = 0.0;
    if (s->cnt < 0.5 || !(s->w > 0.0))
        return -1;
    double mx = s->sx / s->w, my = s->sy / s->w;
    double vxx = s->sxx - s->sx * mx, vxy = s->sxy - s->sx * my;
    *a = my;
    if (s->cnt < 1.5 || !(vxx > 1e-14 * s->w))
        return -1;
    *b = vxy / vxx;
    *a = my - *b * mx;
    return 0;
}

/* Weighted RSS of the least-squares line (of the mean when x does not vary). */
static double lsq_rss(const lsq *s)
{
    if (s->cnt < 1.5 || !(s->w > 0.0))
        return 0.0;
    double mx = s->sx / s->w, my = s->sy / s->w;
    double vxx = s->sxx - s->sx * mx, vxy = s->sxy - s->sx * my, vyy = s->syy - s->sy * my;
    double r = vyy;
    if (vxx > 1e-14 * s->w)
        r -= vxy * vxy / vxx;
    return r > 0.0 ? r : 0.0;
}

/* One cloud with its anchors, sorted by x (ties by y, then input order), and
 * the weight of every point. */
typedef struct {
    double *x, *y, *w;
    size_t n;
    lsq *cum; /* cum[i]: statistics of points [0, i), for the hinge fits */
} sorted_cloud;

typedef struct {
    double x, y;
    size_t i;
} pt;

static int pt_cmp(const void *a, const void *b)
{
    const pt *p = a, *q = b;
    if (p->x != q->x)
        return p->x < q->x ? -1 : 1;
    if (p->y != q->y)
        return p->y < q->y ? -1 : 1;
    return (p->i > q->i) - (p->i < q->i);
}

static double clamp01(double v)
{
    return v < 0.0 ? 0.0 : (v > 1.0 ? 1.0 : v);
}

/* The cloud moved by off (its measurement skew, not a phase), sorted, with
 * its anchors. perm (if not NULL, n + 2 entries): the input index of every
 * sorted point, SIZE_MAX for the anchors. */
/* Cloud c's offset: given, or fold_cloud_offset */
static double cloud_offset(const fold_cloud *clouds, const double *offsets, size_t c)
{
    return offsets ? offsets[c] : fold_cloud_offset(&clouds[c]);
}

static int sort_cloud(const fold_cloud *c, double off, sorted_cloud *s, size_t *perm)
{
    size_t n = c->n + 2;
    pt *p = malloc(n * sizeof(*p));
    s->x = malloc(n * sizeof(double));
    s->y = malloc(n * sizeof(double));
    s->w = malloc(n * sizeof(double));
    if (!p || !s->x || !s->y || !s->w) {
        free(p);
        return -1;
    }
    p[0] = (pt){ 0.0, 0.0, 0 };
    for (size_t i = 0; i < c->n; i++)
        p[i + 1] = (pt){ clamp01(c->x[i] + off), c->y[i] < 0.0 ? 0.0 : c->y[i], i + 1 };
    p[n - 1] = (pt){ 1.0, 1.0, n - 1 };
    qsort(p, n, sizeof(*p), pt_cmp);
    for (size_t i = 0; i < n; i++) {
        s->x[i] = p[i].x;
        s->y[i] = p[i].y;
        s->w[i] = 1.0;
        if (perm)
            perm[i] = p[i].i == 0 || p[i].i == n - 1 ? SIZE_MAX : p[i].i - 1;
    }
    s->w[0] = ANCHOR_WEIGHT;
    s->w[n - 1] = ANCHOR_WEIGHT;
    s->n = n;
    free(p);
    return 0;
}

static size_t bin_of(double x, size_t B)
{
    size_t b = (size_t)(x * (double)B);
    return b >= B ? B - 1 : b;
}

/* First index with x >= v (n if none). */
static size_t lower(const sorted_cloud *s, double v)
{
    size_t lo = 0, hi = s->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->x[mid] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Index range of the points of phase [a, b): x >= a and x < b, the last
 * phase (b >= 1) taking x = 1 too. */
static void phase_range(const sorted_cloud *s, double a, double b, size_t *i0, size_t *i1)
{
    *i0 = a <= 0.0 ? 0 : lower(s, a);
    *i1 = b >= 1.0 ? s->n : lower(s, b);
}

/* pre[c * (B+1) + b]: statistics of the points of cloud c in bins < b. */
static void build_prefix(const sorted_cloud *sc, size_t nc, size_t B, lsq *pre)
{
    for (size_t c = 0; c < nc; c++) {
        lsq *pc = pre + c * (B + 1);
        memset(&pc[0], 0, sizeof(pc[0]));
        size_t i = 0;
        for (size_t bin = 0; bin < B; bin++) {
            pc[bin + 1] = pc[bin];
            for (; i < sc[c].n && bin_of(sc[c].x[i], B) == bin; i++)
                lsq_add(&pc[bin + 1], sc[c].x[i], sc[c].y[i], sc[c].w[i]);
        }
    }
}

/* The dynamic program: F[p * (B+1) + j] = least RSS of bins [0, j) in p
 * phases, back[] the start bin of the last phase. */
static void partition(const lsq *pre, size_t nc, size_t B, size_t P, size_t minbins, size_t edgebins, double *F,
                      size_t *back)
{
    double need = 2.0 * (double)nc; /* points per phase, all clouds together */
    for (size_t k = 0; k < (P + 1) * (B + 1); k++) {
        F[k] = HUGE_VAL;
        back[k] = 0;
    }
    F[0] = 0.0;
    for (size_t p = 1; p <= P; p++) {
        for (size_t j = p * minbins; j <= B; j++) {
            double best = HUGE_VAL;
            size_t arg = 0;
            for (size_t i = (p - 1) * minbins; i + minbins <= j; i++) {
                double f = F[(p - 1) * (B + 1) + i];
                if (f == HUGE_VAL || ((i == 0 || j == B) && j - i < edgebins))
                    continue;
                double cost = 0.0, cnt = 0.0;
                for (size_t c = 0; c < nc; c++) {
                    lsq d = lsq_diff(&pre[c * (B + 1) + j], &pre[c * (B + 1) + i]);
                    cnt += d.cnt;
                    cost += lsq_rss(&d);
                }
                if (cnt < need - 0.5)
                    continue;
                if (f + cost < best) {
                    best = f + cost;
                    arg = i;
                }
            }
            F[p * (B + 1) + j] = best;
            back[p * (B + 1) + j] = arg;
        }
    }
}

/* The number of phases by BIC or the fixed penalty (0 if none admissible). */
static size_t choose_phases(const double *F, size_t B, size_t P, size_t nc, double npts, double penalty)
{
    size_t np = 0;
    double best = HUGE_VAL;
    for (size_t p = 1; p <= P; p++) {
        double rss = F[p * (B + 1) + B];
        if (rss == HUGE_VAL)
            continue;
        double crit;
        if (penalty > 0.0) {
            crit = rss + penalty * (double)p;
        } else {
            double k = (double)p * 2.0 * (double)nc + (double)(p - 1);
            double msr = rss / npts;
            crit = npts * log(msr > RSS_FLOOR ? msr : RSS_FLOOR) + k * log(npts);
        }
        if (crit < best) {
            best = crit;
            np = p;
        }
    }
    return np;
}

/* Bin index where each of the np phases starts (starts[np] = B). */
static void backtrack(const size_t *back, size_t B, size_t np, size_t *starts)
{
    size_t j = B;
    starts[np] = B;
    for (size_t p = np; p > 0; p--) {
        j = back[p * (B + 1) + j];
        starts[p - 1] = j;
    }
}

/* Weights 1 / local variance: residuals of each cloud against the lines of
 * the given partition, their mean square over a window of bins around each
 * bin holding at least VAR_MIN_POINTS points, floored at a fraction of the
 * cloud's mean. The anchors keep the weight of their bins. */
static int local_weights(sorted_cloud *sc, size_t nc, size_t B, const lsq *pre, const size_t *starts, size_t np)
{
    double *r2 = malloc(B * sizeof(*r2));
    double *cnt = malloc(B * sizeof(*cnt));
    double *var = malloc(B * sizeof(*var));
    if (!r2 || !cnt || !var) {
        free(r2);
        free(cnt);
        free(var);
        return -1;
    }
    for (size_t c = 0; c < nc; c++) {
        sorted_cloud *s = &sc[c];
        const lsq *pc = pre + c * (B + 1);
        memset(r2, 0, B * sizeof(*r2));
        memset(cnt, 0, B * sizeof(*cnt));
        size_t p = 0;
        double a = 0.0, b = 0.0;
        size_t cur = (size_t)-1;
        double tot_r2 = 0.0, tot_cnt = 0.0;
        for (size_t i = 0; i < s->n; i++) {
            size_t bin = bin_of(s->x[i], B);
            while (p + 1 < np && bin >= starts[p + 1])
                p++;
            if (cur != p) {
                lsq d = lsq_diff(&pc[starts[p + 1]], &pc[starts[p]]);
                lsq_line(&d, &a, &b);
                cur = p;
            }
            double e = (s->y[i] - 0.5) - (a + b * (s->x[i] - 0.5));
            r2[bin] += e * e;
            cnt[bin] += 1.0;
            tot_r2 += e * e;
            tot_cnt += 1.0;
        }
        double mean = tot_cnt > 0.0 ? tot_r2 / tot_cnt : 0.0;
        double floor_v = fmax(VAR_FLOOR_FRAC * mean, 1e-20);
        for (size_t bin = 0; bin < B; bin++) {
            double sr = r2[bin], sn = cnt[bin];
            size_t lo = bin, hi = bin;
            while (sn < VAR_MIN_POINTS && (lo > 0 || hi + 1 < B)) {
                if (lo > 0) {
                    lo--;
                    sr += r2[lo];
                    sn += cnt[lo];
                }
                if (hi + 1 < B) {
                    hi++;
                    sr += r2[hi];
                    sn += cnt[hi];
                }
            }
            double v = sn > 0.0 ? sr / sn : mean;
            var[bin] = v > floor_v ? v : floor_v;
        }
        for (size_t i = 0; i < s->n; i++)
            s->w[i] = 1.0 / var[bin_of(s->x[i], B)];
        s->w[0] *= ANCHOR_WEIGHT;
        s->w[s->n - 1] *= ANCHOR_WEIGHT;
    }
    free(r2);
    free(cnt);
    free(var);
    return 0;
}

/* The running statistics of every cloud (after its weights are final). */
static int build_cum(sorted_cloud *sc, size_t nc)
{
    for (size_t c = 0; c < nc; c++) {
        sorted_cloud *s = &sc[c];
        free(s->cum);
        s->cum = malloc((s->n + 1) * sizeof(*s->cum));
        if (!s->cum)
            return -1;
        memset(&s->cum[0], 0, sizeof(s->cum[0]));
        for (size_t i = 0; i < s->n; i++) {
            s->cum[i + 1] = s->cum[i];
            lsq_add(&s->cum[i + 1], s->x[i], s->y[i], s->w[i]);
        }
    }
    return 0;
}

/* RSS of the weighted least-squares fit of y by the columns (1, x, (x-t)+)
 * over points [i0, i1) of one cloud: two lines joined at t (a cumulative
 * curve is continuous, so the join locates a change of slope far better
 * than two free lines, which fit about as well anywhere near it). Columns
 * that are (numerically) dependent on the previous ones are dropped. */
static double hinge_rss(const sorted_cloud *s, size_t i0, size_t i1, double t)
{
    /* points x > t: [j, i1) */
    size_t j = i0, hi = i1;
    while (j < hi) {
        size_t mid = j + (hi - j) / 2;
        if (s->x[mid] <= t)
            j = mid + 1;
        else
            hi = mid;
    }
    lsq all = lsq_diff(&s->cum[i1], &s->cum[i0]), right = lsq_diff(&s->cum[i1], &s->cum[j]);
    /* columns 1, x', h = (x' - t')+ in the shifted coordinates of lsq;
     * only the lower triangle of G is used */
    double tt = t - 0.5;
    const double G[3][3] = { { all.w, 0.0, 0.0 },
                             { all.sx, all.sxx, 0.0 },
                             { right.sx - tt * right.w, right.sxx - tt * right.sx,
                               right.sxx - 2.0 * tt * right.sx + tt * tt * right.w } };
    const double g[3] = { all.sy, all.sxy, right.sxy - tt * right.sy }, yy = all.syy;
    /* Cholesky G = L L' (lower), then RSS = yy - |L^-1 g|^2 */
    double L[3][3] = { { 0 } }, z[3] = { 0 }, rss = yy;
    int keep[3] = { 0, 0, 0 };
    for (int a = 0; a < 3; a++) {
        double d = G[a][a];
        for (int k = 0; k < a; k++)
            if (keep[k])
                d -= L[a][k] * L[a][k];
        if (!(d > 1e-12 * (G[a][a] + 1e-300)))
            continue;
        keep[a] = 1;
        L[a][a] = sqrt(d);
        for (int b = a + 1; b < 3; b++) {
            double v = G[b][a];
            for (int k = 0; k < a; k++)
                if (keep[k])
                    v -= L[b][k] * L[a][k];
            L[b][a] = v / L[a][a];
        }
        double v = g[a];
        for (int k = 0; k < a; k++)
            if (keep[k])
                v -= L[a][k] * z[k];
        z[a] = v / L[a][a];
        rss -= z[a] * z[a];
    }
    return rss > 0.0 ? rss : 0.0;
}

/* The summed hinge RSS over all clouds of the points in [a, z) joined at t. */
static double hinge_cost(const sorted_cloud *sc, size_t nc, double a, double z, double t)
{
    double cost = 0.0;
    for (size_t c = 0; c < nc; c++) {
        size_t i0, i1;
        phase_range(&sc[c], a, z, &i0, &i1);
        cost += hinge_rss(&sc[c], i0, i1, t);
    }
    return cost;
}

/* Move boundary b[k] (between phases k-1 and k) to the position, on a grid
 * of 1/20 bin within REFINE_BINS bins of it, that minimizes the summed
 * hinge RSS of the two phases over all clouds. Returns 1 if it moved. */
static int refine_one(const sorted_cloud *sc, size_t nc, double *b, size_t k, size_t np, double binw,
                      const double width[2])
{
    double a = b[k - 1], z = b[k + 1];
    double lo = fmax(b[k] - REFINE_BINS * binw, a + width[k == 1]);
    double hi = fmin(b[k] + REFINE_BINS * binw, z - width[k + 1 == np]);
    double step = binw / 20.0, best = HUGE_VAL, best_t = b[k];
    int steps = REFINE_BINS * 20;
    for (int j = 0; j <= 2 * steps; j++) {
        /* 0, -1, +1, -2, +2, ...: ties go to the nearest to the original */
        int off = (j % 2 ? -1 : 1) * ((j + 1) / 2);
        double t = b[k] + step * off;
        if (t < lo || t > hi)
            continue;
        double cost = hinge_cost(sc, nc, a, z, t);
        if (best == HUGE_VAL || cost < best - 1e-12 * best) {
            best = cost;
            best_t = t;
        }
    }
    if (best_t != b[k]) {
        b[k] = best_t;
        return 1;
    }
    return 0;
}

/* width: the smallest width of an inner phase, of a phase at an edge */
static void refine_all(const sorted_cloud *sc, size_t nc, double *b, size_t np, double binw, const double width[2])
{
    for (int pass = 0; pass < REFINE_PASSES; pass++) {
        int moved = 0;
        for (size_t k = 1; k < np; k++)
            moved |= refine_one(sc, nc, b, k, np, binw, width);
        if (!moved)
            break;
    }
}

/* The phases without the boundary b[k] (the phases either side of it one),
 * the others refined again: the new number of phases. */
static size_t drop_bound(const sorted_cloud *sc, size_t nc, double *b, size_t np, size_t k, double binw,
                         const double width[2])
{
    memmove(&b[k], &b[k + 1], (np - k) * sizeof(*b));
    np--;
    refine_all(sc, nc, b, np, binw, width);
    return np;
}

/* The continuous model of one cloud: the weighted least-squares continuous
 * piecewise-linear curve on the raw points with knots at the bounds, through
 * the anchors (0 at 0 and 1 at 1, as every cumulative curve). So a slope is
 * the phase's mean rate, the slopes times the phase widths add up to 1 (the
 * region's total) and one phase has slope 1; with the boundaries placed by
 * the hinge fits, they are as precise as free lines per phase. A tiny ridge
 * towards the chord (rate 1) keeps a knot without nearby points defined.
 * The normal equations are tridiagonal, symmetric positive definite (Thomas
 * algorithm). Gives the per-phase slopes (if slopes) and the weighted RSS
 * (if rss). */
static int broken_stick(const sorted_cloud *s, const double *b, size_t np, double *slopes, size_t stride, double *rss)
{
    size_t nk = np + 1;
    double *d = calloc(nk, sizeof(*d)); /* diagonal */
    double *e = calloc(nk, sizeof(*e)); /* e[k] = A[k][k+1] */
    double *r = calloc(nk, sizeof(*r));
    double *v = calloc(nk, sizeof(*v));
    if (!d || !e || !r || !v) {
        free(d);
        free(e);
        free(r);
        free(v);
        return -1;
    }
    size_t p = 0;
    double wsum = 0.0;
    for (size_t i = 0; i < s->n; i++) {
        double x = s->x[i], y = s->y[i], w = s->w[i];
        while (p + 1 < np && x >= b[p + 1])
            p++;
        double t = clamp01((x - b[p]) / (b[p + 1] - b[p]));
        d[p] += w * (1.0 - t) * (1.0 - t);
        e[p] += w * t * (1.0 - t);
        d[p + 1] += w * t * t;
        r[p] += w * (1.0 - t) * y;
        r[p + 1] += w * t * y;
        wsum += w;
    }
    double ridge = 1e-9 * (wsum > 0.0 ? wsum : 1.0) / (double)np;
    v[0] = 0.0;
    v[np] = 1.0;
    if (np > 1) {
        /* unknowns v[1..np-1]; the fixed ends go to the right-hand side */
        r[1] -= e[0] * v[0];
        r[np - 1] -= e[np - 1] * v[np];
        for (size_t k = 1; k < np; k++) {
            d[k] += ridge;
            r[k] += ridge * b[k];
        }
        for (size_t k = 2; k < np; k++) {
            double f = e[k - 1] / d[k - 1];
            d[k] -= f * e[k - 1];
            r[k] -= f * r[k - 1];
        }
        v[np - 1] = r[np - 1] / d[np - 1];
        for (size_t k = np - 1; k-- > 1;)
            v[k] = (r[k] - e[k] * v[k + 1]) / d[k];
    }
    if (slopes)
        for (size_t q = 0; q < np; q++)
            slopes[q * stride] = (v[q + 1] - v[q]) / (b[q + 1] - b[q]);
    if (rss) {
        double sum = 0.0;
        p = 0;
        for (size_t i = 0; i < s->n; i++) {
            double x = s->x[i];
            while (p + 1 < np && x >= b[p + 1])
                p++;
            double t = clamp01((x - b[p]) / (b[p + 1] - b[p]));
            double f = v[p] + t * (v[p + 1] - v[p]) - s->y[i];
            sum += s->w[i] * f * f;
        }
        *rss = sum;
    }
    free(d);
    free(e);
    free(r);
    free(v);
    return 0;
}

/* Summed RSS of the continuous model over all clouds (-1: no memory). */
static double stick_rss(const sorted_cloud *sc, size_t nc, const double *b, size_t np)
{
    double total = 0.0;
    for (size_t c = 0; c < nc; c++) {
        double r;
        if (broken_stick(&sc[c], b, np, NULL, 0, &r) != 0)
            return -1.0;
        total += r;
    }
    return total;
}

/* The search fits a free line per phase, so a "phase" can also buy a small
 * jump of the curve, which a cumulative curve never has, or two boundaries
 * can straddle one true change. Each boundary is checked again with the
 * continuous model: without it (and the others refined again), the RSS of
 * the continuous model must grow by enough to pay for the phase (BIC:
 * N log(RSS without / RSS with) >= k log N for the k = 2 x clouds + 1
 * parameters of a phase; fixed penalty: growth >= penalty). The boundary
 * that pays least is removed if it does not pay, until all pay. Returns the
 * new number of phases, or 0 on no memory. */
static size_t prune(const sorted_cloud *sc, size_t nc, double *b, size_t np, double npts, double penalty,
                    double binw, const double width[2])
{
    double *tmp = malloc((np + 1) * sizeof(*tmp));
    double *best_b = malloc((np + 1) * sizeof(*best_b));
    if (!tmp || !best_b) {
        free(tmp);
        free(best_b);
        return 0;
    }
    double need = penalty > 0.0 ? penalty : ((double)(2 * nc + 1) * log(npts));
    while (np > 1) {
        double with = stick_rss(sc, nc, b, np);
        if (with < 0.0) {
            np = 0;
            break;
        }
        double best_score = HUGE_VAL;
        for (size_t k = 1; k < np; k++) {
            size_t m = 0;
            for (size_t q = 0; q <= np; q++)
                if (q != k)
                    tmp[m++] = b[q];
            refine_all(sc, nc, tmp, np - 1, binw, width);
            double without = stick_rss(sc, nc, tmp, np - 1);
            if (without < 0.0) {
                best_score = -HUGE_VAL;
                np = 0;
                break;
            }
            double score;
            if (penalty > 0.0) {
                score = without - with;
            } else {
                double floor_rss = RSS_FLOOR * npts;
                score = npts * log(fmax(without, floor_rss) / fmax(with, floor_rss));
            }
            if (score < best_score) {
                best_score = score;
                memcpy(best_b, tmp, np * sizeof(*tmp));
            }
        }
        if (np == 0 || best_score >= need)
            break;
        np--;
        memcpy(b, best_b, (np + 1) * sizeof(*b));
    }
    free(tmp);
    free(best_b);
    return np;
}

/* An edge phase whose boundary the refinement pressed against edge_width
 * (within a refinement step of it, and the hinge would fit better closer to
 * the edge) holds a change narrower than an edge phase may be: a skew or a
 * jump of the cumulative curve at the region's boundary (on CloverLeaf: the
 * last 0.015 of an OpenMP share), which the search's free lines buy with a
 * phase of exactly edge_width, its bootstrap interval of zero width. Such a
 * boundary is removed and the others refined again, until none is pinned.
 * Returns the new number of phases. */
static size_t drop_pinned_edges(const sorted_cloud *sc, size_t nc, double *b, size_t np, double binw,
                                const double width[2])
{
    double step = binw / 20.0; /* refine_one's grid */
    int dropped = 1;
    while (dropped && np > 1) {
        dropped = 0;
        for (int edge = 0; edge < 2 && !dropped; edge++) {
            size_t k = edge == 0 ? 1 : np - 1;
            double limit = edge == 0 ? width[1] : 1.0 - width[1];
            double past = edge == 0 ? limit - step : limit + step; /* one step into the edge's zone */
            if (fabs(b[k] - limit) > step * (1.0 + 1e-6) ||
                !(hinge_cost(sc, nc, b[k - 1], b[k + 1], past) < hinge_cost(sc, nc, b[k - 1], b[k + 1], b[k])))
                continue;
            np = drop_bound(sc, nc, b, np, k, binw, width);
            dropped = 1;
        }
    }
    return np;
}

/* Neighbouring phases whose rates differ by less than MIN_RATE_CHANGE of the
 * larger one, in every cloud, are one phase: with many samples of a
 * counter that hardly varies (task-clock of a thread that computes
 * throughout: one CPU), BIC finds changes of 1-2 % significant, which
 * preemption on a loaded machine makes and no analyst calls a phase
 * (miniFE, 8 ranks on 2 cores: 0.00-0.75 at 1.00 CPUs, 0.75-1.00 at 0.99). The
 * closest pair is merged first, the boundaries refined again, until every
 * pair differs enough. Returns the new number of phases, 0 on no memory. */
#define MIN_RATE_CHANGE 0.05

/* The clouds' slopes in the phases of bounds b (np x nc, malloc'ed), or NULL
 * on no memory. */
static double *phase_slopes(const sorted_cloud *sc, size_t nc, const double *b, size_t np)
{
    double *slopes = malloc(np * nc * sizeof(*slopes));
    for (size_t c = 0; slopes && c < nc; c++)
        if (broken_stick(&sc[c], b, np, slopes + c, nc, NULL) != 0) {
            free(slopes);
            slopes = NULL;
        }
    return slopes;
}

static size_t merge_equal_rates(const sorted_cloud *sc, size_t nc, double *b, size_t np, double binw,
                                const double width[2])
{
    while (np > 1) {
        double *slopes = phase_slopes(sc, nc, b, np);
        if (!slopes)
            return 0;
        size_t merge = 0;
        double closest = HUGE_VAL;
        for (size_t k = 1; k < np; k++) {
            double change = 0.0; /* the largest relative change over the clouds */
            for (size_t c = 0; c < nc; c++) {
                double a = slopes[(k - 1) * nc + c], z = slopes[k * nc + c], top = fmax(fabs(a), fabs(z));
                change = fmax(change, top > 0.0 ? fabs(a - z) / top : 0.0);
            }
            if (change < closest) {
                closest = change;
                merge = k;
            }
        }
        free(slopes);
        if (closest >= MIN_RATE_CHANGE)
            break;
        np = drop_bound(sc, nc, b, np, merge, binw, width);
    }
    return np;
}

/* A phase whose rate is above the physical limit of its counter (CPU time:
 * one CPU per thread; max_rate per cloud, <= 0 none) by more than
 * MAX_RATE_EXCESS is not supported by the data: a short phase at an
 * instance's end fitted to few samples of instances whose CPU shares
 * differ (CloverLeaf, 2 ranks of 2 threads on 2 cores: an OpenMP share's
 * last 0.11 at 1.67 CPUs, the rest at 0.45). The phase most above it is
 * merged into the neighbour of the closer rate, the boundaries refined
 * again, until none is. Returns the new number of phases, 0 on no memory. */
#define MAX_RATE_EXCESS 0.05

static size_t merge_impossible_rates(const sorted_cloud *sc, size_t nc, double *b, size_t np, double binw,
                                     const double width[2], const double *max_rate)
{
    while (max_rate && np > 1) {
        double *slopes = phase_slopes(sc, nc, b, np);
        if (!slopes)
            return 0;
        size_t worst = np, wc = 0;
        double excess = 1.0 + MAX_RATE_EXCESS;
        for (size_t k = 0; k < np; k++)
            for (size_t c = 0; c < nc; c++)
                if (max_rate[c] > 0.0 && slopes[k * nc + c] / max_rate[c] > excess) {
                    excess = slopes[k * nc + c] / max_rate[c];
                    worst = k;
                    wc = c;
                }
        size_t gone = 0; /* the boundary removed: between worst and its closer neighbour */
        if (worst < np) {
            double r = slopes[worst * nc + wc];
            int left = worst > 0 && (worst + 1 == np ||
                                     fabs(slopes[(worst - 1) * nc + wc] - r) <= fabs(slopes[(worst + 1) * nc + wc] - r));
            gone = left ? worst : worst + 1;
        }
        free(slopes);
        if (worst == np)
            break;
        np = drop_bound(sc, nc, b, np, gone, binw, width);
    }
    return np;
}

int fold_segment(const fold_cloud *clouds, size_t nclouds, const fold_segment_options *o, fold_segmentation *out)
{
    if (!out)
        return -1;
    memset(out, 0, sizeof(*out));
    if (!clouds || nclouds == 0 || !o || !isfinite(o->penalty) || !isfinite(o->min_width))
        return -1;
    for (size_t c = 0; c < nclouds; c++) {
        if (clouds[c].n > 0 && (!clouds[c].x || !clouds[c].y))
            return -1;
        for (size_t i = 0; i < clouds[c].n; i++)
            if (!isfinite(clouds[c].x[i]) || !isfinite(clouds[c].y[i]))
                return -1;
    }
    size_t B = o->bins ? o->bins : 200;
    size_t P = o->max_phases ? o->max_phases : 1;
    size_t fewest = SIZE_MAX; /* samples of the cloud with the fewest, among those with any */
    for (size_t c = 0; c < nclouds; c++)
        if (clouds[c].n > 0 && clouds[c].n < fewest)
            fewest = clouds[c].n;
    if (fewest != SIZE_MAX && P > fewest / MIN_SAMPLES_PER_PHASE)
        P = fewest / MIN_SAMPLES_PER_PHASE > 0 ? fewest / MIN_SAMPLES_PER_PHASE : 1;
    double min_width = o->min_width > 0.0 ? o->min_width : 0.0;
    const double width[2] = { min_width, fmax(min_width, isfinite(o->edge_width) ? o->edge_width : 0.0) };
    size_t minbins = (size_t)ceil(min_width * (double)B - 1e-9);
    if (minbins < 1)
        minbins = 1;
    size_t edgebins = (size_t)ceil(width[1] * (double)B - 1e-9);
    if (edgebins < minbins)
        edgebins = minbins;
    size_t nc = nclouds;

    int rc = -1;
    sorted_cloud *sc = calloc(nc, sizeof(*sc));
    lsq *pre = malloc(nc * (B + 1) * sizeof(*pre));
    double *F = malloc((P + 1) * (B + 1) * sizeof(*F));
    size_t *back = malloc((P + 1) * (B + 1) * sizeof(*back));
    size_t *starts = malloc((P + 1) * sizeof(*starts));
    double *bounds = NULL;
    if (!sc || !pre || !F || !back || !starts)
        goto done;
    double npts = 0.0;
    for (size_t c = 0; c < nc; c++) {
        /* a measurement skew: not a phase */
        if (sort_cloud(&clouds[c], cloud_offset(clouds, o->offsets, c), &sc[c], NULL) != 0)
            goto done;
        npts += (double)sc[c].n;
    }

    /* pass 1, unweighted: the residuals give the local variances */
    build_prefix(sc, nc, B, pre);
    partition(pre, nc, B, P, minbins, edgebins, F, back);
    size_t np = choose_phases(F, B, P, nc, npts, o->penalty);
    if (np > 0 && o->penalty <= 0.0) {
        /* pass 2, weighted (BIC only: a fixed penalty is in the caller's
         * units of unweighted RSS) */
        backtrack(back, B, np, starts);
        if (local_weights(sc, nc, B, pre, starts, np) != 0)
            goto done;
        build_prefix(sc, nc, B, pre);
        partition(pre, nc, B, P, minbins, edgebins, F, back);
        np = choose_phases(F, B, P, nc, npts, o->penalty);
    }

    if (np == 0)
        np = 1; /* no admissible partition (too few points): one phase */
    if (build_cum(sc, nc) != 0)
        goto done;
    bounds = malloc((np + 1) * sizeof(*bounds));
    if (!bounds)
        goto done;
    bounds[0] = 0.0;
    bounds[np] = 1.0;
    if (np > 1) {
        backtrack(back, B, np, starts);
        for (size_t p = 1; p < np; p++)
            bounds[p] = (double)starts[p] / (double)B;
        refine_all(sc, nc, bounds, np, 1.0 / (double)B, width);
        np = prune(sc, nc, bounds, np, npts, o->penalty, 1.0 / (double)B, width);
        if (np == 0)
            goto done;
        np = drop_pinned_edges(sc, nc, bounds, np, 1.0 / (double)B, width);
        np = merge_equal_rates(sc, nc, bounds, np, 1.0 / (double)B, width);
        if (np > 1)
            np = merge_impossible_rates(sc, nc, bounds, np, 1.0 / (double)B, width, o->max_rate);
        if (np == 0)
            goto done;
    }

    out->slopes = malloc(np * nc * sizeof(*out->slopes));
    if (!out->slopes)
        goto done;
    for (size_t c = 0; c < nc; c++)
        if (broken_stick(&sc[c], bounds, np, out->slopes + c, nc, NULL) != 0)
            goto done;
    out->bounds = bounds;
    bounds = NULL;
    out->nphases = np;
    out->nclouds = nc;
    rc = 0;

done:
    if (rc != 0)
        fold_segmentation_free(out);
    if (sc)
        for (size_t c = 0; c < nc; c++) {
            free(sc[c].x);
            free(sc[c].y);
            free(sc[c].w);
            free(sc[c].cum);
        }
    free(sc);
    free(pre);
    free(F);
    free(back);
    free(starts);
    free(bounds);
    return rc;
}

/* ---- refits of given boundaries under point weights (the bootstrap) ---- */

#define WIDE_STEP_BINS 1.0   /* coarse step of the wide search, in bins */
#define WIDE_PASSES 3

struct fold_segment_frame {
    sorted_cloud *sc;
    size_t **perm; /* per cloud: input index of each sorted point (SIZE_MAX: an anchor) */
    double **y0;   /* per cloud: the sorted points' y as given (a refit scales them) */
    size_t nc;
};

void fold_segment_frame_free(fold_segment_frame *f)
{
    if (!f)
        return;
    for (size_t c = 0; f->sc && c < f->nc; c++) {
        free(f->sc[c].x);
        free(f->sc[c].y);
        free(f->sc[c].w);
        free(f->sc[c].cum);
        if (f->perm)
            free(f->perm[c]);
        if (f->y0)
            free(f->y0[c]);
    }
    free(f->y0);
    free(f->sc);
    free(f->perm);
    free(f);
}

fold_segment_frame *fold_segment_frame_new(const fold_cloud *clouds, size_t nclouds, const double *offsets)
{
    if (!clouds || nclouds == 0)
        return NULL;
    for (size_t c = 0; c < nclouds; c++) {
        if (clouds[c].n > 0 && (!clouds[c].x || !clouds[c].y))
            return NULL;
        for (size_t i = 0; i < clouds[c].n; i++)
            if (!isfinite(clouds[c].x[i]) || !isfinite(clouds[c].y[i]))
                return NULL;
    }
    fold_segment_frame *f = calloc(1, sizeof(*f));
    if (!f)
        return NULL;
    f->nc = nclouds;
    f->sc = calloc(nclouds, sizeof(*f->sc));
    f->perm = calloc(nclouds, sizeof(*f->perm));
    f->y0 = calloc(nclouds, sizeof(*f->y0));
    if (!f->sc || !f->perm || !f->y0)
        goto fail;
    for (size_t c = 0; c < nclouds; c++) {
        f->perm[c] = malloc((clouds[c].n + 2) * sizeof(size_t));
        if (!f->perm[c] || sort_cloud(&clouds[c], cloud_offset(clouds, offsets, c), &f->sc[c], f->perm[c]) != 0)
            goto fail;
        f->y0[c] = malloc(f->sc[c].n * sizeof(double));
        if (!f->y0[c])
            goto fail;
        memcpy(f->y0[c], f->sc[c].y, f->sc[c].n * sizeof(double));
    }
    return f;
fail:
    fold_segment_frame_free(f);
    return NULL;
}

/* Moves boundary b[k] to the best hinge position within [lo, hi]: a scan in
 * steps of `step`, then 1/20 of it around the best. */
static void refine_wide_one(const sorted_cloud *sc, size_t nc, double *b, size_t k, double lo, double hi,
                            double step)
{
    double a = b[k - 1], z = b[k + 1];
    double best = HUGE_VAL, best_t = b[k];
    for (int fine = 0; fine < 2; fine++) {
        double from = fine ? fmax(lo, best_t - step) : lo, to = fine ? fmin(hi, best_t + step) : hi;
        double st = fine ? step / 20.0 : step;
        long steps = (long)floor((to - from) / st + 1e-9);
        for (long j = 0; j <= steps; j++) {
            double t = from + st * (double)j;
            double cost = hinge_cost(sc, nc, a, z, t);
            if (best == HUGE_VAL || cost < best - 1e-12 * best) {
                best = cost;
                best_t = t;
            }
        }
    }
    b[k] = best_t;
}

int fold_segment_frame_refit(fold_segment_frame *f, const double *const *w, const double *yscale,
                             const double *bounds, size_t np, const fold_segment_options *o, double *out_bounds,
                             double *out_slopes)
{
    if (!f || !bounds || np == 0 || !o || !out_bounds)
        return -1;
    for (size_t c = 0; c < f->nc; c++) {
        sorted_cloud *s = &f->sc[c];
        double a = yscale ? yscale[c] : 1.0;
        for (size_t i = 0; i < s->n; i++) {
            size_t in = f->perm[c][i];
            s->w[i] = in == SIZE_MAX ? ANCHOR_WEIGHT : (w && w[c] ? w[c][in] : 1.0);
            s->y[i] = in == SIZE_MAX ? f->y0[c][i] : fold_y_rescale(s->x[i], f->y0[c][i], a);
        }
    }
    if (build_cum(f->sc, f->nc) != 0)
        return -1;
    memcpy(out_bounds, bounds, (np + 1) * sizeof(*bounds));
    double min_width = o->min_width > 0.0 ? o->min_width : 0.0;
    double edge = fmax(min_width, isfinite(o->edge_width) ? o->edge_width : 0.0);
    double step = WIDE_STEP_BINS / (double)(o->bins ? o->bins : 200);
    for (int pass = 0; pass < WIDE_PASSES && np > 1; pass++)
        for (size_t k = 1; k < np; k++) {
            /* within the midpoints of the given phases next to it */
            double lo = fmax(0.5 * (bounds[k - 1] + bounds[k]), out_bounds[k - 1] + (k == 1 ? edge : min_width));
            double hi = fmin(0.5 * (bounds[k] + bounds[k + 1]), out_bounds[k + 1] - (k + 1 == np ? edge : min_width));
            if (hi > lo)
                refine_wide_one(f->sc, f->nc, out_bounds, k, lo, hi, step);
        }
    for (size_t c = 0; out_slopes && c < f->nc; c++)
        if (broken_stick(&f->sc[c], out_bounds, np, out_slopes + c, f->nc, NULL) != 0)
            return -1;
    return 0;
}

int fold_segment_slopes(const fold_cloud *clouds, size_t nclouds, const double *offsets, const double *bounds,
                        size_t np, double *slopes)
{
    fold_segment_frame *f = fold_segment_frame_new(clouds, nclouds, offsets);
    if (!f)
        return -1;
    int rc = build_cum(f->sc, f->nc);
    for (size_t c = 0; rc == 0 && c < f->nc; c++)
        rc = broken_stick(&f->sc[c], bounds, np, slopes + c, f->nc, NULL);
    fold_segment_frame_free(f);
    return rc;
}

/* ---- trends: a run of phases that is one ramp of the rate ---- */

/* Sums for the least-squares quadratic y = a + b u + c u^2, u = x - 0.5. */
typedef struct {
    double n, s[5], sy[3], syy;
} quad_sums;

static void quad_add(quad_sums *q, double x, double y)
{
    double u = x - 0.5, p = 1.0;
    q->n += 1.0;
    for (int k = 0; k < 5; k++, p *= u) {
        q->s[k] += p;
        if (k < 3)
            q->sy[k] += p * y;
    }
    q->syy += y * y;
}

/* RSS of the least-squares polynomial of degree deg (1 or 2); coef gets its
 * coefficients (in u = x - 0.5). */
static double quad_rss(const quad_sums *q, int deg, double coef[3])
{
    int m = deg + 1;
    double A[3][3], z[3];
    for (int a = 0; a < m; a++) {
        for (int b = 0; b < m; b++)
            A[a][b] = q->s[a + b];
        z[a] = q->sy[a];
    }
    coef[0] = coef[1] = coef[2] = 0.0;
    /* Gaussian elimination (A is symmetric positive definite with >= m distinct x) */
    for (int j = 0; j < m; j++) {
        if (!(fabs(A[j][j]) > 1e-300))
            return HUGE_VAL;
        for (int i = j + 1; i < m; i++) {
            double f = A[i][j] / A[j][j];
            for (int k = j; k < m; k++)
                A[i][k] -= f * A[j][k];
            z[i] -= f * z[j];
        }
    }
    for (int i = m - 1; i >= 0; i--) {
        double v = z[i];
        for (int k = i + 1; k < m; k++)
            v -= A[i][k] * coef[k];
        coef[i] = v / A[i][i];
    }
    double rss = q->syy;
    for (int a = 0; a < m; a++)
        rss -= coef[a] * q->sy[a];
    return rss > 0.0 ? rss : 0.0;
}

/* Sums of the points of cloud s in [a, b). */
static void quad_range(const sorted_cloud *s, double a, double b, quad_sums *q)
{
    memset(q, 0, sizeof(*q));
    size_t i0, i1;
    phase_range(s, a, b, &i0, &i1);
    for (size_t i = i0; i < i1; i++)
        if (s->x[i] > 0.0 && s->x[i] < 1.0) /* not the anchors */
            quad_add(q, s->x[i], s->y[i]);
}

/* BIC of phases [i, j] as they are (a line each, boundaries free) and as one
 * trend (a quadratic cumulative curve, a linear rate); the rates of the
 * trend at its ends (per cloud, in cumulative fraction per unit) into r0, r1. */
static void trend_bic(const sorted_cloud *sc, size_t nc, const double *b, size_t i, size_t j, double *bic_steps,
                      double *bic_trend, double *r0, double *r1)
{
    double rss_steps = 0.0, rss_trend = 0.0, n = 0.0;
    size_t m = j - i + 1;
    for (size_t c = 0; c < nc; c++) {
        quad_sums q;
        double coef[3] = { 0.0, 0.0, 0.0 };
        for (size_t p = i; p <= j; p++) {
            quad_range(&sc[c], b[p], b[p + 1], &q);
            rss_steps += q.n >= 2.0 ? quad_rss(&q, 1, coef) : 0.0;
        }
        quad_range(&sc[c], b[i], b[j + 1], &q);
        n += q.n;
        rss_trend += q.n >= 3.0 ? quad_rss(&q, 2, coef) : HUGE_VAL;
        r0[c] = coef[1] + 2.0 * coef[2] * (b[i] - 0.5);
        r1[c] = coef[1] + 2.0 * coef[2] * (b[j + 1] - 0.5);
    }
    double floor_rss = RSS_FLOOR * (n > 1.0 ? n : 1.0), logn = log(n > 2.0 ? n : 2.0);
    *bic_steps = n * log(fmax(rss_steps, floor_rss) / fmax(n, 1.0)) +
                 ((double)(2 * m * nc) + (double)(m - 1)) * logn;
    *bic_trend = rss_trend == HUGE_VAL ? HUGE_VAL : n * log(fmax(rss_trend, floor_rss) / fmax(n, 1.0)) + 3.0 * (double)nc * logn;
}

/* 1 when the trend's end rates r0, r1 of every cloud are possible: not
 * below 0 by more than a tenth of the larger end (counters only grow; a
 * quadratic whose slope starts negative was printed as a ramp from 0 to 2.44
 * CPUs with a mean of 0.32), and at most max_rate (+2 %) where one is given
 * (CPU time: one CPU per thread). */
static int trend_possible(const double *r0, const double *r1, size_t nc, const double *max_rate)
{
    for (size_t c = 0; c < nc; c++) {
        double hi = fmax(r0[c], r1[c]), lo = fmin(r0[c], r1[c]);
        if (lo < -0.1 * fabs(hi))
            return 0;
        if (max_rate && max_rate[c] > 0.0 && hi > max_rate[c] * 1.02)
            return 0;
    }
    return 1;
}

int fold_segment_trends(const fold_cloud *clouds, size_t nclouds, const double *offsets, const double *max_rate,
                        fold_segmentation *seg)
{
    if (!seg || !seg->bounds || seg->nphases == 0)
        return -1;
    fold_segment_frame *f = fold_segment_frame_new(clouds, nclouds, offsets);
    size_t np = seg->nphases, nc = nclouds;
    double *r0 = malloc((nc + 1) * sizeof(*r0)), *r1 = malloc((nc + 1) * sizeof(*r1));
    unsigned char *trend = calloc(np, 1);
    double *t0 = calloc(np * nc + 1, sizeof(*t0)), *t1 = calloc(np * nc + 1, sizeof(*t1));
    int rc = -1;
    if (!f || !r0 || !r1 || !trend || !t0 || !t1)
        goto done;
    /* the longest run first, the earliest among equals; runs do not overlap */
    size_t out = 0;
    double *nb = malloc((np + 1) * sizeof(*nb));
    if (!nb)
        goto done;
    nb[0] = 0.0;
    size_t p = 0;
    while (p < np) {
        size_t best_j = p;
        int is_trend = 0;
        for (size_t j = np; j-- > p;) {
            double bs, bt;
            trend_bic(f->sc, nc, seg->bounds, p, j, &bs, &bt, r0, r1);
            int ramp = 0; /* a trend is a rate that changes: its ends differ */
            for (size_t c = 0; c < nc; c++)
                ramp |= fabs(r1[c] - r0[c]) > 0.1 * fmax(fabs(r0[c]), fabs(r1[c]));
            if (j > p && bt <= bs && ramp && trend_possible(r0, r1, nc, max_rate)) {
                best_j = j;
                is_trend = 1;
                for (size_t c = 0; c < nc; c++) {
                    t0[out * nc + c] = fmax(r0[c], 0.0);
                    t1[out * nc + c] = fmax(r1[c], 0.0);
                }
                break;
            }
        }
        trend[out] = (unsigned char)is_trend;
        nb[++out] = seg->bounds[best_j + 1];
        p = best_j + 1;
    }
    memcpy(seg->bounds, nb, (out + 1) * sizeof(*nb));
    free(nb);
    seg->nphases = out;
    if (out < np && nclouds == seg->nclouds && seg->slopes &&
        fold_segment_slopes(clouds, nclouds, offsets, seg->bounds, seg->nphases, seg->slopes) != 0)
        goto done;
    free(seg->trend);
    seg->trend = trend;
    free(seg->trend_start);
    free(seg->trend_end);
    seg->trend_start = t0;
    seg->trend_end = t1;
    trend = NULL;
    t0 = t1 = NULL;
    rc = 0;
done:
    fold_segment_frame_free(f);
    free(r0);
    free(r1);
    free(trend);
    free(t0);
    free(t1);
    return rc;
}
