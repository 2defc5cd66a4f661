/* fork_chain_app.c: test program for the context of a fork whose call site's
 * inline chain another context cut (tests/e2e/openmp.sh): two parallel
 * regions forked from one function inlined into `step` at one line, so that
 * the two fork sites' chains share their outer node (step at that line) and
 * differ in the inner one (the regions' lines). On 2 threads the worker's
 * share is about 100 us longer than the master's: the master waits at the
 * join with its fork's frame on its stack, where samples take that frame's
 * whole chain into its path; entering the other region's context next cuts
 * that chain after its first node. Usage: fork_chain_app [ITER] (default
 * 2000); prints a sum, the same traced or not. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

/* about 100 us of work on thread 1, none on the others */
static long spin(long i, int thread)
{
    volatile long x = i;
    if (thread == 1)
        for (int k = 0; k < 100000; k++)
            x = x + k % 3;
    return x % 5;
}

static inline __attribute__((always_inline)) long two_loops(long i)
{
    long a = 0, b = 0;
#pragma omp parallel reduction(+ : a) /* FIRST */
    a += spin(i, omp_get_thread_num()) + omp_get_thread_num();
#pragma omp parallel reduction(+ : b) /* SECOND */
    b += spin(i + 1, omp_get_thread_num()) + omp_get_thread_num();
    return a + b;
}

__attribute__((noinline)) static long step(long i)
{
    return two_loops(i);
}

int main(int argc, char **argv)
{
    long iter = argc > 1 ? atol(argv[1]) : 2000;
    if (iter < 1) {
        fprintf(stderr, "usage: fork_chain_app [ITER]\n");
        return 2;
    }
    long sum = 0;
    for (long i = 0; i < iter; i++)
        sum += step(i);
    printf("sum %ld\n", sum % 1000003);
    return 0;
}
