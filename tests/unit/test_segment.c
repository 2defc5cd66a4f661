/* test_segment.c: unit tests of the phase segmentation of folded cumulative
 * curves (fold/segment.c) against known truth: the classic 300/800/300 MIPS
 * region (3 phases, boundaries at 0.4 and 0.9), a constant rate (1 phase),
 * two counters sharing the boundaries, small rate changes, a fixed penalty,
 * min_width and max_phases, determinism and bad input. Synthetic instances
 * with per-instance rate jitter, sparse timer sampling (about 2 samples per
 * instance) and noise come from a fixed-seed splitmix64 generator of this
 * file. The measured errors are printed as TAP comments ("# ..."). */
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

/* ---- synthetic regions with several counters ---- */

#define MAXPH 8
#define MAXC 4

/* Phases b[0]=0 < ... < b[nph]=1 shared by the counters; r[c][p] is the
 * rate of counter c in phase p. */
typedef struct {
    size_t nph, nc;
    double b[MAXPH + 1];
    double r[MAXC][MAXPH];
} truth;

static double cum_abs(const double *b, const double *r, size_t nph, double x)
{
    double s = 0.0;
    for (size_t p = 0; p < nph && x > b[p]; p++)
        s += r[p] * ((x < b[p + 1] ? x : b[p + 1]) - b[p]);
    return s;
}

/* the true slope of counter c in phase p, in cumulative fraction per unit
 * of normalized time (mean 1) */
static double truth_slope(const truth *t, size_t c, size_t p)
{
    return t->r[c][p] / cum_abs(t->b, t->r[c], t->nph, 1.0);
}

/* ninst instances, each with every counter's phase rates jittered by
 * +-jitter (uniform, independently), duration +-5 %; a timer of the given
 * period (units of the mean duration, +-10 %, random start) samples all
 * counters at once; noise[c] is counter c's measurement noise. */
static void simulate(const truth *t, size_t ninst, double period, double jitter, const double *noise, uint64_t seed,
                     points *out)
{
    rng r = { seed + SEED_BASE };
    for (size_t i = 0; i < ninst; i++) {
        double rr[MAXC][MAXPH], total[MAXC];
        for (size_t c = 0; c < t->nc; c++) {
            for (size_t p = 0; p < t->nph; p++)
                rr[c][p] = t->r[c][p] * (1.0 + jitter * (2.0 * rng_unif(&r) - 1.0));
            total[c] = cum_abs(t->b, rr[c], t->nph, 1.0);
        }
        double step = period / (1.0 + 0.05 * (2.0 * rng_unif(&r) - 1.0));
        for (double x = rng_unif(&r) * step; x < 1.0; x += step * (1.0 + 0.2 * (rng_unif(&r) - 0.5)))
            for (size_t c = 0; c < t->nc; c++)
                points_add(&out[c], x, cum_abs(t->b, rr[c], t->nph, x) / total[c] + noise[c] * rng_norm(&r));
    }
}

#define NINST 300
#define PERIOD 0.52 /* a little under 2 samples per instance */
#define JITTER 0.03
#define NOISE 0.002

static const truth classic = { 3, 1, { 0.0, 0.4, 0.9, 1.0 }, { { 300.0, 800.0, 300.0 } } };

static void segment_ok(const points *p, size_t nc, const fold_segment_options *o, fold_segmentation *s)
{
    fold_cloud cl[MAXC];
    for (size_t c = 0; c < nc; c++)
        cl[c] = (fold_cloud){ p[c].x, p[c].y, p[c].n };
    assert_int_equal(fold_segment(cl, nc, o, s), 0);
    assert_int_equal(s->nclouds, nc);
    assert_true(s->nphases >= 1);
    assert_true(s->bounds[0] == 0.0);
    assert_true(s->bounds[s->nphases] == 1.0);
    assert_true(s->nphases <= o->max_phases);
    for (size_t k = 0; k < s->nphases; k++)
        assert_true(s->bounds[k + 1] - s->bounds[k] >= o->min_width - 1e-9);
    for (size_t k = 0; k < s->nphases * nc; k++)
        assert_true(isfinite(s->slopes[k]));
    /* each slope is its phase's mean rate: they add up to the region's */
    for (size_t c = 0; c < nc; c++) {
        double sum = 0.0;
        for (size_t k = 0; k < s->nphases; k++)
            sum += s->slopes[k * nc + c] * (s->bounds[k + 1] - s->bounds[k]);
        assert_true(fabs(sum - 1.0) < 1e-9);
    }
}

/* Worst boundary error and worst slope error (in units of the mean rate,
 * and relative to the true slope) of a segmentation with the right number
 * of phases. */
static double worst_rel;

static void errors(const fold_segmentation *s, const truth *t, double *berr, double *serr)
{
    assert_int_equal(s->nphases, t->nph);
    double wb = 0.0, ws = 0.0;
    worst_rel = 0.0;
    for (size_t k = 1; k < t->nph; k++)
        wb = fmax(wb, fabs(s->bounds[k] - t->b[k]));
    for (size_t p = 0; p < t->nph; p++)
        for (size_t c = 0; c < t->nc; c++) {
            double e = fabs(s->slopes[p * t->nc + c] - truth_slope(t, c, p));
            ws = fmax(ws, e);
            worst_rel = fmax(worst_rel, e / truth_slope(t, c, p));
        }
    *berr = wb;
    *serr = ws;
}

/* Checks the phases against the truth: the same number, boundaries within
 * +-0.02, every slope within abs_tol (in units of the mean rate) or rel_tol
 * of its true value, whichever is larger; and the piecewise-constant rate
 * implied by the segmentation as close to the truth at every point inside
 * the true phases (+-0.02 from the true boundaries). */
static void check_truth(const fold_segmentation *s, const truth *t, double abs_tol, double rel_tol)
{
    double wb, ws;
    errors(s, t, &wb, &ws);
    assert_true(wb <= 0.02);
    for (int i = 0; i <= 1000; i++) {
        double x = i / 1000.0;
        size_t tp = 0, sp = 0;
        while (tp + 1 < t->nph && x >= t->b[tp + 1])
            tp++;
        if (x - t->b[tp] < 0.02 || t->b[tp + 1] - x < 0.02)
            continue;
        while (sp + 1 < s->nphases && x >= s->bounds[sp + 1])
            sp++;
        for (size_t c = 0; c < t->nc; c++) {
            double truth_v = truth_slope(t, c, tp);
            assert_true(fabs(s->slopes[sp * t->nc + c] - truth_v) <= fmax(abs_tol, rel_tol * truth_v));
        }
    }
}

static void defaults(void **state)
{
    (void)state;
    fold_segment_options o;
    fold_segment_defaults(&o);
    assert_int_equal(o.max_phases, 8);
    assert_true(o.penalty <= 0.0);
    assert_int_equal(o.bins, 200);
    assert_true(fabs(o.min_width - 0.02) < 1e-12);
    assert_true(fabs(o.edge_width - FOLD_EDGE_WIDTH) < 1e-12);
}

static void classic_phases(void **state)
{
    (void)state;
    points p[1] = { { 0 } };
    double noise[1] = { NOISE };
    simulate(&classic, NINST, PERIOD, JITTER, noise, 101, p);
    assert_true((double)p[0].n / NINST <= 2.0);
    fold_segment_options o;
    fold_segment_defaults(&o);
    fold_segmentation s;
    segment_ok(p, 1, &o, &s);
    double be, se;
    errors(&s, &classic, &be, &se);
    printf("# classic: %zu points: %zu phases, bounds %.4f %.4f (worst error %.4f), slopes %.4f %.4f %.4f "
           "(truth %.4f %.4f %.4f, worst error %.4f of the mean rate, %.1f %% of the slope)\n",
           p[0].n, s.nphases, s.bounds[1], s.bounds[2], be, s.slopes[0], s.slopes[1], s.slopes[2],
           truth_slope(&classic, 0, 0), truth_slope(&classic, 0, 1), truth_slope(&classic, 0, 2), se,
           100.0 * worst_rel);
    check_truth(&s, &classic, 0.03, 0.0);
    assert_true(worst_rel <= 0.03); /* also within 3 % of each phase's own slope */
    fold_segmentation_free(&s);
    points_free(&p[0]);
}

static void constant_is_one_phase(void **state)
{
    (void)state;
    static const truth constant = { 1, 1, { 0.0, 1.0 }, { { 500.0 } } };
    points p[1] = { { 0 } };
    double noise[1] = { NOISE };
    simulate(&constant, NINST, PERIOD, JITTER, noise, 201, p);
    fold_segment_options o;
    fold_segment_defaults(&o);
    fold_segmentation s;
    segment_ok(p, 1, &o, &s);
    check_truth(&s, &constant, 0.03, 0.0);
    printf("# constant: %zu phase, slope %.4f\n", s.nphases, s.slopes[0]);
    fold_segmentation_free(&s);
    points_free(&p[0]);
}

/* The edges: a constant rate whose samples carry the values of a little
 * later (a skew between samples and boundaries: 0.002 of the region) is one
 * phase, not three; a true phase at an edge narrower than edge_width becomes
 * one of edge_width at least, or none (here: 0.015 at three times the rate). */
static void skew_and_narrow_edge_phases(void **state)
{
    (void)state;
    points p[1] = { { 0 } };
    rng r = { 301 + SEED_BASE };
    for (size_t i = 0; i < 1000; i++)
        for (double x = rng_unif(&r) * 0.1; x + 0.002 < 1.0; x += 0.1 * (1.0 + 0.2 * (rng_unif(&r) - 0.5)))
            points_add(&p[0], x, x + 0.002 + 0.0002 * rng_norm(&r));
    fold_segment_options o;
    fold_segment_defaults(&o);
    fold_segmentation s;
    segment_ok(p, 1, &o, &s);
    printf("# skewed constant: %zu phase(s)\n", s.nphases);
    assert_int_equal(s.nphases, 1);
    fold_segmentation_free(&s);
    points_free(&p[0]);

    static const truth narrow = { 2, 1, { 0.0, 0.015, 1.0 }, { { 1500.0, 500.0 } } };
    double noise[1] = { 0.0005 };
    simulate(&narrow, 1000, 0.1, 0.0, noise, 302, p);
    segment_ok(p, 1, &o, &s);
    printf("# narrow start phase: %zu phase(s), the first to %.4f\n", s.nphases, s.bounds[1]);
    assert_true(s.bounds[1] >= o.edge_width - 1e-9);
    assert_true(1.0 - s.bounds[s.nphases - 1] >= o.edge_width - 1e-9);
    fold_segmentation_free(&s);
    points_free(&p[0]);
}

/* A change narrower than edge_width at the region's end (CloverLeaf's OpenMP
 * shares: a flat rate, the last 0.015 at five times it) is no phase: before,
 * the search bought it with an edge phase of exactly edge_width (0.97-1.00,
 * rates 0.42 and 0.48 CPUs), its boundary pinned at the limit. A true edge
 * phase a little wider than edge_width is still found, where it is. */
static void pinned_edge_phase(void **state)
{
    (void)state;
    static const truth end_jump = { 2, 1, { 0.0, 0.985, 1.0 }, { { 420.0, 2000.0 } } };
    points p[1] = { { 0 } };
    double noise[1] = { 0.002 };
    simulate(&end_jump, 1000, 0.5, 0.2, noise, 303, p);
    fold_segment_options o;
    fold_segment_defaults(&o);
    fold_segmentation s;
    segment_ok(p, 1, &o, &s);
    printf("# end jump of 0.015: %zu phase(s), the last from %.4f\n", s.nphases, s.bounds[s.nphases - 1]);
    assert_int_equal(s.nphases, 1);
    fold_segmentation_free(&s);
    points_free(&p[0]);

    static const truth end_phase = { 2, 1, { 0.0, 0.94, 1.0 }, { { 420.0, 2000.0 } } };
    simulate(&end_phase, 1000, 0.5, 0.2, noise, 304, p);
    segment_ok(p, 1, &o, &s);
    printf("# end phase of 0.06: %zu phase(s), the last from %.4f\n", s.nphases, s.bounds[s.nphases - 1]);
    assert_int_equal(s.nphases, 2);
    assert_true(fabs(s.bounds[1] - 0.94) < 0.01);
    fold_segmentation_free(&s);
    points_free(&p[0]);
}

/* A rate change of 2 % is no phase, however many samples make it significant
 * (miniFE with 8 ranks on 2 cores: task-clock 1.00 then 0.99 CPUs, split at
 * 0.75 before); one of 10 % still is (small_changes_and_short_phases). */
static void equal_rates_are_one_phase(void **state)
{
    (void)state;
    static const truth nearly = { 2, 1, { 0.0, 0.75, 1.0 }, { { 1000.0, 980.0 } } };
    points p[1] = { { 0 } };
    double noise[1] = { 0.0005 };
    simulate(&nearly, 3000, 0.25, 0.002, noise, 305, p);
    fold_segment_options o;
    fold_segment_defaults(&o);
    fold_segmentation s;
    segment_ok(p, 1, &o, &s);
    printf("# 2 %% change at 0.75: %zu phase(s)\n", s.nphases);
    assert_int_equal(s.nphases, 1);
    fold_segmentation_free(&s);
    points_free(&p[0]);
}

/* Two counters (e.g. instructions and cache misses) of one region: they
 * change at the same moments but not alike, and the second one is noisier;
 * the phases are shared and each counter gets its own slopes. */
static void two_counters(void **state)
{
    (void)state;
    static const truth two = { 3, 2, { 0.0, 0.4, 0.9, 1.0 }, { { 300.0, 800.0, 300.0 }, { 500.0, 150.0, 900.0 } } };
    points p[2] = { { 0 }, { 0 } };
    double noise[2] = { NOISE, 2.0 * NOISE };
    simulate(&two, NINST, PERIOD, JITTER, noise, 301, p);
    fold_segment_options o;
    fold_segment_defaults(&o);
    fold_segmentation s;
    segment_ok(p, 2, &o, &s);
    double be, se;
    errors(&s, &two, &be, &se);
    printf("# two counters: bounds %.4f %.4f, slopes A %.4f %.4f %.4f B %.4f %.4f %.4f (worst errors: "
           "bound %.4f, slope %.4f = %.1f %%)\n",
           s.bounds[1], s.bounds[2], s.slopes[0], s.slopes[2], s.slopes[4], s.slopes[1], s.slopes[3], s.slopes[5],
           be, se, 100.0 * worst_rel);
    check_truth(&s, &two, 0.03, 0.03);
    fold_segmentation_free(&s);

    /* a counter alone at its boundary: the second counter is flat across
     * 0.4, the first one across 0.9; both boundaries are still found */
    static const truth split = { 3, 2, { 0.0, 0.4, 0.9, 1.0 }, { { 300.0, 800.0, 800.0 }, { 400.0, 400.0, 1200.0 } } };
    points q[2] = { { 0 }, { 0 } };
    simulate(&split, NINST, PERIOD, JITTER, noise, 302, q);
    segment_ok(q, 2, &o, &s);
    errors(&s, &split, &be, &se);
    printf("# two counters, one change each: bounds %.4f %.4f (worst errors: bound %.4f, slope %.4f = %.1f %%)\n",
           s.bounds[1], s.bounds[2], be, se, 100.0 * worst_rel);
    check_truth(&s, &split, 0.03, 0.03);
    fold_segmentation_free(&s);
    for (int c = 0; c < 2; c++) {
        points_free(&p[c]);
        points_free(&q[c]);
    }
}

/* Smaller changes of rate, and a short phase, are still found. */
static void small_changes_and_short_phases(void **state)
{
    (void)state;
    static const truth cases[] = {
        { 2, 1, { 0.0, 0.5, 1.0 }, { { 1.0, 1.1 } } },        /* +10 % */
        { 3, 1, { 0.0, 0.5, 0.55, 1.0 }, { { 1.0, 3.0, 1.0 } } }, /* 5 % of the region */
        { 6, 1, { 0.0, 0.1, 0.3, 0.5, 0.6, 0.8, 1.0 }, { { 1.0, 2.0, 1.0, 3.0, 1.0, 2.0 } } },
    };
    /* slopes: 3 % of the mean rate or of the slope; a phase of 5 % of the
     * region holds ~30 points, each off by its instance's jitter (~0.004):
     * its slope is known to ~5 % (one standard deviation; worst of 200
     * seeds: 9.4 %); the 6-phase case: worst of 200 seeds 3.5 % */
    static const double rel_tol[] = { 0.03, 0.12, 0.05 };
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        points p[1] = { { 0 } };
        double noise[1] = { NOISE };
        simulate(&cases[k], NINST, PERIOD, JITTER, noise, 401 + k, p);
        fold_segment_options o;
        fold_segment_defaults(&o);
        fold_segmentation s;
        segment_ok(p, 1, &o, &s);
        double be, se;
        errors(&s, &cases[k], &be, &se);
        printf("# case %zu: %zu phases, worst bound error %.4f, slope error %.4f (%.1f %% of the slope)\n", k,
               s.nphases, be, se, 100.0 * worst_rel);
        check_truth(&s, &cases[k], 0.03, rel_tol[k]);
        fold_segmentation_free(&s);
        points_free(&p[0]);
    }
}

/* A fixed penalty per phase (in units of squared residuals): large, one
 * phase; moderate, the truth. max_phases and min_width are respected. */
static void penalty_and_limits(void **state)
{
    (void)state;
    points p[1] = { { 0 } };
    double noise[1] = { NOISE };
    simulate(&classic, NINST, PERIOD, JITTER, noise, 501, p);
    fold_segment_options o;
    fold_segment_defaults(&o);
    fold_segmentation s;
    o.penalty = 1e6;
    segment_ok(p, 1, &o, &s);
    assert_int_equal(s.nphases, 1);
    assert_true(fabs(s.slopes[0] - 1.0) < 0.05);
    fold_segmentation_free(&s);
    o.penalty = 0.01; /* ~ 2000 x the noise variance */
    segment_ok(p, 1, &o, &s);
    check_truth(&s, &classic, 0.03, 0.0);
    fold_segmentation_free(&s);

    fold_segment_defaults(&o);
    o.max_phases = 2;
    segment_ok(p, 1, &o, &s);
    assert_int_equal(s.nphases, 2);
    assert_true(s.nphases == 2); /* the best two lines bend somewhere in the steep phase */
    fold_segmentation_free(&s);
    points_free(&p[0]);

    /* a phase of 0.03 with min_width 0.1: every phase is at least 0.1 */
    static const truth narrow = { 3, 1, { 0.0, 0.5, 0.53, 1.0 }, { { 1.0, 5.0, 1.0 } } };
    simulate(&narrow, NINST, PERIOD, JITTER, noise, 502, p);
    fold_segment_defaults(&o);
    o.min_width = 0.1;
    segment_ok(p, 1, &o, &s); /* checks the widths */
    fold_segmentation_free(&s);
    o.bins = 37; /* bins need not divide anything */
    o.min_width = 0.0;
    segment_ok(p, 1, &o, &s);
    assert_true(s.nphases >= 2);
    fold_segmentation_free(&s);
    points_free(&p[0]);
}

/* Few samples: at most one phase per 8 samples. The classic three phases
 * from 6 to 12 instances of about 2 samples (12 to 24 samples): at most
 * n/8 phases, one below 16 samples. */
static void few_samples(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 20; seed++) {
        points p[1] = { { 0 } };
        double noise[1] = { NOISE };
        simulate(&classic, 6 + (size_t)seed % 7, PERIOD, JITTER, noise, 700 + seed, p);
        fold_cloud cl = { p[0].x, p[0].y, p[0].n };
        fold_segment_options o;
        fold_segment_defaults(&o);
        fold_segmentation s;
        assert_int_equal(fold_segment(&cl, 1, &o, &s), 0);
        if (s.nphases > 1 && s.nphases > p[0].n / 8)
            fail_msg("seed %llu: %zu phases from %zu samples", (unsigned long long)seed, s.nphases, p[0].n);
        fold_segmentation_free(&s);
        points_free(&p[0]);
    }
}

static void only_anchors(void **state)
{
    (void)state;
    fold_cloud cl[2] = { { NULL, NULL, 0 }, { NULL, NULL, 0 } };
    fold_segment_options o;
    fold_segment_defaults(&o);
    fold_segmentation s;
    for (size_t nc = 1; nc <= 2; nc++) {
        assert_int_equal(fold_segment(cl, nc, &o, &s), 0);
        assert_int_equal(s.nphases, 1);
        assert_true(s.bounds[0] == 0.0 && s.bounds[1] == 1.0);
        for (size_t c = 0; c < nc; c++)
            assert_true(fabs(s.slopes[c] - 1.0) < 1e-9);
        fold_segmentation_free(&s);
    }
    /* one cloud empty, one with data: the data decide, the empty one gets
     * the slope of its anchors */
    points p[1] = { { 0 } };
    double noise[1] = { NOISE };
    simulate(&classic, NINST, PERIOD, JITTER, noise, 601, p);
    cl[0] = (fold_cloud){ p[0].x, p[0].y, p[0].n };
    assert_int_equal(fold_segment(cl, 2, &o, &s), 0);
    assert_int_equal(s.nphases, 3);
    for (size_t k = 0; k < s.nphases * 2; k++)
        assert_true(isfinite(s.slopes[k]));
    fold_segmentation_free(&s);
    points_free(&p[0]);
}

static void deterministic_and_order_free(void **state)
{
    (void)state;
    points p[1] = { { 0 } };
    double noise[1] = { NOISE };
    simulate(&classic, NINST, PERIOD, JITTER, noise, 701, p);
    fold_segment_options o;
    fold_segment_defaults(&o);
    fold_segmentation a, b, r;
    segment_ok(p, 1, &o, &a);
    segment_ok(p, 1, &o, &b);
    assert_int_equal(a.nphases, b.nphases);
    assert_memory_equal(a.bounds, b.bounds, (a.nphases + 1) * sizeof(double));
    assert_memory_equal(a.slopes, b.slopes, a.nphases * sizeof(double));
    /* the same points in reverse order: the same phases */
    points q = { 0 };
    for (size_t i = p[0].n; i-- > 0;)
        points_add(&q, p[0].x[i], p[0].y[i]);
    segment_ok(&q, 1, &o, &r);
    assert_int_equal(a.nphases, r.nphases);
    assert_memory_equal(a.bounds, r.bounds, (a.nphases + 1) * sizeof(double));
    assert_memory_equal(a.slopes, r.slopes, a.nphases * sizeof(double));
    fold_segmentation_free(&a);
    fold_segmentation_free(&b);
    fold_segmentation_free(&r);
    points_free(&p[0]);
    points_free(&q);
}

static void bad_input(void **state)
{
    (void)state;
    double x[3] = { 0.2, 0.5, 0.8 }, y[3] = { 0.2, 0.5, 0.8 }, yn[3] = { 0.2, NAN, 0.8 };
    double xi[3] = { 0.2, -INFINITY, 0.8 };
    fold_cloud good = { x, y, 3 };
    fold_cloud two[2] = { { x, y, 3 }, { x, yn, 3 } };
    fold_cloud inf = { xi, y, 3 }, nullp = { NULL, y, 3 };
    fold_segment_options o;
    fold_segment_defaults(&o);
    fold_segmentation s;
    assert_int_equal(fold_segment(two, 2, &o, &s), -1);
    assert_null(s.bounds);
    assert_int_equal(s.nphases, 0);
    assert_int_equal(fold_segment(&inf, 1, &o, &s), -1);
    assert_int_equal(fold_segment(&nullp, 1, &o, &s), -1);
    assert_int_equal(fold_segment(&good, 0, &o, &s), -1);
    assert_int_equal(fold_segment(NULL, 1, &o, &s), -1);
    assert_int_equal(fold_segment(&good, 1, NULL, &s), -1);
    assert_int_equal(fold_segment(&good, 1, &o, NULL), -1);
    o.penalty = NAN;
    assert_int_equal(fold_segment(&good, 1, &o, &s), -1);
    fold_segment_defaults(&o);
    assert_int_equal(fold_segment(&good, 1, &o, &s), 0);
    assert_int_equal(s.nphases, 1);
    fold_segmentation_free(&s);
    fold_segmentation_free(&s);
    fold_segmentation_free(NULL);
}

/* A ramp of the rate, 200 to 1000 (mean 600): per instance the rate
 * a + b x jittered, sampled like simulate(). */
static void simulate_ramp(size_t ninst, uint64_t seed, points *out)
{
    rng r = { seed + SEED_BASE };
    for (size_t i = 0; i < ninst; i++) {
        double a = 200.0 * (1.0 + JITTER * (2.0 * rng_unif(&r) - 1.0));
        double b = 800.0 * (1.0 + JITTER * (2.0 * rng_unif(&r) - 1.0));
        double total = a + b / 2.0, step = PERIOD / (1.0 + 0.05 * (2.0 * rng_unif(&r) - 1.0));
        for (double x = rng_unif(&r) * step; x < 1.0; x += step * (1.0 + 0.2 * (rng_unif(&r) - 0.5)))
            points_add(out, x, (a * x + b * x * x / 2.0) / total + NOISE * rng_norm(&r));
    }
}

/* fold_segment cuts a ramp into many constant phases; fold_segment_trends
 * makes them one trend phase with the ramp's rates at its ends (1/3 and
 * 5/3 of the mean), not when a limit on the rate is below that end, and
 * leaves the classic steps alone. */
static void ramp_is_one_trend(void **state)
{
    (void)state;
    points p = { 0 };
    simulate_ramp(4 * NINST, 41, &p);
    fold_segment_options o;
    fold_segment_defaults(&o);
    fold_segmentation s;
    segment_ok(&p, 1, &o, &s);
    size_t before = s.nphases;
    fold_cloud cl = { p.x, p.y, p.n };
    assert_int_equal(fold_segment_trends(&cl, 1, NULL, NULL, &s), 0);
    printf("# ramp: %zu constant phases, then %zu phase(s), trend %d, rates %.3f -> %.3f (truth 0.333 -> 1.667)\n",
           before, s.nphases, s.trend ? s.trend[0] : -1, s.trend_start ? s.trend_start[0] : -1.0,
           s.trend_end ? s.trend_end[0] : -1.0);
    assert_true(before > 2);
    assert_int_equal(s.nphases, 1);
    assert_non_null(s.trend);
    assert_int_equal(s.trend[0], 1);
    assert_true(fabs(s.trend_start[0] - 1.0 / 3.0) < 0.05);
    assert_true(fabs(s.trend_end[0] - 5.0 / 3.0) < 0.05);
    fold_segmentation_free(&s);

    /* the same ramp under a physical limit below its end (a CPU-time
     * counter, one CPU per thread): no trend reaches its end, impossible;
     * under a limit above it, the trend stays */
    double below[1] = { 1.2 }, above[1] = { 2.0 };
    segment_ok(&p, 1, &o, &s);
    assert_int_equal(fold_segment_trends(&cl, 1, NULL, below, &s), 0);
    for (size_t k = 0; k < s.nphases; k++) /* a shorter ramp below the limit may be one */
        assert_true(!s.trend[k] || (s.trend_start[k] <= 1.2 * 1.02 && s.trend_end[k] <= 1.2 * 1.02));
    assert_true(s.nphases > 1);
    fold_segmentation_free(&s);
    segment_ok(&p, 1, &o, &s);
    assert_int_equal(fold_segment_trends(&cl, 1, NULL, above, &s), 0);
    assert_int_equal(s.nphases, 1);
    assert_int_equal(s.trend[0], 1);
    fold_segmentation_free(&s);
    points_free(&p);

    points q = { 0 };
    double noise[1] = { NOISE };
    simulate(&classic, NINST, PERIOD, JITTER, noise, 42, &q);
    segment_ok(&q, 1, &o, &s);
    fold_cloud cq = { q.x, q.y, q.n };
    assert_int_equal(fold_segment_trends(&cq, 1, NULL, NULL, &s), 0);
    assert_int_equal(s.nphases, 3);
    for (size_t k = 0; k < 3; k++)
        assert_int_equal(s.trend[k], 0);
    fold_segmentation_free(&s);
    points_free(&q);
}

/* A refit of given boundaries (fold_segment_frame, the bootstrap's
 * replicates) moves a boundary given 0.05 off to the true one, keeps the
 * slopes' sum, and with weight 0 on every point each boundary stays
 * within the midpoints of the phases next to it. */
static void refit_moves_boundaries(void **state)
{
    (void)state;
    points p = { 0 };
    double noise[1] = { NOISE };
    simulate(&classic, NINST, PERIOD, JITTER, noise, 43, &p);
    fold_cloud cl = { p.x, p.y, p.n };
    fold_segment_options o;
    fold_segment_defaults(&o);
    fold_segment_frame *f = fold_segment_frame_new(&cl, 1, NULL);
    assert_non_null(f);
    const double given[4] = { 0.0, 0.45, 0.86, 1.0 };
    double b[4], slopes[3];
    assert_int_equal(fold_segment_frame_refit(f, NULL, NULL, given, 3, &o, b, slopes), 0);
    printf("# refit: boundaries 0.45, 0.86 -> %.4f, %.4f (truth 0.4, 0.9)\n", b[1], b[2]);
    assert_true(fabs(b[1] - 0.4) < 0.01 && fabs(b[2] - 0.9) < 0.01);
    assert_true(b[0] == 0.0 && b[3] == 1.0);
    double sum = 0.0;
    for (size_t k = 0; k < 3; k++)
        sum += slopes[k] * (b[k + 1] - b[k]);
    assert_true(fabs(sum - 1.0) < 1e-6);
    double *w = calloc(p.n, sizeof(*w));
    assert_non_null(w);
    const double *wc[1] = { w };
    assert_int_equal(fold_segment_frame_refit(f, wc, NULL, given, 3, &o, b, slopes), 0);
    /* no data: anywhere in its window, the midpoints of the given phases */
    assert_true(b[1] >= 0.225 && b[1] <= 0.655 && b[2] >= 0.655 && b[2] <= 0.93);
    free(w);
    fold_segment_frame_free(f);
    points_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(defaults),
        cmocka_unit_test(classic_phases),
        cmocka_unit_test(constant_is_one_phase),
        cmocka_unit_test(skew_and_narrow_edge_phases),
        cmocka_unit_test(pinned_edge_phase),
        cmocka_unit_test(equal_rates_are_one_phase),
        cmocka_unit_test(two_counters),
        cmocka_unit_test(small_changes_and_short_phases),
        cmocka_unit_test(penalty_and_limits),
        cmocka_unit_test(few_samples),
        cmocka_unit_test(only_anchors),
        cmocka_unit_test(deterministic_and_order_free),
        cmocka_unit_test(bad_input),
        cmocka_unit_test(ramp_is_one_trend),
        cmocka_unit_test(refit_moves_boundaries),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
