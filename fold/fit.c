/* fit.c: the smooth, monotone fit of a folded cumulative curve and its
 * derivative, the rate (fold/fit.h).
 *
 * Method: a cubic P-spline (Eilers & Marx): a clamped cubic B-spline basis
 * (GSL) with many uniform knots and a second-order difference penalty on the
 * coefficients, taken as divided differences at the Greville abscissae so
 * that the penalty's null space is exactly the straight lines (with the
 * anchors, y = x: no data gives rate 1).
 *  - The anchors (0,0) and (1,1) are exact constraints: with clamped knots
 *    the curve at 0 and 1 is the first and last coefficient, fixed to 0, 1.
 *    The points are first moved along x by their common offset from the
 *    anchors (fold_cloud_offset: a measurement skew between samples and
 *    boundaries), which the exact anchors would otherwise bend into steep
 *    edges.
 *  - Phases make the rate piecewise constant: a quadratic penalty would
 *    either smear the rate steps or let the rate wiggle inside the phases.
 *    So the penalty is robust (Huber): quadratic for changes of the rate
 *    below HUBER_RATE_JUMP (x mean rate) between neighbouring knot
 *    intervals, linear (L1, which keeps steps sharp) above; fitted by
 *    iteratively reweighted penalized least squares.
 *  - The smoothing weight is chosen by generalized cross-validation at each
 *    reweighting: a scan of log(lambda), then a golden-section refinement,
 *    each lambda's score from the band of the system (a point touches 4
 *    consecutive coefficients, a difference row at most 4): band Cholesky,
 *    and the hat matrix's trace from the inverse's band (fold/band.h), so
 *    that a fit costs O(K), not O(K^3) (ps_decompose; the dense
 *    eigendecomposition stays as the tests' reference, fold_fit_options.dense).
 *  - Knots: one interval per POINTS_PER_INTERVAL points up to MAX_INTERVALS,
 *    then twice as many while the points suffice and GCV prefers them
 *    (FINE_MAX_INTERVALS). GCV's degrees of freedom count GCV_GAMMA
 *    times (1.4, Kim & Gu): plain GCV sometimes undersmooths badly.
 *  - Steps (fold_fit_options.breaks; analysis.c passes the phase boundaries
 *    the bootstrap placed within 0.02): cubic B-splines with simple knots
 *    have a continuous rate, so a jump of the rate took at least two knot
 *    intervals (+-0.03 of the region at 80 of them) whatever the penalty. A
 *    triple knot at a step keeps the curve continuous there and lets its
 *    slope jump, and the one difference across it is not penalized
 *    (BREAK_WEIGHT): the jump is sharp where the data put it.
 *  - Trends (fold_fit_options.trend): the penalty above is 0 on a constant
 *    rate; on a linear one its pull is balanced in the interior, not next
 *    to the anchors, so a ramp's rate was bent towards the mean at both
 *    ends (+7.8 % at the start of a ramp from 200 to 1000 at 0.25 samples
 *    per instance). The trend's penalty is on third differences of the
 *    coefficients (ps_row3: the rows that annihilate the coefficients of
 *    1, x, x^2 at the knots as they are), plain quadratic; its null space
 *    leaves one quadratic through both anchors, which a tiny ridge
 *    (TREND_RIDGE) keeps positive definite.
 *  - Monotonicity is then enforced exactly: a B-spline with non-decreasing
 *    coefficients is non-decreasing, so when the solution is not monotone
 *    the same penalized least-squares problem is solved over non-negative
 *    coefficient increments that sum to one (a small convex QP, primal
 *    active-set method, its steps banded systems over tied coefficients).
 * Everything is deterministic: no random numbers, fixed loop orders, own
 * small solvers (so GSL's global error handler is never involved). */
#include "fit.h"

#include "band.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_bspline.h>
#include <gsl/gsl_eigen.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_vector.h>

#define SPLINE_ORDER 4        /* cubic */
#define MIN_INTERVALS 10      /* knot intervals: used / POINTS_PER_INTERVAL within these bounds */
#define MAX_INTERVALS 80
/* Knot intervals: one per this many points (within the bounds above). The
 * knots bound how sharp the fitted rate can change whatever the penalty: at
 * 4 points per interval, 80 points (0.25 samples per instance of 320
 * instances) had 20 intervals, a jump of the rate smoothed over 0.1 of the
 * region and ringing beyond it, a bias no band covered (issue 14: coverage
 * 89 % at 0.25 samples per instance); at 2, the fit's error there halves
 * (docs/benchmarks.md, "Confidence bands"). From 320 points on the 80
 * intervals are reached either way. */
#define POINTS_PER_INTERVAL 2
/* Finer knots: from MAX_INTERVALS on, twice as many intervals while each
 * holds FINE_POINTS_PER_INTERVAL points and GCV prefers them, up to
 * FINE_MAX_INTERVALS. A burst pattern of period 0.027 (truth_app's page
 * faults) is below the resolution of 80 intervals (0.0125 apart); 160 fitted
 * it in part (page-fault MAE -1 point on 9 near-idle traces of ~1000
 * points), 320 no better on average at twice the cost (docs/benchmarks.md,
 * "Knots chosen by GCV"). */
#define FINE_MAX_INTERVALS 160
#define FINE_POINTS_PER_INTERVAL 4
#define HUBER_RATE_JUMP 0.05  /* rate change (x mean rate) where the penalty turns L1 */
#define HUBER_ITERATIONS 10   /* reweightings at most, stopping when no weight moves by HUBER_TOL */
#define HUBER_TOL 1e-2
/* The penalty weight of the change of the rate across a step (fit.h:
 * breaks): as small as the robust weights get, so that the step costs
 * nothing and the penalty stays positive definite on the free coefficients. */
#define BREAK_WEIGHT 1e-6
/* The trend penalty's ridge (ps_penalty), against its rows' squared norm of 20. */
#define TREND_RIDGE 1e-6
#define GCV_GAMMA 1.4
#define GCV_LOG_LO (-9.0)     /* scan of log10(lambda / its natural scale) */
#define GCV_LOG_HI 7.0
#define GCV_LOG_STEP 0.1
/* Resolution (fold_curve.resolution): the points binned by x,
 * RES_POINTS_PER_BIN on average, at most RES_BINS_PER_INTERVAL bins per knot
 * interval, at least RES_MIN_BINS; each bin's scatter and density from the
 * points within it and RES_NEIGHBOURS bins either side (heteroscedastic: page
 * faults scatter in their bursts and not at all elsewhere), where those hold
 * RES_MIN_DOF degrees of freedom. RES_ERROR: the standard error of the rate
 * (over the mean rate) at the resolution: 95 % intervals of +-4.5 %, the
 * coarse fold's band (analysis.c). */
#define RES_POINTS_PER_BIN 8
#define RES_BINS_PER_INTERVAL 2
#define RES_MIN_BINS 10
#define RES_NEIGHBOURS 2
#define RES_MIN_DOF 8
#define RES_ERROR 0.0225
/* Half-bandwidth of the normal equations: a point touches SPLINE_ORDER
 * consecutive basis functions, a difference row ord + 1 <= 4 coefficients. */
#define BAND (SPLINE_ORDER - 1)

void fold_fit_defaults(fold_fit_options *o)
{
    o->grid = 101;
    o->max_points = 20000;
    o->coarse_max_points = FOLD_COARSE_MAX_POINTS;
    o->smoothing = 0.0;
    o->offset_given = 0;
    o->offset = 0.0;
    o->breaks = NULL;
    o->nbreaks = 0;
    o->trend = 0;
    o->dense = 0;
}

void fold_curve_free(fold_curve *c)
{
    if (!c)
        return;
    free(c->x);
    free(c->cum);
    free(c->rate);
    free(c->weights);
    free(c->breaks);
    memset(c, 0, sizeof(*c));
}

size_t fold_cap_points(size_t n, size_t max, size_t *chosen)
{
    if (max == 0 || n <= max) {
        for (size_t i = 0; i < n; i++)
            chosen[i] = i;
        return n;
    }
    /* index floor(k * n / max), computed without overflowing k * n */
    size_t q = n / max, r = n % max;
    for (size_t k = 0; k < max; k++)
        chosen[k] = k * q + (k * r) / max;
    return max;
}

size_t fold_fit_raised_cap(const fold_fit_options *o, size_t n, const fold_curve *c)
{
    if (!o || !c || o->max_points == 0 || n <= o->max_points || o->coarse_max_points <= o->max_points ||
        !(c->resolution > FOLD_REFIT_RESOLUTION))
        return 0;
    return n < o->coarse_max_points ? n : o->coarse_max_points;
}

/* y of a point: an instance's curve may end above 1 (its rate above the mean) */
static double nonneg(double v)
{
    return v < 0.0 ? 0.0 : v;
}

static double clamp01(double v)
{
    return v < 0.0 ? 0.0 : (v > 1.0 ? 1.0 : v);
}

/* ---- small dense linear algebra (row-major, n x n) ---- */

/* In-place Cholesky A = R'R with R upper triangular stored in the upper
 * triangle. Returns -1 if A is not positive definite. */
static int cholesky(double *a, size_t n)
{
    for (size_t j = 0; j < n; j++) {
        double d = a[j * n + j];
        for (size_t k = 0; k < j; k++)
            d -= a[k * n + j] * a[k * n + j];
        if (!(d > 0.0))
            return -1;
        d = sqrt(d);
        a[j * n + j] = d;
        for (size_t i = j + 1; i < n; i++) {
            double s = a[j * n + i];
            for (size_t k = 0; k < j; k++)
                s -= a[k * n + j] * a[k * n + i];
            a[j * n + i] = s / d;
        }
    }
    return 0;
}

/* Solve R' v = b (forward) in place, R upper triangular from cholesky(). */
static void solve_rt(const double *r, size_t n, double *v)
{
    for (size_t i = 0; i < n; i++) {
        double s = v[i];
        for (size_t k = 0; k < i; k++)
            s -= r[k * n + i] * v[k];
        v[i] = s / r[i * n + i];
    }
}

/* Solve R v = b (backward) in place. */
static void solve_r(const double *r, size_t n, double *v)
{
    for (size_t i = n; i-- > 0;) {
        double s = v[i];
        for (size_t k = i + 1; k < n; k++)
            s -= r[i * n + k] * v[k];
        v[i] = s / r[i * n + i];
    }
}

/* Gaussian elimination with partial pivoting, solves A x = b in place (A is
 * destroyed, b becomes x). Returns -1 when A is numerically singular. */
static int lu_solve(double *a, double *b, size_t n)
{
    double scale = 0.0;
    for (size_t i = 0; i < n * n; i++)
        scale = fmax(scale, fabs(a[i]));
    if (!(scale > 0.0))
        return -1;
    for (size_t j = 0; j < n; j++) {
        size_t p = j;
        for (size_t i = j + 1; i < n; i++)
            if (fabs(a[i * n + j]) > fabs(a[p * n + j]))
                p = i;
        if (!(fabs(a[p * n + j]) > 1e-14 * scale))
            return -1;
        if (p != j) {
            for (size_t k = 0; k < n; k++) {
                double t = a[j * n + k];
                a[j * n + k] = a[p * n + k];
                a[p * n + k] = t;
            }
            double t = b[j];
            b[j] = b[p];
            b[p] = t;
        }
        for (size_t i = j + 1; i < n; i++) {
            double f = a[i * n + j] / a[j * n + j];
            if (f == 0.0)
                continue;
            for (size_t k = j; k < n; k++)
                a[i * n + k] -= f * a[j * n + k];
            b[i] -= f * b[j];
        }
    }
    for (size_t i = n; i-- > 0;) {
        double s = b[i];
        for (size_t k = i + 1; k < n; k++)
            s -= a[i * n + k] * b[k];
        b[i] = s / a[i * n + i];
    }
    return 0;
}

/* ---- monotone solve: a convex QP over the coefficient increments ----
 *
 * minimize 0.5 d'Gd - g'd  subject to  d >= 0, sum(d) = 1
 * (d are the m increments of the coefficients, c_0 = 0 and c_K-1 = 1).
 * Primal active-set method from the feasible start d: each step solves the
 * equality-constrained problem on the free increments through its KKT
 * system, moves towards it until an increment reaches zero (which joins the
 * working set), and at a working-set minimum releases the fixed increment
 * with the most negative multiplier. Returns 0 at the optimum, -1 if the
 * iteration limit is reached (d is then still feasible). */
static int qp_simplex(const double *G, const double *g, size_t m, double *d)
{
    if (m == 0)
        return -1;
    size_t n1 = m + 1;
    double *kkt = malloc(n1 * n1 * sizeof(*kkt));
    double *rhs = malloc(n1 * sizeof(*rhs));
    double *cand = malloc(m * sizeof(*cand));
    size_t *free_idx = malloc(2 * m * sizeof(*free_idx));
    int rc = -1;
    if (!kkt || !rhs || !cand || !free_idx)
        goto out;
    size_t *fixed = free_idx + m; /* 1: the increment is held at 0 */
    double gscale = 0.0;
    for (size_t i = 0; i < m; i++) {
        fixed[i] = d[i] <= 0.0;
        if (fixed[i])
            d[i] = 0.0;
        gscale = fmax(gscale, fabs(g[i]));
    }
    size_t maxit = 20 * m + 20;
    for (size_t it = 0; it < maxit; it++) {
        size_t nf = 0;
        for (size_t i = 0; i < m; i++)
            if (!fixed[i])
                free_idx[nf++] = i;
        if (nf == 0)
            break; /* impossible from a feasible point */
        size_t n = nf + 1;
        for (size_t a = 0; a < nf; a++) {
            for (size_t b = 0; b < nf; b++)
                kkt[a * n + b] = G[free_idx[a] * m + free_idx[b]];
            kkt[a * n + nf] = 1.0;
            kkt[nf * n + a] = 1.0;
            rhs[a] = g[free_idx[a]];
        }
        kkt[nf * n + nf] = 0.0;
        rhs[nf] = 1.0;
        if (lu_solve(kkt, rhs, n) != 0)
            break;
        for (size_t i = 0; i < m; i++)
            cand[i] = 0.0;
        for (size_t a = 0; a < nf; a++)
            cand[free_idx[a]] = rhs[a];
        double alpha = 1.0;
        size_t block = m;
        for (size_t a = 0; a < nf; a++) {
            size_t i = free_idx[a];
            if (cand[i] < 0.0) {
                double t = d[i] / (d[i] - cand[i]);
                if (t < alpha) {
                    alpha = t;
                    block = i;
                }
            }
        }
        for (size_t a = 0; a < nf; a++) {
            size_t i = free_idx[a];
            d[i] += alpha * (cand[i] - d[i]);
        }
        if (block < m) {
            d[block] = 0.0;
            fixed[block] = 1;
            continue;
        }
        /* KKT: G d - g + lam 1 - nu = 0 with lam = rhs[nf]; nu >= 0 on the
         * fixed increments at the optimum */
        double lam = rhs[nf];
        size_t worst = m;
        double worst_nu = -1e-12 * (gscale + 1.0);
        for (size_t i = 0; i < m; i++) {
            if (!fixed[i])
                continue;
            double nu = lam - g[i];
            for (size_t k = 0; k < m; k++)
                nu += G[i * m + k] * d[k];
            if (nu < worst_nu) {
                worst_nu = nu;
                worst = i;
            }
        }
        if (worst == m) {
            rc = 0;
            break;
        }
        fixed[worst] = 0;
    }
out:
    free(kkt);
    free(rhs);
    free(cand);
    free(free_idx);
    return rc;
}

/* ---- the P-spline ---- */

/* Everything one fit needs, sized by the K coefficients (m = K - 2 free ones:
 * c_0 = 0 and c_K-1 = 1 are the anchors). */
typedef struct {
    size_t K, m;
    gsl_bspline_workspace *bw;
    double h;          /* interior knot spacing */
    double *Q, *q;     /* X'X (K x K) and X'y */
    double yy, n;      /* y'y and the number of points */
    size_t ord;        /* the penalty's order: 2 (changes of the rate) or 3 (changes of its slope:
                          fold_fit_options.trend) */
    size_t nrow;       /* its difference rows: K - ord */
    double *drow;      /* nrow x (ord + 1): the penalty's difference rows */
    double *pw;        /* nrow penalty weights (1: plain P-spline) */
    unsigned char *brk; /* nrow: 1 for a difference across a step (fold_fit_options.breaks), whose
                           weight stays BREAK_WEIGHT */
    double *P;         /* D' W D, K x K (only its band is ever non-zero) */
    int dense;         /* fold_fit_options.dense: the reference path below */
    /* the banded path: bands (m x (BAND + 1), band.h) of A (X'X on the free
     * coefficients), Pf (P on them), the system's factor and its inverse,
     * and the solution of the last ps_band_eval */
    double *Ab, *Pb, *Mb, *Zb, *cb;
    /* reduced system and its eigendecomposition */
    double *R, *tmp, *bvec, *pvec, *col, *col2;
    double *mu, *u, *w;
    double yyr;        /* squared norm of y - B_K-1(x) */
    gsl_matrix *Mm, *Vm;
    gsl_vector *ev;
    gsl_eigen_symmv_workspace *ew;
} pspline;

static void ps_free(pspline *s)
{
    if (s->bw)
        gsl_bspline_free(s->bw);
    free(s->Q);
    free(s->q);
    free(s->drow);
    free(s->pw);
    free(s->brk);
    free(s->P);
    free(s->Ab);
    free(s->Pb);
    free(s->Mb);
    free(s->Zb);
    free(s->cb);
    free(s->R);
    free(s->tmp);
    free(s->bvec);
    free(s->pvec);
    free(s->col);
    free(s->col2);
    free(s->mu);
    free(s->u);
    free(s->w);
    if (s->Mm)
        gsl_matrix_free(s->Mm);
    if (s->Vm)
        gsl_matrix_free(s->Vm);
    if (s->ev)
        gsl_vector_free(s->ev);
    if (s->ew)
        gsl_eigen_symmv_free(s->ew);
}

/* The steps of breaks[0..nb) a fit of nint knot intervals takes, into kept
 * (room for nb): each at least one knot interval from 0, 1 and the previous
 * one taken. Returns their number. */
static size_t ps_steps(size_t nint, const double *breaks, size_t nb, double *kept)
{
    double h = 1.0 / (double)nint;
    size_t n = 0;
    for (size_t i = 0; breaks && i < nb; i++) {
        double b = breaks[i];
        if (isfinite(b) && b >= h && b <= 1.0 - h && (n == 0 || b - kept[n - 1] >= h))
            kept[n++] = b;
    }
    return n;
}

/* The knots: uniform, nint intervals on [0, 1], clamped; at each step
 * (steps[0..nsteps), from ps_steps) a triple knot instead of the uniform
 * knots within half an interval of it, so that the curve stays continuous
 * there and its slope may jump. */
static int ps_knots(pspline *s, size_t nint, const double *steps, size_t nsteps)
{
    if (nsteps == 0) {
        s->bw = gsl_bspline_alloc(SPLINE_ORDER, nint + 1);
        if (!s->bw)
            return -1;
        gsl_bspline_knots_uniform(0.0, 1.0, s->bw); /* bit for bit the knots of the fits without steps */
        return 0;
    }
    double h = 1.0 / (double)nint;
    size_t cap = nint + 1 + 3 * nsteps, nbp = 0;
    gsl_vector *bp = gsl_vector_alloc(cap);
    if (!bp)
        return -1;
    for (size_t j = 0; j <= nint; j++) {
        double x = (double)j * h;
        int near = 0;
        for (size_t i = 0; j > 0 && j < nint && i < nsteps; i++)
            if (fabs(x - steps[i]) < 0.5 * h)
                near = 1;
        if (!near)
            bp->data[nbp++] = j == nint ? 1.0 : x;
    }
    for (size_t i = 0; i < nsteps; i++)
        for (int r = 0; r < 3; r++) { /* insertion in order */
            size_t at = nbp;
            while (at > 0 && bp->data[at - 1] > steps[i]) {
                bp->data[at] = bp->data[at - 1];
                at--;
            }
            bp->data[at] = steps[i];
            nbp++;
        }
    s->bw = gsl_bspline_alloc(SPLINE_ORDER, nbp);
    if (!s->bw) {
        gsl_vector_free(bp);
        return -1;
    }
    gsl_vector_view v = gsl_vector_subvector(bp, 0, nbp);
    gsl_bspline_knots(&v.vector, s->bw);
    gsl_vector_free(bp);
    return 0;
}

/* The third-order difference row of coefficients j..j+3: the vector that
 * annihilates the coefficients of 1, x and x^2 there (a B-spline's
 * coefficients of a polynomial are its blossom at the spline's inner knots:
 * 1, their mean, the mean of their pairwise products), by cofactors, scaled
 * to the norm of (-1, 3, -3, 1). Its penalty is 0 exactly on the quadratic
 * curves, the linear rates, whatever the knots (clamped ends, steps). */
static void ps_row3(const pspline *s, size_t j, double *row)
{
    double a[3][4];
    const double *t = s->bw->knots->data;
    for (size_t k = 0; k < 4; k++) {
        double t1 = t[j + k + 1], t2 = t[j + k + 2], t3 = t[j + k + 3];
        a[0][k] = 1.0;
        a[1][k] = (t1 + t2 + t3) / 3.0;
        a[2][k] = (t1 * t2 + t1 * t3 + t2 * t3) / 3.0;
    }
    double norm = 0.0;
    for (size_t k = 0; k < 4; k++) {
        size_t c[3]; /* the other three columns */
        for (size_t i = 0; i < 3; i++)
            c[i] = i < k ? i : i + 1;
        double det = a[0][c[0]] * (a[1][c[1]] * a[2][c[2]] - a[1][c[2]] * a[2][c[1]]) -
                     a[0][c[1]] * (a[1][c[0]] * a[2][c[2]] - a[1][c[2]] * a[2][c[0]]) +
                     a[0][c[2]] * (a[1][c[0]] * a[2][c[1]] - a[1][c[1]] * a[2][c[0]]);
        row[k] = (k % 2 ? -1.0 : 1.0) * det;
        norm += row[k] * row[k];
    }
    double scale = norm > 0.0 ? sqrt(20.0 / norm) : 0.0;
    if (row[3] < 0.0)
        scale = -scale; /* (-1, 3, -3, 1) where the knots are uniform */
    for (size_t k = 0; k < 4; k++)
        row[k] *= scale;
}

static int ps_alloc(pspline *s, size_t nint, const double *steps, size_t nsteps, size_t ord, int dense)
{
    memset(s, 0, sizeof(*s));
    s->dense = dense;
    if (ps_knots(s, nint, steps, nsteps) != 0)
        return -1;
    size_t K = gsl_bspline_ncoeffs(s->bw);
    if (K < SPLINE_ORDER + 1)
        return -1; /* cannot happen: nint >= MIN_INTERVALS */
    size_t m = K - 2;
    s->K = K;
    s->m = m;
    s->ord = ord == 3 ? 3 : 2;
    s->nrow = K - s->ord;
    s->h = 1.0 / (double)nint;
    s->Q = calloc(K * K, sizeof(double));
    s->q = calloc(K, sizeof(double));
    s->drow = malloc((s->ord + 1) * s->nrow * sizeof(double));
    s->pw = malloc(s->nrow * sizeof(double));
    s->brk = calloc(s->nrow, 1);
    s->P = calloc(K * K, sizeof(double));
    s->Ab = malloc(m * (BAND + 1) * sizeof(double));
    s->Pb = malloc(m * (BAND + 1) * sizeof(double));
    s->Mb = malloc(m * (BAND + 1) * sizeof(double));
    s->Zb = malloc(m * (BAND + 1) * sizeof(double));
    s->cb = malloc(m * sizeof(double));
    if (!s->Q || !s->q || !s->P || !s->Ab || !s->Pb || !s->Mb || !s->Zb || !s->cb)
        return -1;
    /* the dense reference (and the refits' dense solve) only */
    size_t md = dense ? m : 1;
    s->R = calloc(md * md, sizeof(double));
    s->tmp = malloc(md * md * sizeof(double));
    s->bvec = malloc(m * sizeof(double));
    s->pvec = malloc(m * sizeof(double));
    s->col = malloc(m * sizeof(double));
    s->col2 = malloc(m * sizeof(double));
    s->mu = malloc(m * sizeof(double));
    s->u = malloc(m * sizeof(double));
    s->w = malloc(m * sizeof(double));
    s->Mm = gsl_matrix_alloc(md, md);
    s->Vm = gsl_matrix_alloc(md, md);
    s->ev = gsl_vector_alloc(md);
    s->ew = gsl_eigen_symmv_alloc(md);
    if (!s->Q || !s->q || !s->drow || !s->pw || !s->brk || !s->P || !s->R || !s->tmp || !s->bvec || !s->pvec
        || !s->col || !s->col2 || !s->mu || !s->u || !s->w || !s->Mm || !s->Vm || !s->ev || !s->ew)
        return -1;
    if (s->ord == 3) {
        for (size_t j = 0; j < s->nrow; j++) {
            ps_row3(s, j, s->drow + 4 * j);
            for (size_t i = 0; i < nsteps; i++) /* a row over the coefficient at a step */
                for (size_t k = 1; k < 3; k++)
                    if (fabs(gsl_bspline_greville_abscissa(j + k, s->bw) - steps[i]) < 1e-9)
                        s->brk[j] = 1;
            s->pw[j] = s->brk[j] ? BREAK_WEIGHT : 1.0;
        }
        return 0;
    }
    /* second divided differences at the Greville abscissae, scaled by h so
     * that they are c[j] - 2c[j+1] + c[j+2] where the abscissae are uniform */
    for (size_t j = 0; j < m; j++) {
        double x0 = gsl_bspline_greville_abscissa(j, s->bw);
        double x1 = gsl_bspline_greville_abscissa(j + 1, s->bw);
        double x2 = gsl_bspline_greville_abscissa(j + 2, s->bw);
        s->drow[3 * j] = s->h / (x1 - x0);
        s->drow[3 * j + 1] = -s->h / (x1 - x0) - s->h / (x2 - x1);
        s->drow[3 * j + 2] = s->h / (x2 - x1);
        for (size_t i = 0; i < nsteps; i++)
            if (fabs(x1 - steps[i]) < 1e-9) /* the coefficient at the step: the curve's value there */
                s->brk[j] = 1;
        s->pw[j] = s->brk[j] ? BREAK_WEIGHT : 1.0;
    }
    return 0;
}

/* The spline with coefficients c at x (Bv: room for the basis). */
static double ps_value(const pspline *s, gsl_vector *Bv, const double *c, double x)
{
    gsl_bspline_eval(x, Bv, s->bw);
    double f = 0.0;
    for (size_t j = 0; j < s->K; j++)
        f += Bv->data[j] * c[j];
    return f;
}

/* The non-zero basis functions at x: at most SPLINE_ORDER of them from index
 * *lo (their values in b[0..]); returns how many. */
static size_t ps_basis(const pspline *s, double x, gsl_vector *Bv, size_t *lo, double *b)
{
    gsl_bspline_eval(x, Bv, s->bw);
    size_t K = s->K, first = K, count = 0;
    for (size_t j = 0; j < K; j++)
        if (Bv->data[j] != 0.0) {
            if (first == K)
                first = j;
            count = j - first + 1;
        }
    if (first == K)
        return 0;
    if (count > SPLINE_ORDER)
        count = SPLINE_ORDER; /* cannot happen: cubic B-splines */
    for (size_t j = 0; j < count; j++)
        b[j] = Bv->data[first + j];
    *lo = first;
    return count;
}

/* Adds one point with weight w to the normal equations, from its non-zero
 * basis values b[0..nb) starting at index lo. */
static void ps_add_point(pspline *s, size_t lo, const double *b, size_t nb, double y, double w)
{
    size_t K = s->K;
    for (size_t j = 0; j < nb; j++) {
        s->q[lo + j] += w * b[j] * y;
        for (size_t k = 0; k < nb; k++)
            s->Q[(lo + j) * K + lo + k] += w * b[j] * b[k];
    }
    s->yy += w * y * y;
}

/* Accumulate the normal equations of the points (SPLINE_ORDER non-zero basis
 * functions per point). */
static void ps_accumulate(pspline *s, const double *x, const double *y, size_t n, gsl_vector *Bv)
{
    double b[SPLINE_ORDER];
    for (size_t i = 0; i < n; i++) {
        size_t lo = 0, nb = ps_basis(s, x[i], Bv, &lo, b);
        if (nb)
            ps_add_point(s, lo, b, nb, y[i], 1.0);
    }
    s->n = (double)n;
}

/* Zeroes the band of a K x K matrix (nothing outside it is ever written). */
static void zero_band(double *a, size_t K)
{
    for (size_t j = 0; j < K; j++)
        for (size_t k = j >= BAND ? j - BAND : 0; k < K && k <= j + BAND; k++)
            a[j * K + k] = 0.0;
}

/* P = D' W D with the current weights. A trend's penalty (order 3) is 0 on
 * the quadratic curves, one of which still passes through both anchors: a
 * ridge of TREND_RIDGE on the free coefficients keeps it positive definite
 * there (ps_decompose), far too small to move a fit. */
static void ps_penalty(pspline *s)
{
    size_t K = s->K, w = s->ord + 1;
    zero_band(s->P, K);
    for (size_t j = 0; j < s->nrow; j++)
        for (size_t a = 0; a < w; a++)
            for (size_t b = 0; b < w; b++)
                s->P[(j + a) * K + (j + b)] += s->pw[j] * s->drow[w * j + a] * s->drow[w * j + b];
    for (size_t j = 1; s->ord == 3 && j + 1 < K; j++)
        s->P[j * K + j] += TREND_RIDGE;
}

/* P = D' W D, then the reduced system on c_1..c_K-2 (A = X'X restricted,
 * Pf = P restricted, with the anchors moved to the right-hand side): the
 * right-hand sides b and p (ps_reduce).
 *
 * The banded path (the default, ps_decompose_band): for each lambda the
 * band of A + lambda Pf is factored (band.h), the solution, the residual sum
 * of squares and the trace of the hat matrix, tr((A + lambda Pf)^-1 A), from
 * the inverse's band (A lies within it): O(m) per lambda.
 *
 * The dense reference (fold_fit_options.dense, ps_decompose_dense): Pf =
 * R'R, and the eigendecomposition R^-T A R^-1 = V diag(mu) V', so that
 * for any lambda the solution is c = R^-1 V z, z_i = (u_i + lambda w_i) /
 * (mu_i + lambda) with u = V'R^-T b, w = V'R^-T p: O(m^3) once, O(m) per
 * lambda.
 *
 * Both return the mean eigenvalue, tr(Pf^-1 A) / m (the natural scale of
 * lambda), or -1 on failure. */
static void ps_reduce(pspline *s)
{
    size_t K = s->K, m = s->m, L = K - 1;
    ps_penalty(s);
    s->yyr = s->yy - 2.0 * s->q[L] + s->Q[L * K + L];
    for (size_t a = 0; a < m; a++) {
        s->bvec[a] = s->q[a + 1] - s->Q[(a + 1) * K + L];
        s->pvec[a] = -s->P[(a + 1) * K + L];
        for (size_t k = 0; k <= BAND; k++) {
            int in = a + k < m;
            s->Ab[a * (BAND + 1) + k] = in ? s->Q[(a + 1) * K + (a + 1 + k)] : 0.0;
            s->Pb[a * (BAND + 1) + k] = in ? s->P[(a + 1) * K + (a + 1 + k)] : 0.0;
        }
    }
}

static double ps_decompose_band(pspline *s)
{
    size_t m = s->m, nb = m * (BAND + 1);
    memcpy(s->Mb, s->Pb, nb * sizeof(double));
    if (band_cholesky(s->Mb, m, BAND) != 0)
        return -1.0;
    band_inverse(s->Mb, m, BAND, s->Zb);
    double trace = band_trace_product(s->Zb, s->Ab, m, BAND);
    return trace > 0.0 ? trace / (double)m : 0.0;
}

/* The banded solution for lambda into s->cb; with rss, also the residual sum
 * of squares and the effective degrees of freedom. Returns -1 when A +
 * lambda Pf is not numerically positive definite (a lambda far below the
 * data's scale with empty knot intervals). */
static int ps_band_eval(pspline *s, double lambda, double *rss, double *edf)
{
    size_t m = s->m, nb = m * (BAND + 1);
    for (size_t i = 0; i < nb; i++)
        s->Mb[i] = s->Ab[i] + lambda * s->Pb[i];
    if (band_cholesky(s->Mb, m, BAND) != 0)
        return -1;
    for (size_t a = 0; a < m; a++)
        s->cb[a] = s->bvec[a] + lambda * s->pvec[a];
    band_solve_rt(s->Mb, m, BAND, s->cb);
    band_solve_r(s->Mb, m, BAND, s->cb);
    if (!rss)
        return 0;
    double bc = 0.0;
    for (size_t a = 0; a < m; a++)
        bc += s->bvec[a] * s->cb[a];
    double r = s->yyr - 2.0 * bc + band_quadratic(s->Ab, m, BAND, s->cb);
    *rss = r > 0.0 ? r : 0.0;
    band_inverse(s->Mb, m, BAND, s->Zb);
    *edf = band_trace_product(s->Zb, s->Ab, m, BAND);
    return 0;
}

static double ps_decompose_dense(pspline *s)
{
    size_t m = s->m, K = s->K;
    for (size_t a = 0; a < m; a++)
        for (size_t b = 0; b < m; b++)
            s->R[a * m + b] = s->P[(a + 1) * K + (b + 1)];
    if (cholesky(s->R, m) != 0)
        return -1.0;
    /* tmp = A R^-1, row by row (A symmetric) */
    for (size_t a = 0; a < m; a++) {
        double *row = s->tmp + a * m;
        for (size_t b = 0; b < m; b++)
            row[b] = s->Q[(a + 1) * K + (b + 1)];
        solve_rt(s->R, m, row);
    }
    /* M = R^-T tmp, column by column */
    for (size_t b = 0; b < m; b++) {
        for (size_t a = 0; a < m; a++)
            s->col[a] = s->tmp[a * m + b];
        solve_rt(s->R, m, s->col);
        for (size_t a = 0; a < m; a++)
            gsl_matrix_set(s->Mm, a, b, s->col[a]);
    }
    for (size_t a = 0; a < m; a++)
        for (size_t b = a + 1; b < m; b++) {
            double v = 0.5 * (gsl_matrix_get(s->Mm, a, b) + gsl_matrix_get(s->Mm, b, a));
            gsl_matrix_set(s->Mm, a, b, v);
            gsl_matrix_set(s->Mm, b, a, v);
        }
    gsl_eigen_symmv(s->Mm, s->ev, s->Vm, s->ew);
    memcpy(s->col, s->bvec, m * sizeof(double));
    solve_rt(s->R, m, s->col);
    memcpy(s->col2, s->pvec, m * sizeof(double));
    solve_rt(s->R, m, s->col2);
    double trace = 0.0;
    for (size_t i = 0; i < m; i++) {
        double su = 0.0, sw = 0.0;
        for (size_t a = 0; a < m; a++) {
            su += gsl_matrix_get(s->Vm, a, i) * s->col[a];
            sw += gsl_matrix_get(s->Vm, a, i) * s->col2[a];
        }
        double e = gsl_vector_get(s->ev, i);
        s->mu[i] = e > 0.0 ? e : 0.0;
        s->u[i] = su;
        s->w[i] = sw;
        trace += s->mu[i];
    }
    return trace / (double)m;
}

static double ps_decompose(pspline *s)
{
    ps_reduce(s);
    return s->dense ? ps_decompose_dense(s) : ps_decompose_band(s);
}

/* Residual sum of squares and effective degrees of freedom (trace of the
 * hat matrix) of the unconstrained fit for lambda. Returns -1 when the
 * banded system cannot be factored (ps_band_eval). */
static int ps_rss_edf(pspline *s, double lambda, double *rss, double *edf)
{
    if (!s->dense)
        return ps_band_eval(s, lambda, rss, edf);
    double r = s->yyr, e = 0.0;
    for (size_t i = 0; i < s->m; i++) {
        double z = (s->u[i] + lambda * s->w[i]) / (s->mu[i] + lambda);
        r += -2.0 * s->u[i] * z + s->mu[i] * z * z;
        e += s->mu[i] / (s->mu[i] + lambda);
    }
    *rss = r > 0.0 ? r : 0.0;
    *edf = e;
    return 0;
}

static double ps_gcv(pspline *s, double lambda)
{
    double rss, edf;
    if (ps_rss_edf(s, lambda, &rss, &edf) != 0)
        return HUGE_VAL;
    double dof = s->n - GCV_GAMMA * edf;
    if (!(dof > 1e-9))
        return HUGE_VAL;
    return s->n * rss / (dof * dof);
}

/* The lambda minimizing GCV: a scan over log10(lambda / scale), then a
 * golden-section refinement inside the best step. */
static double ps_choose_lambda(pspline *s, double scale)
{
    double best_t = GCV_LOG_LO, best = HUGE_VAL;
    int nsteps = (int)lround((GCV_LOG_HI - GCV_LOG_LO) / GCV_LOG_STEP);
    for (int k = 0; k <= nsteps; k++) {
        double t = GCV_LOG_LO + GCV_LOG_STEP * k;
        double v = ps_gcv(s, scale * pow(10.0, t));
        if (v < best) {
            best = v;
            best_t = t;
        }
    }
    double a = best_t - GCV_LOG_STEP, b = best_t + GCV_LOG_STEP;
    const double gr = 0.5 * (sqrt(5.0) - 1.0);
    double x1 = b - gr * (b - a), x2 = a + gr * (b - a);
    double f1 = ps_gcv(s, scale * pow(10.0, x1));
    double f2 = ps_gcv(s, scale * pow(10.0, x2));
    for (int it = 0; it < 30; it++) {
        if (f1 <= f2) {
            b = x2;
            x2 = x1;
            f2 = f1;
            x1 = b - gr * (b - a);
            f1 = ps_gcv(s, scale * pow(10.0, x1));
        } else {
            a = x1;
            x1 = x2;
            f1 = f2;
            x2 = a + gr * (b - a);
            f2 = ps_gcv(s, scale * pow(10.0, x2));
        }
    }
    double t = 0.5 * (a + b);
    if (!(ps_gcv(s, scale * pow(10.0, t)) <= best))
        t = best_t;
    return scale * pow(10.0, t);
}

/* The unconstrained solution for lambda (after ps_decompose), into c[K]. */
static int ps_solve(pspline *s, double lambda, double *c)
{
    size_t m = s->m;
    c[0] = 0.0;
    c[s->K - 1] = 1.0;
    if (!s->dense) {
        if (ps_band_eval(s, lambda, NULL, NULL) != 0)
            return -1;
        memcpy(c + 1, s->cb, m * sizeof(double));
        return 0;
    }
    for (size_t a = 0; a < m; a++) {
        double v = 0.0;
        for (size_t i = 0; i < m; i++)
            v += gsl_matrix_get(s->Vm, a, i) * (s->u[i] + lambda * s->w[i]) / (s->mu[i] + lambda);
        s->col[a] = v;
    }
    solve_r(s->R, m, s->col);
    for (size_t a = 0; a < m; a++)
        c[a + 1] = s->col[a];
    return 0;
}

/* Huber weights of the differences of c: 1 for rate changes below the
 * threshold, threshold/|difference| above (an L1 penalty on large changes
 * of the rate, which lets phase changes stay sharp while the rate inside a
 * phase is smoothed). Returns the largest weight change. */
static double ps_reweight(pspline *s, const double *c)
{
    double eps = HUBER_RATE_JUMP * s->h, change = 0.0;
    if (s->ord != 2)
        return 0.0; /* a trend's penalty stays quadratic: its rate is smooth */
    for (size_t j = 0; j < s->m; j++) {
        if (s->brk[j])
            continue;
        double d = s->drow[3 * j] * c[j] + s->drow[3 * j + 1] * c[j + 1] + s->drow[3 * j + 2] * c[j + 2];
        double wnew = fabs(d) > eps ? eps / fabs(d) : 1.0;
        if (wnew < 1e-6)
            wnew = 1e-6;
        change = fmax(change, fabs(wnew - s->pw[j]));
        s->pw[j] = wnew;
    }
    return change;
}

/* The monotone solves' feasible warm start: the clipped increments of the
 * unconstrained solution c, scaled to sum to one. */
static void mono_start(const double *c, size_t md, double *d)
{
    double sum = 0.0;
    for (size_t a = 0; a < md; a++) {
        d[a] = c[a + 1] - c[a];
        if (d[a] < 0.0)
            d[a] = 0.0;
        sum += d[a];
    }
    for (size_t a = 0; a < md; a++)
        d[a] = sum > 0.0 ? d[a] / sum : 1.0 / (double)md;
}

/* The coefficients of K - 1 increments d (c_0 = 0, c_K-1 = 1). */
static void mono_coeffs(const double *d, size_t K, double *c)
{
    double acc = 0.0;
    c[0] = 0.0;
    for (size_t a = 0; a + 2 < K; a++) {
        acc += d[a];
        c[a + 1] = acc > 1.0 ? 1.0 : acc;
    }
    c[K - 1] = 1.0;
}

/* Monotone solution for lambda: the same objective over non-negative
 * increments summing to one. H = X'X + lambda P; in increments d
 * (c_j = sum_{i<j} d_i): G = L'HL by suffix sums, g = L'(X'y). */
static int ps_monotone_dense(const pspline *s, double lambda, double *c)
{
    size_t K = s->K, md = K - 1;
    double *S = malloc(K * K * sizeof(*S));
    double *G = malloc(md * md * sizeof(*G));
    double *g = malloc(md * sizeof(*g));
    double *d = malloc(md * sizeof(*d));
    int rc = -1;
    if (!S || !G || !g || !d)
        goto out;
    for (size_t j = K; j-- > 1;)
        for (size_t k = K; k-- > 1;) {
            double v = s->Q[j * K + k] + lambda * s->P[j * K + k];
            if (j + 1 < K)
                v += S[(j + 1) * K + k];
            if (k + 1 < K)
                v += S[j * K + k + 1];
            if (j + 1 < K && k + 1 < K)
                v -= S[(j + 1) * K + k + 1];
            S[j * K + k] = v;
        }
    for (size_t a = 0; a < md; a++)
        for (size_t b = 0; b < md; b++)
            G[a * md + b] = S[(a + 1) * K + (b + 1)];
    double acc = 0.0;
    for (size_t a = md; a-- > 0;) {
        acc += s->q[a + 1];
        g[a] = acc;
    }
    mono_start(c, md, d);
    qp_simplex(G, g, md, d); /* on -1 d is feasible, if not optimal */
    mono_coeffs(d, K, c);
    rc = 0;
out:
    free(S);
    free(G);
    free(g);
    free(d);
    return rc;
}

/* The same QP, the same active-set method (qp_simplex) in the coefficients:
 * increments held at 0 tie runs of neighbouring coefficients into groups;
 * the equality-constrained minimum over the groups' values (the anchors'
 * groups at 0 and 1) is a band system, T'HT v = T'(q - H t0) with T the
 * groups' indicator columns, of the same half-bandwidth as H = X'X +
 * lambda P (the groups are runs); the multipliers of the held increments
 * are the suffix sums of the gradient Hc - q, less their mean over the free
 * increments (the sum constraint's). O(K) per iteration instead of O(K^3). */
static int ps_monotone_band(const pspline *s, double lambda, double *c)
{
    size_t K = s->K, md = K - 1, nb = BAND + 1;
    size_t *grp = malloc(K * sizeof(*grp));
    unsigned char *fixed = malloc(md);
    double *d = malloc(md * sizeof(*d)), *cc = malloc(K * sizeof(*cc)), *M = malloc(K * nb * sizeof(*M));
    double *v = malloc(K * sizeof(*v)), *r = malloc(K * sizeof(*r));
    int rc = -1;
    if (!grp || !fixed || !d || !cc || !M || !v || !r)
        goto out;
    mono_start(c, md, d);
    double qscale = 0.0;
    for (size_t a = 0; a < md; a++)
        fixed[a] = d[a] <= 0.0;
    for (size_t j = 0; j < K; j++)
        qscale = fmax(qscale, fabs(s->q[j]));
    size_t maxit = 20 * md + 20;
    for (size_t it = 0; it < maxit; it++) {
        /* groups: 0 is the anchor at 0, the last one (ng - 1) holds c_K-1 = 1 */
        size_t ng = 0;
        for (size_t j = 0; j < K; j++) {
            if (j > 0 && !fixed[j - 1])
                ng++;
            grp[j] = ng;
        }
        ng++;
        if (ng < 2 || grp[K - 1] == 0)
            break; /* impossible from a feasible point */
        size_t nv = ng - 2; /* the free groups 1..ng-2 as unknowns 0..nv-1 */
        memset(M, 0, (nv ? nv : 1) * nb * sizeof(*M));
        for (size_t g = 0; g < nv; g++)
            v[g] = 0.0;
        for (size_t j = 0; j < K; j++) {
            size_t gj = grp[j];
            if (gj == 0 || gj == ng - 1)
                continue;
            v[gj - 1] += s->q[j];
            for (size_t k = j >= BAND ? j - BAND : 0; k < K && k <= j + BAND; k++) {
                double h = s->Q[j * K + k] + lambda * s->P[j * K + k];
                size_t gk = grp[k];
                if (gk == ng - 1)
                    v[gj - 1] -= h; /* the anchor's value 1 */
                else if (gk >= gj && gk > 0)
                    M[(gj - 1) * nb + (gk - gj)] += h;
            }
        }
        if (nv && band_cholesky(M, nv, BAND) != 0)
            break;
        band_solve_rt(M, nv, BAND, v);
        band_solve_r(M, nv, BAND, v);
        for (size_t j = 0; j < K; j++)
            cc[j] = grp[j] == 0 ? 0.0 : (grp[j] == ng - 1 ? 1.0 : v[grp[j] - 1]);
        /* the step towards the candidate, blocked by the first increment to reach 0 */
        double alpha = 1.0;
        size_t block = md;
        for (size_t a = 0; a < md; a++) {
            double ca = cc[a + 1] - cc[a];
            if (!fixed[a] && ca < 0.0) {
                double t = d[a] / (d[a] - ca);
                if (t < alpha) {
                    alpha = t;
                    block = a;
                }
            }
        }
        for (size_t a = 0; a < md; a++)
            if (!fixed[a])
                d[a] += alpha * ((cc[a + 1] - cc[a]) - d[a]);
        if (block < md) {
            d[block] = 0.0;
            fixed[block] = 1;
            continue;
        }
        /* at the working set's minimum: the multipliers of the held increments */
        for (size_t j = 0; j < K; j++) {
            double g = -s->q[j];
            for (size_t k = j >= BAND ? j - BAND : 0; k < K && k <= j + BAND; k++)
                g += (s->Q[j * K + k] + lambda * s->P[j * K + k]) * cc[k];
            r[j] = g;
        }
        double acc = 0.0, lam = 0.0;
        size_t nfree = 0;
        for (size_t a = md; a-- > 0;) {
            acc += r[a + 1];
            v[a] = acc; /* suffix sum: the gradient in increment a */
            if (!fixed[a]) {
                lam -= acc;
                nfree++;
            }
        }
        lam /= (double)(nfree ? nfree : 1);
        size_t worst = md;
        double worst_nu = -1e-12 * (qscale + 1.0);
        for (size_t a = 0; a < md; a++)
            if (fixed[a] && v[a] + lam < worst_nu) {
                worst_nu = v[a] + lam;
                worst = a;
            }
        if (worst == md)
            break;
        fixed[worst] = 0;
    }
    mono_coeffs(d, K, c); /* d is feasible even when the iteration stopped early */
    rc = 0;
out:
    free(grp);
    free(fixed);
    free(d);
    free(cc);
    free(M);
    free(v);
    free(r);
    return rc;
}

static int ps_monotone(const pspline *s, double lambda, double *c)
{
    return s->dense ? ps_monotone_dense(s, lambda, c) : ps_monotone_band(s, lambda, c);
}

/* The least-squares line through the points of the cloud within
 * FOLD_EDGE_WIDTH of one edge, in the form y = anchor + r (x - edge + d): the
 * local rate r and the shift d of the points along x (their values are those
 * of x + d), with the standard errors of r and of d. Returns the number of
 * points used. */
typedef struct {
    double r, d, se_r, se_d;
} edge_fit;

static size_t edge_line(const fold_cloud *cloud, int far, edge_fit *e)
{
    /* u = x - edge (<= 0 at the far edge), v = y - anchor */
    double su = 0.0, sv = 0.0, suu = 0.0, suv = 0.0, svv = 0.0;
    size_t m = 0;
    for (size_t i = 0; i < cloud->n; i++) {
        double x = clamp01(cloud->x[i]), u = far ? x - 1.0 : x;
        if (fabs(u) > FOLD_EDGE_WIDTH)
            continue;
        double v = nonneg(cloud->y[i]) - (far ? 1.0 : 0.0);
        su += u;
        sv += v;
        suu += u * u;
        suv += u * v;
        svv += v * v;
        m++;
    }
    memset(e, 0, sizeof(*e));
    if (m < 3)
        return m;
    double dm = (double)m, ub = su / dm, vb = sv / dm;
    double Suu = suu - dm * ub * ub, Suv = suv - dm * ub * vb, Svv = svv - dm * vb * vb;
    if (!(Suu > 1e-18))
        return 0;
    double b = Suv / Suu, a = vb - b * ub;
    double s2 = fmax(Svv - b * Suv, 0.0) / (dm - 2.0);
    e->r = b;
    e->se_r = sqrt(s2 / Suu);
    if (b > 0.0) {
        e->d = a / b;
        e->se_d = sqrt(s2 * (1.0 / dm + ub * ub / Suu)) / b;
    }
    return m;
}

#define OFFSET_MIN_POINTS 10 /* at each edge */
#define OFFSET_SIGMAS 3.0

double fold_cloud_offset(const fold_cloud *cloud)
{
    edge_fit e0, e1;
    if (!cloud || edge_line(cloud, 0, &e0) < OFFSET_MIN_POINTS || edge_line(cloud, 1, &e1) < OFFSET_MIN_POINTS)
        return 0.0;
    /* both edges must have a rate to shift, and both be shifted the same way */
    if (!(e0.r > OFFSET_SIGMAS * e0.se_r) || !(e1.r > OFFSET_SIGMAS * e1.se_r) || !(e0.d * e1.d > 0.0) ||
        !(fabs(e0.d) > OFFSET_SIGMAS * e0.se_d) || !(fabs(e1.d) > OFFSET_SIGMAS * e1.se_d))
        return 0.0;
    /* the same shift within their errors: their weighted mean; otherwise the
     * smaller one */
    double d = fabs(e0.d) < fabs(e1.d) ? e0.d : e1.d, v0 = e0.se_d * e0.se_d, v1 = e1.se_d * e1.se_d;
    if (fabs(e0.d - e1.d) <= OFFSET_SIGMAS * sqrt(v0 + v1) && v0 + v1 > 0.0)
        d = (e0.d * v1 + e1.d * v0) / (v0 + v1);
    return fabs(d) <= FOLD_MAX_OFFSET ? d : 0.0;
}

/* The resolution of a curve from its points (fit.h, fold_curve.resolution):
 * n points at x (in [0,1]) with residuals res in nb bins; cum the fitted
 * curve at the bins' edges (nb + 1 values). In a bin whose neighbourhood
 * holds m points per unit of x with scatter s^2 about their bins' means, the
 * increase of the mean curve over a width L is known from the m L points at
 * either end to about s sqrt(2 / (m L)), the rate over L to that divided by L: it
 * falls to RES_ERROR (in units of the mean rate, 1) at L = (2 s^2 / (m
 * RES_ERROR^2))^(1/3). The curve's resolution is the mean of L over the bins
 * weighted by the curve's increase in each (where the counter counts), at
 * most 1 (the region: only the counter's mean rate is known).
 * Returns 0 (resolution 0: too few points), or -1 when memory ran out. */
static int curve_resolution(const double *x, const double *res, size_t n, size_t nb, const double *cum,
                            fold_curve *out)
{
    out->resolution = 0.0;
    if (nb < RES_MIN_BINS)
        return 0;
    double *cnt = calloc(3 * nb, sizeof(double));
    if (!cnt)
        return -1;
    double *sum = cnt + nb, *ss = cnt + 2 * nb; /* per bin: points, sum of residuals, sum of squares */
    for (size_t i = 0; i < n; i++) {
        size_t b = (size_t)(x[i] * (double)nb);
        b = b < nb ? b : nb - 1;
        cnt[b] += 1.0;
        sum[b] += res[i];
        ss[b] += res[i] * res[i];
    }
    double wl = 0.0, wsum = 0.0;
    for (size_t b = 0; b < nb; b++) {
        double within = 0.0, dof = 0.0, points = 0.0, width = 0.0;
        for (size_t k = b >= RES_NEIGHBOURS ? b - RES_NEIGHBOURS : 0; k < nb && k <= b + RES_NEIGHBOURS; k++) {
            width += 1.0 / (double)nb;
            points += cnt[k];
            if (cnt[k] >= 1.0) {
                within += fmax(0.0, ss[k] - sum[k] * sum[k] / cnt[k]);
                dof += cnt[k] - 1.0;
            }
        }
        double w = cum[b + 1] - cum[b];
        if (dof < RES_MIN_DOF || !(w > 0.0))
            continue;
        double density = points / width, var = within / dof;
        wl += w * cbrt(2.0 * var / (density * RES_ERROR * RES_ERROR));
        wsum += w;
    }
    free(cnt);
    out->resolution = wsum > 0.0 ? fmin(1.0, wl / wsum) : 0.0; /* 1: not resolved within the region */
    return 0;
}

/* The fit with nint knot intervals (0: the default, from the points). */
static int fit_intervals(const fold_cloud *cloud, const fold_fit_options *o, size_t want, fold_curve *out)
{
    if (!out)
        return -1;
    memset(out, 0, sizeof(*out));
    if (!cloud || !o || o->grid < 2 || o->grid > FOLD_MAX_GRID || (cloud->n > 0 && (!cloud->x || !cloud->y)) ||
        !isfinite(o->smoothing))
        return -1;
    for (size_t i = 0; i < cloud->n; i++)
        if (!isfinite(cloud->x[i]) || !isfinite(cloud->y[i]))
            return -1;

    int rc = -1;
    size_t n = cloud->n;
    size_t cap = (o->max_points == 0 || n <= o->max_points) ? n : o->max_points;
    size_t *chosen = malloc((cap ? cap : 1) * sizeof(*chosen));
    double *px = malloc((cap ? cap : 1) * sizeof(*px));
    double *py = malloc((cap ? cap : 1) * sizeof(*py));
    double *c = NULL, *steps = malloc((o->nbreaks ? o->nbreaks : 1) * sizeof(*steps));
    gsl_vector *Bv = NULL;
    gsl_matrix *dB = NULL;
    pspline s;
    memset(&s, 0, sizeof(s));
    if (!chosen || !px || !py || !steps)
        goto done;
    size_t used = fold_cap_points(n, o->max_points, chosen);
    double offset = o->offset_given ? o->offset : fold_cloud_offset(cloud);
    for (size_t i = 0; i < used; i++) {
        px[i] = clamp01(cloud->x[chosen[i]] + offset);
        py[i] = nonneg(cloud->y[chosen[i]]);
    }

    /* many knots (the penalty, not the knots, sets the smoothness), fewer
     * when there are few points: POINTS_PER_INTERVAL */
    size_t nint = used / POINTS_PER_INTERVAL;
    if (nint < MIN_INTERVALS)
        nint = MIN_INTERVALS;
    if (nint > MAX_INTERVALS)
        nint = MAX_INTERVALS;
    if (want)
        nint = want;
    size_t nsteps = ps_steps(nint, o->breaks, o->nbreaks, steps);
    if (ps_alloc(&s, nint, steps, nsteps, o->trend ? 3 : 2, o->dense) != 0)
        goto done;
    size_t K = s.K;
    Bv = gsl_vector_alloc(K);
    dB = gsl_matrix_alloc(K, 2);
    c = malloc(K * sizeof(*c));
    if (!Bv || !dB || !c)
        goto done;
    ps_accumulate(&s, px, py, used, Bv);

    double lambda = 1.0;
    for (int it = 0; it < HUBER_ITERATIONS; it++) {
        double scale = ps_decompose(&s);
        if (scale < 0.0)
            goto done;
        if (used == 0 || !(scale > 0.0))
            lambda = 1.0; /* no data: the penalty alone decides, a line */
        else if (o->smoothing > 0.0)
            lambda = o->smoothing * (double)used;
        else
            lambda = ps_choose_lambda(&s, scale);
        if (ps_solve(&s, lambda, c) != 0)
            goto done;
        if (used == 0 || it + 1 == HUBER_ITERATIONS || ps_reweight(&s, c) < HUBER_TOL)
            break;
    }

    int monotone = 1;
    for (size_t j = 1; j < K; j++)
        if (c[j] < c[j - 1])
            monotone = 0;
    if (!monotone && ps_monotone(&s, lambda, c) != 0)
        goto done;

    size_t ng = o->grid;
    out->x = malloc(ng * sizeof(*out->x));
    out->cum = malloc(ng * sizeof(*out->cum));
    out->rate = malloc(ng * sizeof(*out->rate));
    if (!out->x || !out->cum || !out->rate)
        goto done;
    for (size_t i = 0; i < ng; i++) {
        double x = (double)i / (double)(ng - 1);
        gsl_bspline_deriv_eval(x, 1, dB, s.bw);
        double f = 0.0, d = 0.0;
        for (size_t j = 0; j < K; j++) {
            f += gsl_matrix_get(dB, j, 0) * c[j];
            d += gsl_matrix_get(dB, j, 1) * c[j];
        }
        f = clamp01(f);
        if (i > 0 && f < out->cum[i - 1])
            f = out->cum[i - 1]; /* rounding only: the coefficients are monotone */
        out->x[i] = x;
        out->cum[i] = f;
        out->rate[i] = d > 0.0 ? d : 0.0;
    }
    out->cum[0] = 0.0;
    out->cum[ng - 1] = 1.0;
    double se = 0.0;
    for (size_t i = 0; i < used; i++) {
        double f = ps_value(&s, Bv, c, px[i]);
        se += (py[i] - f) * (py[i] - f);
        py[i] -= f; /* the residual, for the resolution below */
    }
    size_t nbins = used / RES_POINTS_PER_BIN;
    if (nbins > RES_BINS_PER_INTERVAL * nint)
        nbins = RES_BINS_PER_INTERVAL * nint;
    double *edges = malloc((nbins + 1) * sizeof(*edges));
    if (!edges)
        goto done;
    for (size_t b = 0; b <= nbins; b++)
        edges[b] = ps_value(&s, Bv, c, (double)b / (double)(nbins ? nbins : 1));
    int rres = curve_resolution(px, py, used, nbins, edges, out);
    free(edges);
    if (rres != 0)
        goto done;
    out->rmse = used ? sqrt(se / (double)used) : 0.0;
    double rss_unused, edf = 0.0;
    if (used && ps_rss_edf(&s, lambda, &rss_unused, &edf) != 0)
        edf = 0.0;
    double dof = (double)used - GCV_GAMMA * edf;
    out->gcv = dof > 1e-9 ? (double)used * se / (dof * dof) : HUGE_VAL;
    out->grid = ng;
    out->used = used;
    out->smoothing = used ? lambda / (double)used : 0.0;
    out->offset = offset;
    out->intervals = nint;
    out->lambda = lambda;
    out->trend = s.ord == 3;
    out->dense = o->dense;
    out->weights = malloc(s.nrow * sizeof(*out->weights));
    if (!out->weights)
        goto done;
    memcpy(out->weights, s.pw, s.nrow * sizeof(*out->weights));
    if (nsteps) {
        if (!(out->breaks = malloc(nsteps * sizeof(*out->breaks))))
            goto done;
        memcpy(out->breaks, steps, nsteps * sizeof(*steps));
        out->nbreaks = nsteps;
    }
    rc = 0;

done:
    if (rc != 0)
        fold_curve_free(out);
    ps_free(&s);
    free(chosen);
    free(px);
    free(py);
    free(c);
    free(steps);
    if (Bv)
        gsl_vector_free(Bv);
    if (dB)
        gsl_matrix_free(dB);
    return rc;
}

int fold_fit_cumulative(const fold_cloud *cloud, const fold_fit_options *o, fold_curve *out)
{
    if (fit_intervals(cloud, o, 0, out) != 0)
        return -1;
    /* finer knots where the points support them, kept when GCV prefers them */
    for (size_t nint = 2 * out->intervals; nint <= FINE_MAX_INTERVALS && nint * FINE_POINTS_PER_INTERVAL <= out->used;
         nint *= 2) {
        fold_curve fine;
        if (fit_intervals(cloud, o, nint, &fine) != 0) {
            fold_curve_free(out);
            return -1;
        }
        if (!(fine.gcv < out->gcv)) {
            fold_curve_free(&fine);
            break;
        }
        fold_curve_free(out);
        *out = fine;
    }
    return 0;
}

/* ---- refits under point weights (the bootstrap's replicates) ---- */

double fold_y_rescale(double x, double y, double scale)
{
    return x + scale * (y - x);
}

struct fold_fit_design {
    pspline s;         /* knots and the fixed penalty P of the fit it copies */
    double lambda;
    size_t n, grid;
    size_t *lo;        /* per point: first non-zero basis function */
    unsigned char *nb; /* and how many */
    double *b;         /* SPLINE_ORDER values per point */
    double *x, *y;     /* the points as fitted (x moved by the offset, clamped) */
    double *gval, *gder; /* grid x K: basis values and first derivatives */
    double *c;
};

void fold_fit_design_free(fold_fit_design *d)
{
    if (!d)
        return;
    ps_free(&d->s);
    free(d->lo);
    free(d->nb);
    free(d->b);
    free(d->x);
    free(d->y);
    free(d->gval);
    free(d->gder);
    free(d->c);
    free(d);
}

fold_fit_design *fold_fit_design_new(const fold_cloud *cloud, const fold_curve *like)
{
    if (!cloud || !like || !like->weights || like->grid < 2 || like->intervals < MIN_INTERVALS ||
        (cloud->n && (!cloud->x || !cloud->y)))
        return NULL;
    fold_fit_design *d = calloc(1, sizeof(*d));
    if (!d)
        return NULL;
    gsl_vector *Bv = NULL;
    gsl_matrix *dB = NULL;
    if (ps_alloc(&d->s, like->intervals, like->breaks, like->nbreaks, like->trend ? 3 : 2, like->dense) != 0)
        goto fail;
    size_t K = d->s.K, n = cloud->n;
    d->lambda = like->lambda;
    d->n = n;
    d->grid = like->grid;
    memcpy(d->s.pw, like->weights, d->s.nrow * sizeof(double));
    d->lo = malloc((n ? n : 1) * sizeof(*d->lo));
    d->nb = malloc(n ? n : 1);
    d->b = malloc((n ? n : 1) * SPLINE_ORDER * sizeof(*d->b));
    d->x = malloc((n ? n : 1) * sizeof(*d->x));
    d->y = malloc((n ? n : 1) * sizeof(*d->y));
    d->gval = malloc(d->grid * K * sizeof(*d->gval));
    d->gder = malloc(d->grid * K * sizeof(*d->gder));
    d->c = malloc(K * sizeof(*d->c));
    Bv = gsl_vector_alloc(K);
    dB = gsl_matrix_alloc(K, 2);
    if (!d->lo || !d->nb || !d->b || !d->x || !d->y || !d->gval || !d->gder || !d->c || !Bv || !dB)
        goto fail;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(cloud->x[i]) || !isfinite(cloud->y[i]))
            goto fail;
        d->x[i] = clamp01(cloud->x[i] + like->offset);
        d->nb[i] = (unsigned char)ps_basis(&d->s, d->x[i], Bv, &d->lo[i], d->b + i * SPLINE_ORDER);
        d->y[i] = nonneg(cloud->y[i]); /* an instance may end above 1 (fit.h) */
    }
    for (size_t g = 0; g < d->grid; g++) {
        gsl_bspline_deriv_eval((double)g / (double)(d->grid - 1), 1, dB, d->s.bw);
        for (size_t j = 0; j < K; j++) {
            d->gval[g * K + j] = gsl_matrix_get(dB, j, 0);
            d->gder[g * K + j] = gsl_matrix_get(dB, j, 1);
        }
    }
    gsl_vector_free(Bv);
    gsl_matrix_free(dB);
    return d;
fail:
    if (Bv)
        gsl_vector_free(Bv);
    if (dB)
        gsl_matrix_free(dB);
    fold_fit_design_free(d);
    return NULL;
}

int fold_fit_refit(fold_fit_design *d, const double *w, double yscale, double *cum, double *rate)
{
    pspline *s = &d->s;
    size_t K = s->K, m = s->m, L = K - 1;
    zero_band(s->Q, K);
    memset(s->q, 0, K * sizeof(double));
    s->yy = 0.0;
    double total = 0.0;
    for (size_t i = 0; i < d->n; i++) {
        double wi = w ? w[i] : 1.0;
        if (wi > 0.0 && d->nb[i]) {
            ps_add_point(s, d->lo[i], d->b + i * SPLINE_ORDER, d->nb[i], fold_y_rescale(d->x[i], d->y[i], yscale),
                         wi);
            total += wi;
        }
    }
    s->n = total;
    double lambda = total > 0.0 ? d->lambda : 1.0;
    double *c = d->c;
    /* the robust penalty's weights found again, from 1, as the fit found
     * them: they follow the data's own wiggles, and kept fixed they made
     * every replicate bend where the data bent (fit.h) */
    for (size_t j = 0; j < s->nrow; j++)
        s->pw[j] = s->brk[j] ? BREAK_WEIGHT : 1.0;
    for (int it = 0; it < HUBER_ITERATIONS; it++) {
        /* P = D'WD with the current weights, then (A + lambda Pf) c = b +
         * lambda p on the free coefficients: banded (ps_band_eval), or the
         * dense reference */
        c[0] = 0.0;
        c[L] = 1.0;
        if (!s->dense) {
            ps_reduce(s);
            if (ps_band_eval(s, lambda, NULL, NULL) != 0)
                return -1;
            memcpy(c + 1, s->cb, m * sizeof(double));
            if (total <= 0.0 || it + 1 == HUBER_ITERATIONS || ps_reweight(s, c) < HUBER_TOL)
                break;
            continue;
        }
        ps_penalty(s);
        for (size_t a = 0; a < m; a++) {
            s->col[a] = s->q[a + 1] - s->Q[(a + 1) * K + L] - lambda * s->P[(a + 1) * K + L];
            for (size_t b = 0; b < m; b++)
                s->R[a * m + b] = s->Q[(a + 1) * K + (b + 1)] + lambda * s->P[(a + 1) * K + (b + 1)];
        }
        if (cholesky(s->R, m) != 0)
            return -1;
        solve_rt(s->R, m, s->col);
        solve_r(s->R, m, s->col);
        for (size_t a = 0; a < m; a++)
            c[a + 1] = s->col[a];
        if (total <= 0.0 || it + 1 == HUBER_ITERATIONS || ps_reweight(s, c) < HUBER_TOL)
            break;
    }
    int monotone = 1;
    for (size_t j = 1; j < K; j++)
        if (c[j] < c[j - 1])
            monotone = 0;
    if (!monotone && ps_monotone(s, lambda, c) != 0)
        return -1;
    for (size_t g = 0; g < d->grid; g++) {
        double f = 0.0, r = 0.0;
        for (size_t j = 0; j < K; j++) {
            f += d->gval[g * K + j] * c[j];
            r += d->gder[g * K + j] * c[j];
        }
        f = clamp01(f);
        if (g > 0 && f < cum[g - 1])
            f = cum[g - 1];
        cum[g] = f;
        rate[g] = r > 0.0 ? r : 0.0;
    }
    cum[0] = 0.0;
    cum[d->grid - 1] = 1.0;
    return 0;
}
