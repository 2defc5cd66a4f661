/* test_thin.c: unit tests of what the tracer records of each region key:
 * HCATRACE_FILTER's patterns (instrument/hct_filter.c), the per-thread key
 * table and its decisions (instrument/hct_thin_keys.c), the window of a
 * kept-back enter's counter read (instrument/hct_thin_counters.h), and the parsing of
 * HCATRACE_THIN and HCATRACE_FILTER (instrument/hct_config.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "hct_config.h"
#include "hct_delivery.h"
#include "hct_filter.h"
#include "hct_thin_keys.h"
#include "hct_thin_counters.h"

static int nreported;
static char last_report[512];

static void report(const char *line)
{
    nreported++;
    snprintf(last_report, sizeof(last_report), "%s", line);
}

static void filter_lists_and_globs(void **state)
{
    (void)state;
    static hct_filter f;
    char why[256];
    assert_int_equal(hct_filter_parse(&f, "omp crit*, tiny ,MPI_[TI]est", why, sizeof(why)), 0);
    assert_string_equal(f.pattern[0], "omp crit*"); /* spaces inside kept, around dropped */
    assert_int_equal(f.n, 3);
    assert_string_equal(f.pattern[1], "tiny");
    assert_true(hct_filter_match(&f, "omp critical"));
    assert_true(hct_filter_match(&f, "tiny"));
    assert_true(hct_filter_match(&f, "MPI_Test"));
    assert_true(hct_filter_match(&f, "MPI_Iest"));
    assert_false(hct_filter_match(&f, "MPI_Testall"));
    assert_false(hct_filter_match(&f, "tiny2"));
    assert_false(hct_filter_match(&f, "omp barrier"));
}

static void filter_bad_syntax_says_why(void **state)
{
    (void)state;
    static hct_filter f;
    char why[256];
    const char *bad[] = { "a,,b", "", ",a", "a,", "MPI_[TI", " , " };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        why[0] = 0;
        assert_int_equal(hct_filter_parse(&f, bad[i], why, sizeof(why)), -1);
        assert_true(why[0] != 0);
    }
    char many[HCT_FILTER_MAX * 3 + 8] = "";
    for (int i = 0; i <= HCT_FILTER_MAX; i++)
        strcat(many, i ? ",x" : "x");
    assert_int_equal(hct_filter_parse(&f, many, why, sizeof(why)), -1);
    assert_non_null(strstr(why, "patterns"));
}

static void filter_from_a_file(void **state)
{
    (void)state;
    static hct_filter f;
    char why[256], path[] = "/tmp/test_thin_filterXXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *out = fdopen(fd, "w");
    fputs("# regions left out\n\n  omp [critical  \nMPI_Iprobe\n", out);
    fclose(out);
    assert_int_equal(hct_filter_parse(&f, path, why, sizeof(why)), -1);
    assert_non_null(strstr(why, ":3:")); /* the file's line */
    out = fopen(path, "w");
    fputs("# regions left out\n\n  omp critical  \nMPI_Iprobe\n", out);
    fclose(out);
    assert_int_equal(hct_filter_parse(&f, path, why, sizeof(why)), 0);
    assert_int_equal(f.n, 2);
    assert_true(hct_filter_match(&f, "omp critical"));
    assert_true(hct_filter_match(&f, "MPI_Iprobe"));
    out = fopen(path, "w");
    fputs("# nothing\n", out);
    fclose(out);
    assert_int_equal(hct_filter_parse(&f, path, why, sizeof(why)), -1);
    unlink(path);
    assert_int_equal(hct_filter_parse(&f, path, why, sizeof(why)), -1);
    assert_non_null(strstr(why, "cannot read"));
}

static void first_instances_in_full_then_lazy(void **state)
{
    (void)state;
    static hct_thin_keys k;
    memset(&k, 0, sizeof(k));
    hct_thin_slot *s = hct_thin_slot_of(&k, 7, "a", NULL);
    assert_non_null(s);
    assert_ptr_equal(hct_thin_slot_of(&k, 7, "a", NULL), s);
    for (int i = 0; i < 3; i++)
        assert_int_equal(hct_thin_decide(s, 3), HCT_THIN_FULL);
    assert_int_equal(hct_thin_decide(s, 3), HCT_THIN_LAZY);
    assert_int_equal(hct_thin_decide(s, 3), HCT_THIN_LAZY);
    assert_int_equal(s->seen, 5);
    s->nests = 1; /* something nested in an instance kept back: in full from then on */
    assert_int_equal(hct_thin_decide(s, 3), HCT_THIN_FULL);
    s->nests = 0;
    hct_thin_count(s, 40);
    hct_thin_count(s, 2);
    assert_int_equal(s->thinned, 2);
    assert_int_equal(s->time_ns, 42);
    /* full = 0: thinning off */
    hct_thin_slot *o = hct_thin_slot_of(&k, 8, "b", NULL);
    for (int i = 0; i < 5; i++)
        assert_int_equal(hct_thin_decide(o, 0), HCT_THIN_FULL);
}

/* The cost rule: a key of which more than a quarter of HCT_THIN_PROBE probed
 * instances lasted less than HCT_THIN_COST_MULT times the mean cost of writing
 * one is written in full for the instances probed until that was certain only
 * (the 26th short one); a key with long instances, for the first `full`; the
 * lower quartile decides, not the mean. */
static void probe(hct_thin_slot *s, unsigned full, uint64_t duration_ns, uint64_t cost_ns)
{
    assert_int_equal(hct_thin_decide(s, full), HCT_THIN_FULL);
    hct_thin_probe(s, duration_ns, cost_ns);
}

static void short_keys_thinned_after_the_probe(void **state)
{
    (void)state;
    static hct_thin_keys k;
    memset(&k, 0, sizeof(k));
    /* 4 us instances, 2 us to write one (LULESH's parallel regions): cheap
     * at the 26th, which ends the probe; the 27th is kept back */
    hct_thin_slot *c = hct_thin_slot_of(&k, 1, "c", NULL);
    for (unsigned i = 0; i < HCT_THIN_PROBE / 4 + 1; i++) {
        assert_int_equal(c->cheap, 0);
        probe(c, 1000, 4000, 2000);
    }
    assert_int_equal(c->cheap, HCT_THIN_PROBE / 4 + 1);
    assert_int_equal(c->probed, HCT_THIN_PROBE);
    assert_int_equal(c->nshort, HCT_THIN_PROBE / 4 + 1);
    assert_int_equal(hct_thin_decide(c, 1000), HCT_THIN_LAZY);
    hct_thin_probe(c, 1, 1); /* no more probes: the decision stands */
    assert_int_equal(c->probed, HCT_THIN_PROBE);
    c->nests = 1; /* something nested: in full again */
    assert_int_equal(hct_thin_decide(c, 1000), HCT_THIN_FULL);
    /* a user's N below the probe: the N decides */
    hct_thin_slot *u = hct_thin_slot_of(&k, 2, "u", NULL);
    for (unsigned i = 0; i < HCT_THIN_PROBE; i++)
        hct_thin_probe(u, 4000, 2000);
    u->seen = 0;
    for (int i = 0; i < 10; i++)
        assert_int_equal(hct_thin_decide(u, 10), HCT_THIN_FULL);
    assert_int_equal(hct_thin_decide(u, 10), HCT_THIN_LAZY);
    /* 1 ms instances for 2 us: in full up to `full` */
    hct_thin_slot *l = hct_thin_slot_of(&k, 3, "l", NULL);
    for (unsigned i = 0; i < HCT_THIN_PROBE; i++)
        probe(l, 1000, 1000000, 2000);
    assert_int_equal(l->cheap, 0);
    for (unsigned i = HCT_THIN_PROBE; i < 1000; i++)
        assert_int_equal(hct_thin_decide(l, 1000), HCT_THIN_FULL);
    assert_int_equal(hct_thin_decide(l, 1000), HCT_THIN_LAZY);
    /* the lower quartile: 25 short and 75 long instances are not cheap, 26 short are */
    hct_thin_slot *m = hct_thin_slot_of(&k, 4, "m", NULL);
    for (unsigned i = 0; i < HCT_THIN_PROBE; i++)
        probe(m, 1000, i < 25 ? 10 : 1000000, 2000);
    assert_int_equal(m->cheap, 0);
    hct_thin_slot *n = hct_thin_slot_of(&k, 5, "n", NULL);
    for (unsigned i = 0; i < HCT_THIN_PROBE; i++)
        probe(n, 1000, i < 74 ? 1000000 : 10, 2000);
    assert_int_equal(n->cheap, HCT_THIN_PROBE);
    assert_int_equal(hct_thin_decide(n, 1000), HCT_THIN_LAZY);
    /* the 26th short instance the 40th: its first 40 in full */
    hct_thin_slot *e = hct_thin_slot_of(&k, 8, "e", NULL);
    for (unsigned i = 0; i < 40; i++)
        probe(e, 1000, i < 14 ? 1000000 : 10, 2000);
    assert_int_equal(e->nshort, 26);
    assert_int_equal(e->cheap, 40);
    assert_int_equal(hct_thin_decide(e, 1000), HCT_THIN_LAZY);
    /* at the boundary: 50 x the mean cost is not short, just below is */
    hct_thin_slot *b = hct_thin_slot_of(&k, 6, "b", NULL);
    for (unsigned i = 0; i < HCT_THIN_PROBE; i++)
        hct_thin_probe(b, HCT_THIN_COST_MULT * 2000, 2000);
    assert_int_equal(b->nshort, 0);
    hct_thin_slot *d = hct_thin_slot_of(&k, 7, "d", NULL);
    for (unsigned i = 0; i < HCT_THIN_PROBE / 4 + 1; i++)
        hct_thin_probe(d, HCT_THIN_COST_MULT * 2000 - 1, 2000);
    assert_int_equal(d->nshort, HCT_THIN_PROBE / 4 + 1);
    assert_int_equal(d->cheap, HCT_THIN_PROBE / 4 + 1);
}

/* A cost above HCT_DELIVERY_MAX held a preemption or a one-time wait: it
 * counts as the mean cost so far (the first as HCT_DELIVERY_MAX), so that a
 * key of 1 ms instances costing 2 us each stays a long one whatever the
 * first instance waited for (82 ms seen on a loaded machine: counted whole,
 * 50 times the mean cost stayed at 41 ms or more through the probe and the
 * key was taken for a cheap one) or a later one was preempted in. */
static void preempted_costs_left_out(void **state)
{
    (void)state;
    static hct_thin_keys k;
    memset(&k, 0, sizeof(k));
    hct_thin_slot *f = hct_thin_slot_of(&k, 1, "f", NULL);
    probe(f, 1000, 1000000, 82000000);
    assert_int_equal(f->cost_ns, HCT_DELIVERY_MAX);
    for (unsigned i = 1; i < HCT_THIN_PROBE; i++)
        probe(f, 1000, 1000000, i % 10 ? 2000 : 10000000);
    assert_true(f->nshort < HCT_THIN_PROBE / 4);
    assert_int_equal(f->cheap, 0);
    /* plausible costs are counted as they are: the mean of 2 us and 250 us */
    hct_thin_slot *p = hct_thin_slot_of(&k, 2, "p", NULL);
    probe(p, 1000, 1000000, 2000);
    probe(p, 1000, 1000000, HCT_DELIVERY_MAX);
    assert_int_equal(p->cost_ns, 2000 + HCT_DELIVERY_MAX);
    probe(p, 1000, 1000000, HCT_DELIVERY_MAX + 1); /* the mean so far */
    assert_int_equal(p->cost_ns, (2000 + HCT_DELIVERY_MAX) * 3 / 2);
}

static void filtered_keys_and_a_full_table(void **state)
{
    (void)state;
    static hct_thin_keys k;
    static hct_filter f;
    char why[64];
    memset(&k, 0, sizeof(k));
    assert_int_equal(hct_filter_parse(&f, "omp*", why, sizeof(why)), 0);
    hct_thin_slot *s = hct_thin_slot_of(&k, 0, "omp critical", &f);
    assert_int_equal(hct_thin_decide(s, 1000), HCT_THIN_FILTER);
    hct_thin_slot *u = hct_thin_slot_of(&k, 1, NULL, &f); /* a key without a name: never filtered */
    assert_int_equal(hct_thin_decide(u, 1000), HCT_THIN_FULL);
    for (uint32_t key = 2; key < HCT_THIN_SLOTS; key++)
        assert_non_null(hct_thin_slot_of(&k, key, "x", &f));
    assert_null(hct_thin_slot_of(&k, 100000, "y", &f));
    assert_non_null(hct_thin_slot_of(&k, 0, "omp critical", &f)); /* known keys are still found */
}

static void thin_and_filter_variables(void **state)
{
    (void)state;
    unsigned n;
    uint64_t ns;
    assert_int_equal(hct_config_parse_thin("off", &n, &ns), 0);
    assert_int_equal(n, 0);
    assert_int_equal(hct_config_parse_thin("200", &n, &ns), 0);
    assert_int_equal(n, 200);
    assert_int_equal(ns, HCT_DEFAULT_THIN_NS);
    assert_int_equal(hct_config_parse_thin("10,1ms", &n, &ns), 0);
    assert_int_equal(ns, 1000000);
    assert_int_equal(hct_config_parse_thin("10,20", &n, &ns), 0); /* a bare duration in us */
    assert_int_equal(ns, 20000);
    assert_int_equal(hct_config_parse_thin("0", &n, &ns), 0); /* off */
    assert_int_equal(n, 0);
    assert_int_equal(hct_config_parse_thin("-3", &n, &ns), -1);
    assert_int_equal(hct_config_parse_thin("10,1parsec", &n, &ns), -1);
    assert_int_equal(hct_config_parse_thin("x", &n, &ns), -1);
    assert_int_equal(hct_config_parse_thin(",1ms", &n, &ns), -1);

    hct_config cfg;
    char *env[] = { "HCATRACE_THIN=50,10us", "HCATRACE_FILTER=tiny,omp*", NULL };
    nreported = 0;
    assert_int_equal(hct_config_read(&cfg, env, report), 0);
    assert_int_equal(cfg.enable, 1);
    assert_int_equal(cfg.thin_full, 50);
    assert_int_equal(cfg.thin_ns, 10000);
    assert_int_equal(cfg.thin_cost, 0); /* the user's N: no cost rule */
    assert_non_null(cfg.filter);
    assert_true(hct_filter_match(cfg.filter, "omp barrier"));

    char *defaults[] = { NULL };
    assert_int_equal(hct_config_read(&cfg, defaults, report), 0);
    assert_int_equal(cfg.thin_full, HCT_DEFAULT_THIN_FULL);
    assert_int_equal(cfg.thin_cost, 1); /* HCATRACE_THIN unset: the cost rule */
    assert_null(cfg.filter);

    /* a bad filter: one line, and no trace (even when HCATRACE_ENABLE comes after it) */
    char *bad[] = { "HCATRACE_FILTER=MPI_[Test", "HCATRACE_ENABLE=1", NULL };
    nreported = 0;
    assert_int_equal(hct_config_read(&cfg, bad, report), 1);
    assert_int_equal(nreported, 1);
    assert_int_equal(cfg.enable, 0);
    assert_non_null(strstr(last_report, "HCATRACE_FILTER"));
    assert_non_null(strstr(last_report, "untraced"));
}

/* The window within which a kept-back enter reads its counters (the next
 * sample due then): at least HCATRACE_THIN's default DURATION, else a
 * multiple of the key's mean kept-back duration. */
static void read_window_follows_the_mean_duration(void **state)
{
    (void)state;
    assert_int_equal(hct_thin_read_window(0, 0), 50000);          /* nothing seen yet: the floor */
    assert_int_equal(hct_thin_read_window(3000 * 100, 100), 50000); /* 3 us instances: the floor */
    assert_int_equal(hct_thin_read_window(4000 * 100, 100), 64000); /* 4 us: 16 x */
    assert_int_equal(hct_thin_read_window(3125 * 10, 10), 50000);  /* 16 x mean = floor */
    assert_int_equal(hct_thin_read_window(100000 * 3, 3), 1600000); /* 100 us: 16 x */
    assert_int_equal(hct_thin_read_window(UINT64_C(2000000) * 1000, 1000), 32000000); /* 2 ms: 32 ms */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(filter_lists_and_globs),
        cmocka_unit_test(filter_bad_syntax_says_why),
        cmocka_unit_test(filter_from_a_file),
        cmocka_unit_test(first_instances_in_full_then_lazy),
        cmocka_unit_test(short_keys_thinned_after_the_probe),
        cmocka_unit_test(preempted_costs_left_out),
        cmocka_unit_test(filtered_keys_and_a_full_table),
        cmocka_unit_test(thin_and_filter_variables),
        cmocka_unit_test(read_window_follows_the_mean_duration),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
