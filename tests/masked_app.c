/* masked_app.c: test program whose thread runs with the sampling signal
 * blocked part of the time (as a program's own critical sections can, with
 * sigprocmask), so that a wall-clock expiry reaches the tracer late while the
 * thread ran: N instances of a region "masked_iter" (marker API), each 1 ms of
 * CPU work, MS ms of work with SIGPROF blocked, 1 ms more. Prints a
 * deterministic result; runs the same with and without the tracer.
 *     masked_app [N [MS]] */
#define _POSIX_C_SOURCE 200809L
#include <hcatrace.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* CPU work for ms milliseconds of this thread's CPU time; the sum of the
 * first `count` terms of a series, returned so the work is kept */
static double work_ms(double ms, unsigned long *count)
{
    double end = now_ms() + ms, s = 0.0;
    while (now_ms() < end)
        for (int j = 0; j < 1000; j++, (*count)++)
            s += 1.0 / (double)(*count + 1);
    return s;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 40;
    double masked = argc > 2 ? atof(argv[2]) : 8.0;
    if (n <= 0 || !(masked > 0.0)) {
        fprintf(stderr, "usage: masked_app [N [MS]]\n");
        return 2;
    }
    sigset_t prof;
    sigemptyset(&prof);
    sigaddset(&prof, SIGPROF);
    unsigned long count = 0;
    for (int it = 0; it < n; it++) {
        HCATRACE_BEGIN("masked_iter");
        work_ms(1.0, &count);
        sigprocmask(SIG_BLOCK, &prof, NULL);
        work_ms(masked, &count);
        sigprocmask(SIG_UNBLOCK, &prof, NULL);
        work_ms(1.0, &count);
        HCATRACE_END("masked_iter");
    }
    /* the work done depends on the clock: only that it ran is printed */
    printf("masked_app: %d instances\n", n);
    return 0;
}
