/* test_ticks.c: unit tests of the cheap clock of kept-back instances
 * (instrument/hct_ticks.c): the fixed-point factor and its scaling, the
 * calibration measured again only over a baseline at least twice as long, and
 * the calibrated clock giving an enter's monotonic time back from its ticks
 * (within the bracketing clock reads; first with the factor measured at
 * load, then retried with it measured again as the library does, so a
 * preemption between two reads on a loaded machine does not fail it). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "hct_ticks.h"

static void factor_and_scale(void **state)
{
    (void)state;
    uint64_t f = hct_ticks_factor(1000, 2600); /* a 2.6 GHz counter */
    assert_true(f > HCT_TICKS_ONE / 3 && f < HCT_TICKS_ONE / 2);
    assert_in_range(hct_ticks_scale(2600, f), 999, 1000);
    /* an hour of ticks: within 10 us (the factor's 32 fractional bits: 1e-9) */
    uint64_t hour = 3600ull * 1000000000ull;
    assert_in_range(hct_ticks_scale(hour / 1000 * 2600, f), hour - 10000, hour + 10000);
    assert_int_equal(hct_ticks_scale(12345, HCT_TICKS_ONE), 12345);
    assert_int_equal(hct_ticks_factor(1000, 0), 0);
}

static void calibrated_again_over_a_longer_baseline(void **state)
{
    (void)state;
    hct_ticks.fast = 1;
    hct_ticks.mono0 = 1000;
    hct_ticks.ticks0 = 0;
    atomic_store(&hct_ticks.span, 100);
    atomic_store(&hct_ticks.factor, HCT_TICKS_ONE);
    hct_ticks_calibrate(1000 + 150, 300); /* not twice the baseline: kept */
    assert_int_equal(atomic_load(&hct_ticks.factor), HCT_TICKS_ONE);
    hct_ticks_calibrate(1000 + 250, 500); /* 250 ns over 500 ticks */
    assert_int_equal(atomic_load(&hct_ticks.span), 250);
    assert_int_equal(hct_ticks_ns(1000), 500);
    assert_int_equal(hct_ticks_mono_at(100, 500, 1250), 1050);
    hct_ticks.fast = 0; /* the monotonic clock's own nanoseconds */
    assert_int_equal(hct_ticks_ns(1000), 1000);
    assert_int_equal(hct_ticks_mono_at(1234, 99999, 5555), 1234);
}

static void gives_the_monotonic_time_back(void **state)
{
    (void)state;
    hct_ticks_init();
    int good = 0;
    for (int attempt = 0; attempt < 50 && !good; attempt++) {
        uint64_t m0 = hca_clock_now(), t = hct_ticks_now(), m1 = hca_clock_now();
        volatile uint64_t sink = 0;
        for (int i = 0; i < 200000; i++)
            sink += (uint64_t)i;
        uint64_t tn = hct_ticks_now(), mn = hca_clock_now();
        if (attempt > 0)
            hct_ticks_calibrate(mn, tn); /* as hct_thin.c does before each late write */
        uint64_t at = hct_ticks_mono_at(t, tn, mn), slack = (mn - m0) / 200 + 2000; /* 0.5 % */
        good = at + slack >= m0 && at <= m1 + slack;
    }
    assert_true(good);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(factor_and_scale),
        cmocka_unit_test(calibrated_again_over_a_longer_baseline),
        cmocka_unit_test(gives_the_monotonic_time_back),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
