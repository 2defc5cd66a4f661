/* test_fold_model.c: unit tests of fold/model.c: Kendall's tau-b and the
 * mean absolute percentage error on hand-computed cases, and the application
 * of a model to a report built here: the model recorded in the trace's
 * properties with the tracer's alias -> counter mapping, --model and --set,
 * missing events with the closest names, a region lacking an event. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hca_schema.h"
#include "model.h"
#include "result.h"
#include "trace.h"

static void test_kendall_hand(void **state)
{
    (void)state;
    /* C = 6, D = 4 of 10 pairs: (6 - 4) / 10 */
    const double x[] = { 1, 2, 3, 4, 5 }, y[] = { 3, 4, 1, 2, 5 };
    assert_float_equal(fold_kendall_tau_b(x, y, 5), 0.2, 1e-15);
    /* ties on both sides: C = 4, D = 0, one tie in x, one in y: 4 / sqrt(5 * 5) */
    const double tx[] = { 1, 1, 2, 3 }, ty[] = { 1, 2, 2, 3 };
    assert_float_equal(fold_kendall_tau_b(tx, ty, 4), 0.8, 1e-15);
    /* reversed order */
    const double r[] = { 5, 4, 3, 2, 1 };
    assert_float_equal(fold_kendall_tau_b(x, r, 5), -1.0, 1e-15);
    /* undefined: one pair less than two, or one side constant */
    assert_true(isnan(fold_kendall_tau_b(x, y, 1)));
    const double c[] = { 7, 7, 7 };
    assert_true(isnan(fold_kendall_tau_b(c, x, 3)));
}

static void test_agreement_hand(void **state)
{
    (void)state;
    /* 10 %, 10 %, 20 %; the NaN prediction and the measured 0 are skipped */
    const double p[] = { 110, 90, NAN, 300, 1 }, m[] = { 100, 100, 5, 250, 0 };
    fold_model_agreement a = fold_model_agreement_of(p, m, NULL, 5);
    assert_int_equal(a.n, 3);
    assert_float_equal(a.mape, 40.0 / 3.0, 1e-12);
    /* (110, 90, 300) against (100, 100, 250): C = 2, D = 0, a tie in y: 2 / sqrt(3 * 2) */
    assert_float_equal(a.tau, 2.0 / sqrt(6.0), 1e-15);
    /* normalized by instructions: CPIs (2, 1) against (1, 2) are discordant, MAPE unchanged by it */
    const double p2[] = { 2, 4 }, m2[] = { 1, 8 }, inst[] = { 1, 4 };
    a = fold_model_agreement_of(p2, m2, inst, 2);
    assert_int_equal(a.n, 2);
    assert_float_equal(a.mape, 75.0, 1e-12);
    assert_float_equal(a.tau, -1.0, 1e-15);
    a = fold_model_agreement_of(p2, m2, NULL, 0);
    assert_int_equal(a.n, 0);
    assert_true(isnan(a.mape) && isnan(a.tau));
}

/* ---- a report built by hand ------------------------------------------------ */

#define GRID 5
#define NC 4

static const char *const counter_names[NC] = { "cyc_member", "ins_member", "A_member", "LLC-load-misses" };
static double rates[NC][GRID] = {
    { 2e9, 2e9, 2e9, 2.5e9, 2.5e9 },
    { 3e9, 3e9, 3e9, 1e9, 1e9 },
    { 1e6, 1e6, 1e6, 4e7, 4e7 },
    { 1e4, 1e4, 1e4, 5e6, 5e6 },
};
static double phase_rates[NC][2] = { { 2e9, 2.5e9 }, { 3e9, 1e9 }, { 1e6, 4e7 }, { 1e4, 5e6 } };
static double totals[NC] = { 2.3e7, 1.8e7, 2.4e5, 3e4 };
static double bounds[3] = { 0, 0.5, 1 };
static double grid_x[GRID] = { 0, 0.25, 0.5, 0.75, 1 };

typedef struct {
    fold_trace t;
    fold_counter_def defs[NC];
    char *pnames[3], *pvalues[3];
    fold_report r;
    fold_region_result region;
    fold_counter_result counters[NC];
} fixture;

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    static char buf[8192];
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = 0;
    return strdup(buf);
}

/* model "cases" (tests/models/cases.model) recorded in the trace, its events
 * mapped by the tracer to counters named unlike the model's specs */
static void build(fixture *fx, int with_model, size_t ncounters_in_region)
{
    memset(fx, 0, sizeof(*fx));
    for (size_t i = 0; i < NC; i++)
        fx->defs[i] = (fold_counter_def){ .name = counter_names[i], .unit = "#" };
    fx->t.counters = fx->defs;
    fx->t.ncounters = NC;
    if (with_model) {
        fx->pnames[0] = strdup(HCA_PROP_MODEL);
        fx->pvalues[0] = strdup("cases");
        fx->pnames[1] = strdup(HCA_PROP_MODEL_TEXT);
        fx->pvalues[1] = read_text("tests/models/cases.model");
        fx->pnames[2] = strdup(HCA_PROP_MODEL_EVENTS);
        fx->pvalues[2] = strdup("CYC=cyc_member;INST=ins_member;A=A_member;B=LLC-load-misses");
        fx->t.property_names = fx->pnames;
        fx->t.property_values = fx->pvalues;
        fx->t.nproperties = 3;
    }
    for (size_t i = 0; i < ncounters_in_region; i++) {
        fold_counter_result *k = &fx->counters[i];
        k->name = counter_names[i];
        k->mean_total = totals[i];
        k->rate = rates[i];
        k->phase_rate = phase_rates[i];
        k->curve.grid = GRID;
        k->curve.x = grid_x;
    }
    fx->region.counters = fx->counters;
    fx->region.ncounters = ncounters_in_region;
    fx->region.phases.nphases = 2;
    fx->region.phases.bounds = bounds;
    fx->r.regions = &fx->region;
    fx->r.nregions = 1;
    fx->r.owner = &fx->t;
}

static void unbuild(fixture *fx)
{
    if (fx->r.model) {
        fold_model_report_free(fx->r.model);
        free(fx->r.model);
    }
    for (int i = 0; i < 3; i++) {
        free(fx->pnames[i]);
        free(fx->pvalues[i]);
    }
}

static void test_apply_traced_model(void **state)
{
    (void)state;
    fixture fx;
    build(&fx, 1, NC);
    char err[1024];
    fold_model_options o = { NULL, NULL, 0 };
    assert_int_equal(fold_model_apply(&fx.r, &o, err, sizeof(err)), FOLD_MODEL_OK);
    fold_model_report *mr = fx.r.model;
    assert_string_equal(mr->from, "trace");
    assert_string_equal(hca_model_id(mr->model), "cases");
    assert_int_equal(mr->missing_required, 0);
    assert_string_equal(mr->events[0].counter, "cyc_member"); /* the tracer's mapping, not the name */
    const fold_model_region *g = &mr->regions[0];
    assert_true(g->evaluated);
    int a = hca_model_find_node(mr->model, "cycles.a"), rest = hca_model_find_node(mr->model, "cycles.unexplained");
    for (size_t i = 0; i < GRID; i++) {
        double va = 20 * rates[2][i], vb = 100 * rates[3][i];
        assert_float_equal(g->curve.node[a][i], va, 1e-9 * va);
        double want = rates[0][i] - va - vb;
        assert_float_equal(g->curve.node[rest][i], want, 1e-9 * want);
    }
    assert_float_equal(g->phases.node[a][1], 20 * 4e7, 1e-3);
    assert_float_equal(g->total.node[a][0], 20 * totals[2], 1e-6);
    assert_float_equal(g->inst_total, totals[1], 0);
    assert_ptr_equal(g->inst_rate, rates[1]);
    unbuild(&fx);
}

static void test_apply_option_and_set(void **state)
{
    (void)state;
    fixture fx;
    build(&fx, 1, NC);
    char err[1024];
    const char *sets[] = { "P_B=400" };
    fold_model_options o = { "tests/models/cases.model", sets, 1 };
    assert_int_equal(fold_model_apply(&fx.r, &o, err, sizeof(err)), FOLD_MODEL_OK);
    const fold_model_region *g = &fx.r.model->regions[0];
    assert_string_equal(fx.r.model->from, "--model");
    int root = hca_model_find_node(fx.r.model->model, "cycles");
    /* 400 * 5e6 + 20 * 4e7 = 2.8e9 > 2.5e9 cycles: overlap 3e8 in the second half */
    assert_float_equal(g->curve.overlap[root][4], 3e8, 1e-3);
    assert_float_equal(g->curve.overlap[root][0], 0, 0);
    assert_int_equal(g->curve.overlap_points, 2);
    unbuild(&fx);
    /* a parameter the model lacks */
    build(&fx, 1, NC);
    const char *bad[] = { "P_C=1" };
    fold_model_options ob = { "tests/models/cases.model", bad, 1 };
    assert_int_equal(fold_model_apply(&fx.r, &ob, err, sizeof(err)), FOLD_MODEL_BAD);
    assert_non_null(strstr(err, "P_C"));
    assert_null(fx.r.model);
    unbuild(&fx);
}

static void test_apply_missing(void **state)
{
    (void)state;
    fixture fx;
    /* no model in the trace, none asked for: nothing */
    build(&fx, 0, NC);
    char err[1024];
    fold_model_options o = { NULL, NULL, 0 };
    assert_int_equal(fold_model_apply(&fx.r, &o, err, sizeof(err)), FOLD_MODEL_NONE);
    unbuild(&fx);
    /* asked for by path: matched by name, three of four are not there */
    build(&fx, 0, NC);
    fold_model_options op = { "tests/models/cases.model", NULL, 0 };
    assert_int_equal(fold_model_apply(&fx.r, &op, err, sizeof(err)), FOLD_MODEL_MISSING);
    assert_int_equal(fx.r.model->missing_required, 3);
    assert_non_null(strstr(err, "CYC (cycles)"));
    assert_non_null(strstr(err, "closest present"));
    assert_string_equal(fx.r.model->events[3].counter, "LLC-load-misses");
    assert_false(fx.r.model->regions[0].evaluated);
    unbuild(&fx);
    /* in the trace but not measured in this region (only the first two counters) */
    build(&fx, 1, 2);
    assert_int_equal(fold_model_apply(&fx.r, &o, err, sizeof(err)), FOLD_MODEL_OK);
    assert_false(fx.r.model->regions[0].evaluated);
    assert_string_equal(fx.r.model->regions[0].absent, "A, B");
    unbuild(&fx);
    /* unknown model name */
    build(&fx, 0, NC);
    fold_model_options on = { "no-such-model", NULL, 0 };
    assert_int_equal(fold_model_apply(&fx.r, &on, err, sizeof(err)), FOLD_MODEL_BAD);
    assert_non_null(strstr(err, "no model 'no-such-model'"));
    unbuild(&fx);
}

static void test_apply_auto(void **state)
{
    (void)state;
    fixture fx;
    build(&fx, 0, NC);
    char *pn = strdup(HCA_PROP_PMU), *pv = strdup("snb");
    fx.t.property_names = &pn;
    fx.t.property_values = &pv;
    fx.t.nproperties = 1;
    char err[1024];
    fold_model_options o = { "auto", NULL, 0 };
    /* the trace was recorded on a Sandy Bridge: hca-snb, whose events this trace lacks */
    assert_int_equal(fold_model_apply(&fx.r, &o, err, sizeof(err)), FOLD_MODEL_MISSING);
    assert_string_equal(hca_model_id(fx.r.model->model), "hca-snb");
    unbuild(&fx);
    /* a PMU no model names: generic */
    build(&fx, 0, NC);
    free(pv);
    pv = strdup("none");
    fx.t.property_names = &pn;
    fx.t.property_values = &pv;
    fx.t.nproperties = 1;
    fold_model_apply(&fx.r, &o, err, sizeof(err));
    assert_non_null(fx.r.model);
    assert_string_equal(hca_model_id(fx.r.model->model), "generic");
    unbuild(&fx);
    free(pn);
    free(pv);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kendall_hand),
        cmocka_unit_test(test_agreement_hand),
        cmocka_unit_test(test_apply_traced_model),
        cmocka_unit_test(test_apply_option_and_set),
        cmocka_unit_test(test_apply_missing),
        cmocka_unit_test(test_apply_auto),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
