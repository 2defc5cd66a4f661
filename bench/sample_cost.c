/* sample_cost.c: a fixed amount of CPU work done 10 frames deep, to measure
 * what one sample costs (bench/sampling.sh): run it untraced, traced with
 * HCATRACE_SAMPLING=off and traced with a short sampling period; the extra
 * CPU time divided by the number of samples is the cost of one sample
 * (signal delivery, handler, unwinding 10+ frames, writing it into the trace).
 *
 * Usage: sample_cost [UNITS]   (default 2000 units of about 1 ms each)
 * Output: "units=N cpu_ns=T ns_per_unit=X" (process user+system time). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

static volatile double sink;

__attribute__((noinline)) static double spin(long n)
{
    volatile double a = 1.0; /* volatile: the loop is not folded away */
    for (long i = 0; i < n; i++)
        a = a * 0.9999999 + 1e-7;
    return a;
}

/* depth frames of recursion above spin(): no tail calls */
__attribute__((noinline)) static double deep(int depth, long n)
{
    if (depth == 0)
        return spin(n);
    double r = deep(depth - 1, n);
    return r + 1e-9;
}

static double cpu_ns(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ((double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec) * 1e9 +
           ((double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_usec) * 1e3;
}

int main(int argc, char **argv)
{
    long units = argc > 1 ? atol(argv[1]) : 2000;
    if (units <= 0) {
        fprintf(stderr, "usage: %s [UNITS]\n", argv[0]);
        return 2;
    }
    /* main + deep x 9 + spin = 10 frames of the program under the handler */
    double t0 = cpu_ns();
    for (long u = 0; u < units; u++)
        sink += deep(8, 250000);
    double t1 = cpu_ns();
    printf("units=%ld cpu_ns=%.0f ns_per_unit=%.1f\n", units, t1 - t0, (t1 - t0) / (double)units);
    return 0;
}
