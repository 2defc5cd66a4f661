/*
 * omp_region_cost.c - time of one (nearly empty) OpenMP parallel region: the
 * runtime's fork/join plus whatever a tracer adds, for bench/openmp.sh.
 *
 * Usage: omp_region_cost [REGIONS [BATCHES]]
 * Runs BATCHES (default 11) batches of REGIONS (default 20000) parallel regions
 * whose body is a few instructions, and prints the median over the batches:
 *   threads T ns_per_region X
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    long regions = argc > 1 ? atol(argv[1]) : 20000, batches = argc > 2 ? atol(argv[2]) : 11;
    if (regions < 1 || batches < 1 || batches > 1000) {
        fprintf(stderr, "usage: omp_region_cost [REGIONS [BATCHES]]\n");
        return 2;
    }
    double *per = malloc((size_t)batches * sizeof(*per));
    if (!per)
        return 1;
    volatile long sink = 0;
    int threads = 0;
    for (long b = 0; b < batches; b++) {
        double t0 = now_ns();
        for (long r = 0; r < regions; r++) {
#pragma omp parallel
            {
                if (omp_get_thread_num() == 0)
                    threads = omp_get_num_threads();
                sink += 1; /* racy on purpose: the body is only there to be run */
            }
        }
        per[b] = (now_ns() - t0) / (double)regions;
    }
    qsort(per, (size_t)batches, sizeof(*per), cmp);
    printf("threads %d ns_per_region %.0f\n", threads, per[batches / 2]);
    free(per);
    return 0;
}
