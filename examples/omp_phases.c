/*
 * omp_phases.c - an iterative OpenMP program with a known per-thread structure,
 * for tracing with libhcatrace.so (libgomp or libomp).
 *
 * Usage: omp_phases [ITERATIONS [nested]]
 * Each iteration runs two parallel regions:
 *   1. "imbalanced": a statically scheduled loop whose iterations grow in cost,
 *      so the threads with the last chunks work longest (the loop itself is
 *      inlined by GCC: it has no runtime call); then a critical section per
 *      thread and an explicit barrier;
 *   2. "balanced": a dynamically scheduled loop of equal iterations.
 * With "nested", each thread of region 1 also runs an inner parallel region
 * of 2 threads (max-active-levels 2).
 * The program counts the parallel regions it ran (inner ones included) and
 * prints, on stdout, exactly:
 *   omp_phases: parallel regions R
 *   omp_phases: result X            (deterministic: no floating-point reduction)
 * Exit code 0; a bad argument prints usage on stderr and exits with 2.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 64
#define UNIT 80000L

static double cell[N];

__attribute__((noinline)) static double work(long steps, double seed)
{
    double x = seed;
    for (long k = 0; k < steps; k++)
        x = x * 0.999999 + 1e-6 * (double)(k & 7);
    return x;
}

int main(int argc, char **argv)
{
    long iterations = 20;
    int nested = 0;
    if (argc > 1) {
        char *end;
        iterations = strtol(argv[1], &end, 10);
        if (*end || iterations < 1 || iterations > 100000 || (argc > 2 && strcmp(argv[2], "nested") != 0) ||
            argc > 3) {
            fprintf(stderr, "usage: omp_phases [ITERATIONS [nested]]\n");
            return 2;
        }
        nested = argc > 2;
    }
    if (nested)
        omp_set_max_active_levels(2);
    long regions = 0, inner = 0, entered = 0;
    double result = 0.0;
    for (long it = 0; it < iterations; it++) {
#pragma omp parallel /* CALLSITE:imbalanced */
        {
#pragma omp for schedule(static)
            for (int i = 0; i < N; i++)
                cell[i] = work(UNIT * (1 + i / 4), (double)i); /* later chunks cost more */
#pragma omp critical
            entered++;
            if (nested) {
#pragma omp parallel num_threads(2)
                {
                    (void)work(UNIT, 1.0);
                }
#pragma omp atomic
                inner++;
            }
#pragma omp barrier
        }
        regions++;
        for (int i = 0; i < N; i++)
            result += cell[i];
#pragma omp parallel for schedule(dynamic, 2)
        for (int i = 0; i < N; i++)
            cell[i] = work(UNIT, (double)i);
        regions++;
        for (int i = 0; i < N; i++)
            result += cell[i];
    }
    (void)entered;
    printf("omp_phases: parallel regions %ld\n", regions + inner);
    printf("omp_phases: result %.6e\n", result);
    return 0;
}
