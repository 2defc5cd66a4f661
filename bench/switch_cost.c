/* switch_cost.c: what a context switch costs a traced thread (issue 13,
 * docs/benchmarks.md "Software counters without perf events"): two threads
 * pinned to CPU 0 hand it to each other with sched_yield, each inside a
 * marker region so the tracer counts it (its counters, perf events or not).
 * Prints the process's CPU ns and the wall-clock ns per yield
 * (bench/switch_cost.sh runs it untraced and traced, in rotating rounds). */
#define _GNU_SOURCE
#include <hcatrace.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static int yields = 200000;
static pthread_barrier_t start;

static double now_ns(clockid_t clock)
{
    struct timespec t;
    clock_gettime(clock, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static void *pingpong(void *arg)
{
    (void)arg;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(0, &one);
    pthread_setaffinity_np(pthread_self(), sizeof(one), &one);
    HCATRACE_BEGIN("pingpong");
    pthread_barrier_wait(&start);
    for (int i = 0; i < yields; i++)
        sched_yield();
    HCATRACE_END("pingpong");
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc > 1)
        yields = atoi(argv[1]);
    if (yields <= 0)
        return 2;
    pthread_barrier_init(&start, NULL, 3);
    pthread_t a, b;
    HCATRACE_BEGIN("main");
    if (pthread_create(&a, NULL, pingpong, NULL) != 0 || pthread_create(&b, NULL, pingpong, NULL) != 0)
        return 1;
    pthread_barrier_wait(&start);
    double cpu0 = now_ns(CLOCK_PROCESS_CPUTIME_ID), wall0 = now_ns(CLOCK_MONOTONIC);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    double cpu1 = now_ns(CLOCK_PROCESS_CPUTIME_ID), wall1 = now_ns(CLOCK_MONOTONIC);
    HCATRACE_END("main");
    printf("cpu_ns_per_yield %.0f wall_ns_per_yield %.0f\n", (cpu1 - cpu0) / (2.0 * yields),
           (wall1 - wall0) / (2.0 * yields));
    return 0;
}
