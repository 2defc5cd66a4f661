/* par_thin_app.c: test program for thinning OpenMP parallel regions
 * (tests/e2e/thin.sh): ITER parallel regions of one outlined function, each
 * thread's share a few hundred nanoseconds, every LONG-th region about 2 ms of
 * work on every thread (above the default thinning threshold): the shape of a
 * code that opens hundreds of small parallel loops per time step. Usage:
 * par_thin_app [ITER [LONG]] (defaults 20000, 1000); prints the sum and the
 * number of long regions, the same traced or not. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include "work_2ms.h"

int main(int argc, char **argv)
{
    long iter = argc > 1 ? atol(argv[1]) : 20000, every = argc > 2 ? atol(argv[2]) : 1000;
    if (iter < 1 || every < 1) {
        fprintf(stderr, "usage: par_thin_app [ITER [LONG]]\n");
        return 2;
    }
    long sum = 0, longs = 0;
    for (long i = 0; i < iter; i++) {
        int is_long = i % every == every - 1;
#pragma omp parallel reduction(+ : sum)
        {
            sum += (i + omp_get_thread_num()) % 7;
            if (is_long)
                sum += work_2ms() - 1;
        }
        longs += is_long;
    }
    printf("par_thin_app: threads %d sum %ld long %ld\n", omp_get_max_threads(), sum, longs);
    return 0;
}
