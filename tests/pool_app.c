/* pool_app.c: test program for OpenMP workers waiting in the runtime's pool
 * (tests/e2e/openmp.sh): ITER iterations, each a parallel region in which
 * every thread works REGION ms of its CPU time, then SERIAL ms of work by the
 * master alone while the other threads wait for the next region. A sampled
 * worker's samples belong in its regions, not in its waits. Usage: pool_app
 * [ITER [REGION [SERIAL]]] (defaults 20, 2, 20); prints the regions run and a
 * checksum, the same traced or not. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long cpu_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec * 1000000000L + t.tv_nsec;
}

/* busy until the calling thread's CPU clock has advanced by ms milliseconds */
static long busy_ms(long ms)
{
    long t0 = cpu_ns(), rounds = 0;
    volatile double x = 0;
    while (cpu_ns() - t0 < ms * 1000000L) {
        for (int i = 0; i < 1000; i++)
            x += 1e-9 * i;
        rounds++;
    }
    return rounds > 0;
}

int main(int argc, char **argv)
{
    long iter = argc > 1 ? atol(argv[1]) : 20, region = argc > 2 ? atol(argv[2]) : 2,
         serial = argc > 3 ? atol(argv[3]) : 20;
    if (iter < 1 || region < 0 || serial < 0) {
        fprintf(stderr, "usage: pool_app [ITER [REGION [SERIAL]]]\n");
        return 2;
    }
    long check = 0, regions = 0;
    for (long i = 0; i < iter; i++) {
#pragma omp parallel reduction(+ : check)
        check += busy_ms(region);
        regions++;
        check += busy_ms(serial);
    }
    printf("pool_app: regions %ld check %ld\n", regions, check - regions * omp_get_max_threads() - iter);
    return 0;
}
