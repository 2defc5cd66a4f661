/* test_units.c: unit tests of the units rates are shown in (fold/units.c), the same in
 * the summary, the plots, report.html and the comparison: instructions per second in
 * MIPS whatever their name (generic, PAPI's canonical name, libpfm4's with or without a
 * PMU prefix); a time counter (ns) as CPUs busy; other counters with the SI prefix of
 * the value as printed (999.96 M/s is 1.00 G/s, not 1000.0 M/s); a rate below one
 * per second with two significant digits, never "0.0 /s". */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "units.h"

static void instructions_are_mips(void **state)
{
    (void)state;
    static const char *names[] = { "instructions", "INST_RETIRED:ANY_P", "skl::INST_RETIRED:ANY",
                                   "inst_retired:any_p" };
    char text[64];
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        fold_rate_format(names[i], "#", 1523.44e6, text, sizeof(text));
        assert_string_equal(text, "1523.4 MIPS");
        fold_rate_unit u = fold_rate_unit_for(names[i], "#", 3e9);
        assert_string_equal(u.name, "MIPS");
        assert_true(u.scale == 1e6);
    }
    fold_rate_format_interval("instructions", "", 300e6, 290e6, 310e6, text, sizeof(text));
    assert_string_equal(text, "300.0 MIPS (290.0-310.0)");
}

static void other_counters_are_not_mips(void **state)
{
    (void)state;
    char text[64];
    fold_rate_format("cycles", "#", 2.5e9, text, sizeof(text));
    assert_string_equal(text, "2.50 G/s");
    fold_rate_format("INST_RETIRED:PREC_DIST", "#", 2.5e9, text, sizeof(text));
    assert_string_equal(text, "2.50 G/s");
    fold_rate_format("branch-misses", "#", 12.0, text, sizeof(text));
    assert_string_equal(text, "12.0 /s");
    fold_rate_format(NULL, "", 689.31e6, text, sizeof(text));
    assert_string_equal(text, "689.3 M/s");
}

static void time_counters_are_cpus_busy(void **state)
{
    (void)state;
    char text[64];
    fold_rate_format("task-clock", "ns", 0.69e9, text, sizeof(text));
    assert_string_equal(text, "0.69 CPUs busy");
    fold_rate_format_interval("task-clock", "ns", 1.5e9, 1.4e9, 1.6e9, text, sizeof(text));
    assert_string_equal(text, "1.50 CPUs busy (1.40-1.60)");
}

static void prefix_follows_the_printed_value(void **state)
{
    (void)state;
    char text[64];
    fold_rate_format("cycles", "#", 999.96e6, text, sizeof(text));
    assert_string_equal(text, "1.00 G/s");
    fold_rate_format("page-faults", "#", 999.96e3, text, sizeof(text));
    assert_string_equal(text, "1.0 M/s");
    fold_rate_format("page-faults", "#", 999.96, text, sizeof(text));
    assert_string_equal(text, "1.0 k/s");
    fold_rate_format("page-faults", "#", 999.94, text, sizeof(text));
    assert_string_equal(text, "999.9 /s");
}

/* A rate below one event per second keeps two significant digits: never "0.0 /s" for a
 * rate that is not zero. */
static void small_rates_are_not_zero(void **state)
{
    (void)state;
    char text[64];
    fold_rate_format("page-faults", "#", 0.0375, text, sizeof(text));
    assert_string_equal(text, "0.037 /s");
    fold_rate_format("page-faults", "#", 0.0, text, sizeof(text));
    assert_string_equal(text, "0 /s");
    fold_rate_format_interval("page-faults", "#", 0.2, 0.04, 0.35, text, sizeof(text));
    assert_string_equal(text, "0.2 /s (0.04-0.35)");
    fold_rate_format("page-faults", "#", 12.04, text, sizeof(text));
    assert_string_equal(text, "12.0 /s");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(instructions_are_mips),
        cmocka_unit_test(other_counters_are_not_mips),
        cmocka_unit_test(time_counters_are_cpus_busy),
        cmocka_unit_test(prefix_follows_the_printed_value),
        cmocka_unit_test(small_rates_are_not_zero),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
