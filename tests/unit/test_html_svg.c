/* test_html_svg.c: unit tests of report.html's charts (fold/html_svg.c): the left axis
 * has round ticks (1, 2, 2.5 or 5 times a power of ten) from 0 to the top, which is the
 * largest value rounded up to a tick, and the curves are drawn on that scale (a value
 * equal to the top at the frame's top). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "html_svg.h"

/* The labels of the left axis (text-anchor end) of a chart whose largest value is max. */
static size_t left_ticks(double max, double *ticks, size_t cap)
{
    static const double x[] = { 0, 0.5, 1 };
    double y[] = { 0, max, max / 2 };
    svg_line line = { x, y, 3, "rate", "#d62728", 0 };
    svg_chart c = { "title", "CPUs busy", "cumulative fraction", max, &line, 1, NULL, NULL, 0, NULL, 0 };
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    svg_write_chart(f, &c);
    fclose(f);
    size_t n = 0;
    for (const char *p = strstr(buf, "text-anchor=\"end\">"); p && n < cap;
         p = strstr(p + 1, "text-anchor=\"end\">"))
        ticks[n++] = strtod(p + strlen("text-anchor=\"end\">"), NULL);
    free(buf);
    return n;
}

static int round_step(double step)
{
    double m = step / pow(10, floor(log10(step)));
    return fabs(m - 1) < 1e-9 || fabs(m - 2) < 1e-9 || fabs(m - 2.5) < 1e-9 || fabs(m - 5) < 1e-9;
}

static void ticks_are_round(void **state)
{
    (void)state;
    static const double maxima[] = { 1.11, 0.158, 0.751, 1.35, 3000, 9.3e8, 1 };
    for (size_t i = 0; i < sizeof(maxima) / sizeof(maxima[0]); i++) {
        double t[32];
        size_t n = left_ticks(maxima[i], t, 32);
        assert_true(n >= 3 && n <= 7);
        assert_true(t[0] == 0);
        double step = t[1] - t[0];
        assert_true(round_step(step));
        for (size_t k = 1; k < n; k++)
            assert_true(fabs(t[k] - k * step) <= 1e-6 * step);
        assert_true(t[n - 1] >= maxima[i] * (1 - 1e-9));      /* the top holds the largest value */
        assert_true(t[n - 1] - step < maxima[i] * (1 - 1e-9)); /* and is its first tick above */
        assert_true(svg_axis_top(maxima[i]) == t[n - 1]);
    }
}

static void top_examples(void **state)
{
    (void)state;
    assert_true(fabs(svg_axis_top(1.11) - 1.5) < 1e-12);
    assert_true(fabs(svg_axis_top(0.158) - 0.2) < 1e-12);
    assert_true(fabs(svg_axis_top(1.0) - 1.0) < 1e-12);
    assert_true(svg_axis_top(0) == 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ticks_are_round),
        cmocka_unit_test(top_examples),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
