/* test_points.c: unit tests of hcafold's folded point clouds (fold/points.c) on
 * synthetic traces with known truth, before any fitting: without noise every
 * point lies on the true cumulative curve; with noise, the points scatter around
 * it; rotating counter sets give each counter the instances that measured it
 * throughout; rate factors equal the true mean rates; excluded instances' points
 * are apart; the samples' leaf functions follow the truth over normalized time;
 * time-only traces and counters with zero totals; identical clouds for any --jobs;
 * instances that got different shares of a CPU fold to their mean CPU rate,
 * never above one CPU, and instances of one shape at different rates do not
 * scatter the points (issue 10, 17). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fold_testutil.h"
#include "points.h"
#include "read.h"
#include "regions.h"

#define SETS "--sets 'instructions,cycles;instructions,page-faults' "
#define COUNTERS                                                                                             \
    "--counter instructions:0-0.4=300e6,0.4-0.9=800e6,0.9-1=300e6 --counter cycles:0-1=2e9 "                \
    "--counter page-faults:0-0.2=1e6,0.2-0.3=4e6,0.3-1=0 " SETS
#define FUNCS "--functions phase_stencil:0-0.4,phase_update:0.4-0.9,phase_norm:0.9-1 "

typedef struct {
    size_t n;
    double bounds[33], rates[32];
} truth_curve;

static void parse_list(const char *s, double *out, size_t *n)
{
    *n = 0;
    while (*s) {
        char *end;
        out[(*n)++] = strtod(s, &end);
        s = *end == ',' ? end + 1 : end;
        if (end == s && *s != ',')
            break;
    }
}

static truth_curve truth_of(const char *dir, const char *counter)
{
    truth_curve c;
    char key[128], buf[1024];
    size_t nb = 0, nr = 0;
    snprintf(key, sizeof(key), "counter.%s.bounds", counter);
    assert_non_null(tu_truth(dir, key, buf, sizeof(buf)));
    parse_list(buf, c.bounds, &nb);
    snprintf(key, sizeof(key), "counter.%s.rates", counter);
    assert_non_null(tu_truth(dir, key, buf, sizeof(buf)));
    parse_list(buf, c.rates, &nr);
    assert_int_equal(nb, nr + 1);
    c.n = nr;
    return c;
}

/* True cumulative fraction at x. */
static double cum(const truth_curve *c, double x)
{
    double total = 0, part = 0;
    for (size_t i = 0; i < c->n; i++) {
        double w = c->bounds[i + 1] - c->bounds[i];
        total += w * c->rates[i];
        if (x > c->bounds[i])
            part += (fmin(x, c->bounds[i + 1]) - c->bounds[i]) * c->rates[i];
    }
    return part / total;
}

static size_t counter_index(const fold_trace *t, const char *name)
{
    for (size_t c = 0; c < t->ncounters; c++)
        if (strcmp(t->counters[c].name, name) == 0)
            return c;
    fail_msg("no counter %s", name);
    return 0;
}

typedef struct {
    char *dir;
    fold_trace t;
    const fold_region *r;
    fold_points p;
} folded;

static void fold_synth(folded *f, const char *args, unsigned jobs)
{
    f->dir = tu_synth(args);
    assert_non_null(f->dir);
    fold_read_options o;
    fold_read_defaults(&o);
    o.jobs = jobs;
    char err[512], name[256];
    if (fold_read(f->dir, &o, &f->t, err, sizeof(err)) != FOLD_OK)
        fail_msg("%s", err);
    assert_int_equal(fold_regions_build(&f->t, NULL, err, sizeof(err)), 0);
    assert_non_null(tu_truth(f->dir, "region", name, sizeof(name)));
    f->r = fold_region_find(&f->t, name, 0);
    assert_non_null(f->r);
    assert_int_equal(fold_points_build(&f->t, f->r, &f->p), 0);
}

static void unfold(folded *f)
{
    fold_points_free(&f->p);
    fold_trace_free(&f->t);
    tu_remove(f->dir);
}

static void exact_clouds_without_noise(void **state)
{
    (void)state;
    static const char *const names[] = { "instructions", "cycles", "page-faults" };
    folded f;
    fold_synth(&f, "--ranks 2 --instances 100 --noise 0 --period-ms 2 --period-jitter 0.5 " COUNTERS FUNCS, 1);
    assert_int_equal(f.r->nexcluded, 0);
    for (size_t k = 0; k < 3; k++) {
        size_t c = counter_index(&f.t, names[k]);
        const fold_counter_points *cp = &f.p.counters[c];
        truth_curve tc = truth_of(f.dir, names[k]);
        char key[128];
        snprintf(key, sizeof(key), "counter.%s.used_instances", names[k]);
        assert_int_equal(cp->instances, (size_t)tu_truth_num(f.dir, key));
        assert_int_equal(cp->dropped, 0);
        assert_true(cp->n > 100);
        double worst = 0;
        for (size_t i = 0; i < cp->n; i++) {
            assert_true(cp->x[i] >= 0 && cp->x[i] < 1);
            worst = fmax(worst, fabs(cp->y[i] - cum(&tc, cp->x[i])));
        }
        if (worst > 1e-3)
            fail_msg("%s: a point is %g off the true curve", names[k], worst);
        snprintf(key, sizeof(key), "counter.%s.mean_rate", names[k]);
        double truth = tu_truth_num(f.dir, key), got = fold_points_rate_factor(cp);
        if (fabs(got / truth - 1) > 1e-4)
            fail_msg("%s: rate factor %g, truth %g", names[k], got, truth);
        assert_true(fabs(fold_points_mean_total(cp) - truth * 1e-9 * cp->sum_duration_ns / (double)cp->instances) <
                    1e-3 * fold_points_mean_total(cp));
    }
    double md = tu_truth_num(f.dir, "mean_duration_ns_used");
    assert_true(fabs(f.p.mean_duration_ns - md) < 1e-6 * md);
    assert_int_equal(f.p.used_instances, f.r->nused);
    unfold(&f);
}

static void noisy_clouds_scatter_around_truth(void **state)
{
    (void)state;
    folded f;
    fold_synth(&f,
               "--ranks 2 --threads 2 --instances 150 --noise 0.1 --outliers 0.05 --duration-jitter 0.004 "
               "--period-ms 3 --period-jitter 1 --seed 5 " COUNTERS FUNCS,
               2);
    assert_int_equal(f.r->nexcluded, (size_t)tu_truth_num(f.dir, "outliers"));
    size_t c = counter_index(&f.t, "instructions");
    const fold_counter_points *cp = &f.p.counters[c];
    truth_curve tc = truth_of(f.dir, "instructions");
    double bin_sum[20] = { 0 }, worst = 0;
    size_t bin_n[20] = { 0 };
    for (size_t i = 0; i < cp->n; i++) {
        double r = cp->y[i] - cum(&tc, cp->x[i]);
        worst = fmax(worst, fabs(r));
        size_t b = (size_t)(cp->x[i] * 20);
        bin_sum[b] += r;
        bin_n[b]++;
    }
    /* a point lies on its instance's curve, whose rate differs from the mean
     * by the instance's noise: the mean residual per bin is what must vanish */
    assert_true(worst < 0.5);
    for (size_t b = 0; b < 20; b++) {
        assert_true(bin_n[b] > 5);
        if (fabs(bin_sum[b] / (double)bin_n[b]) > 0.01)
            fail_msg("bin %zu: mean residual %g", b, bin_sum[b] / (double)bin_n[b]);
    }
    double truth = tu_truth_num(f.dir, "counter.instructions.mean_rate");
    assert_true(fabs(fold_points_rate_factor(cp) / truth - 1) < 0.02);
    assert_int_equal(cp->instances, (size_t)tu_truth_num(f.dir, "counter.instructions.used_instances"));
    assert_int_equal(f.p.counters[counter_index(&f.t, "cycles")].instances,
                     (size_t)tu_truth_num(f.dir, "counter.cycles.used_instances"));
    /* the excluded instances' points are apart: instructions is in every set */
    assert_int_equal(cp->n, (size_t)tu_truth_num(f.dir, "samples_in_used"));
    assert_int_equal(cp->nex, (size_t)tu_truth_num(f.dir, "samples_in_instances") - cp->n);
    for (size_t i = 0; i < cp->nex; i++)
        assert_true(cp->ex_x[i] >= 0 && cp->ex_x[i] < 1 && cp->ex_y[i] >= 0);
    /* the cloud handed to the fit */
    fold_cloud cl = fold_points_cloud(&f.p, c);
    assert_ptr_equal(cl.x, cp->x);
    assert_int_equal(cl.n, cp->n);
    assert_int_equal(fold_points_cloud(&f.p, 99).n, 0);
    unfold(&f);
}

/* Each used sample's leaf function is the one the truth gives at its normalized time. */
static void samples_show_the_true_functions(void **state)
{
    (void)state;
    folded f;
    fold_synth(&f, "--instances 80 --period-ms 1 --period-jitter 0.3 --duration-jitter 0.004 " FUNCS, 1);
    assert_int_equal(f.p.ns, (size_t)tu_truth_num(f.dir, "samples_in_used"));
    size_t seen[3] = { 0, 0, 0 };
    for (size_t i = 0; i < f.p.ns; i++) {
        double x = f.p.sx[i];
        assert_true(f.p.scontext[i] < f.t.ncontexts);
        const fold_context_def *cx = &f.t.contexts[f.p.scontext[i]];
        const char *fn = f.t.regions[cx->region].name;
        const char *want = x < 0.4 ? "phase_stencil" : x < 0.9 ? "phase_update" : "phase_norm";
        assert_string_equal(fn, want);
        char key[128];
        snprintf(key, sizeof(key), "function.%s.line", fn);
        assert_int_equal(cx->line, (uint32_t)tu_truth_num(f.dir, key));
        assert_int_equal(cx->depth, 1);
        assert_string_equal(f.t.regions[f.t.contexts[cx->parent].region].name, "main");
        seen[x < 0.4 ? 0 : x < 0.9 ? 1 : 2]++;
    }
    assert_true(seen[0] > 0 && seen[1] > 0 && seen[2] > 0);
    unfold(&f);
}

/* A burst whose two ends measured different sets keeps only the common counter. */
static void mixed_sets_keep_common_counters(void **state)
{
    (void)state;
    folded f;
    fold_synth(&f, "--ranks 2 --instances 60 " COUNTERS, 1);
    const fold_region *back = fold_region_find(&f.t, "MPI_Allreduce@app.c:40 -> MPI_Allreduce@app.c:30", 0);
    assert_non_null(back);
    fold_points p;
    assert_int_equal(fold_points_build(&f.t, back, &p), 0);
    const fold_counter_points *ins = &p.counters[counter_index(&f.t, "instructions")];
    const fold_counter_points *cyc = &p.counters[counter_index(&f.t, "cycles")];
    assert_int_equal(ins->instances, back->nused);
    assert_int_equal(cyc->instances, 0);
    assert_int_equal(cyc->n, 0);
    assert_true(cyc->dropped > 0);
    assert_true(isnan(fold_points_mean_total(cyc)));
    assert_true(fold_points_rate_factor(cyc) == 0);
    fold_points_free(&p);
    unfold(&f);
}

static void time_only_and_zero_totals(void **state)
{
    (void)state;
    folded f;
    fold_synth(&f, "--instances 50 --period-ms 2 --duration-jitter 0.004 " FUNCS, 1);
    assert_int_equal(f.p.ncounters, 0);
    assert_int_equal(f.p.ns, (size_t)tu_truth_num(f.dir, "samples_in_used"));
    assert_int_equal(fold_points_cloud(&f.p, 0).n, 0);
    unfold(&f);
    fold_synth(&f, "--instances 50 --period-ms 2 --counter instructions:0-1=1e9 --counter page-faults:0-1=0", 1);
    const fold_counter_points *pf = &f.p.counters[counter_index(&f.t, "page-faults")];
    assert_int_equal(pf->instances, 50);
    assert_int_equal(pf->zero_total, 50);
    assert_int_equal(pf->n, 0);
    assert_true(fold_points_rate_factor(pf) == 0);
    unfold(&f);
}

static void clouds_identical_for_any_jobs(void **state)
{
    (void)state;
    const char *args = "--ranks 3 --threads 2 --instances 40 --noise 0.05 --seed 9 " COUNTERS FUNCS;
    folded a, b;
    fold_synth(&a, args, 1);
    fold_synth(&b, args, 3);
    assert_int_equal(a.p.ns, b.p.ns);
    assert_memory_equal(a.p.sx, b.p.sx, a.p.ns * sizeof(double));
    assert_memory_equal(a.p.scontext, b.p.scontext, a.p.ns * sizeof(uint32_t));
    for (size_t c = 0; c < a.p.ncounters; c++) {
        assert_int_equal(a.p.counters[c].n, b.p.counters[c].n);
        assert_memory_equal(a.p.counters[c].x, b.p.counters[c].x, a.p.counters[c].n * sizeof(double));
        assert_memory_equal(a.p.counters[c].y, b.p.counters[c].y, a.p.counters[c].n * sizeof(double));
        assert_true(a.p.counters[c].sum_total == b.p.counters[c].sum_total);
    }
    unfold(&a);
    unfold(&b);
}

/* A one-location trace of NI instances of DUR ns each, 0.1 s apart, with
 * one counter whose value at normalized time x of instance i (since its
 * entry) is curve(i, x); samples every 0.05 of normalized time (NS of them).
 * Its points are built into *p. */
enum { NI = 20, NS = 19 };
#define DUR 100e6
typedef double (*instance_curve)(size_t i, double x);
static void fold_one_counter(instance_curve curve, fold_points *p)
{
    static double c0[NI], c1[NI], values[NI * NS];
    static fold_sample samples[NI * NS];
    static fold_instance ins[NI];
    static fold_counter_def def = { .name = "task-clock", .unit = "ns" };
    static fold_location loc;
    memset(&loc, 0, sizeof(loc));
    loc.samples = samples;
    loc.nsamples = NI * NS;
    for (size_t i = 0; i < NI; i++) {
        uint64_t t0 = (uint64_t)i * 200000000ull;
        ins[i] = (fold_instance){ .t0 = t0, .t1 = t0 + (uint64_t)DUR, .c0 = &c0[i], .c1 = &c1[i],
                                  .first_sample = i * NS, .nsamples = NS, .location = 0, .excluded = FOLD_USED };
        c0[i] = 1e9 * (double)i;
        c1[i] = c0[i] + curve(i, 1.0);
        for (size_t s = 0; s < NS; s++) {
            double x = 0.05 * (double)(s + 1);
            values[i * NS + s] = c0[i] + curve(i, x);
            samples[i * NS + s] = (fold_sample){ t0 + (uint64_t)llround(x * DUR), FOLD_NONE, &values[i * NS + s], 0 };
        }
    }
    static fold_trace t;
    memset(&t, 0, sizeof(t));
    t.counters = &def;
    t.ncounters = 1;
    t.locations = &loc;
    t.nlocations = 1;
    fold_region r;
    memset(&r, 0, sizeof(r));
    r.instances = ins;
    r.ninstances = NI;
    r.nused = NI;
    assert_int_equal(fold_points_build(&t, &r, p), 0);
    assert_int_equal(p->counters[0].instances, NI);
    assert_int_equal(p->counters[0].n, NI * NS);
}

/* The mean of the folded y at sample s over all instances (equal durations:
 * the duration-weighted mean). */
static double mean_y_at(const fold_counter_points *cp, size_t s)
{
    double x = 0.05 * (double)(s + 1), sum = 0.0;
    size_t n = 0;
    for (size_t k = 0; k < cp->n; k++)
        if (fabs(cp->x[k] - x) < 1e-9) {
            sum += cp->y[k];
            n++;
        }
    assert_int_equal(n, NI);
    return sum / NI;
}

/* A thread that had its CPU in half of the instances, and only for the last
 * tenth of the others (preempted before): task-clock (ns) rises at one CPU
 * all along in the first kind, from x = 0.9 in the second. The mean of the
 * folded y over the instances at each x, times the rate factor and the
 * duration, is the mean task-clock since entry; its slope never exceeds one
 * CPU. (Cumulative fractions of each instance's own total had a slope of 5.5
 * x the mean share 0.55 = 3 CPUs over [0.9, 1].) */
static double preempted_cpu(size_t i, double x)
{
    return i % 2 ? (x > 0.9 ? (x - 0.9) * DUR : 0.0) : x * DUR;
}

static void preempted_instances_fold_to_their_mean_rate(void **state)
{
    (void)state;
    fold_points p;
    fold_one_counter(preempted_cpu, &p);
    const fold_counter_points *cp = &p.counters[0];
    assert_true(fabs(fold_points_share(cp) - 0.55) < 1e-9);
    double R = fold_points_rate_factor(cp), prev_mean = 0.0, prev_x = 0.0;
    for (size_t s = 0; s < NS; s++) {
        double x = 0.05 * (double)(s + 1);
        double mean_cpu = mean_y_at(cp, s) * R * DUR * 1e-9; /* ns of CPU since entry, mean over instances */
        double truth = 0.5 * (x * DUR + (x > 0.9 ? (x - 0.9) * DUR : 0.0));
        if (fabs(mean_cpu - truth) > 1e-6 * DUR)
            fail_msg("x %.2f: folded mean task-clock %.6g ns, truth %.6g ns", x, mean_cpu, truth);
        double cpus = (mean_cpu - prev_mean) / ((x - prev_x) * DUR);
        if (cpus > 1.0 + 1e-9)
            fail_msg("x %.2f: folded task-clock rate %.3f CPUs", x, cpus);
        prev_mean = mean_cpu;
        prev_x = x;
    }
    fold_points_free(&p);
}

/* Instances of one shape (the rate 2 units over [0, 0.5), 1 after it) whose
 * rates differ by a factor (0.8 to 1.2, mean 1): the points lie on the mean
 * curve (a point's y is F + (rho - 1)(F - h(x)), F the instance's fraction
 * of its own total, rho its rate over the mean, h the mean of the fractions
 * near x: here F itself), and the mean of the y is the mean cumulative count.
 * (Points in absolute units, y = rho F, scattered by up to 0.2 F; the scatter
 * of instance rates made the fit 2-4 times less precise on synthetic truths,
 * docs/benchmarks.md, "Folding estimator".) */
static double rate_factor_of(size_t i)
{
    return 0.8 + 0.4 * (double)i / (NI - 1);
}

static double stepped_shape(double x)
{
    return x < 0.5 ? 2.0 * x : 1.0 + (x - 0.5);
}

static double scaled_step(size_t i, double x)
{
    return rate_factor_of(i) * 1e6 * stepped_shape(x);
}

static void instance_rates_do_not_scatter_the_points(void **state)
{
    (void)state;
    fold_points p;
    fold_one_counter(scaled_step, &p);
    const fold_counter_points *cp = &p.counters[0];
    double worst = 0.0;
    for (size_t k = 0; k < cp->n; k++) {
        double truth = stepped_shape(cp->x[k]) / 1.5; /* the mean curve, ending at 1 */
        worst = fmax(worst, fabs(cp->y[k] - truth));
    }
    if (worst > 1e-9)
        fail_msg("a point %.4f away from the mean curve", worst);
    for (size_t s = 0; s < NS; s++) {
        double x = 0.05 * (double)(s + 1);
        if (fabs(mean_y_at(cp, s) - stepped_shape(x) / 1.5) > 1e-9)
            fail_msg("x %.2f: mean y %.6f, truth %.6f", x, mean_y_at(cp, s), stepped_shape(x) / 1.5);
    }
    fold_points_free(&p);
}

/* A sample's expiries of the wall-clock timer: the gap to the previous
 * sample in periods (jittered by 10 %, a prompt signal stamped up to 250 us
 * late), at least 1; 1 for another source (period 0) or no gap. */
static void expiries_count_the_gap_in_periods(void **state)
{
    (void)state;
    const uint64_t P = 2000000;
    assert_int_equal(fold_sample_expiries(1000 + P, 1000, P), 1);
    assert_int_equal(fold_sample_expiries(1000 + P * 11 / 10 + 250000, 1000, P), 1);
    assert_int_equal(fold_sample_expiries(1000 + P * 9 / 10, 1000, P), 1);
    assert_int_equal(fold_sample_expiries(1000 + 200000, 1000, P), 1); /* an instance's first, early */
    assert_int_equal(fold_sample_expiries(1000 + 4 * P + P / 5, 1000, P), 4);
    assert_int_equal(fold_sample_expiries(1000 + 5 * P - P / 5, 1000, P), 5);
    assert_int_equal(fold_sample_expiries(1000 + 9 * P, 1000, 0), 1);    /* not the wall clock */
    assert_int_equal(fold_sample_expiries(1000, 1000 + P, P), 1);        /* no gap */
    assert_int_equal(fold_sample_expiries(1000 + 1000 * P, 1000, P), 128); /* the tracer's most */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(expiries_count_the_gap_in_periods),
        cmocka_unit_test(exact_clouds_without_noise),
        cmocka_unit_test(noisy_clouds_scatter_around_truth),
        cmocka_unit_test(samples_show_the_true_functions),
        cmocka_unit_test(mixed_sets_keep_common_counters),
        cmocka_unit_test(time_only_and_zero_totals),
        cmocka_unit_test(clouds_identical_for_any_jobs),
        cmocka_unit_test(preempted_instances_fold_to_their_mean_rate),
        cmocka_unit_test(instance_rates_do_not_scatter_the_points),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
