/* test_code_paths.c: unit tests of the code paths of a region key
 * (fold/paths.c) on hand-made samples: two stages of one path, sampled so
 * sparsely that no instance holds both (the instances with two samples hold
 * them in one stage, as preempted instances do), are one path; two
 * alternative paths that fill their own instances from start to end stay two. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "paths.h"

#define NINST 400
#define MAX_SAMPLES 1000
#define DURATION_NS 1000000ull

enum { R_MAIN, R_A, R_B, NREGIONS };

typedef struct {
    fold_region_def regions[NREGIONS];
    fold_context_def contexts[NREGIONS];
    fold_counter_def counter;
    fold_location location;
    fold_sample samples[MAX_SAMPLES];
    double values[MAX_SAMPLES];
    fold_instance ins[NINST];
    fold_trace t;
} fixture;

static void fixture_init(fixture *f, const char *a, const char *b)
{
    memset(f, 0, sizeof(*f));
    const char *names[NREGIONS] = { "main", a, b };
    for (uint32_t r = 0; r < NREGIONS; r++) {
        f->regions[r] = (fold_region_def){ names[r], "app.c", 10 + r, 0, 0, FOLD_KIND_FUNCTION };
        f->contexts[r] = (fold_context_def){ r, r ? R_MAIN : FOLD_NONE, "app.c", 10 + r, r ? 1u : 0u };
    }
    f->counter = (fold_counter_def){ .name = "task-clock", .unit = "ns", .counts_cpu = 1 };
    f->t.regions = f->regions;
    f->t.nregions = NREGIONS;
    f->t.contexts = f->contexts;
    f->t.ncontexts = NREGIONS;
    f->t.counters = &f->counter;
    f->t.ncounters = 1;
    f->t.locations = &f->location;
    f->t.nlocations = 1;
    f->location.samples = f->samples;
    for (size_t i = 0; i < NINST; i++) {
        uint64_t t0 = 10 * DURATION_NS * (uint64_t)i;
        f->ins[i] = (fold_instance){ .t0 = t0, .t1 = t0 + DURATION_NS };
    }
}

/* a sample of instance i at normalized time x in the function of context ctx */
static void add_sample(fixture *f, size_t i, double x, uint32_t ctx)
{
    size_t k = f->location.nsamples++;
    assert_true(k < MAX_SAMPLES);
    if (f->ins[i].nsamples == 0) /* instances in time order: their samples follow */
        f->ins[i].first_sample = k;
    f->values[k] = (double)k; /* distinct counter values: no two are one interrupt */
    f->samples[k] = (fold_sample){ f->ins[i].t0 + (uint64_t)(x * (double)DURATION_NS), ctx, &f->values[k], 0 };
    f->ins[i].nsamples++;
}

/* stage_a runs over 0-0.5 of every instance, stage_b over 0.5-1. 80
 * instances hold two samples, both in one stage; 120 one sample. Were the
 * two one path, 40 of the 80 would be expected to mix them (the rule of
 * paths.h, 3.), and none did: split before, though time orders them. */
static void sequential_stages_are_one_path(void **state)
{
    (void)state;
    static fixture f;
    fixture_init(&f, "stage_a", "stage_b");
    for (size_t i = 0; i < 200; i++) {
        int a = i % 2 == 0;
        if (i < 80) {
            add_sample(&f, i, a ? 0.1 : 0.6, a ? R_A : R_B);
            add_sample(&f, i, a ? 0.3 : 0.9, a ? R_A : R_B);
        } else {
            add_sample(&f, i, a ? 0.05 + 0.4 * (double)(i % 7) / 7.0 : 0.55 + 0.4 * (double)(i % 5) / 5.0,
                       a ? R_A : R_B);
        }
    }
    fold_paths p;
    assert_int_equal(fold_paths_find(&f.t, f.ins, NINST, &p), 0);
    assert_int_equal(p.npaths, 1);
    fold_paths_free(&p);
}

/* path_x and path_y each run a whole instance: the same sampling, but their
 * samples are spread over 0-1 in both: two paths. */
static void alternative_paths_stay_two(void **state)
{
    (void)state;
    static fixture f;
    fixture_init(&f, "path_x", "path_y");
    for (size_t i = 0; i < 200; i++) {
        uint32_t ctx = i % 2 == 0 ? R_A : R_B;
        if (i < 80) {
            double x = 0.05 + 0.5 * (double)(i % 9) / 9.0;
            add_sample(&f, i, x, ctx);
            add_sample(&f, i, x + 0.4, ctx);
        } else {
            add_sample(&f, i, 0.05 + 0.9 * (double)(i % 11) / 11.0, ctx);
        }
    }
    fold_paths p;
    assert_int_equal(fold_paths_find(&f.t, f.ins, NINST, &p), 0);
    assert_int_equal(p.npaths, 2);
    assert_non_null(p.labels);
    assert_string_equal(p.labels[0], "path_x"); /* most samples first; ties: the lower region */
    assert_string_equal(p.labels[1], "path_y");
    for (size_t i = 0; i < 200; i++)
        assert_int_equal(p.path_of[i], i % 2);
    fold_paths_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sequential_stages_are_one_path),
        cmocka_unit_test(alternative_paths_stay_two),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
