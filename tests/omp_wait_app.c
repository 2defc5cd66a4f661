/* omp_wait_app.c: an OpenMP program whose threads wait for each other at a
 * barrier, and that records when they did (tests/e2e/openmp_wait.sh,
 * tests/omp_wait_check.py). Each of ITER parallel regions of two threads:
 * a barrier (A) both leave together; thread 0 runs WORK ms of a dependent
 * integer chain (fixed work, calibrated before the regions) in 1000 critical
 * sections (each enter a region boundary of the tracer, where it writes the
 * samples taken since the last: the tracer's own time on thread 0), thread 1
 * nothing; a barrier (B), where thread 1 waits for thread 0; then both run
 * WORK/4 ms of the chain. Untraced, thread 1 waits at B as long as thread 0
 * works after A; traced, thread 0's samples and drains make it wait longer,
 * and a fold without the tracer's time must not see that either.
 * The program writes, per region and thread, its own CLOCK_MONOTONIC times
 * (the trace's clock; outside the trace) to PREFIX:
 *   "I iter"                          a region starts (two lines follow)
 *   "T thread start a_exit b_arrive b_exit end"  ns: the share's first
 *                                     instruction, the return from barrier A,
 *                                     the call of barrier B, its return, the
 *                                     share's last instruction
 * Usage: omp_wait_app [ITER [WORK [PREFIX]]] (defaults 100, 8, omp_wait);
 * prints the regions, the same traced or not. */
#define _GNU_SOURCE
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "chain_work.h"

#define CHUNKS 1000 /* critical sections of thread 0's work */

typedef struct {
    unsigned long long start, a_exit, b_arrive, b_exit, end;
} times;

static volatile unsigned long sink;

static unsigned long long clock_ns(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    int iter = argc > 1 ? atoi(argv[1]) : 100;
    double work = argc > 2 ? atof(argv[2]) : 8.0;
    const char *prefix = argc > 3 ? argv[3] : "omp_wait";
    if (iter < 1 || iter > 1000000 || work <= 0.0) {
        fprintf(stderr, "usage: omp_wait_app [ITER [WORK_MS [PREFIX]]]\n");
        return 2;
    }
    times *rec = calloc((size_t)iter * 2, sizeof(*rec));
    if (!rec)
        return 1;
    long steps = (long)((double)chain_calibrate(&sink) * work);
    unsigned long check = 0;
    for (int i = 0; i < iter; i++) {
#pragma omp parallel num_threads(2) reduction(+ : check)
        {
            int me = omp_get_thread_num();
            times *r = &rec[2 * i + (me & 1)];
            r->start = clock_ns(CLOCK_MONOTONIC);
            unsigned long x = (unsigned long)me + 1;
#pragma omp barrier
            r->a_exit = clock_ns(CLOCK_MONOTONIC);
            if (me == 0)
                for (int k = 0; k < CHUNKS; k++) {
#pragma omp critical
                    x = chain(x, steps / CHUNKS);
                }
            r->b_arrive = clock_ns(CLOCK_MONOTONIC);
#pragma omp barrier
            r->b_exit = clock_ns(CLOCK_MONOTONIC);
            x = chain(x, steps / 4);
            r->end = clock_ns(CLOCK_MONOTONIC);
            check += x & 0xffff;
        }
    }
    FILE *f = fopen(prefix, "w");
    if (!f) {
        perror(prefix);
        return 1;
    }
    for (int i = 0; i < iter; i++) {
        fprintf(f, "I %d\n", i);
        for (int k = 0; k < 2; k++)
            fprintf(f, "T %d %llu %llu %llu %llu %llu\n", k, rec[2 * i + k].start, rec[2 * i + k].a_exit,
                    rec[2 * i + k].b_arrive, rec[2 * i + k].b_exit, rec[2 * i + k].end);
    }
    fclose(f);
    sink = check; /* the work's result, kept: it depends on the calibration, not printed */
    printf("omp_wait_app: %d regions\n", iter);
    free(rec);
    return 0;
}
