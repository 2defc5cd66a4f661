/* test_sampling_config.c: unit tests of the sampling and counter variables of
 * instrument/hct_config.c: HCATRACE_SAMPLING (PERIOD[,JITTER] or off),
 * HCATRACE_COUNTERS_ROTATE (instances and/or time), HCATRACE_SAMPLING_BUFFER,
 * HCATRACE_COUNTERS (kept as given; checked later against the PMU), durations,
 * and one line per bad value with the defaults kept. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "hct_config.h"

static char reported[8][512];
static int nreported;

static void report(const char *line)
{
    if (nreported < 8)
        snprintf(reported[nreported++], sizeof(reported[0]), "%s", line);
}

static int read_env(hct_config *cfg, char **env)
{
    nreported = 0;
    return hct_config_read(cfg, env, report);
}

static void defaults(void **state)
{
    (void)state;
    hct_config cfg;
    char *env[] = { NULL };
    assert_int_equal(read_env(&cfg, env), 0);
    assert_int_equal(cfg.sampling, 1);
    assert_int_equal(cfg.sampling_period_ns, HCT_DEFAULT_SAMPLING_PERIOD_NS);
    assert_int_equal(cfg.sampling_jitter_pct, 10);
    assert_int_equal(cfg.sampling_buffer_kib, 1024);
    assert_null(cfg.counters);
    assert_int_equal(cfg.counters_off, 0);
    assert_int_equal(cfg.rotate_instances, 0);
    assert_int_equal(cfg.rotate_ns, 100000000ull);
}

static void durations(void **state)
{
    (void)state;
    uint64_t ns;
    assert_int_equal(hct_config_parse_duration("20ms", 1, &ns), 0);
    assert_int_equal(ns, 20000000ull);
    assert_int_equal(hct_config_parse_duration("0.5s", 1, &ns), 0);
    assert_int_equal(ns, 500000000ull);
    assert_int_equal(hct_config_parse_duration("250us", 1, &ns), 0);
    assert_int_equal(ns, 250000ull);
    assert_int_equal(hct_config_parse_duration("15", 1000000, &ns), 0);
    assert_int_equal(ns, 15000000ull);
    assert_int_equal(hct_config_parse_duration("15min", 1, &ns), -1);
    assert_int_equal(hct_config_parse_duration("-3ms", 1, &ns), -1);
    assert_int_equal(hct_config_parse_duration("ms", 1, &ns), -1);
    assert_int_equal(hct_config_parse_duration("nan", 1, &ns), -1);
}

static void sampling_values(void **state)
{
    (void)state;
    int on;
    uint64_t p;
    unsigned j;
    assert_int_equal(hct_config_parse_sampling("off", &on, &p, &j), 0);
    assert_int_equal(on, 0);
    assert_int_equal(hct_config_parse_sampling("on", &on, &p, &j), 0);
    assert_int_equal(on, 1);
    assert_int_equal(p, HCT_DEFAULT_SAMPLING_PERIOD_NS);
    assert_int_equal(hct_config_parse_sampling("10ms", &on, &p, &j), 0);
    assert_int_equal(p, 10000000ull);
    assert_int_equal(j, 10);
    assert_int_equal(hct_config_parse_sampling("50,20%", &on, &p, &j), 0);
    assert_int_equal(p, 50000000ull);
    assert_int_equal(j, 20);
    assert_int_equal(hct_config_parse_sampling("20ms,0", &on, &p, &j), 0);
    assert_int_equal(j, 0);
    assert_int_equal(hct_config_parse_sampling("20ms,2ms", &on, &p, &j), 0);
    assert_int_equal(j, 10);
    assert_int_equal(hct_config_parse_sampling("0.5ms", &on, &p, &j), -1); /* coarse sampling: >= 1 ms */
    assert_int_equal(hct_config_parse_sampling("11s", &on, &p, &j), -1);
    assert_int_equal(hct_config_parse_sampling("20ms,60%", &on, &p, &j), -1);
    assert_int_equal(hct_config_parse_sampling("20ms,15ms", &on, &p, &j), -1);
    assert_int_equal(hct_config_parse_sampling("20ms,", &on, &p, &j), -1);
    /* a bare number above 100 (ms) needs a unit: 1000 is not silently one second */
    assert_int_equal(hct_config_parse_sampling("100", &on, &p, &j), 0);
    assert_int_equal(p, 100000000ull);
    assert_int_equal(hct_config_parse_sampling("1000", &on, &p, &j), -1);
    assert_int_equal(hct_config_parse_sampling("1000,10", &on, &p, &j), -1);
    assert_int_equal(hct_config_parse_sampling("1000ms", &on, &p, &j), 0);
    assert_int_equal(p, 1000000000ull);
    assert_int_equal(hct_config_parse_sampling("1s", &on, &p, &j), 0);
}

static void rotation_values(void **state)
{
    (void)state;
    unsigned n;
    uint64_t t;
    assert_int_equal(hct_config_parse_rotate("10", &n, &t), 0);
    assert_int_equal(n, 10);
    assert_int_equal(t, 0);
    assert_int_equal(hct_config_parse_rotate("500ms", &n, &t), 0);
    assert_int_equal(n, 0);
    assert_int_equal(t, 500000000ull);
    assert_int_equal(hct_config_parse_rotate("20,1s", &n, &t), 0);
    assert_int_equal(n, 20);
    assert_int_equal(t, 1000000000ull);
    assert_int_equal(hct_config_parse_rotate("off", &n, &t), 0);
    assert_int_equal(n + t, 0);
    assert_int_equal(hct_config_parse_rotate("0", &n, &t), 0); /* "0" is off too */
    assert_int_equal(hct_config_parse_rotate("-1", &n, &t), -1);
    assert_int_equal(hct_config_parse_rotate("10,20", &n, &t), -1);
    assert_int_equal(hct_config_parse_rotate("10us", &n, &t), -1);
    assert_int_equal(hct_config_parse_rotate("", &n, &t), -1);
}

static void environment(void **state)
{
    (void)state;
    hct_config cfg;
    char *env[] = { "HCATRACE_SAMPLING=15ms,5", "HCATRACE_COUNTERS=instructions,cycles;task-clock",
                    "HCATRACE_COUNTERS_ROTATE=50", "HCATRACE_SAMPLING_BUFFER=256", NULL };
    assert_int_equal(read_env(&cfg, env), 0);
    assert_int_equal(cfg.sampling_period_ns, 15000000ull);
    assert_int_equal(cfg.sampling_jitter_pct, 5);
    assert_string_equal(cfg.counters, "instructions,cycles;task-clock");
    assert_int_equal(cfg.rotate_instances, 50);
    assert_int_equal(cfg.rotate_ns, 0);
    assert_int_equal(cfg.sampling_buffer_kib, 256);
    char *off[] = { "HCATRACE_SAMPLING=off", "HCATRACE_COUNTERS=off", NULL };
    assert_int_equal(read_env(&cfg, off), 0);
    assert_int_equal(cfg.sampling, 0);
    assert_int_equal(cfg.counters_off, 1);
    assert_null(cfg.counters);
}

static void bad_values_keep_defaults(void **state)
{
    (void)state;
    hct_config cfg;
    char *env[] = { "HCATRACE_SAMPLING=fast", "HCATRACE_COUNTERS_ROTATE=sometimes", "HCATRACE_SAMPLING_BUFFER=1",
                    "HCATRACE_SAMPLNG=off", NULL };
    assert_int_equal(read_env(&cfg, env), 4);
    assert_string_equal(reported[0], "invalid value 'fast' for HCATRACE_SAMPLING; using the default");
    assert_string_equal(reported[1], "invalid value 'sometimes' for HCATRACE_COUNTERS_ROTATE; using the default");
    assert_string_equal(reported[2], "invalid value '1' for HCATRACE_SAMPLING_BUFFER; using the default");
    assert_string_equal(reported[3], "unknown variable HCATRACE_SAMPLNG (did you mean HCATRACE_SAMPLING?); ignored");
    assert_int_equal(cfg.sampling, 1);
    assert_int_equal(cfg.sampling_period_ns, HCT_DEFAULT_SAMPLING_PERIOD_NS);
    assert_int_equal(cfg.rotate_ns, 100000000ull);
    assert_int_equal(cfg.sampling_buffer_kib, 1024);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(defaults),
        cmocka_unit_test(durations),
        cmocka_unit_test(sampling_values),
        cmocka_unit_test(rotation_values),
        cmocka_unit_test(environment),
        cmocka_unit_test(bad_values_keep_defaults),
    };
    return cmocka_run_group_tests_name("sampling and counter configuration", tests, NULL, NULL);
}
