/* chain_work.h: fixed work for the test programs that record their own truth
 * (truth_app.c, omp_wait_app.c): a dependent integer chain, and how many of
 * its steps one millisecond of the calling thread's CPU time holds (so that
 * the work is fixed, not its time: on a loaded machine it stretches). */
#ifndef CHAIN_WORK_H
#define CHAIN_WORK_H

#include <time.h>

/* n steps of a dependent integer chain: neither vectorized nor folded away */
static inline unsigned long chain(unsigned long x, long n)
{
    for (long i = 0; i < n; i++)
        x = x * 6364136223846793005ul + 1442695040888963407ul;
    return x;
}

static inline unsigned long long chain_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

/* chain steps per ms of this thread's CPU time: the best of a few runs (the
 * result goes to *sink, so the work is kept) */
static inline long chain_calibrate(volatile unsigned long *sink)
{
    double best = 0.0;
    for (int r = 0; r < 5; r++) {
        long n = 2000000;
        unsigned long long c0 = chain_cpu_ns();
        *sink = chain(*sink | 1, n);
        double ms = (double)(chain_cpu_ns() - c0) * 1e-6;
        if (ms > 0.0 && (double)n / ms > best)
            best = (double)n / ms;
    }
    return best > 1.0 ? (long)best : 1;
}

#endif
