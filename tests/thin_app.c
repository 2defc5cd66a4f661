/* thin_app.c: test program for thinning and filtering (tests/e2e/thin.sh,
 * bench/whole_runs.sh): on every OpenMP thread, ITER iterations, each a tiny
 * critical section adding one term and a tiny user region "tiny"; every
 * LONG-th iteration the critical section and a user region "long" each work
 * for about 2 ms (instances above the default thinning threshold). The
 * shape of a set-up phase that opens hundreds of thousands of critical
 * sections. Usage: thin_app [ITER [LONG]] (defaults 20000, 1000); prints the
 * sum and the number of long instances per thread, the same traced or not. */
#include <hcatrace.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include "work_2ms.h"

/* A long region one call deeper than the loop (the call path of a kept-back
 * instance written late has frames to get wrong: tests/e2e/thin.sh). */
static __attribute__((noinline)) long long_region(void)
{
    HCATRACE_BEGIN("long");
    long v = (long)work_2ms();
    HCATRACE_END("long");
    return v;
}

int main(int argc, char **argv)
{
    long iter = argc > 1 ? atol(argv[1]) : 20000, every = argc > 2 ? atol(argv[2]) : 1000;
    if (iter < 1 || every < 1) {
        fprintf(stderr, "usage: thin_app [ITER [LONG]]\n");
        return 2;
    }
    long sum = 0, longs = 0;
#pragma omp parallel reduction(+ : longs)
    for (long i = 0; i < iter; i++) {
        int is_long = i % every == every - 1;
        HCATRACE_BEGIN("tiny");
#pragma omp critical
        {
            sum += i % 7;
            if (is_long)
                sum += (long)work_2ms() - 1;
        }
        HCATRACE_END("tiny");
        if (is_long)
            longs += long_region();
    }
    printf("thin_app: threads %d sum %ld long %ld\n", omp_get_max_threads(), sum, longs);
    return 0;
}
