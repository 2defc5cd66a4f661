/*
 * omp_region_cost.c - time of one (nearly empty) OpenMP parallel region: the
 * runtime's fork/join plus whatever a tracer adds, for bench/openmp.sh.
 *
 * Usage: omp_region_cost [REGIONS [BATCHES [critical]]]
 * Runs BATCHES (default 11) batches of REGIONS (default 20000) parallel regions
 * whose body is a few instructions, and prints the median over the batches:
 *   threads T ns_per_region X
 * With "critical": one parallel region in which each thread runs the batches
 * of REGIONS `omp critical` sections of a few instructions each (with
 * OMP_NUM_THREADS=1 uncontended: the cost of one construct; traced, after its
 * key's first instances, a kept-back one), timed on thread 0:
 *   threads T ns_per_critical X
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
    if (argc > 3 && strcmp(argv[3], "critical") == 0) {
#pragma omp parallel
        for (long b = 0; b < batches; b++) {
            double t0 = now_ns();
            for (long r = 0; r < regions; r++) {
#pragma omp critical
                sink += 1;
            }
            if (omp_get_thread_num() == 0) {
                threads = omp_get_num_threads();
                per[b] = (now_ns() - t0) / (double)regions;
            }
        }
        qsort(per, (size_t)batches, sizeof(*per), cmp);
        printf("threads %d ns_per_critical %.0f\n", threads, per[batches / 2]);
        free(per);
        return 0;
    }
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
