/* test_delivery.c: unit tests of a sampling interrupt's delivery time
 * (instrument/hct_delivery.h): task-clock counted beyond the armed period
 * moves the due time earlier, a preempted delivery (or handler, or
 * boundary) counts as the previous one instead of its whole length, a source
 * without due times adds nothing; the wall-clock source counts from when the
 * thread stopped, its timer's expiry plus the measured interrupt latency. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "hct_delivery.h"

#define US 1000ull
#define MS 1000000ull

/* armed at count 10 ms with a 5 ms period: due at count 15 ms; the kernel saw
 * 15.040 ms at its record's time 100.030 ms: due at 99.990 ms */
static void test_perf_due_takes_the_late_count_off(void **state)
{
    (void)state;
    assert_int_equal(hct_perf_due(100 * MS + 30 * US, 15 * MS + 40 * US, 10 * MS, 5 * MS), 100 * MS - 10 * US);
    /* on time: the record's time */
    assert_int_equal(hct_perf_due(100 * MS, 15 * MS, 10 * MS, 5 * MS), 100 * MS);
    /* the count it was armed from unknown: the record's time */
    assert_int_equal(hct_perf_due(100 * MS, 15 * MS + 40 * US, 0, 5 * MS), 100 * MS);
}

static void test_delivery_is_measured(void **state)
{
    (void)state;
    uint64_t last = 0;
    assert_int_equal(hct_delivery(&last, 100 * MS, 100 * MS + 70 * US), 70 * US);
    assert_int_equal(last, 70 * US);
}

/* preempted for 5 ms between the interrupt and the handler: the program's
 * time; the delivery counts as the previous one (70 us), not 5 ms */
static void test_preempted_delivery_counts_as_the_previous(void **state)
{
    (void)state;
    uint64_t last = 0;
    hct_delivery(&last, 100 * MS, 100 * MS + 70 * US);
    assert_int_equal(hct_delivery(&last, 200 * MS, 205 * MS), 70 * US);
    assert_int_equal(hct_delivery(&last, 300 * MS, 300 * MS + 40 * US), 40 * US);
    /* due after the handler started (clock skew): the previous one too */
    assert_int_equal(hct_delivery(&last, 400 * MS + 1, 400 * MS), 40 * US);
}

/* a boundary's own work preempted for 0.6 ms (a time slice of another
 * process): the previous boundary's 3 us, not 0.6 ms; the same for a delivery */
static void test_preempted_work_counts_as_the_previous(void **state)
{
    (void)state;
    uint64_t last = 0;
    assert_int_equal(hct_tool_work(&last, 3 * US), 3 * US);
    assert_int_equal(hct_tool_work(&last, 600 * US), 3 * US);
    assert_int_equal(hct_tool_work(&last, 5 * US), 5 * US);
    uint64_t delivery = 0;
    hct_delivery(&delivery, 100 * MS, 100 * MS + 60 * US);
    assert_int_equal(hct_delivery(&delivery, 200 * MS, 200 * MS + 600 * US), 60 * US);
}

static void test_no_due_time_adds_nothing(void **state)
{
    (void)state;
    uint64_t last = 70 * US;
    assert_int_equal(hct_delivery(&last, 0, 100 * MS), 0);
}

/* the wall-clock source: a running thread stops 2.7 us after its timer's
 * expiry (the interrupt's latency); the delivery counts from then, 67 us of a
 * handler that started 69.7 us after the expiry, not 69.7 */
static void test_wall_delivery_counts_from_the_stop(void **state)
{
    (void)state;
    uint64_t last = 0, expiry = 100 * MS, t0 = expiry + 69700;
    assert_int_equal(hct_delivery(&last, hct_wall_stopped(expiry, 2700, t0), t0), 67 * US);
    /* a latency longer than this delivery: none, not a preempted one */
    assert_int_equal(hct_wall_stopped(expiry, 2700, expiry + 1000), expiry + 1000);
    assert_int_equal(hct_delivery(&last, hct_wall_stopped(expiry, 2700, expiry + 1000), expiry + 1000), 0);
    /* no latency measured: from the expiry */
    assert_int_equal(hct_wall_stopped(expiry, 0, t0), expiry);
}

/* a sample's timestamp (hct_wall_stamp): a running thread's prompt sample at
 * its handler's reading; one that woke the thread from a sleep at the timer's
 * expiry (the program did not run between: stamped at the handler, it lay the
 * wake-up late, issue 17); a late one, or one of several expiries, at the
 * expiry */
static void test_wall_stamp(void **state)
{
    (void)state;
    uint64_t due = 100 * MS;
    assert_int_equal(hct_wall_stamp(due, due + 12 * US, 1, 0), due + 12 * US);
    assert_int_equal(hct_wall_stamp(due, due + 40 * US, 1, 1), due);
    assert_int_equal(hct_wall_stamp(due, due + HCT_WALL_PROMPT_NS, 1, 0), due);
    assert_int_equal(hct_wall_stamp(due, due + 12 * US, 3, 0), due);
}

/* a late signal's expiries checked against the thread's CPU clock
 * (hct_wall_first_unrun): a preempted thread (its CPU time stopped before the
 * first expiry) keeps every one; a thread that ran past some (a signal held
 * up while it ran) keeps those after it stopped at the earliest; one that ran
 * past all of them keeps none (stamped when read); within the slack, all kept */
static void test_wall_first_unrun(void **state)
{
    (void)state;
    uint64_t ref = 100 * MS, stamps[4] = { 102 * MS, 104 * MS, 106 * MS, 108 * MS };
    /* ran 1.5 ms of 9 since ref, before the first expiry: preempted */
    assert_int_equal(hct_wall_first_unrun(stamps, 4, ref, 1500 * US), 0);
    /* ran 5 ms: until 105 ms at the earliest; the expiries at 102 and 104 fell while it ran */
    assert_int_equal(hct_wall_first_unrun(stamps, 4, ref, 5 * MS), 2);
    /* ran all 9 ms (blocked signal, or a stopped virtual CPU charged to it) */
    assert_int_equal(hct_wall_first_unrun(stamps, 4, ref, 9 * MS), 4);
    /* a prompt signal's one expiry: it ran past it */
    assert_int_equal(hct_wall_first_unrun(stamps, 1, ref, 2 * MS + 60 * US), 1);
    /* the kernel's entry and the clock reads: within the slack */
    assert_int_equal(hct_wall_first_unrun(stamps, 1, ref, 2 * MS + HCT_WALL_RAN_SLACK_NS), 0);
    assert_int_equal(hct_wall_first_unrun(stamps, 0, ref, 9 * MS), 0);
}

/* the latency is the median of its trials: a preempted trial (5 ms) and a
 * trial that stopped before its expiry (0) do not move it */
static void test_latency_is_the_median(void **state)
{
    (void)state;
    uint64_t v[9] = { 2600, 5 * MS, 2700, 2500, 0, 2800, 2650, 3000, 2750 };
    assert_int_equal(hct_latency_median(v, 9), 2700);
    uint64_t w[4] = { 3000, 1000, 2000, 4000 };
    assert_int_equal(hct_latency_median(w, 4), 2500);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_perf_due_takes_the_late_count_off),
        cmocka_unit_test(test_delivery_is_measured),
        cmocka_unit_test(test_preempted_delivery_counts_as_the_previous),
        cmocka_unit_test(test_preempted_work_counts_as_the_previous),
        cmocka_unit_test(test_no_due_time_adds_nothing),
        cmocka_unit_test(test_wall_delivery_counts_from_the_stop),
        cmocka_unit_test(test_wall_stamp),
        cmocka_unit_test(test_wall_first_unrun),
        cmocka_unit_test(test_latency_is_the_median),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
