/* test_regions.c: unit tests of hcafold's region building (fold/regions.c) on
 * hand-made traces: keys, names (bursts by both call sites, named regions with
 * their call site only when ambiguous), duration groups split at a wide gap and
 * only for groups of a sensible size, outliers excluded by median +- k * MAD
 * with its floor and widened by the tracer's time removed, BSC's unscaled rule
 * as an option, order by total time, a result that does not depend on the
 * order instances were read in; call sites whose lines differ only between
 * locations as one region, code paths told apart by samples, bimodal CPU times
 * as two groups (also with a CPU time a little below 0), modes spread by the
 * load as two groups, one mode with a tail as one group. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "read.h"
#include "regions.h"

/* contexts: 0 main@src/cg.c:88, 1 MPI_Allreduce under 0, 2 main@src/cg.c:120,
 * 3 MPI_Allreduce under 2, 4 main@src/cg.c:10, 5 iteration under 4,
 * 6 main@src/cg.c:20, 7 iteration under 6 */
enum { CC_MPI_A = 1, CC_MPI_B = 3, CC_ITER_1 = 5, CC_ITER_2 = 7 };

static void make_trace(fold_trace *t, size_t nlocs)
{
    memset(t, 0, sizeof(*t));
    static const fold_region_def regions[] = {
        { "main", "src/cg.c", 5, 0, 0, FOLD_KIND_FUNCTION },
        { "MPI_Allreduce", "", 0, 0, 0, FOLD_KIND_MPI },
        { "iteration", "src/cg.c", 30, 0, 0, FOLD_KIND_USER },
    };
    static const fold_context_def contexts[] = {
        { 0, FOLD_NONE, "src/cg.c", 88, 0 }, { 1, 0, NULL, 0, 1 },
        { 0, FOLD_NONE, "src/cg.c", 120, 0 }, { 1, 2, NULL, 0, 1 },
        { 0, FOLD_NONE, "src/cg.c", 10, 0 }, { 2, 4, NULL, 0, 1 },
        { 0, FOLD_NONE, "src/cg.c", 20, 0 }, { 2, 6, NULL, 0, 1 },
    };
    t->regions = malloc(sizeof(regions));
    t->contexts = malloc(sizeof(contexts));
    t->locations = calloc(nlocs, sizeof(*t->locations));
    assert_non_null(t->regions);
    assert_non_null(t->contexts);
    assert_non_null(t->locations);
    memcpy(t->regions, regions, sizeof(regions));
    memcpy(t->contexts, contexts, sizeof(contexts));
    t->nregions = 3;
    t->ncontexts = 8;
    t->nlocations = nlocs;
    for (size_t i = 0; i < nlocs; i++)
        t->locations[i].id = i;
}

/* Appends an instance of duration d (ns) to location loc, after its last one. */
static void add(fold_trace *t, size_t loc, int kind, uint32_t open, uint32_t close, double d, size_t nsamples)
{
    fold_location *L = &t->locations[loc];
    fold_instance *p = realloc(L->instances, (L->ninstances + 1) * sizeof(*p));
    assert_non_null(p);
    L->instances = p;
    uint64_t t0 = L->ninstances ? L->instances[L->ninstances - 1].t1 + 1000 : 1000000;
    fold_instance *in = &L->instances[L->ninstances++];
    memset(in, 0, sizeof(*in));
    in->t0 = t0;
    in->t1 = t0 + (uint64_t)llround(d);
    in->location = (uint32_t)loc;
    in->open_context = open;
    in->close_context = close;
    in->kind = (int16_t)kind;
    in->nsamples = nsamples;
}

static void add_burst(fold_trace *t, size_t loc, double d)
{
    add(t, loc, FOLD_KIND_BURST, CC_MPI_A, CC_MPI_B, d, 3);
}

/* n durations evenly spread over D * [1 - j, 1 + j], dealt to the locations in turn. */
static void add_uniform(fold_trace *t, size_t n, double D, double j)
{
    for (size_t i = 0; i < n; i++)
        add_burst(t, i % t->nlocations, D * (1.0 + j * (2.0 * (double)((i * 37) % n) / (double)(n - 1) - 1.0)));
}

static void build(fold_trace *t, const fold_region_options *o)
{
    char err[256];
    assert_int_equal(fold_regions_build(t, o, err, sizeof(err)), 0);
    for (size_t i = 0; i < t->nlocations; i++) {
        assert_null(t->locations[i].instances);
        assert_int_equal(t->locations[i].ninstances, 0);
    }
}

static const char *BURST = "MPI_Allreduce@cg.c:88 -> MPI_Allreduce@cg.c:120";

/* Builds t and checks that BURST split into exactly two duration groups: into *g0 (short) and *g1. */
static void build_two_groups(fold_trace *t, const fold_region **g0, const fold_region **g1)
{
    build(t, NULL);
    assert_int_equal(t->nfolds, 2);
    *g0 = fold_region_find(t, BURST, 0);
    *g1 = fold_region_find(t, BURST, 1);
    assert_non_null(*g0);
    assert_non_null(*g1);
    assert_int_equal((*g0)->ngroups, 2);
}

static void groups_split_at_a_duration_gap(void **state)
{
    (void)state;
    fold_trace t;
    make_trace(&t, 2);
    add_uniform(&t, 120, 10e6, 0.05);
    for (size_t i = 0; i < 80; i++)
        add_burst(&t, i % 2, 20e6 * (1.0 + 0.05 * sin((double)i)));
    const fold_region *g0, *g1;
    build_two_groups(&t, &g0, &g1);
    assert_int_equal(g0->ninstances, 120);
    assert_int_equal(g1->ninstances, 80);
    assert_int_equal(g0->nexcluded + g1->nexcluded, 0);
    assert_true(g0->median_ns < 11e6 && g1->median_ns > 18e6);
    for (size_t i = 0; i < g1->ninstances; i++)
        assert_true(g1->instances[i].t1 - g1->instances[i].t0 > 15000000u);
    assert_int_equal(g0->nsamples, 3 * 120);
    fold_trace_free(&t);
}

static void outliers_are_excluded_not_grouped(void **state)
{
    (void)state;
    fold_trace t;
    make_trace(&t, 3);
    add_uniform(&t, 300, 10e6, 0.05);
    for (size_t i = 0; i < 15; i++) /* scattered, 5 %: not a group */
        add_burst(&t, i % 3, 10e6 * (2.0 + (double)i / 14.0));
    build(&t, NULL);
    assert_int_equal(t.nfolds, 1);
    const fold_region *r = &t.folds[0];
    assert_string_equal(r->name, BURST);
    assert_int_equal(r->ngroups, 1);
    assert_int_equal(r->ninstances, 315);
    assert_int_equal(r->nexcluded, 15);
    assert_int_equal(r->nused, 300);
    assert_int_equal(r->nsamples_used, 900);
    for (size_t i = 0; i < r->ninstances; i++)
        assert_int_equal(r->instances[i].excluded, r->instances[i].t1 - r->instances[i].t0 > 15000000u);
    assert_true(r->keep_lo_ns < 9.5e6 && r->keep_hi_ns > 10.5e6 && r->keep_hi_ns < 20e6);
    fold_trace_free(&t);
}

/* A tight clump smaller than a group (8 of 208 < 10 %) stays in the key and is excluded. */
static void small_clump_is_excluded(void **state)
{
    (void)state;
    fold_trace t;
    make_trace(&t, 1);
    add_uniform(&t, 200, 10e6, 0.02);
    for (size_t i = 0; i < 8; i++)
        add_burst(&t, 0, 30e6 + (double)i);
    build(&t, NULL);
    assert_int_equal(t.nfolds, 1);
    assert_int_equal(t.folds[0].nexcluded, 8);
    /* as a group of its own once groups may be that small */
    fold_trace u;
    make_trace(&u, 1);
    add_uniform(&u, 200, 10e6, 0.02);
    for (size_t i = 0; i < 8; i++)
        add_burst(&u, 0, 30e6 + (double)i);
    fold_region_options o;
    fold_region_defaults(&o);
    o.min_group = 5;
    o.min_group_fraction = 0.02;
    build(&u, &o);
    assert_int_equal(u.nfolds, 2);
    assert_int_equal(fold_region_find(&u, BURST, 1)->ninstances, 8);
    assert_int_equal(fold_region_find(&u, BURST, 0)->nexcluded + fold_region_find(&u, BURST, 1)->nexcluded, 0);
    fold_trace_free(&t);
    fold_trace_free(&u);
}

/* No split without the option; close modes (5 % apart) are not split either. */
static void no_split_when_off_or_close(void **state)
{
    (void)state;
    fold_region_options o;
    fold_region_defaults(&o);
    o.split = 0;
    fold_trace t;
    make_trace(&t, 1);
    add_uniform(&t, 100, 10e6, 0.01);
    add_uniform(&t, 100, 20e6, 0.01);
    build(&t, &o);
    assert_int_equal(t.nfolds, 1);
    assert_int_equal(t.folds[0].ngroups, 1);
    fold_trace_free(&t);
    make_trace(&t, 1);
    add_uniform(&t, 100, 10e6, 0.005);
    add_uniform(&t, 100, 10.5e6, 0.005);
    build(&t, NULL);
    assert_int_equal(t.nfolds, 1);
    fold_trace_free(&t);
}

/* The MAD is at least 0.5 % of the median: identical durations keep a near neighbour. */
static void mad_floor(void **state)
{
    (void)state;
    fold_trace t;
    make_trace(&t, 1);
    for (int i = 0; i < 50; i++)
        add_burst(&t, 0, 10e6);
    add_burst(&t, 0, 10.05e6); /* +0.5 %: kept (bound +0.75 %) */
    add_burst(&t, 0, 10.2e6);  /* +2 %: excluded */
    build(&t, NULL);
    assert_int_equal(t.folds[0].nexcluded, 1);
    assert_int_equal(t.folds[0].mad_ns, 0.0);
    fold_trace_free(&t);
}

/* An instance the tracer's time was removed from keeps a window widened by 10 %
 * of that time (its measurement's uncertainty); without that time, or with
 * the tolerance off, the same duration is an outlier; its total is summed. */
static void tool_time_widens_the_window(void **state)
{
    (void)state;
    for (int off = 0; off < 2; off++) {
        fold_region_options o;
        fold_region_defaults(&o);
        if (off)
            o.tool_tolerance = 0;
        fold_trace t;
        make_trace(&t, 1);
        for (int i = 0; i < 50; i++)
            add_burst(&t, 0, 100e3);
        add_burst(&t, 0, 104e3); /* +4 us: outside +-0.75 us */
        t.locations[0].instances[50].tool_ns = 50000; /* 50 us removed: +-5 us more */
        add_burst(&t, 0, 104e3); /* the same without tracer's time: excluded */
        build(&t, &o);
        assert_int_equal(t.folds[0].nexcluded, off ? 2 : 1);
        assert_true(t.folds[0].tool_ns == 50000.0);
        fold_trace_free(&t);
    }
}

/* BSC folding's rule (unscaled MAD) drops a quarter of uniformly spread durations. */
static void bsc_rule_is_an_option(void **state)
{
    (void)state;
    fold_region_options o;
    fold_region_defaults(&o);
    o.mad_scale = 1.0;
    fold_trace t;
    make_trace(&t, 2);
    add_uniform(&t, 400, 10e6, 0.05);
    build(&t, &o);
    double f = (double)t.folds[0].nexcluded / 400.0;
    assert_true(f > 0.22 && f < 0.28);
    fold_trace_free(&t);
    make_trace(&t, 2);
    add_uniform(&t, 400, 10e6, 0.05);
    build(&t, NULL);
    assert_int_equal(t.folds[0].nexcluded, 0);
    fold_trace_free(&t);
}

static void names_and_order(void **state)
{
    (void)state;
    fold_trace t;
    make_trace(&t, 2);
    for (int i = 0; i < 20; i++) {
        add(&t, i % 2, FOLD_KIND_USER, CC_ITER_1, CC_ITER_1, 5e6, 1);
        add(&t, i % 2, FOLD_KIND_USER, CC_ITER_2, CC_ITER_2, 1e6, 1);
        add(&t, i % 2, FOLD_KIND_BURST, CC_MPI_A, CC_MPI_B, 3e6, 1);
        add(&t, i % 2, FOLD_KIND_MPI, CC_MPI_A, CC_MPI_A, 1e5, 0);
    }
    build(&t, NULL);
    assert_int_equal(t.nfolds, 4);
    /* by total time */
    assert_string_equal(t.folds[0].name, "iteration@cg.c:10");
    assert_string_equal(t.folds[1].name, BURST);
    assert_string_equal(t.folds[2].name, "iteration@cg.c:20");
    assert_string_equal(t.folds[3].name, "MPI_Allreduce@cg.c:88");
    assert_int_equal(t.folds[0].kind, FOLD_KIND_USER);
    assert_int_equal(t.folds[3].kind, FOLD_KIND_MPI);
    assert_int_equal(t.folds[1].open_context, CC_MPI_A);
    assert_int_equal(t.folds[1].close_context, CC_MPI_B);
    for (size_t f = 0; f < t.nfolds; f++)
        assert_int_equal(t.folds[f].ninstances, 20);
    fold_trace_free(&t);
    /* one key of a region: its plain name */
    make_trace(&t, 1);
    add(&t, 0, FOLD_KIND_USER, CC_ITER_2, CC_ITER_2, 1e6, 1);
    build(&t, NULL);
    assert_string_equal(t.folds[0].name, "iteration");
    fold_trace_free(&t);
}

/* Four keys of one region, all called at h@cg.c:70 (one name, "R@cg.c:70"),
 * from a 2 x 2 grid of call paths: main at line 10 or 11 calls u, which calls
 * h at line 50 or 51 (as CloverLeaf unpacks each field from several halo
 * updates). Each key's nearest namesake parts from it at u's line, so one
 * "via" left two keys named alike; every key's name is its own. */
static void names_of_a_grid_of_call_paths_are_unique(void **state)
{
    (void)state;
    fold_trace t;
    memset(&t, 0, sizeof(t));
    static const fold_region_def regions[] = {
        { "main", "src/cg.c", 1, 0, 0, FOLD_KIND_FUNCTION }, { "u", "src/cg.c", 40, 0, 0, FOLD_KIND_FUNCTION },
        { "h", "src/cg.c", 60, 0, 0, FOLD_KIND_FUNCTION },   { "R", "src/cg.c", 70, 0, 0, FOLD_KIND_USER },
    };
    /* 0 main@10, 1 main@11; 2 u@50 < 0, 3 u@51 < 0, 4 u@50 < 1, 5 u@51 < 1;
     * 6..9 h@70 under 2..5; 10..13 R under 6..9 */
    static const fold_context_def contexts[] = {
        { 0, FOLD_NONE, "src/cg.c", 10, 0 }, { 0, FOLD_NONE, "src/cg.c", 11, 0 }, { 1, 0, "src/cg.c", 50, 1 },
        { 1, 0, "src/cg.c", 51, 1 },         { 1, 1, "src/cg.c", 50, 1 },         { 1, 1, "src/cg.c", 51, 1 },
        { 2, 2, "src/cg.c", 70, 2 },         { 2, 3, "src/cg.c", 70, 2 },         { 2, 4, "src/cg.c", 70, 2 },
        { 2, 5, "src/cg.c", 70, 2 },         { 3, 6, NULL, 0, 3 },                { 3, 7, NULL, 0, 3 },
        { 3, 8, NULL, 0, 3 },                { 3, 9, NULL, 0, 3 },
    };
    t.regions = malloc(sizeof(regions));
    t.contexts = malloc(sizeof(contexts));
    t.locations = calloc(1, sizeof(*t.locations));
    assert_non_null(t.regions);
    assert_non_null(t.contexts);
    assert_non_null(t.locations);
    memcpy(t.regions, regions, sizeof(regions));
    memcpy(t.contexts, contexts, sizeof(contexts));
    t.nregions = sizeof(regions) / sizeof(regions[0]);
    t.ncontexts = sizeof(contexts) / sizeof(contexts[0]);
    t.nlocations = 1;
    for (int i = 0; i < 80; i++) /* all on one location: four call sites, not merged */
        add(&t, 0, FOLD_KIND_USER, (uint32_t)(10 + i % 4), (uint32_t)(10 + i % 4), 1e6 * (1 + i % 4), 1);
    build(&t, NULL);
    assert_int_equal(t.nfolds, 4);
    for (size_t i = 0; i < t.nfolds; i++)
        for (size_t j = i + 1; j < t.nfolds; j++)
            if (strcmp(t.folds[i].name, t.folds[j].name) == 0)
                fail_msg("two regions named \"%s\"", t.folds[i].name);
    fold_trace_free(&t);
}

/* The order instances come in (reading order within a location) does not matter. */
static void independent_of_reading_order(void **state)
{
    (void)state;
    fold_trace a, b;
    make_trace(&a, 3);
    make_trace(&b, 3);
    for (size_t i = 0; i < 150; i++) {
        double d = 10e6 * (1.0 + 0.04 * sin(0.7 * (double)i)) * (i % 29 == 0 ? 2.5 : 1.0);
        add(&a, i % 3, FOLD_KIND_BURST, CC_MPI_A, CC_MPI_B, d, i % 4);
        add(&a, i % 3, FOLD_KIND_USER, CC_ITER_1, CC_ITER_1, 2 * d, 1);
    }
    for (size_t l = 0; l < 3; l++) { /* b: the same instances, reversed within each location */
        fold_location *La = &a.locations[l], *Lb = &b.locations[l];
        Lb->ninstances = La->ninstances;
        Lb->instances = malloc(La->ninstances * sizeof(*Lb->instances));
        assert_non_null(Lb->instances);
        for (size_t i = 0; i < La->ninstances; i++)
            Lb->instances[i] = La->instances[La->ninstances - 1 - i];
    }
    build(&a, NULL);
    build(&b, NULL);
    assert_int_equal(a.nfolds, b.nfolds);
    for (size_t f = 0; f < a.nfolds; f++) {
        assert_string_equal(a.folds[f].name, b.folds[f].name);
        assert_int_equal(a.folds[f].ninstances, b.folds[f].ninstances);
        assert_int_equal(a.folds[f].nexcluded, b.folds[f].nexcluded);
        assert_memory_equal(a.folds[f].instances, b.folds[f].instances,
                            a.folds[f].ninstances * sizeof(fold_instance));
    }
    assert_true(a.folds[0].nexcluded >= 5);
    fold_trace_free(&a);
    fold_trace_free(&b);
}

/* A second trace: contexts 0 halo@cg.c:10, 1 MPI_Isend under 0, 2 halo@cg.c:11,
 * 3 MPI_Isend under 2, 4 halo@cg.c:20, 5 MPI_Waitall under 4, 6 main@cg.c:5
 * (a sampled root), 7 path_a under 6, 8 path_b under 6, 9 kernel under 7,
 * 10 kernel under 8; a counter "task-clock". */
enum { CC_ISEND_10 = 1, CC_ISEND_11 = 3, CC_WAITALL = 5, CC_PATH_A = 9, CC_PATH_B = 10 };

static void make_halo_trace(fold_trace *t, size_t nlocs)
{
    memset(t, 0, sizeof(*t));
    static const fold_region_def regions[] = {
        { "halo", "src/cg.c", 8, 0, 0, FOLD_KIND_FUNCTION },       { "MPI_Isend", "", 0, 0, 0, FOLD_KIND_MPI },
        { "MPI_Waitall", "", 0, 0, 0, FOLD_KIND_MPI },             { "main", "src/cg.c", 1, 0, 0, FOLD_KIND_FUNCTION },
        { "path_a", "src/cg.c", 30, 0, 0, FOLD_KIND_FUNCTION },    { "path_b", "src/cg.c", 40, 0, 0, FOLD_KIND_FUNCTION },
        { "kernel", "src/cg.c", 50, 0, 0, FOLD_KIND_FUNCTION },
    };
    static const fold_context_def contexts[] = {
        { 0, FOLD_NONE, "src/cg.c", 10, 0 }, { 1, 0, NULL, 0, 1 },      { 0, FOLD_NONE, "src/cg.c", 11, 0 },
        { 1, 2, NULL, 0, 1 },                { 0, FOLD_NONE, "src/cg.c", 20, 0 }, { 2, 4, NULL, 0, 1 },
        { 3, FOLD_NONE, "src/cg.c", 5, 0 },  { 4, 6, "src/cg.c", 31, 1 },  { 5, 6, "src/cg.c", 41, 1 },
        { 6, 7, "src/cg.c", 51, 2 },         { 6, 8, "src/cg.c", 51, 2 },
    };
    static fold_counter_def counters[] = { { .name = "task-clock", .unit = "ns", .counts_cpu = 1 } };
    t->regions = malloc(sizeof(regions));
    t->contexts = malloc(sizeof(contexts));
    t->counters = malloc(sizeof(counters));
    t->locations = calloc(nlocs, sizeof(*t->locations));
    assert_non_null(t->regions);
    assert_non_null(t->contexts);
    assert_non_null(t->counters);
    assert_non_null(t->locations);
    memcpy(t->regions, regions, sizeof(regions));
    memcpy(t->contexts, contexts, sizeof(contexts));
    memcpy(t->counters, counters, sizeof(counters));
    t->nregions = sizeof(regions) / sizeof(regions[0]);
    t->ncontexts = sizeof(contexts) / sizeof(contexts[0]);
    t->ncounters = 1;
    t->nlocations = nlocs;
    for (size_t i = 0; i < nlocs; i++)
        t->locations[i].id = i;
}

/* The halo's last MPI_Isend sits on line 10 on even locations, 11 on odd
 * ones: one region; its name shows both lines. */
static void same_code_on_every_rank_is_one_region(void **state)
{
    (void)state;
    fold_trace t;
    make_halo_trace(&t, 4);
    for (size_t i = 0; i < 80; i++)
        add(&t, i % 4, FOLD_KIND_BURST, i % 2 ? CC_ISEND_11 : CC_ISEND_10, CC_WAITALL, 10e6, 0);
    build(&t, NULL);
    assert_int_equal(t.nfolds, 1);
    assert_string_equal(t.folds[0].name, "MPI_Isend@cg.c:10|11 -> MPI_Waitall@cg.c:20");
    assert_int_equal(t.folds[0].sites, 2);
    assert_int_equal(t.folds[0].ninstances, 80);
    fold_trace_free(&t);
    /* both lines on one location: two call sites, two regions */
    make_halo_trace(&t, 2);
    for (size_t i = 0; i < 80; i++)
        add(&t, (i / 2) % 2, FOLD_KIND_BURST, i % 2 ? CC_ISEND_11 : CC_ISEND_10, CC_WAITALL, 10e6, 0);
    build(&t, NULL);
    assert_int_equal(t.nfolds, 2);
    assert_int_equal(t.folds[0].sites, 1);
    fold_trace_free(&t);
}

/* Appends nsamples samples with leaf context ctx to loc's samples, inside
 * the last instance of loc. */
static void add_samples(fold_trace *t, size_t loc, uint32_t ctx, size_t nsamples)
{
    fold_location *L = &t->locations[loc];
    fold_instance *in = &L->instances[L->ninstances - 1];
    fold_sample *p = realloc(L->samples, (L->nsamples + nsamples) * sizeof(*p));
    assert_non_null(p);
    L->samples = p;
    in->first_sample = L->nsamples;
    in->nsamples = nsamples;
    for (size_t k = 0; k < nsamples; k++)
        L->samples[L->nsamples++] = (fold_sample){ in->t0 + (k + 1) * (in->t1 - in->t0) / (nsamples + 1), ctx, NULL, 0 };
}

/* Even iterations run path_a, odd ones path_b, between the same two calls:
 * two regions, told apart by their samples; instances without samples go to
 * the path of the nearest duration. */
static void code_paths_are_separate_regions(void **state)
{
    (void)state;
    fold_trace t;
    make_halo_trace(&t, 2);
    for (size_t i = 0; i < 120; i++) {
        int b = (i / 2) % 2; /* each location runs both paths */
        add(&t, i % 2, FOLD_KIND_BURST, CC_WAITALL, CC_ISEND_10, b ? 20e6 : 10e6, 0);
        if (i % 6)
            add_samples(&t, i % 2, b ? CC_PATH_B : CC_PATH_A, 2);
    }
    build(&t, NULL);
    assert_int_equal(t.nfolds, 2);
    for (size_t f = 0; f < 2; f++) {
        const fold_region *r = &t.folds[f];
        assert_int_equal(r->npaths, 2);
        assert_int_equal(r->ninstances, 60);
        int a = strcmp(r->path_label, "path_a") == 0;
        assert_true(a || strcmp(r->path_label, "path_b") == 0);
        for (size_t i = 0; i < r->ninstances; i++)
            assert_int_equal(r->instances[i].t1 - r->instances[i].t0, a ? 10000000u : 20000000u);
    }
    fold_trace_free(&t);
}

/* One path whose branches are sampled one per instance: no evidence that they
 * are separate, one region. */
static void single_samples_do_not_split_paths(void **state)
{
    (void)state;
    fold_trace t;
    make_halo_trace(&t, 2);
    for (size_t i = 0; i < 120; i++) {
        add(&t, i % 2, FOLD_KIND_BURST, CC_WAITALL, CC_ISEND_10, 10e6, 0);
        add_samples(&t, i % 2, (i / 2) % 2 ? CC_PATH_B : CC_PATH_A, 1);
    }
    build(&t, NULL);
    assert_int_equal(t.nfolds, 1);
    assert_int_equal(t.folds[0].npaths, 1);
    assert_null(t.folds[0].path_label);
    fold_trace_free(&t);
}

/* As above, and 20 preempted instances whose one wall-clock signal stood for
 * 4 expiries: 4 copies of one sample (same stack, same counter values), of
 * path_a or of path_b. Copies are one observation: still one region (they
 * counted as 4 samples that never mixed the branches: two regions). */
static void copies_of_one_interrupt_do_not_split_paths(void **state)
{
    (void)state;
    static const double row[1] = { 123456.0 };
    fold_trace t;
    make_halo_trace(&t, 2);
    for (size_t i = 0; i < 140; i++) {
        add(&t, i % 2, FOLD_KIND_BURST, CC_WAITALL, CC_ISEND_10, i < 120 ? 10e6 : 40e6, 0);
        add_samples(&t, i % 2, (i / 2) % 2 ? CC_PATH_B : CC_PATH_A, i < 120 ? 1 : 4);
        fold_location *L = &t.locations[i % 2];
        for (size_t k = L->nsamples - (i < 120 ? 1 : 4); k < L->nsamples; k++)
            L->samples[k].values = row;
    }
    build(&t, NULL);
    assert_int_equal(t.folds[0].npaths, 1);
    assert_null(t.folds[0].path_label);
    fold_trace_free(&t);
}

/* Bell-shaped noise in [-1, 1]: the sum of 4 uniforms of a fixed LCG. */
static double bell(uint32_t *seed)
{
    double sum = 0;
    for (int k = 0; k < 4; k++) {
        *seed = *seed * 1664525u + 1013904223u;
        sum += (double)(*seed >> 8) / 16777216.0;
    }
    return (sum - 2.0) / 2.0;
}

/* 400 bursts, every 4th doing twice the work, +-30 % of bell-shaped noise;
 * their CPU times equal their durations but for instance `bad`, whose CPU time
 * is 20 us below 0 with 409 us of the tracer's time removed from it. */
static void add_bimodal_cpu(fold_trace *t, double (*cpu)[2], size_t bad)
{
    uint32_t seed = 12345;
    for (size_t i = 0; i < 400; i++) {
        double unit = (i % 4 == 3 ? 2.0 : 1.0) * 10e6, d = unit * (1.0 + 0.3 * bell(&seed));
        add(t, i % 2, FOLD_KIND_BURST, CC_ISEND_10, CC_WAITALL, d, 0);
        fold_instance *in = &t->locations[i % 2].instances[t->locations[i % 2].ninstances - 1];
        cpu[i][0] = 1e9;
        cpu[i][1] = 1e9 + (i == bad ? -20e3 : d);
        in->tool_ns = i == bad ? 409000 : 0;
        in->c0 = &cpu[i][0];
        in->c1 = &cpu[i][1];
    }
}

/* Every 4th instance does twice the work; the machine's noise (+-30 %) leaves
 * no gap wide enough between the two modes of CPU time, but the valley
 * between them splits them: two groups, not outliers. */
static void bimodal_cpu_times_are_two_groups(void **state)
{
    (void)state;
    fold_trace t;
    make_halo_trace(&t, 2);
    static double cpu[400][2];
    add_bimodal_cpu(&t, cpu, SIZE_MAX);
    build(&t, NULL);
    assert_int_equal(t.nfolds, 2);
    const fold_region *lo = fold_region_find(&t, "MPI_Isend@cg.c:10 -> MPI_Waitall@cg.c:20", 0);
    const fold_region *hi = fold_region_find(&t, "MPI_Isend@cg.c:10 -> MPI_Waitall@cg.c:20", 1);
    assert_non_null(lo);
    assert_non_null(hi);
    assert_true(lo->ninstances >= 280 && lo->ninstances <= 320);
    assert_true(hi->median_ns > 1.6 * lo->median_ns);
    fold_trace_free(&t);
}

/* The tracer's CPU time removed from a short instance, measured a little
 * long, leaves its CPU time a little below 0 (CoMD, 2 ranks: -20 us with 409
 * us removed): it counts as 0, and the key still splits on CPU times. */
static void cpu_time_below_zero_by_the_tracer_time_counts_as_zero(void **state)
{
    (void)state;
    fold_trace t;
    make_halo_trace(&t, 2);
    static double cpu[400][2];
    add_bimodal_cpu(&t, cpu, 10);
    build(&t, NULL);
    assert_int_equal(t.nfolds, 2); /* on wall times (no valleys): one group */
    const fold_region *lo = fold_region_find(&t, "MPI_Isend@cg.c:10 -> MPI_Waitall@cg.c:20", 0);
    assert_non_null(lo);
    assert_true(lo->ninstances >= 280 && lo->ninstances <= 320);
    fold_trace_free(&t);
}

/* CoMD's force burst at 2 ranks on a loaded machine, wall times only: 157
 * short bursts between a halo exchange's calls (ln d about 12 +- 0.35, 160
 * us), 3 of them preempted into the space between the modes, and 72 long
 * ones computing the forces, spread by the load over ln d 17.2-19.5 (30-290
 * ms). The widest gap (1.9) is below 4 spreads of the long side (3.4), but
 * the modes are 6.4 apart against spreads summing to 1.2: two groups, the long
 * one folded, not 72 outliers of the short one. */
static void modes_spread_by_load_are_two_groups(void **state)
{
    (void)state;
    fold_trace t;
    make_trace(&t, 2);
    uint32_t seed = 777;
    for (size_t i = 0; i < 232; i++) {
        double l;
        if (i < 3) /* 3 preempted short ones */
            l = (const double[]){ 13.15, 13.96, 15.34 }[i];
        else if (i < 160)
            l = 12.0 + 0.35 * bell(&seed);
        else
            l = 17.2 + 2.3 * (double)(((i - 160) * 29) % 72) / 71.0;
        add_burst(&t, i % 2, exp(l));
    }
    const fold_region *sh, *lg;
    build_two_groups(&t, &sh, &lg);
    assert_int_equal(lg->ninstances, 72);
    assert_int_equal(sh->ninstances, 160);
    for (size_t i = 0; i < lg->ninstances; i++)
        assert_true(lg->instances[i].t1 - lg->instances[i].t0 > 25000000u);
    assert_true(lg->nused >= 40);
    fold_trace_free(&t);
}

/* One mode with a tail stays one group: 200 bursts of 10 ms +- 2 % and 40
 * (17 %) slowed by the load, spread from 13 to 60 ms (log-uniform): the tail
 * is neither a gap nor a mode of its own; it is excluded as outliers. */
static void one_mode_with_a_tail_stays_one_group(void **state)
{
    (void)state;
    fold_trace t;
    make_trace(&t, 2);
    add_uniform(&t, 200, 10e6, 0.02);
    for (size_t i = 0; i < 40; i++)
        add_burst(&t, i % 2, 10e6 * exp(log(1.3) + (log(6.0) - log(1.3)) * (double)((i * 17) % 40) / 39.0));
    build(&t, NULL);
    assert_int_equal(t.nfolds, 1);
    assert_int_equal(t.folds[0].ngroups, 1);
    assert_int_equal(t.folds[0].nexcluded, 40);
    fold_trace_free(&t);
}

/* The same work in two conditions: truth_app's 2 ranks on 2 cores beside a
 * busy process pinned to one of them, each rank's instances stretched alike
 * (11.1 and 15.9 ms, +-3 %), and 10 % of each rank's preempted further,
 * spread evenly up to 1.3 times its mode: no empty gap between the modes,
 * medians 0.36 apart in ln(duration) against spreads of 0.03: two groups by
 * the valley between them (docs/benchmarks.md, "The loaded check (issue 17,
 * branch loaded2)"). Before, a valley split only CPU times: one group, whose
 * fold mixed both shapes. */
static void one_work_in_two_conditions_is_two_groups(void **state)
{
    (void)state;
    fold_trace t;
    make_trace(&t, 2);
    for (size_t i = 0; i < 400; i++) {
        size_t loc = i % 2, k = i / 2;
        double mode = loc ? 15.9e6 : 11.1e6;
        double d = k < 180 ? mode * (1.0 + 0.03 * (2.0 * (double)((k * 37) % 180) / 179.0 - 1.0))
                           : mode * (1.03 + 0.27 * (double)(k - 180) / 19.0);
        add_burst(&t, loc, d);
    }
    const fold_region *sh, *lg;
    build_two_groups(&t, &sh, &lg);
    /* each group holds its own rank's instances (some of the short rank's
     * preempted ones reach the long mode and are its outliers) */
    size_t short_loc0 = 0;
    for (size_t i = 0; i < sh->ninstances; i++)
        short_loc0 += sh->instances[i].location == 0;
    assert_true(short_loc0 >= 180);
    assert_true(sh->ninstances - short_loc0 == 0);
    fold_trace_free(&t);
}

/* The same work in two conditions, as truth_app's 2 ranks beside a busy
 * process pinned to one core measured on a quiet machine (docs/benchmarks.md,
 * "The rank that shares its core (issue 17, branch loaded17)"): the rank
 * alone at 12.3 ms +-4 %, 6 % of it preempted up to 1.3 times; the rank
 * sharing its core at 16.5 ms spread by its preemptions (+-12 % in
 * ln(duration), a robust spread of 0.09, too wide for the modes' medians
 * 0.29 apart to be tight modes), a tail to 1.6 times and four stragglers at
 * 40-51 ms, whose empty bins were the deepest valley of all and hid the one
 * between the modes. Two groups, each its own location's: the valley parts
 * the locations. Before: one group. */
static void a_rank_sharing_its_core_is_its_own_group(void **state)
{
    (void)state;
    fold_trace t;
    make_trace(&t, 2);
    for (size_t k = 0; k < 200; k++) /* the rank alone */
        add_burst(&t, 0, k < 188 ? 12.3e6 * (1.0 + 0.04 * (2.0 * (double)((k * 37) % 188) / 187.0 - 1.0))
                                 : 12.3e6 * (1.05 + 0.25 * (double)(k - 188) / 11.0));
    static const double stragglers[] = { 40e6, 44e6, 48e6, 51e6 };
    for (size_t k = 0; k < 200; k++) /* the rank beside the busy process */
        add_burst(&t, 1, k < 156  ? 16.5e6 * exp(0.12 * (2.0 * (double)((k * 37) % 156) / 155.0 - 1.0))
                         : k < 196 ? 16.5e6 * (1.13 + 0.47 * (double)(k - 156) / 39.0)
                                   : stragglers[k - 196]);
    const fold_region *alone, *shared;
    build_two_groups(&t, &alone, &shared);
    for (size_t i = 0; i < alone->ninstances; i++)
        assert_int_equal(alone->instances[i].location, 0);
    size_t mine = 0;
    for (size_t i = 0; i < shared->ninstances; i++)
        mine += shared->instances[i].location == 1;
    assert_int_equal(mine, 200);
    assert_true(alone->ninstances >= 188);
    fold_trace_free(&t);
}

static void empty_trace(void **state)
{
    (void)state;
    fold_trace t;
    make_trace(&t, 2);
    build(&t, NULL);
    assert_int_equal(t.nfolds, 0);
    assert_null(fold_region_find(&t, "x", 0));
    fold_trace_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(groups_split_at_a_duration_gap),
        cmocka_unit_test(outliers_are_excluded_not_grouped),
        cmocka_unit_test(small_clump_is_excluded),
        cmocka_unit_test(no_split_when_off_or_close),
        cmocka_unit_test(mad_floor),
        cmocka_unit_test(tool_time_widens_the_window),
        cmocka_unit_test(bsc_rule_is_an_option),
        cmocka_unit_test(names_and_order),
        cmocka_unit_test(names_of_a_grid_of_call_paths_are_unique),
        cmocka_unit_test(independent_of_reading_order),
        cmocka_unit_test(empty_trace),
        cmocka_unit_test(one_work_in_two_conditions_is_two_groups),
        cmocka_unit_test(same_code_on_every_rank_is_one_region),
        cmocka_unit_test(code_paths_are_separate_regions),
        cmocka_unit_test(single_samples_do_not_split_paths),
        cmocka_unit_test(copies_of_one_interrupt_do_not_split_paths),
        cmocka_unit_test(bimodal_cpu_times_are_two_groups),
        cmocka_unit_test(cpu_time_below_zero_by_the_tracer_time_counts_as_zero),
        cmocka_unit_test(modes_spread_by_load_are_two_groups),
        cmocka_unit_test(one_mode_with_a_tail_stays_one_group),
        cmocka_unit_test(a_rank_sharing_its_core_is_its_own_group),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
