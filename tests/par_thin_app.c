/* par_thin_app.c: test program for thinning OpenMP parallel regions
 * (tests/e2e/thin.sh): ITER parallel regions of one outlined function, each
 * thread's share a few hundred nanoseconds, every LONG-th region about 2 ms of
 * work on every thread (above the default thinning threshold): the shape of a
 * code that opens hundreds of small parallel loops per time step. With LATE
 * (ms), the team's second thread comes that late to each of the first 100
 * regions, as if it had not been on a CPU (a loaded machine): before the fork
 * the master interrupts it (SIGUSR1) and its handler spins that long, outside
 * every region, so the regions' shares stay as short. Usage:
 * par_thin_app [ITER [LONG [LATE]]] (defaults 20000, 1000, 0); prints the sum
 * and the number of long regions, the same traced or not. */
#define _POSIX_C_SOURCE 200809L
#include <omp.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "work_2ms.h"

#define LATE_REGIONS 100

static long late_ns;

static long long monotonic_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* the second thread kept off the program for late_ns */
static void held_up(int sig)
{
    (void)sig;
    long long until = monotonic_ns() + late_ns;
    while (monotonic_ns() < until)
        ;
}

int main(int argc, char **argv)
{
    long iter = argc > 1 ? atol(argv[1]) : 20000, every = argc > 2 ? atol(argv[2]) : 1000;
    late_ns = argc > 3 ? atol(argv[3]) * 1000000L : 0;
    if (iter < 1 || every < 1 || late_ns < 0) {
        fprintf(stderr, "usage: par_thin_app [ITER [LONG [LATE]]]\n");
        return 2;
    }
    if (late_ns) {
        struct sigaction sa = { 0 };
        sa.sa_handler = held_up;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_RESTART;
        sigaction(SIGUSR1, &sa, NULL);
    }
    pthread_t second;
    int have_second = 0;
    long sum = 0, longs = 0;
    for (long i = 0; i < iter; i++) {
        int is_long = i % every == every - 1;
        if (have_second && i < LATE_REGIONS) /* back in the runtime's pool since the last join */
            pthread_kill(second, SIGUSR1);
#pragma omp parallel reduction(+ : sum)
        {
            sum += (i + omp_get_thread_num()) % 7;
            if (is_long)
                sum += work_2ms() - 1;
            if (late_ns && omp_get_thread_num() == 1 && !have_second) {
                second = pthread_self();
                have_second = 1; /* read by the master after the join */
            }
        }
        longs += is_long;
    }
    printf("par_thin_app: threads %d sum %ld long %ld\n", omp_get_max_threads(), sum, longs);
    return 0;
}
