/* test_read.c: unit tests of hcafold's reader (fold/read.c) on traces written by
 * the synthesizer: the output is valid OTF2 and deterministic; instance,
 * outlier and sample counts read back equal the ground truth; clock offsets are
 * applied; --jobs 1, 2 and 3 give identical results; MPI calls as regions;
 * progress reports; bad inputs (not an archive, text file, truncated or missing
 * files) give a status and a one-line message, never a crash. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "fold_testutil.h"
#include "hca_schema.h"
#include "read.h"
#include "regions.h"

#define COUNTERS                                                                                             \
    "--counter instructions:0-0.4=300e6,0.4-0.9=800e6,0.9-1=300e6 --counter cycles:0-1=2e9 "                \
    "--counter page-faults:0-0.5=2000,0.5-1=0 --sets 'instructions,cycles;instructions,page-faults' "
#define FUNCS "--functions phase_stencil:0-0.4,phase_update:0.4-0.9,phase_norm:0.9-1 "
#define BURST_ARGS                                                                                           \
    "--kind burst --ranks 2 --threads 2 --instances 150 --duration-ms 10 --duration-jitter 0.05 "            \
    "--period-ms 3 --period-jitter 1 --outliers 0.05 --noise 0.1 --seed 7 --lost-samples 5 " COUNTERS FUNCS

static char *burst_trace; /* shared by the tests: written once */

/* OTF2 3.0.2 leaks its archive when OTF2_Reader_Open fails on a damaged anchor
 * file (bad_inputs_fail_cleanly does that on purpose): not ours to fix. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
    return "leak:otf2_archive_open\nleak:otf2_file_posix_open\n";
}

static int setup(void **state)
{
    (void)state;
    burst_trace = tu_synth(BURST_ARGS);
    return burst_trace ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    tu_remove(burst_trace);
    return 0;
}

static void read_ok(const char *path, unsigned jobs, fold_trace *t)
{
    fold_read_options o;
    fold_read_defaults(&o);
    o.jobs = jobs;
    char err[512];
    int rc = fold_read(path, &o, t, err, sizeof(err));
    if (rc != FOLD_OK)
        fail_msg("fold_read %s: %s", path, err);
    assert_int_equal(fold_regions_build(t, NULL, err, sizeof(err)), 0);
}

static void synth_output_is_valid_otf2(void **state)
{
    (void)state;
    char cmd[4200];
    if (system("command -v otf2-print > /dev/null 2>&1") != 0)
        skip();
    snprintf(cmd, sizeof(cmd), "otf2-print --silent -Werror %s/traces.otf2 > /dev/null 2>&1", burst_trace);
    assert_int_equal(system(cmd), 0);
    char *user = tu_synth("--kind user --threads 3 --instances 20 " COUNTERS);
    assert_non_null(user);
    snprintf(cmd, sizeof(cmd), "otf2-print --silent -Werror %s/traces.otf2 > /dev/null 2>&1", tu_str(user));
    assert_int_equal(system(cmd), 0);
    tu_remove(user);
}

/* Same arguments, same bytes: every file but the anchor (its OTF2 trace ID is random). */
static void synth_is_deterministic(void **state)
{
    (void)state;
    char *again = tu_synth(BURST_ARGS);
    assert_non_null(again);
    char cmd[9000];
    snprintf(cmd, sizeof(cmd), "cmp -s %s/traces.def %s/traces.def && diff -r %s/traces %s/traces > /dev/null && "
                               "cmp -s %s/truth.txt %s/truth.txt",
             burst_trace, tu_str(again), burst_trace, tu_str(again), burst_trace, tu_str(again));
    assert_int_equal(system(cmd), 0);
    tu_remove(again);
}

static void counts_equal_truth(void **state)
{
    (void)state;
    fold_trace t;
    read_ok(burst_trace, 1, &t);
    char name[256];
    assert_non_null(tu_truth(burst_trace, "region", name, sizeof(name)));
    const fold_region *r = fold_region_find(&t, name, 0);
    assert_non_null(r);
    assert_int_equal(r->kind, FOLD_KIND_BURST);
    assert_int_equal(r->ngroups, 1);
    assert_int_equal(t.nlocations, 4);
    assert_int_equal(r->ninstances, (size_t)tu_truth_num(burst_trace, "instances"));
    /* the rule excludes the injected outliers (durations 2 to 3 times the mean), and with a
     * uniform jitter of +-5 % possibly a few instances at the edges: as many as the
     * synthesizer computed by applying the documented rule to what it wrote */
    assert_int_equal(r->nexcluded, (size_t)tu_truth_num(burst_trace, "excluded_expected"));
    size_t long_ones = 0;
    for (size_t i = 0; i < r->ninstances; i++)
        if (r->instances[i].t1 - r->instances[i].t0 > 15000000u) {
            long_ones++;
            assert_int_equal(r->instances[i].excluded, FOLD_EXCLUDED_OUTLIER);
        }
    assert_int_equal(long_ones, (size_t)tu_truth_num(burst_trace, "outliers"));
    assert_int_equal(r->nsamples, (size_t)tu_truth_num(burst_trace, "samples_in_instances"));
    assert_int_equal(t.samples_read, (uint64_t)tu_truth_num(burst_trace, "samples"));
    assert_int_equal(t.nevents, (uint64_t)tu_truth_num(burst_trace, "events"));
    assert_int_equal(t.sample_period_ns, (uint64_t)tu_truth_num(burst_trace, "period_ns"));
    /* the tracer's sampling statistics are not counters; their lost samples are summed */
    assert_int_equal(t.samples_lost, (uint64_t)tu_truth_num(burst_trace, "samples_lost"));
    assert_int_equal(t.samples_lost, 5 * 4);
    assert_int_equal(t.nsets, 3);
    size_t nstats = 0;
    for (size_t s = 0; s < t.nsets; s++)
        nstats += (size_t)t.sets[s].statistics;
    assert_int_equal(nstats, 1);
    assert_int_equal(t.ncounters, 3);
    assert_string_equal(t.counters[0].name, "instructions");
    assert_string_equal(t.counters[2].name, "page-faults");
    /* every location: balanced, rank and thread from the ID */
    for (size_t i = 0; i < t.nlocations; i++) {
        assert_int_equal(t.locations[i].unbalanced, 0);
        assert_int_equal(t.locations[i].unclosed, 0);
        assert_int_equal(t.locations[i].thread, hca_location_thread(t.locations[i].id));
        assert_int_equal(t.locations[i].rank, t.locations[i].id & 0xffffffffu);
        if (i)
            assert_true(t.locations[i].id > t.locations[i - 1].id);
    }
    /* instances of a region are ordered by location, then time */
    for (size_t i = 1; i < r->ninstances; i++) {
        const fold_instance *a = &r->instances[i - 1], *b = &r->instances[i];
        assert_true(a->location < b->location || (a->location == b->location && a->t1 <= b->t0));
    }
    /* the closing-to-opening bursts are a key of their own */
    char back[256];
    snprintf(back, sizeof(back), "MPI_Allreduce@app.c:40 -> MPI_Allreduce@app.c:30");
    const fold_region *b = fold_region_find(&t, back, 0);
    assert_non_null(b);
    assert_int_equal(b->ninstances, r->ninstances - t.nlocations);
    fold_trace_free(&t);
}

/* With a jitter well inside the rule (+-0.4 %), exactly the injected outliers are excluded. */
static void user_regions_equal_truth(void **state)
{
    (void)state;
    char *dir = tu_synth("--kind user --ranks 1 --threads 3 --instances 120 --outliers 0.05 --seed 3 "
                         "--duration-jitter 0.004 " COUNTERS);
    assert_non_null(dir);
    fold_trace t;
    read_ok(dir, 2, &t);
    const fold_region *r = fold_region_find(&t, "iteration", 0);
    assert_non_null(r);
    assert_int_equal(r->kind, FOLD_KIND_USER);
    assert_int_equal(t.nfolds, 1);
    assert_int_equal(r->ninstances, 360);
    assert_int_equal(r->nexcluded, (size_t)tu_truth_num(dir, "outliers"));
    assert_int_equal(r->nexcluded, (size_t)tu_truth_num(dir, "excluded_expected"));
    assert_int_equal(r->nused, (size_t)tu_truth_num(dir, "used_instances"));
    assert_int_equal(r->nsamples, (size_t)tu_truth_num(dir, "samples_in_instances"));
    assert_int_equal(r->nsamples_used, (size_t)tu_truth_num(dir, "samples_in_used"));
    assert_int_equal(r->nsamples_used, (size_t)tu_truth_num(dir, "samples_in_used"));
    /* samples between iterations are not kept */
    assert_true(t.samples_kept == r->nsamples);
    assert_true(t.samples_read > t.samples_kept);
    fold_trace_free(&t);
    tu_remove(dir);
}

/* Instance times are in the global clock: the synthesizer wrote rank r's events
 * shifted by -2500 r ns with a clock offset of +2500 r ns. */
static void clock_offsets_are_applied(void **state)
{
    (void)state;
    for (int apply = 1; apply >= 0; apply--) {
        fold_read_options o;
        fold_read_defaults(&o);
        o.clock_offsets = apply;
        fold_trace t;
        char err[512];
        assert_int_equal(fold_read(burst_trace, &o, &t, err, sizeof(err)), FOLD_OK);
        assert_int_equal(fold_regions_build(&t, NULL, err, sizeof(err)), 0);
        char name[256];
        tu_truth(burst_trace, "region", name, sizeof(name));
        const fold_region *r = fold_region_find(&t, name, 0);
        assert_non_null(r);
        for (size_t i = 0; i < t.nlocations; i++) {
            char key[64];
            snprintf(key, sizeof(key), "first_t0.%llu", (unsigned long long)t.locations[i].id);
            uint64_t want = (uint64_t)tu_truth_num(burst_trace, key);
            if (!apply)
                want -= 2500u * t.locations[i].rank;
            const fold_instance *first = NULL;
            for (size_t k = 0; k < r->ninstances && !first; k++)
                if (r->instances[k].location == i)
                    first = &r->instances[k];
            assert_non_null(first);
            assert_int_equal(first ? first->t0 : 0, want);
        }
        fold_trace_free(&t);
    }
}

static void assert_same_values(const double *a, const double *b, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (isnan(a[i]))
            assert_true(isnan(b[i]));
        else
            assert_true(a[i] == b[i]);
    }
}

/* The same instances and samples, at the same times with the same values
 * (`events`: and the same numbers of events read). */
static void assert_same_content(const fold_trace *a, const fold_trace *b, int events)
{
    assert_int_equal(a->nlocations, b->nlocations);
    if (events)
        assert_int_equal(a->nevents, b->nevents);
    assert_int_equal(a->ncounters, b->ncounters);
    assert_int_equal(a->nfolds, b->nfolds);
    size_t nc = a->ncounters;
    for (size_t i = 0; i < a->nlocations; i++) {
        const fold_location *x = &a->locations[i], *y = &b->locations[i];
        assert_int_equal(x->id, y->id);
        if (events)
            assert_int_equal(x->nevents, y->nevents);
        assert_int_equal(x->nsamples, y->nsamples);
        for (size_t s = 0; s < x->nsamples; s++) {
            assert_int_equal(x->samples[s].t, y->samples[s].t);
            assert_int_equal(x->samples[s].context, y->samples[s].context);
            assert_same_values(x->samples[s].values, y->samples[s].values, nc);
        }
    }
    for (size_t f = 0; f < a->nfolds; f++) {
        const fold_region *x = &a->folds[f], *y = &b->folds[f];
        assert_string_equal(x->name, y->name);
        assert_int_equal(x->ninstances, y->ninstances);
        assert_int_equal(x->nexcluded, y->nexcluded);
        for (size_t i = 0; i < x->ninstances; i++) {
            const fold_instance *p = &x->instances[i], *q = &y->instances[i];
            assert_int_equal(p->t0, q->t0);
            assert_int_equal(p->t1, q->t1);
            assert_int_equal(p->location, q->location);
            assert_int_equal(p->first_sample, q->first_sample);
            assert_int_equal(p->nsamples, q->nsamples);
            assert_int_equal(p->excluded, q->excluded);
            assert_same_values(p->c0, q->c0, nc);
            assert_same_values(p->c1, q->c1, nc);
        }
    }
}

static void assert_same_trace(const fold_trace *a, const fold_trace *b)
{
    assert_same_content(a, b, 1);
}

static void jobs_give_identical_results(void **state)
{
    (void)state;
    fold_trace one, two, many;
    read_ok(burst_trace, 1, &one);
    read_ok(burst_trace, 2, &two);
    read_ok(burst_trace, 8, &many); /* more jobs than locations */
    assert_same_trace(&one, &two);
    assert_same_trace(&one, &many);
    fold_trace_free(&one);
    fold_trace_free(&two);
    fold_trace_free(&many);
}

static void mpi_calls_as_regions(void **state)
{
    (void)state;
    fold_read_options o;
    fold_read_defaults(&o);
    o.mpi_regions = 1;
    fold_trace t;
    char err[512];
    assert_int_equal(fold_read(burst_trace, &o, &t, err, sizeof(err)), FOLD_OK);
    assert_int_equal(fold_regions_build(&t, NULL, err, sizeof(err)), 0);
    size_t mpi = 0;
    for (size_t f = 0; f < t.nfolds; f++)
        if (t.folds[f].kind == FOLD_KIND_MPI) {
            mpi += t.folds[f].ninstances;
            assert_non_null(strstr(t.folds[f].name, "MPI_Allreduce@app.c:"));
        }
    assert_int_equal(mpi, 2 * (size_t)tu_truth_num(burst_trace, "instances"));
    fold_trace_free(&t);
}

typedef struct {
    uint64_t calls, done, total;
} progress_seen;

static void on_progress(void *user, uint64_t done, uint64_t total)
{
    progress_seen *p = user;
    assert_true(done >= p->done);
    p->calls++;
    p->done = done;
    p->total = total;
}

static void progress_is_reported(void **state)
{
    (void)state;
    progress_seen seen = { 0, 0, 0 };
    fold_read_options o;
    fold_read_defaults(&o);
    o.jobs = 2;
    o.progress = on_progress;
    o.progress_user = &seen;
    fold_trace t;
    char err[512];
    assert_int_equal(fold_read(burst_trace, &o, &t, err, sizeof(err)), FOLD_OK);
    assert_true(seen.calls >= t.nlocations);
    assert_int_equal(seen.done, t.nevents);
    assert_int_equal(seen.total, t.nevents);
    fold_trace_free(&t);
}

/* Locations read: each reported once, counted 1, 2, ... up to their number. */
static void on_location(void *user, uint64_t done, uint64_t total)
{
    progress_seen *p = user;
    assert_int_equal(done, p->done + 1);
    p->calls++;
    p->done = done;
    p->total = total;
}

static void locations_are_counted(void **state)
{
    (void)state;
    progress_seen seen = { 0, 0, 0 };
    fold_read_options o;
    fold_read_defaults(&o);
    o.jobs = 2;
    o.location_progress = on_location;
    o.progress_user = &seen;
    fold_trace t;
    char err[512];
    assert_int_equal(fold_read(burst_trace, &o, &t, err, sizeof(err)), FOLD_OK);
    assert_true(t.nlocations >= 2);
    assert_int_equal(seen.calls, t.nlocations);
    assert_int_equal(seen.done, t.nlocations);
    assert_int_equal(seen.total, t.nlocations);
    fold_trace_free(&t);
}

/* fold_read fails with status and a one-line message that names the problem. */
static void expect_failure(const char *path, int status, const char *words)
{
    fold_trace t;
    char err[512];
    memset(err, 'x', sizeof(err));
    int rc = fold_read(path, NULL, &t, err, sizeof(err));
    if (rc != status)
        fail_msg("%s: status %d (%s), expected %d", path, rc, err, status);
    assert_true(strlen(err) > 10);
    assert_null(strchr(err, '\n'));
    if (!strstr(err, words))
        fail_msg("%s: message '%s' lacks '%s'", path, err, words);
    assert_int_equal(t.nlocations, 0);
    fold_trace_free(&t);
}

static void copy_trace(const char *from, const char *to)
{
    char cmd[9000];
    snprintf(cmd, sizeof(cmd), "rm -rf %s && cp -r %s %s", to, from, to);
    assert_int_equal(system(cmd), 0);
}

static void bad_inputs_fail_cleanly(void **state)
{
    (void)state;
    char tmpl[] = "/tmp/hcafoldtest.XXXXXX";
    assert_non_null(mkdtemp(tmpl));
    char path[4096], copy[4096], cmd[9000];

    expect_failure("/nonexistent/trace", FOLD_ERR_OPEN, "No such file");
    snprintf(path, sizeof(path), "%s/notatrace", tmpl);
    snprintf(cmd, sizeof(cmd), "mkdir %s && echo hello > %s/readme.txt", path, path);
    assert_int_equal(system(cmd), 0);
    expect_failure(path, FOLD_ERR_NOT_OTF2, "not an OTF2 archive");
    snprintf(path, sizeof(path), "%s/notes.txt", tmpl);
    snprintf(cmd, sizeof(cmd), "echo 'just text' > %s", path);
    assert_int_equal(system(cmd), 0);
    expect_failure(path, FOLD_ERR_NOT_OTF2, "not an OTF2 archive");
    snprintf(path, sizeof(path), "%s/fake.otf2", tmpl);
    snprintf(cmd, sizeof(cmd), "echo 'just text' > %s", path);
    assert_int_equal(system(cmd), 0);
    expect_failure(path, FOLD_ERR_NOT_OTF2, "not an OTF2 archive");

    snprintf(copy, sizeof(copy), "%s/copy", tmpl);
    copy_trace(burst_trace, copy);
    snprintf(cmd, sizeof(cmd), "truncate -s 3000 %s/traces/1.evt", copy);
    assert_int_equal(system(cmd), 0);
    expect_failure(copy, FOLD_ERR_CORRUPT, "location 1");

    copy_trace(burst_trace, copy);
    snprintf(cmd, sizeof(cmd), "rm %s/traces/4294967296.evt", copy);
    assert_int_equal(system(cmd), 0);
    expect_failure(copy, FOLD_ERR_CORRUPT, "location 4294967296");

    copy_trace(burst_trace, copy);
    snprintf(cmd, sizeof(cmd), "rm %s/traces/1.def", copy);
    assert_int_equal(system(cmd), 0);
    expect_failure(copy, FOLD_ERR_CORRUPT, "local definitions");

    copy_trace(burst_trace, copy);
    snprintf(cmd, sizeof(cmd), "truncate -s 300 %s/traces.def", copy);
    assert_int_equal(system(cmd), 0);
    expect_failure(copy, FOLD_ERR_CORRUPT, "global definitions");

    copy_trace(burst_trace, copy);
    snprintf(cmd, sizeof(cmd), "truncate -s 20 %s/traces.otf2", copy);
    assert_int_equal(system(cmd), 0);
    expect_failure(copy, FOLD_ERR_NOT_OTF2, "not an OTF2 archive");

    /* bytes overwritten in the middle of an event file: an error or a result, never a crash */
    for (int k = 0; k < 40; k++) {
        copy_trace(burst_trace, copy);
        snprintf(cmd, sizeof(cmd),
                 "printf '\\377\\001\\177\\000\\200' | dd of=%s/traces/0.evt bs=1 seek=%d conv=notrunc 2>/dev/null",
                 copy, 200 + 97 * k);
        assert_int_equal(system(cmd), 0);
        fold_trace t;
        char err[512];
        int rc = fold_read(copy, NULL, &t, err, sizeof(err));
        assert_true(rc == FOLD_OK || rc == FOLD_ERR_CORRUPT);
        if (rc == FOLD_OK)
            assert_int_equal(fold_regions_build(&t, NULL, err, sizeof(err)), 0);
        fold_trace_free(&t);
    }
    snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpl);
    assert_int_equal(system(cmd), 0);
}

/* --fine-factor: the same instances, sampled K times more often. */
static void fine_factor_keeps_the_instances(void **state)
{
    (void)state;
    char *coarse = tu_synth("--instances 60 --period-ms 4 --seed 11 " COUNTERS);
    char *fine = tu_synth("--instances 60 --period-ms 4 --seed 11 --fine-factor 100 " COUNTERS);
    assert_non_null(coarse);
    assert_non_null(fine);
    fold_trace a, b;
    read_ok(coarse, 1, &a);
    read_ok(fine, 1, &b);
    char name[256];
    tu_truth(coarse, "region", name, sizeof(name));
    const fold_region *ra = fold_region_find(&a, name, 0), *rb = fold_region_find(&b, name, 0);
    assert_non_null(ra);
    assert_non_null(rb);
    assert_int_equal(ra->ninstances, rb->ninstances);
    for (size_t i = 0; i < ra->ninstances; i++) {
        assert_int_equal(ra->instances[i].t0, rb->instances[i].t0);
        assert_int_equal(ra->instances[i].t1, rb->instances[i].t1);
        assert_same_values(ra->instances[i].c0, rb->instances[i].c0, a.ncounters);
        assert_same_values(ra->instances[i].c1, rb->instances[i].c1, a.ncounters);
    }
    double ratio = (double)rb->nsamples / (double)ra->nsamples;
    assert_true(ratio > 90 && ratio < 110);
    assert_int_equal(b.sample_period_ns, a.sample_period_ns / 100);
    fold_trace_free(&a);
    fold_trace_free(&b);
    tu_remove(coarse);
    tu_remove(fine);
}

/* A tracer whose samples cost 40 us each (hcasynth --sample-cost-us, recorded
 * as "tool:" metrics): read as if the cost were absent, the very trace without
 * it: every instance and sample at the same time, task-clock the same, the
 * same exclusions; the removed time is each instance's samples x 40 us. */
static void tool_time_is_removed(void **state)
{
    (void)state;
    const char *args = "--ranks 2 --instances 400 --duration-ms 0.1 --duration-jitter 0.02 --outliers 0.02 "
                       "--period-ms 2 --period-jitter 0.5 --counter task-clock:0-1=1e9 "
                       "--counter instructions:0-0.5=1e9,0.5-1=3e9 --seed 5 ";
    char with[512];
    snprintf(with, sizeof(with), "%s--sample-cost-us 40", args);
    char *plain = tu_synth(args), *costly = tu_synth(with);
    assert_non_null(plain);
    assert_non_null(costly);
    fold_trace a, b;
    read_ok(plain, 1, &a);
    read_ok(costly, 2, &b);
    assert_int_equal(a.tool_time, 0);
    assert_int_equal(b.tool_time, 1);
    assert_same_content(&a, &b, 0); /* tool:* are not counters; more events */
    size_t with_samples = 0;
    for (size_t f = 0; f < b.nfolds; f++)
        for (size_t i = 0; i < b.folds[f].ninstances; i++) {
            const fold_instance *q = &b.folds[f].instances[i];
            assert_int_equal(q->tool_ns, 40000 * q->nsamples);
            with_samples += q->nsamples > 0;
        }
    assert_true(with_samples > 50);
    fold_trace_free(&a);
    fold_trace_free(&b);
    tu_remove(plain);
    tu_remove(costly);
}

static void time_only_trace(void **state)
{
    (void)state;
    char *dir = tu_synth("--instances 40 --ranks 2");
    assert_non_null(dir);
    fold_trace t;
    read_ok(dir, 2, &t);
    assert_int_equal(t.ncounters, 0);
    char name[256];
    tu_truth(dir, "region", name, sizeof(name));
    const fold_region *r = fold_region_find(&t, name, 0);
    assert_non_null(r);
    assert_int_equal(r->ninstances, 80);
    assert_int_equal(r->nsamples, (size_t)tu_truth_num(dir, "samples_in_instances"));
    fold_trace_free(&t);
    tu_remove(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(synth_output_is_valid_otf2),
        cmocka_unit_test(synth_is_deterministic),
        cmocka_unit_test(counts_equal_truth),
        cmocka_unit_test(user_regions_equal_truth),
        cmocka_unit_test(clock_offsets_are_applied),
        cmocka_unit_test(jobs_give_identical_results),
        cmocka_unit_test(mpi_calls_as_regions),
        cmocka_unit_test(progress_is_reported),
        cmocka_unit_test(locations_are_counted),
        cmocka_unit_test(bad_inputs_fail_cleanly),
        cmocka_unit_test(fine_factor_keeps_the_instances),
        cmocka_unit_test(time_only_trace),
        cmocka_unit_test(tool_time_is_removed),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
