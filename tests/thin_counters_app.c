/* thin_counters_app.c: test program for the counter values of thinned
 * instances (tests/e2e/thin_counters.sh): a user region "spin", a busy loop
 * of US microseconds of the thread's CPU time. Its first instance is begun at one
 * call site, the N others at another, so that with HCATRACE_THIN=1,... the
 * second site's region is folded only from instances kept back and written
 * because a sample landed in them; each holds US us of CPU time, the truth
 * of its task-clock. Prints the number of instances (the same traced or
 * not). Usage: thin_counters_app [N [US]] (defaults 6000, 50). */
#define _POSIX_C_SOURCE 200809L
#include <hcatrace.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ns(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* us microseconds of the calling thread's CPU time (however loaded the
 * machine is); returns 1 (used) */
static long spin(long us)
{
    double end = now_ns(CLOCK_THREAD_CPUTIME_ID) + (double)us * 1e3, x = 0;
    do
        for (int i = 0; i < 100; i++)
            x += 1e-9 * i;
    while (now_ns(CLOCK_THREAD_CPUTIME_ID) < end);
    return x > 0 ? 1 : 0;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 6000, us = argc > 2 ? atol(argv[2]) : 50, sum = 0;
    if (n < 1 || us < 1) {
        fprintf(stderr, "usage: thin_counters_app [N [US]]\n");
        return 2;
    }
    HCATRACE_BEGIN("spin"); /* the first instance: written in full */
    sum += spin(us);
    HCATRACE_END("spin");
    for (long i = 0; i < n; i++) {
        HCATRACE_BEGIN("spin"); /* the others: kept back */
        sum += spin(us);
        HCATRACE_END("spin");
    }
    printf("thin_counters_app: %ld instances\n", sum);
    return 0;
}
