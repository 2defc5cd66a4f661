/* test_bands.c: unit tests of the source bands (fold/bands.c) on folded
 * stacks whose truth is known: main calls phase_a over [0,0.4), phase_b over
 * [0.4,0.9), phase_c over [0.9,1], with 10 % of the samples misattributed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <math.h>

#include "bands.h"
#include "test_data.h"

enum { MAIN = 7, PHASE_A = 11, PHASE_B = 12, PHASE_C = 13 };

static rng gen;
static double uniform(void)
{
    return rng_unif(&gen);
}

#define N 3000
static fold_frame frames[N][2];
static fold_stack_sample samples[N];

static void make_samples(void)
{
    gen.s = 12345;
    for (size_t i = 0; i < N; i++) {
        double x = uniform();
        uint32_t f = x < 0.4 ? PHASE_A : x < 0.9 ? PHASE_B : PHASE_C;
        if (uniform() < 0.1) /* noise: another phase */
            f = f == PHASE_A ? PHASE_B : PHASE_A;
        frames[i][0] = (fold_frame){ MAIN, 90 };
        frames[i][1] = (fold_frame){ f, f == PHASE_A ? 21u : f == PHASE_B ? 32u : 43u };
        samples[i] = (fold_stack_sample){ x, frames[i], 2 };
    }
}

static void three_phases_are_found(void **state)
{
    (void)state;
    make_samples();
    fold_band *b;
    size_t n;
    uint32_t best;
    assert_int_equal(fold_bands(samples, N, NULL, &b, &n, &best), 0);
    assert_int_equal(best, 1);
    /* depth 0: main everywhere */
    assert_true(n >= 4);
    assert_int_equal(b[0].depth, 0);
    assert_int_equal(b[0].function, MAIN);
    assert_true(b[0].start == 0.0 && b[0].end == 1.0);
    assert_int_equal(b[0].line, 90);
    const double truth[3][2] = { { 0, 0.4 }, { 0.4, 0.9 }, { 0.9, 1 } };
    const uint32_t fn[3] = { PHASE_A, PHASE_B, PHASE_C }, lines[3] = { 21, 32, 43 };
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (b[i].depth != 1)
            continue;
        assert_true(k < 3);
        assert_int_equal(b[i].function, fn[k]);
        assert_int_equal(b[i].line, lines[k]);
        assert_true(b[i].start > truth[k][0] - 0.021 && b[i].start < truth[k][0] + 0.021);
        assert_true(b[i].end > truth[k][1] - 0.021 && b[i].end < truth[k][1] + 0.021);
        assert_true(b[i].share > (truth[k][1] - truth[k][0]) - 0.041);
        assert_true(b[i].purity > 0.8);
        k++;
    }
    assert_int_equal(k, 3);
    free(b);
}

static void deterministic(void **state)
{
    (void)state;
    make_samples();
    fold_band *a, *b;
    size_t na, nb;
    uint32_t da, db;
    assert_int_equal(fold_bands(samples, N, NULL, &a, &na, &da), 0);
    /* the same samples in another order give the same bands */
    for (size_t i = 0; i < N / 2; i++) {
        fold_stack_sample t = samples[i];
        samples[i] = samples[N - 1 - i];
        samples[N - 1 - i] = t;
    }
    assert_int_equal(fold_bands(samples, N, NULL, &b, &nb, &db), 0);
    assert_int_equal(na, nb);
    assert_int_equal(da, db);
    assert_memory_equal(a, b, na * sizeof(*a));
    free(a);
    free(b);
}

static void short_dominance_opens_no_band(void **state)
{
    (void)state;
    /* phase_c dominates a single bin only: with min_bins 2 it gets no band */
    static fold_frame fr[100][2];
    static fold_stack_sample s[100];
    for (size_t i = 0; i < 100; i++) {
        double x = (double)i / 100.0;
        fr[i][0] = (fold_frame){ MAIN, 1 };
        fr[i][1] = (fold_frame){ x >= 0.5 && x < 0.52 ? (uint32_t)PHASE_C : (uint32_t)PHASE_A, 5 };
        s[i] = (fold_stack_sample){ x, fr[i], 2 };
    }
    fold_band_options o;
    fold_band_defaults(&o);
    fold_band *b;
    size_t n;
    uint32_t best;
    assert_int_equal(fold_bands(s, 100, &o, &b, &n, &best), 0);
    for (size_t i = 0; i < n; i++)
        assert_int_not_equal(b[i].function, PHASE_C);
    free(b);
}

/* The edge between the one phase_a band and the phase_b band after it, at
 * depth 1, of n samples whose x and phase are given (frames in fr). */
static double a_b_edge(fold_stack_sample *s, fold_frame (*fr)[2], size_t n, const double *x, const uint32_t *phase)
{
    for (size_t i = 0; i < n; i++) {
        fr[i][0] = (fold_frame){ MAIN, 1 };
        fr[i][1] = (fold_frame){ phase[i], 5 };
        s[i] = (fold_stack_sample){ x[i], fr[i], 2 };
    }
    fold_band *b;
    size_t nb, found = 0;
    uint32_t best;
    double edge = -1, a_share = 0;
    for (size_t i = 0; i < n; i++)
        a_share += phase[i] == PHASE_A;
    a_share /= (double)n;
    assert_int_equal(fold_bands(s, n, NULL, &b, &nb, &best), 0);
    for (size_t i = 0; i + 1 < nb; i++)
        if (b[i].depth == 1 && b[i].function == PHASE_A && b[i + 1].function == PHASE_B) {
            assert_true(b[i + 1].start == b[i].end);
            /* one band each: phase_a's share is the fraction of its samples */
            assert_true(fabs(b[i].share - a_share) < 1e-12);
            edge = b[i].end;
            found++;
        }
    assert_int_equal(found, 1);
    free(b);
    return edge;
}

/* 80 samples evenly spread, phase_a before 0.43, phase_b after: 20 bins of
 * 0.05, so the bin [0.40, 0.45) is phase_a's by 3 samples to 1 and a band
 * edge on bins alone lies at 0.45. The change of routine among the samples
 * is between 0.419 and 0.431: the edge within 0.01 of 0.43. */
static void edge_between_bins_is_at_the_samples(void **state)
{
    (void)state;
    static fold_frame fr[80][2];
    static fold_stack_sample s[80];
    double x[80];
    uint32_t phase[80];
    for (size_t i = 0; i < 80; i++) {
        x[i] = ((double)i + 0.5) / 80.0;
        phase[i] = x[i] < 0.43 ? PHASE_A : PHASE_B;
    }
    double edge = a_b_edge(s, fr, 80, x, phase);
    assert_true(edge > 0.42 && edge < 0.44);
}

/* Sparse samples: phase_a's 30 over [0, 0.29], phase_b's 30 over [0.41, 1];
 * 15 bins of 0.067, the one before the edge at 0.40 empty: the edge goes
 * halfway between the last sample of phase_a and the first of phase_b. */
static void edge_across_an_empty_bin_is_between_the_samples(void **state)
{
    (void)state;
    static fold_frame fr[60][2];
    static fold_stack_sample s[60];
    double x[60];
    uint32_t phase[60];
    for (size_t i = 0; i < 60; i++) {
        x[i] = i < 30 ? 0.29 * (double)i / 29.0 : 0.41 + 0.59 * (double)(i - 30) / 29.0;
        phase[i] = i < 30 ? PHASE_A : PHASE_B;
    }
    double edge = a_b_edge(s, fr, 60, x, phase);
    assert_true(edge > 0.349 && edge < 0.351);
}

/* Instances whose stages overlap in normalized time (a loaded machine moves
 * them by preemptions): phase_a until a boundary drawn per sample uniformly
 * in [0.25, 0.75], phase_b after it, and 30 % of the samples in [0.3, 0.7]
 * in phase_c (a thread stopped in a short function between the stages).
 * True shares: phase_a and phase_b 0.5 - 0.3 x 0.2 = 0.44 each (0.2: the
 * chance that x in [0.3, 0.7] is before the boundary, times 0.4), phase_c
 * 0.12. Over [0.39, 0.61] neither holds half of the samples: bands of
 * phase_a's and phase_b's majorities are 0.39 wide, their extents 0.05
 * short of their shares. The shares summed over each phase's bands at
 * depth 1 are within 0.03 of the truth (3000 samples: sd 0.009). */
static void overlapping_stages_keep_their_shares(void **state)
{
    (void)state;
    gen.s = 777;
    for (size_t i = 0; i < N; i++) {
        double x = uniform(), boundary = 0.25 + 0.5 * uniform(), stop = uniform();
        uint32_t f = x < boundary ? PHASE_A : PHASE_B;
        if (x >= 0.3 && x < 0.7 && stop < 0.3)
            f = PHASE_C;
        frames[i][0] = (fold_frame){ MAIN, 90 };
        frames[i][1] = (fold_frame){ f, 5 };
        samples[i] = (fold_stack_sample){ x, frames[i], 2 };
    }
    fold_band *b;
    size_t n;
    uint32_t best;
    assert_int_equal(fold_bands(samples, N, NULL, &b, &n, &best), 0);
    double a = 0, bs = 0;
    for (size_t i = 0; i < n; i++)
        if (b[i].depth == 1) {
            a += b[i].function == PHASE_A ? b[i].share : 0;
            bs += b[i].function == PHASE_B ? b[i].share : 0;
        }
    assert_true(fabs(a - 0.44) < 0.03);
    assert_true(fabs(bs - 0.44) < 0.03);
    free(b);
}

static void bad_input_is_refused(void **state)
{
    (void)state;
    fold_band *b;
    size_t n;
    uint32_t best;
    fold_stack_sample bad = { 1.5, frames[0], 2 };
    assert_int_equal(fold_bands(&bad, 1, NULL, &b, &n, &best), -1);
    assert_int_equal(fold_bands(NULL, 0, NULL, &b, &n, &best), 0);
    assert_int_equal(n, 0);
    free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(three_phases_are_found),
        cmocka_unit_test(deterministic),
        cmocka_unit_test(short_dominance_opens_no_band),
        cmocka_unit_test(edge_between_bins_is_at_the_samples),
        cmocka_unit_test(edge_across_an_empty_bin_is_between_the_samples),
        cmocka_unit_test(overlapping_stages_keep_their_shares),
        cmocka_unit_test(bad_input_is_refused),
    };
    return cmocka_run_group_tests_name("source bands", tests, NULL, NULL);
}
