/* test_fit.c: unit tests of the monotone P-spline fit of folded cumulative
 * curves (fold/fit.c) against known truth: synthetic region instances with
 * piecewise-constant rates (the classic 300/800/300 MIPS case, a constant
 * rate), sparse timer sampling (about 2 samples per instance), per-instance
 * rate jitter and measurement noise, all from a fixed-seed splitmix64
 * generator of this file. Also: monotonicity on very noisy data, the
 * anchors, determinism and the deterministic cap, bad input, coarse
 * against 100x finer sampling of the same instances, steps (breaks)
 * that keep rate jumps sharp, and a trend's penalty that keeps a linear
 * rate's ends where they are; the banded solves against the dense
 * reference (the same fits to rounding). The measured errors
 * are printed as TAP comments ("# ..."). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#include <cmocka.h>

#include "fit.h"
#include "test_data.h"

#ifndef SEED_BASE
#define SEED_BASE 0 /* shifts every seed: to check the tests over many seeds */
#endif

/* ---- synthetic regions ---- */

#define MAXPH 24

/* A region's truth: phases with bounds b[0]=0 < ... < b[nph]=1 and rates. */
typedef struct {
    size_t nph;
    double b[MAXPH + 1];
    double r[MAXPH];
} truth;

static double cum_abs(const double *b, const double *r, size_t nph, double x)
{
    double s = 0.0;
    for (size_t p = 0; p < nph && x > b[p]; p++)
        s += r[p] * ((x < b[p + 1] ? x : b[p + 1]) - b[p]);
    return s;
}

/* the true rate, normalized (mean 1 over the region) */
static double truth_rate(const truth *t, double x)
{
    double total = cum_abs(t->b, t->r, t->nph, 1.0);
    size_t p = 0;
    while (p + 1 < t->nph && x >= t->b[p + 1])
        p++;
    return t->r[p] / total;
}

/* Simulates ninst instances: each has its phase rates jittered by +-jitter
 * (uniform, independently per phase, so each instance's total and shape
 * differ a little) and its duration by +-5 %; a timer of the given period
 * (in units of the mean duration, +-10 % jitter, random start) samples it;
 * each sample is the instance's cumulative fraction plus Gaussian noise of
 * the given deviation. Instance parameters come from seed_inst, sampling
 * and noise from seed_samp, so two samplings of the same instances can be
 * compared. */
static void simulate(const truth *t, size_t ninst, double period, double jitter, double noise, uint64_t seed_inst,
                     uint64_t seed_samp, points *out)
{
    rng ri = { seed_inst + SEED_BASE }, rs = { seed_samp + SEED_BASE };
    for (size_t i = 0; i < ninst; i++) {
        double r[MAXPH];
        for (size_t p = 0; p < t->nph; p++)
            r[p] = t->r[p] * (1.0 + jitter * (2.0 * rng_unif(&ri) - 1.0));
        double dur = 1.0 + 0.05 * (2.0 * rng_unif(&ri) - 1.0);
        double total = cum_abs(t->b, r, t->nph, 1.0);
        double step = period / dur; /* normalized sampling period */
        for (double x = rng_unif(&rs) * step; x < 1.0; x += step * (1.0 + 0.2 * (rng_unif(&rs) - 0.5)))
            points_add(out, x, cum_abs(t->b, r, t->nph, x) / total + noise * rng_norm(&rs));
    }
}

static const truth classic = { 3, { 0.0, 0.4, 0.9, 1.0 }, { 300.0, 800.0, 300.0 } };
static const truth constant = { 1, { 0.0, 1.0 }, { 500.0 } };

#define NINST 300
#define PERIOD 0.52  /* a little under 2 samples per instance */
#define JITTER 0.03
#define NOISE 0.002

static void fit_ok(const points *p, fold_curve *c)
{
    fold_cloud cl = { p->x, p->y, p->n };
    fold_fit_options o;
    fold_fit_defaults(&o);
    assert_int_equal(fold_fit_cumulative(&cl, &o, c), 0);
    assert_int_equal(c->grid, o.grid);
}

/* The invariants of every fitted curve; with `integral`, also that the
 * rate integrates to the curve (on curves without near-jumps, which the
 * grid cannot resolve). */
static void check_curve_x(const fold_curve *c, int integral)
{
    assert_true(c->grid >= 2);
    assert_true(c->cum[0] == 0.0);
    assert_true(c->cum[c->grid - 1] == 1.0);
    for (size_t i = 0; i < c->grid; i++) {
        assert_true(isfinite(c->cum[i]) && isfinite(c->rate[i]));
        assert_true(c->rate[i] >= 0.0);
        assert_true(c->x[i] == (double)i / (double)(c->grid - 1));
        if (i > 0)
            assert_true(c->cum[i] >= c->cum[i - 1]);
    }
    if (!integral)
        return;
    /* the rate is the derivative of the curve: its integral (trapezoids)
     * gives the curve back */
    double s = 0.0, worst = 0.0;
    for (size_t i = 1; i < c->grid; i++) {
        s += 0.5 * (c->rate[i] + c->rate[i - 1]) * (c->x[i] - c->x[i - 1]);
        worst = fmax(worst, fabs(s - c->cum[i]));
    }
    assert_true(worst < 0.01);
}

static void check_curve(const fold_curve *c)
{
    check_curve_x(c, 1);
}

/* Mean absolute error of the fitted rate against the truth over the grid,
 * skipping grid points within `skip` of a phase boundary. */
static double rate_mae(const fold_curve *c, const truth *t, double skip, double *maxerr)
{
    double s = 0.0, mx = 0.0;
    size_t n = 0;
    for (size_t i = 0; i < c->grid; i++) {
        int near = 0;
        for (size_t k = 1; k < t->nph; k++)
            if (fabs(c->x[i] - t->b[k]) <= skip + 1e-12)
                near = 1;
        if (near)
            continue;
        double e = fabs(c->rate[i] - truth_rate(t, c->x[i]));
        s += e;
        mx = fmax(mx, e);
        n++;
    }
    if (maxerr)
        *maxerr = mx;
    return s / (double)n;
}

static void defaults(void **state)
{
    (void)state;
    fold_fit_options o;
    fold_fit_defaults(&o);
    assert_int_equal(o.grid, 101);
    assert_int_equal(o.max_points, 20000);
    assert_true(o.smoothing <= 0.0);
}

/* The classic case: 300, 800, 300 MIPS over 0-40 %, 40-90 %, 90-100 %. */
static void classic_rates(void **state)
{
    (void)state;
    points p = { 0 };
    simulate(&classic, NINST, PERIOD, JITTER, NOISE, 11, 12, &p);
    double per_instance = (double)p.n / NINST;
    assert_true(per_instance <= 2.0); /* "on average at most 2 samples per instance" */
    fold_curve c;
    fit_ok(&p, &c);
    check_curve(&c);
    /* The fit is smooth, a rate step is a steep ramp of a few hundredths of
     * the region: the error is measured away from the two discontinuities
     * (grid points within +-0.03 of 0.4 and 0.9 are excluded). The
     * piecewise-linear segmentation (test_segment) holds everywhere. */
    double mx, mae = rate_mae(&c, &classic, 0.03, &mx);
    double mae_all = rate_mae(&c, &classic, -1.0, NULL);
    double cum_err = 0.0;
    double total = cum_abs(classic.b, classic.r, classic.nph, 1.0);
    for (size_t i = 0; i < c.grid; i++)
        cum_err = fmax(cum_err, fabs(c.cum[i] - cum_abs(classic.b, classic.r, classic.nph, c.x[i]) / total));
    printf("# classic: %zu points (%.2f per instance), rate MAE %.4f of the mean rate (max %.4f) outside "
           "+-0.03 of the steps, %.4f everywhere; cumulative max error %.4f; rmse %.4f; smoothing %.3g\n",
           p.n, per_instance, mae, mx, mae_all, cum_err, c.rmse, c.smoothing);
    assert_true(mae < 0.03);
    assert_true(cum_err < 0.01);
    assert_true(c.rmse < 2.0 * NOISE + 0.01);
    assert_int_equal(c.used, p.n);
    fold_curve_free(&c);
    points_free(&p);
}

static void constant_rate_is_flat(void **state)
{
    (void)state;
    points p = { 0 };
    simulate(&constant, NINST, PERIOD, JITTER, NOISE, 21, 22, &p);
    fold_curve c;
    fit_ok(&p, &c);
    check_curve(&c);
    double mx, mae = rate_mae(&c, &constant, 0.0, &mx);
    printf("# constant: rate MAE %.4f, max deviation %.4f (everywhere)\n", mae, mx);
    assert_true(mx < 0.03);
    fold_curve_free(&c);
    points_free(&p);
}

/* Instances sampled as by a tracer whose samples read their counters `skew`
 * (in units of the mean duration) after their timestamps, relative to the
 * boundaries: a sample at x carries the value of x + skew / duration, and
 * none comes later than the instance's end minus the skew. */
static void simulate_skewed(const truth *t, size_t ninst, double skew, double noise, uint64_t seed, points *out)
{
    rng r = { seed + SEED_BASE };
    for (size_t i = 0; i < ninst; i++) {
        double dur = 1.0 + 0.05 * (2.0 * rng_unif(&r) - 1.0);
        double total = cum_abs(t->b, t->r, t->nph, 1.0), d = skew / dur, step = 0.1 / dur;
        for (double x = rng_unif(&r) * step; x + d < 1.0; x += step * (1.0 + 0.2 * (rng_unif(&r) - 0.5)))
            points_add(out, x, cum_abs(t->b, t->r, t->nph, x + d) / total + noise * rng_norm(&r));
    }
}

static double offset_of(const points *p)
{
    fold_cloud cl = { p->x, p->y, p->n };
    return fold_cloud_offset(&cl);
}

/* A skew between samples and boundaries is measured as an offset along x
 * and taken out before fitting: a constant rate stays flat to the edges
 * (within 0.5 %), the classic one keeps its rates; what a real edge phase
 * does is not taken for a skew. */
static void skew_is_not_an_edge_phase(void **state)
{
    (void)state;
    static const truth start_burst = { 2, { 0.0, 0.02, 1.0 }, { 1500.0, 500.0 } };
    static const truth both_bursts = { 3, { 0.0, 0.02, 0.98, 1.0 }, { 1500.0, 500.0, 1500.0 } };
    points p = { 0 };
    simulate_skewed(&constant, 1000, 0.002, 0.0002, 31, &p);
    double off = offset_of(&p);
    fold_curve c;
    fit_ok(&p, &c);
    check_curve(&c);
    double mx, mae = rate_mae(&c, &constant, 0.0, &mx);
    printf("# skew 0.002 of a constant rate: offset %.5f; rate MAE %.5f, max deviation %.5f\n", off, mae, mx);
    assert_true(fabs(off - 0.002) < 0.0002);
    assert_true(c.offset == off);
    assert_true(mx < 0.005);
    fold_curve_free(&c);
    points_free(&p);

    /* without the skew: no offset (or one within the noise) */
    simulate_skewed(&constant, 1000, 0.0, 0.0002, 32, &p);
    off = offset_of(&p);
    assert_true(fabs(off) < 0.0002);
    points_free(&p);

    /* the classic rates, skewed: the offset and the rates away from the steps */
    simulate_skewed(&classic, 1000, 0.002, 0.0002, 33, &p);
    off = offset_of(&p);
    fit_ok(&p, &c);
    mae = rate_mae(&c, &classic, 0.03, &mx);
    printf("# skew 0.002 of the classic rates: offset %.5f; rate MAE %.4f outside +-0.03 of the steps (max %.4f)\n",
           off, mae, mx);
    assert_true(fabs(off - 0.002) < 0.0003);
    assert_true(mx < 0.03);
    fold_curve_free(&c);
    points_free(&p);

    /* real edge phases: at one edge, or at both (shifts of opposite signs) */
    simulate_skewed(&start_burst, 1000, 0.0, 0.0002, 34, &p);
    assert_true(offset_of(&p) == 0.0);
    points_free(&p);
    simulate_skewed(&both_bursts, 1000, 0.0, 0.0002, 35, &p);
    assert_true(offset_of(&p) == 0.0);
    points_free(&p);

    /* a shift beyond FOLD_MAX_OFFSET is the data's, not a skew */
    simulate_skewed(&constant, 1000, 2.0 * FOLD_MAX_OFFSET, 0.0002, 36, &p);
    assert_true(offset_of(&p) == 0.0);
    points_free(&p);

    /* too few points at an edge to tell */
    simulate_skewed(&constant, 20, 0.002, 0.0002, 37, &p);
    assert_true(offset_of(&p) == 0.0);
    points_free(&p);
}

/* Monotone for data that is not: pure noise, a decreasing cloud, rates of
 * zero (the constraint is active), huge noise around the classic curve. */
static void monotone_on_noisy_data(void **state)
{
    (void)state;
    rng r = { 31 + SEED_BASE };
    for (int kind = 0; kind < 4; kind++) {
        points p = { 0 };
        if (kind == 0) {
            for (int i = 0; i < 3000; i++)
                points_add(&p, rng_unif(&r), rng_unif(&r));
        } else if (kind == 1) {
            for (int i = 0; i < 2000; i++) {
                double x = rng_unif(&r);
                points_add(&p, x, 1.0 - x + 0.3 * rng_norm(&r));
            }
        } else if (kind == 2) {
            static const truth zero = { 3, { 0.0, 0.3, 0.6, 1.0 }, { 0.0, 1.0, 0.0 } };
            simulate(&zero, NINST, PERIOD, JITTER, 0.05, 32, 33, &p);
        } else {
            simulate(&classic, NINST, PERIOD, JITTER, 0.2, 34, 35, &p);
        }
        fold_curve c;
        fit_ok(&p, &c);
        /* the best monotone fit of pure noise rises steeply at both ends */
        check_curve_x(&c, kind >= 2);
        fold_curve_free(&c);
        points_free(&p);
    }
}

/* No points: the anchors alone, a straight line of rate 1. Few points: a
 * valid curve. */
static void only_anchors_and_few_points(void **state)
{
    (void)state;
    fold_cloud cl = { NULL, NULL, 0 };
    fold_fit_options o;
    fold_fit_defaults(&o);
    fold_curve c;
    assert_int_equal(fold_fit_cumulative(&cl, &o, &c), 0);
    check_curve(&c);
    assert_int_equal(c.used, 0);
    for (size_t i = 0; i < c.grid; i++) {
        assert_true(fabs(c.cum[i] - c.x[i]) < 1e-9);
        assert_true(fabs(c.rate[i] - 1.0) < 1e-9);
    }
    fold_curve_free(&c);

    double x[3] = { 0.5, 0.25, 0.75 }, y[3] = { 0.7, 0.3, 0.9 };
    for (size_t n = 1; n <= 3; n++) {
        fold_cloud f = { x, y, n };
        assert_int_equal(fold_fit_cumulative(&f, &o, &c), 0);
        check_curve(&c);
        assert_int_equal(c.used, n);
        fold_curve_free(&c);
    }
    /* points on the anchors and outside [0, 1] (clamped) */
    double xe[4] = { 0.0, 1.0, -0.01, 1.02 }, ye[4] = { 0.0, 1.0, -0.02, 1.01 };
    fold_cloud e = { xe, ye, 4 };
    assert_int_equal(fold_fit_cumulative(&e, &o, &c), 0);
    check_curve(&c);
    fold_curve_free(&c);
}

static void bad_input(void **state)
{
    (void)state;
    fold_fit_options o;
    fold_fit_defaults(&o);
    fold_curve c;
    double x[3] = { 0.2, 0.5, 0.8 }, y[3] = { 0.2, 0.5, 0.8 };
    double xn[3] = { 0.2, NAN, 0.8 }, yn[3] = { 0.2, 0.5, NAN }, yi[3] = { 0.2, INFINITY, 0.8 };
    fold_cloud nanx = { xn, y, 3 }, nany = { x, yn, 3 }, infy = { x, yi, 3 }, nullp = { NULL, NULL, 3 };
    assert_int_equal(fold_fit_cumulative(&nanx, &o, &c), -1);
    assert_null(c.cum);
    assert_int_equal(c.grid, 0);
    assert_int_equal(fold_fit_cumulative(&nany, &o, &c), -1);
    assert_int_equal(fold_fit_cumulative(&infy, &o, &c), -1);
    assert_int_equal(fold_fit_cumulative(&nullp, &o, &c), -1);
    assert_int_equal(fold_fit_cumulative(NULL, &o, &c), -1);
    fold_cloud good = { x, y, 3 };
    assert_int_equal(fold_fit_cumulative(&good, NULL, &c), -1);
    assert_int_equal(fold_fit_cumulative(&good, &o, NULL), -1);
    o.grid = 1;
    assert_int_equal(fold_fit_cumulative(&good, &o, &c), -1);
    fold_fit_defaults(&o);
    o.smoothing = NAN;
    assert_int_equal(fold_fit_cumulative(&good, &o, &c), -1);
    fold_curve_free(&c); /* harmless on a zeroed curve */
    fold_curve_free(NULL);
}

/* The raised cap (fold_fit_raised_cap): only a capped cloud whose fit is
 * coarser than FOLD_REFIT_RESOLUTION, at most all its points: also one
 * resolved over 0.09 of the region, not yet coarse enough for the summary's
 * warning (truth_app's task-clock beside a busy process at 1 ms: 5.3 % MAE
 * from 20,000 points, 3.1 % from all 35,414). */
static void raised_cap(void **state)
{
    (void)state;
    fold_fit_options o;
    fold_fit_defaults(&o);
    assert_int_equal(o.max_points, 20000);
    assert_int_equal(o.coarse_max_points, FOLD_COARSE_MAX_POINTS);
    fold_curve c;
    memset(&c, 0, sizeof(c));
    c.resolution = FOLD_COARSE_RESOLUTION * 1.5;
    assert_int_equal(fold_fit_raised_cap(&o, 66133, &c), 66133);          /* all of them */
    assert_int_equal(fold_fit_raised_cap(&o, 345840, &c), FOLD_COARSE_MAX_POINTS); /* at most the raised cap */
    assert_int_equal(fold_fit_raised_cap(&o, 20000, &c), 0);              /* not capped */
    c.resolution = 0.09;
    assert_int_equal(fold_fit_raised_cap(&o, 35414, &c), 35414); /* below the summary's warning, still refitted */
    c.resolution = FOLD_REFIT_RESOLUTION;
    assert_int_equal(fold_fit_raised_cap(&o, 66133, &c), 0);              /* resolved: kept */
    c.resolution = 0.0;                                                   /* too few points to tell */
    assert_int_equal(fold_fit_raised_cap(&o, 66133, &c), 0);
    c.resolution = 0.3;
    o.coarse_max_points = 0; /* hcafold --max-points alone */
    assert_int_equal(fold_fit_raised_cap(&o, 66133, &c), 0);
    o.coarse_max_points = 10000; /* not above the cap */
    assert_int_equal(fold_fit_raised_cap(&o, 66133, &c), 0);
    o.coarse_max_points = 50000;
    o.max_points = 0; /* no cap */
    assert_int_equal(fold_fit_raised_cap(&o, 66133, &c), 0);
    assert_int_equal(fold_fit_raised_cap(NULL, 66133, &c), 0);
}

static void cap_points(void **state)
{
    (void)state;
    size_t ch[16];
    assert_int_equal(fold_cap_points(10, 4, ch), 4);
    assert_int_equal(ch[0], 0);
    assert_int_equal(ch[1], 2);
    assert_int_equal(ch[2], 5);
    assert_int_equal(ch[3], 7);
    assert_int_equal(fold_cap_points(5, 8, ch), 5);
    for (size_t i = 0; i < 5; i++)
        assert_int_equal(ch[i], i);
    assert_int_equal(fold_cap_points(6, 0, ch), 6); /* 0: no cap */
    assert_int_equal(ch[5], 5);
    assert_int_equal(fold_cap_points(0, 4, ch), 0);

    size_t n = 1000003, max = 20000;
    size_t *a = malloc(max * sizeof(*a)), *b = malloc(max * sizeof(*b));
    assert_non_null(a);
    assert_non_null(b);
    assert_int_equal(fold_cap_points(n, max, a), max);
    assert_int_equal(fold_cap_points(n, max, b), max);
    assert_memory_equal(a, b, max * sizeof(*a));
    assert_int_equal(a[0], 0);
    for (size_t i = 1; i < max; i++) {
        assert_true(a[i] > a[i - 1]);
        assert_true(a[i] - a[i - 1] >= n / max && a[i] - a[i - 1] <= n / max + 1); /* a fixed stride */
    }
    assert_true(a[max - 1] < n);
    free(a);
    free(b);
}

static void same_input_same_output(void **state)
{
    (void)state;
    points p = { 0 };
    simulate(&classic, 3 * NINST, 0.05, JITTER, NOISE, 41, 42, &p); /* ~18000 points */
    fold_cloud cl = { p.x, p.y, p.n };
    fold_fit_options o;
    fold_fit_defaults(&o);
    o.max_points = 5000; /* the cap is in play */
    fold_curve a, b;
    assert_int_equal(fold_fit_cumulative(&cl, &o, &a), 0);
    assert_int_equal(fold_fit_cumulative(&cl, &o, &b), 0);
    assert_int_equal(a.used, 5000);
    assert_int_equal(b.used, 5000);
    assert_memory_equal(a.cum, b.cum, a.grid * sizeof(double));
    assert_memory_equal(a.rate, b.rate, a.grid * sizeof(double));
    assert_memory_equal(&a.rmse, &b.rmse, sizeof(double));
    check_curve(&a);
    fold_curve_free(&a);
    fold_curve_free(&b);
    points_free(&p);
}

/* A fixed smoothing weight: a large one gives nearly the straight line, a
 * small one follows the data. */
static void fixed_smoothing(void **state)
{
    (void)state;
    points p = { 0 };
    simulate(&classic, NINST, PERIOD, JITTER, NOISE, 51, 52, &p);
    fold_cloud cl = { p.x, p.y, p.n };
    fold_fit_options o;
    fold_fit_defaults(&o);
    fold_curve c;
    o.smoothing = 1e6;
    assert_int_equal(fold_fit_cumulative(&cl, &o, &c), 0);
    check_curve(&c);
    for (size_t i = 0; i < c.grid; i++)
        assert_true(fabs(c.rate[i] - 1.0) < 0.2);
    fold_curve_free(&c);
    o.smoothing = 0.02;
    assert_int_equal(fold_fit_cumulative(&cl, &o, &c), 0);
    check_curve(&c);
    double mae = rate_mae(&c, &classic, 0.03, NULL);
    printf("# fixed smoothing 0.02: rate MAE %.4f\n", mae);
    assert_true(mae < 0.05);
    fold_curve_free(&c);
    points_free(&p);
}

/* Folding's published claim: coarse sampling (2 samples per instance)
 * agrees with a 100x finer sampling of the same instances (mean absolute
 * difference of the rates under 5 %). The fine cloud (~60000 points) also
 * exercises the default cap (20000). */
static void coarse_matches_fine(void **state)
{
    (void)state;
    points coarse = { 0 }, fine = { 0 };
    simulate(&classic, NINST, PERIOD, JITTER, NOISE, 61, 62, &coarse);
    simulate(&classic, NINST, PERIOD / 100.0, JITTER, NOISE, 61, 63, &fine);
    fold_curve a, b;
    fit_ok(&coarse, &a);
    fit_ok(&fine, &b);
    check_curve(&a);
    check_curve(&b);
    assert_int_equal(b.used, 20000);
    double d = 0.0, d_in = 0.0;
    size_t n_in = 0;
    for (size_t i = 0; i < a.grid; i++) {
        double e = fabs(a.rate[i] - b.rate[i]);
        d += e;
        if (fabs(a.x[i] - 0.4) > 0.03 + 1e-12 && fabs(a.x[i] - 0.9) > 0.03 + 1e-12) {
            d_in += e;
            n_in++;
        }
    }
    d /= (double)a.grid;
    d_in /= (double)n_in;
    double fine_mae = rate_mae(&b, &classic, 0.03, NULL);
    printf("# coarse (%zu points) vs fine (%zu points, %zu used): mean |rate difference| %.4f everywhere, "
           "%.4f outside +-0.03 of the steps; fine fit's MAE against the truth %.4f\n",
           coarse.n, fine.n, b.used, d, d_in, fine_mae);
    assert_true(d < 0.05);
    assert_true(fine_mae < 0.03);
    fold_curve_free(&a);
    fold_curve_free(&b);
    points_free(&coarse);
    points_free(&fine);
}

/* A refit (fold_fit_design, the bootstrap's replicates) with every weight 1
 * gives the fit back; weights 2 on one half and 0 on the other give the fit
 * of that half alone (the same knots and penalty: near its rates). */
static void refit_under_weights(void **state)
{
    (void)state;
    points p = { 0 };
    simulate(&classic, NINST, PERIOD, JITTER, NOISE, 21, 22, &p);
    fold_curve c;
    fit_ok(&p, &c);
    fold_cloud cl = { p.x, p.y, p.n };
    fold_fit_design *d = fold_fit_design_new(&cl, &c);
    assert_non_null(d);
    double cum[101], rate[101], worst = 0.0;
    assert_int_equal(c.grid, 101);
    assert_int_equal(fold_fit_refit(d, NULL, 1.0, cum, rate), 0);
    for (size_t i = 0; i < c.grid; i++)
        worst = fmax(worst, fabs(rate[i] - c.rate[i]));
    printf("# refit with unit weights: largest rate difference %.4f of the mean rate\n", worst);
    assert_true(worst < 0.05);
    assert_true(cum[0] == 0.0 && cum[100] == 1.0);
    double *w = malloc(p.n * sizeof(*w));
    assert_non_null(w);
    for (size_t i = 0; i < p.n; i++)
        w[i] = i < p.n / 2 ? 2.0 : 0.0; /* the first instances, twice */
    assert_int_equal(fold_fit_refit(d, w, 1.0, cum, rate), 0);
    fold_curve half = c;
    half.rate = rate;
    double mae = rate_mae(&half, &classic, 0.03, NULL);
    printf("# refit of half the instances: rate MAE %.4f\n", mae);
    assert_true(mae < 0.05);
    assert_null(fold_fit_design_new(&cl, NULL));
    free(w);
    fold_fit_design_free(d);
    fold_curve_free(&c);
    points_free(&p);
}

/* The largest difference of the rate between a curve (of 101 grid points)
 * and the refit of its design with unit weights (the bootstrap's replicates
 * are fitted so: with every weight 1 they must give the curve back). */
static double refit_difference(const fold_cloud *cl, const fold_curve *c)
{
    fold_fit_design *d = fold_fit_design_new(cl, c);
    assert_non_null(d);
    double cum[101], rate[101], worst = 0.0;
    assert_int_equal(c->grid, 101);
    assert_int_equal(fold_fit_refit(d, NULL, 1.0, cum, rate), 0);
    for (size_t i = 0; i < c->grid; i++)
        worst = fmax(worst, fabs(rate[i] - c->rate[i]));
    fold_fit_design_free(d);
    return worst;
}

/* Steps (fold_fit_options.breaks) at the true phase changes keep the rate
 * sharp there: near the steps (within +-0.03, where the fit without them
 * ramps) its error drops, away from them it stays as small; the curve keeps
 * its invariants; the steps are recorded in the curve (those too close to
 * an edge or to another step are not taken), and a refit of the same points
 * with unit weights (the bootstrap's replicates, fitted the same way) gives
 * the curve back. */
static void steps_keep_jumps(void **state)
{
    (void)state;
    points p = { 0 };
    simulate(&classic, NINST, 0.125, JITTER, NOISE, 31, 32, &p); /* about 8 samples per instance */
    fold_cloud cl = { p.x, p.y, p.n };
    fold_fit_options o;
    fold_fit_defaults(&o);
    fold_curve plain, steps;
    assert_int_equal(fold_fit_cumulative(&cl, &o, &plain), 0);
    const double breaks[] = { 0.001, 0.4, 0.401, 0.9, 0.999 }; /* only 0.4 and 0.9 can be steps */
    o.breaks = breaks;
    o.nbreaks = 5;
    assert_int_equal(fold_fit_cumulative(&cl, &o, &steps), 0);
    check_curve_x(&steps, 0);
    assert_int_equal(plain.nbreaks, 0);
    assert_null(plain.breaks);
    assert_int_equal(steps.nbreaks, 2);
    assert_true(steps.breaks[0] == 0.4 && steps.breaks[1] == 0.9);
    /* near the steps: the error of the points within +-0.03 of them */
    double near_plain = 0.0, near_steps = 0.0;
    size_t nnear = 0;
    for (size_t i = 0; i < plain.grid; i++)
        if (fabs(plain.x[i] - 0.4) <= 0.03 + 1e-12 || fabs(plain.x[i] - 0.9) <= 0.03 + 1e-12) {
            double t = truth_rate(&classic, plain.x[i]);
            near_plain += fabs(plain.rate[i] - t);
            near_steps += fabs(steps.rate[i] - t);
            nnear++;
        }
    near_plain /= (double)nnear;
    near_steps /= (double)nnear;
    double away_plain = rate_mae(&plain, &classic, 0.03, NULL), away_steps = rate_mae(&steps, &classic, 0.03, NULL);
    printf("# steps at 0.4 and 0.9: rate MAE within +-0.03 of them %.4f (without: %.4f), away %.4f (without: "
           "%.4f) of the mean rate; GCV %.3g (without: %.3g)\n",
           near_steps, near_plain, away_steps, away_plain, steps.gcv, plain.gcv);
    assert_true(near_steps < 0.5 * near_plain);
    assert_true(away_steps < 0.03);
    assert_true(steps.gcv < plain.gcv);
    double worst = refit_difference(&cl, &steps);
    printf("# refit with the steps, unit weights: largest rate difference %.4f of the mean rate\n", worst);
    assert_true(worst < 0.05);
    fold_curve_free(&plain);
    fold_curve_free(&steps);
    points_free(&p);
}

/* A linear rate from 200 to 1000 (mean 600) per instance, rates jittered
 * by +-JITTER, sampled as simulate() does. */
static void simulate_ramp(size_t ninst, double period, uint64_t seed, points *out)
{
    rng r = { seed + SEED_BASE };
    for (size_t i = 0; i < ninst; i++) {
        double a = 200.0 * (1.0 + JITTER * (2.0 * rng_unif(&r) - 1.0));
        double b = 800.0 * (1.0 + JITTER * (2.0 * rng_unif(&r) - 1.0));
        double dur = 1.0 + 0.05 * (2.0 * rng_unif(&r) - 1.0), step = period / dur, total = a + b / 2.0;
        for (double x = rng_unif(&r) * step; x < 1.0; x += step * (1.0 + 0.2 * (rng_unif(&r) - 0.5)))
            points_add(out, x, (a * x + b * x * x / 2.0) / total + NOISE * rng_norm(&r));
    }
}

/* A trend's penalty (fold_fit_options.trend: on the changes of the rate's
 * slope) fits a linear rate without pulling its ends towards the mean at
 * the anchors, as the default penalty (on the changes of the rate) does:
 * at 0.25 samples per instance of 320 (80 points; bench/bands.sh's ramp
 * had +7.8 % at x = 0) its rates at 0 and 1 are within 3 % of the truth
 * and nearer than the default fit's, its mean error is smaller, GCV prefers
 * it, and a refit of its design with unit weights (the bootstrap's
 * replicates, fitted the same way) gives it back. */
static void trend_ends_unbiased(void **state)
{
    (void)state;
    points p = { 0 };
    simulate_ramp(320, 4.0, 41, &p);
    fold_cloud cl = { p.x, p.y, p.n };
    fold_fit_options o;
    fold_fit_defaults(&o);
    fold_curve plain, trend;
    assert_int_equal(fold_fit_cumulative(&cl, &o, &plain), 0);
    o.trend = 1;
    assert_int_equal(fold_fit_cumulative(&cl, &o, &trend), 0);
    check_curve(&trend);
    assert_int_equal(plain.trend, 0);
    assert_int_equal(trend.trend, 1);
    double e0 = fabs(trend.rate[0] * 3.0 - 1.0), e1 = fabs(trend.rate[100] * 0.6 - 1.0); /* truth 1/3, 5/3 */
    double p0 = fabs(plain.rate[0] * 3.0 - 1.0), mae = 0.0, mae_plain = 0.0;
    for (size_t i = 0; i < trend.grid; i++) {
        double t = (200.0 + 800.0 * trend.x[i]) / 600.0;
        mae += fabs(trend.rate[i] - t) / t / (double)trend.grid;
        mae_plain += fabs(plain.rate[i] - t) / t / (double)trend.grid;
    }
    printf("# a ramp at 0.25 samples per instance (%zu points): relative error at x = 0 %.4f (default penalty "
           "%.4f), at x = 1 %.4f; mean %.4f (default %.4f); GCV %.3g (default %.3g)\n",
           p.n, e0, p0, e1, mae, mae_plain, trend.gcv, plain.gcv);
    assert_true(e0 < 0.03 && e1 < 0.03);
    assert_true(e0 < p0);
    assert_true(mae < mae_plain);
    assert_true(trend.gcv < plain.gcv);
    double worst = refit_difference(&cl, &trend);
    printf("# refit with the trend's penalty, unit weights: largest rate difference %.4f of the mean rate\n", worst);
    assert_true(worst < 0.01);
    fold_curve_free(&plain);
    fold_curve_free(&trend);
    points_free(&p);
}

/* The largest absolute difference of two arrays. */
static double max_diff(const double *a, const double *b, size_t n)
{
    double w = 0.0;
    for (size_t i = 0; i < n; i++)
        w = fmax(w, fabs(a[i] - b[i]));
    return w;
}

/* Fits of one cloud banded (the default) and dense (the reference): the
 * same knots and steps; the largest difference of the smoothing weight
 * (relative), of the robust weights and of the curves (cum and rate) into
 * d[0..2]. */
static void band_vs_dense(const fold_cloud *cl, fold_fit_options o, fold_curve *band, fold_curve *dense, double *d)
{
    o.dense = 0;
    assert_int_equal(fold_fit_cumulative(cl, &o, band), 0);
    o.dense = 1;
    assert_int_equal(fold_fit_cumulative(cl, &o, dense), 0);
    assert_int_equal(band->intervals, dense->intervals);
    assert_int_equal(band->nbreaks, dense->nbreaks);
    assert_int_equal(band->dense, 0);
    assert_int_equal(dense->dense, 1);
    size_t nrow = band->intervals + 3 - (band->trend ? 3 : 2) + 2 * band->nbreaks; /* K - ord */
    d[0] = fabs(band->lambda - dense->lambda) / dense->lambda;
    d[1] = max_diff(band->weights, dense->weights, nrow);
    d[2] = fmax(max_diff(band->cum, dense->cum, band->grid), max_diff(band->rate, dense->rate, band->grid));
}

/* The banded solves (the default) against the dense reference
 * (fold_fit_options.dense: the eigendecomposition's GCV, the refits' dense
 * Cholesky) on random clouds: the classic region and noisy ones (whose fits
 * take the monotone solve), with and without steps, the trend's penalty, few
 * points. At a given smoothing weight (the one the dense GCV chose) the fits
 * agree to rounding (curves within 1e-7 of the mean rate: the trend's
 * penalty is ill-conditioned by its tiny ridge), and so do the refits of
 * random bootstrap weights (multiplicities 0-3) with both designs (1e-12).
 * With the weight chosen by GCV, the scores agree within 1e-5 (relative);
 * the minimum of a flat score moves by the square root of their rounding
 * and the robust reweighting follows: the weights within 1 %, the curves
 * within 1e-4 of the mean rate (over seeds: at most 4e-7, 5e-5 and 2e-5). */
static void banded_equals_dense(void **state)
{
    (void)state;
    const double breaks[] = { 0.4, 0.9 };
    double worst_gcv[3] = { 0 }, worst_fixed[3] = { 0 }, worst_refit = 0.0;
    for (int k = 0; k < 12; k++) {
        points p = { 0 };
        double noise = k % 3 == 2 ? 0.05 : NOISE; /* very noisy: not monotone unconstrained */
        size_t ninst = k % 4 == 3 ? 20 : NINST;   /* few points: few knot intervals */
        simulate(&classic, ninst, k % 2 ? 0.125 : PERIOD, JITTER, noise, 700 + (uint64_t)k, 800 + (uint64_t)k, &p);
        fold_cloud cl = { p.x, p.y, p.n };
        fold_fit_options o;
        fold_fit_defaults(&o);
        if (k % 2) {
            o.breaks = breaks;
            o.nbreaks = 2;
        }
        o.trend = k % 5 == 4;
        fold_curve band, dense;
        double d[3];
        band_vs_dense(&cl, o, &band, &dense, d);
        assert_true(fabs(band.gcv - dense.gcv) <= 1e-5 * dense.gcv);
        assert_true(d[0] < 1e-2 && d[2] < 1e-4);
        for (int i = 0; i < 3; i++)
            worst_gcv[i] = fmax(worst_gcv[i], d[i]);
        o.smoothing = dense.smoothing;
        fold_curve_free(&band);
        fold_curve_free(&dense);
        band_vs_dense(&cl, o, &band, &dense, d);
        assert_true(d[0] < 1e-12 && d[1] < 1e-8 && d[2] < 1e-7);
        for (int i = 0; i < 3; i++)
            worst_fixed[i] = fmax(worst_fixed[i], d[i]);
        fold_fit_design *db = fold_fit_design_new(&cl, &band), *dd = fold_fit_design_new(&cl, &dense);
        assert_non_null(db);
        assert_non_null(dd);
        double *w = malloc(p.n * sizeof(*w));
        assert_non_null(w);
        rng r = { 900 + (uint64_t)k };
        for (int rep = 0; rep < 3; rep++) {
            for (size_t i = 0; i < p.n; i++)
                w[i] = floor(4.0 * rng_unif(&r));
            double cb[101], rb[101], cd[101], rd[101];
            assert_int_equal(fold_fit_refit(db, w, 1.0 + 0.01 * rep, cb, rb), 0);
            assert_int_equal(fold_fit_refit(dd, w, 1.0 + 0.01 * rep, cd, rd), 0);
            double dr = fmax(max_diff(cb, cd, 101), max_diff(rb, rd, 101));
            worst_refit = fmax(worst_refit, dr);
            assert_true(dr < 1e-12); /* bit for bit here: the dense factor of a band matrix adds zeros */
        }
        free(w);
        fold_fit_design_free(db);
        fold_fit_design_free(dd);
        fold_curve_free(&band);
        fold_curve_free(&dense);
        points_free(&p);
    }
    printf("# banded against dense, 12 clouds, largest differences: chosen by GCV, smoothing weight %.2g "
           "(relative), robust weights %.2g, curves %.2g; at a given weight %.2g, %.2g, %.2g; refits %.2g\n",
           worst_gcv[0], worst_gcv[1], worst_gcv[2], worst_fixed[0], worst_fixed[1], worst_fixed[2], worst_refit);
}

/* Bursts: a rate of 300 with ten bursts of 1500, 0.0135 wide every 0.027
 * from 0.4 on (truth_app's page faults near idle), sampled 8 times per
 * instance of 300 (about 2400 points). 80 knot intervals (0.0125 apart)
 * smear them into a ramp; with 160, which GCV takes, the fitted rate follows
 * them: its error within the bursts' span (on a grid of 0.001) falls below
 * half the bursts' amplitude over the mean rate, and its swing there (the
 * mean absolute deviation from its mean) reaches half the truth's. */
static void bursts_resolved(void **state)
{
    (void)state;
    truth t = { 22, { 0.0 }, { 300.0 } };
    for (size_t k = 0; k < 20; k++) {
        t.b[k + 1] = 0.4 + 0.0135 * (double)k;
        t.r[k + 1] = k % 2 ? 300.0 : 1500.0;
    }
    t.b[21] = 0.67;
    t.r[21] = 300.0;
    t.b[22] = 1.0;
    points p = { 0 };
    simulate(&t, NINST, 0.125, JITTER, NOISE, 41, 42, &p);
    fold_cloud cl = { p.x, p.y, p.n };
    fold_fit_options o;
    fold_fit_defaults(&o);
    o.grid = 1001;
    fold_curve c;
    assert_int_equal(fold_fit_cumulative(&cl, &o, &c), 0);
    double err = 0.0, mean = 0.0, tmean = 0.0, swing = 0.0, tswing = 0.0;
    size_t n = 0;
    for (size_t i = 0; i < c.grid; i++)
        if (c.x[i] >= 0.4 && c.x[i] < 0.67) {
            mean += c.rate[i];
            tmean += truth_rate(&t, c.x[i]);
            n++;
        }
    mean /= (double)n;
    tmean /= (double)n;
    for (size_t i = 0; i < c.grid; i++)
        if (c.x[i] >= 0.4 && c.x[i] < 0.67) {
            double tr = truth_rate(&t, c.x[i]);
            err += fabs(c.rate[i] - tr);
            swing += fabs(c.rate[i] - mean);
            tswing += fabs(tr - tmean);
        }
    err /= (double)n;
    swing /= (double)n;
    tswing /= (double)n;
    double amp = 0.5 * (truth_rate(&t, 0.4) - truth_rate(&t, 0.0));
    printf("# bursts every 0.027 (%zu points): %zu knot intervals; rate MAE within them %.3f of the mean rate "
           "(half their amplitude %.3f), swing %.3f (truth %.3f)\n",
           p.n, c.intervals, err, amp, swing, tswing);
    assert_int_equal(c.intervals, 160);
    assert_true(err < 0.5 * amp);
    assert_true(swing > 0.5 * tswing);
    fold_curve_free(&c);
    points_free(&p);
}

/* The curve's resolution (fit.h) from its points' scatter and density: on a
 * constant rate with Gaussian noise s on n points over [0,1], the width L at
 * which the rate's standard error is 2.25 % of its mean, (2 s^2 / (n
 * 0.0225^2))^(1/3); 8 times the points halve it, 4 times the noise multiply
 * it by 4^(2/3); noise only where the counter counts (a second half at 0
 * exactly, as page faults outside their phase) is the noise that counts. */
static double resolution_of(const truth *t, double period, double noise, uint64_t seed, size_t *n)
{
    points p = { 0 };
    simulate(t, NINST, period, 0.0, noise, seed, seed + 1, &p);
    fold_curve c;
    fit_ok(&p, &c);
    double r = c.resolution;
    *n = p.n;
    fold_curve_free(&c);
    points_free(&p);
    return r;
}

static void resolution_from_scatter(void **state)
{
    (void)state;
    size_t n, n8, n4;
    double r = resolution_of(&constant, 0.125, 0.01, 51, &n);
    double expect = cbrt(2.0 * 0.01 * 0.01 / ((double)n * 0.0225 * 0.0225));
    double r8 = resolution_of(&constant, 0.125 / 8.0, 0.01, 53, &n8);
    double r4 = resolution_of(&constant, 0.125, 0.04, 55, &n4);
    printf("# resolution: %.4f at %zu points, noise 0.01 (expected %.4f); %.4f at %zu points; %.4f at noise 0.04\n", r,
           n, expect, r8, n8, r4);
    assert_true(fabs(r / expect - 1.0) < 0.1);
    assert_true(fabs(r8 / r - cbrt((double)n / (double)n8)) < 0.05);
    assert_true(fabs(r4 / r - cbrt(16.0)) < 0.15);
    /* half the region counts nothing: its exact points do not sharpen the other half */
    points p = { 0 };
    const truth half = { 2, { 0.0, 0.5, 1.0 }, { 0.0, 500.0 } };
    rng rs = { 57 + SEED_BASE };
    for (size_t i = 0; i < n; i++) {
        double x = rng_unif(&rs), y = x < 0.5 ? 0.0 : cum_abs(half.b, half.r, half.nph, x) / 250.0;
        points_add(&p, x, x < 0.5 ? y : y + 0.01 * rng_norm(&rs));
    }
    fold_curve c;
    fit_ok(&p, &c);
    double expect_half = cbrt(2.0 * 0.01 * 0.01 / ((double)n * 0.0225 * 0.0225));
    printf("# resolution, noise in the counting half only: %.4f (expected %.4f)\n", c.resolution, expect_half);
    assert_true(fabs(c.resolution / expect_half - 1.0) < 0.15);
    fold_curve_free(&c);
    points_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(defaults),
        cmocka_unit_test(classic_rates),
        cmocka_unit_test(constant_rate_is_flat),
        cmocka_unit_test(skew_is_not_an_edge_phase),
        cmocka_unit_test(monotone_on_noisy_data),
        cmocka_unit_test(only_anchors_and_few_points),
        cmocka_unit_test(bad_input),
        cmocka_unit_test(cap_points),
        cmocka_unit_test(raised_cap),
        cmocka_unit_test(same_input_same_output),
        cmocka_unit_test(fixed_smoothing),
        cmocka_unit_test(coarse_matches_fine),
        cmocka_unit_test(refit_under_weights),
        cmocka_unit_test(steps_keep_jumps),
        cmocka_unit_test(trend_ends_unbiased),
        cmocka_unit_test(banded_equals_dense),
        cmocka_unit_test(bursts_resolved),
        cmocka_unit_test(resolution_from_scatter),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
