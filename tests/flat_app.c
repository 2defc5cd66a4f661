/* flat_app.c: a program with known CPU rates, for the folding tests of the
 * tracer and hcafold (tests/e2e/fold_flat.sh, bench/skew.sh). One thread,
 * busy all the time in two user regions (include/hcatrace.h):
 *   "flat": MS ms of pure computation: task-clock rises at exactly the
 *           thread's CPU share (one CPU when it has the machine) from enter
 *           to leave;
 *   "step": MS ms of computation, then MS ms asleep: task-clock at the CPU
 *           share in the first half, zero in the second (with -s only).
 * The work is a fixed number of loop iterations per ms, calibrated once before
 * the first region on the thread's CPU time.
 *
 * Usage: flat_app [-s] [N [MS]]   (default 300 instances of 5 ms)
 * Output: "flat: N instances of M ms, K iterations per ms" (not the same in
 * every run: K is measured). */
#define _GNU_SOURCE
#include <hcatrace.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile unsigned long sink;

/* n steps of a dependent integer chain: neither vectorized nor folded away */
__attribute__((noinline)) static void spin(long n)
{
    unsigned long x = sink | 1;
    for (long i = 0; i < n; i++)
        x = x * 6364136223846793005ul + 1442695040888963407ul;
    sink = x;
}

static double cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* iterations of spin() per ms of this thread's CPU time: the best of a few
 * runs of ~20 ms (the least disturbed) */
static long calibrate(void)
{
    long n = 100000;
    double best = 0.0;
    for (int r = 0; r < 5; r++) {
        double t0 = cpu_ms();
        spin(n);
        double dt = cpu_ms() - t0;
        if (dt < 20.0 && r == 0) { /* too short to measure: scale up, run again */
            n = (long)((double)n * 20.0 / (dt > 0.01 ? dt : 0.01));
            r = -1;
            continue;
        }
        double per_ms = (double)n / dt;
        if (per_ms > best)
            best = per_ms;
    }
    return best > 1.0 ? (long)best : 1;
}

int main(int argc, char **argv)
{
    int step = 0, a = 1;
    if (a < argc && strcmp(argv[a], "-s") == 0) {
        step = 1;
        a++;
    }
    int n = a < argc ? atoi(argv[a]) : 300;
    double ms = a + 1 < argc ? atof(argv[a + 1]) : 5.0;
    if (n <= 0 || !(ms > 0.0 && ms <= 1000.0)) {
        fprintf(stderr, "usage: %s [-s] [N [MS]]\n", argv[0]);
        return 2;
    }
    long per_ms = calibrate();
    long iters = (long)((double)per_ms * ms);
    long rest_ns = (long)(ms * 1e6);
    struct timespec rest = { (time_t)(rest_ns / 1000000000L), rest_ns % 1000000000L };
    for (int i = 0; i < n; i++) {
        HCATRACE_BEGIN("flat");
        spin(iters);
        HCATRACE_END("flat");
        if (step) {
            HCATRACE_BEGIN("step");
            spin(iters);
            nanosleep(&rest, NULL);
            HCATRACE_END("step");
        }
    }
    printf("flat: %d instances of %g ms, %ld iterations per ms\n", n, ms, per_ms);
    return 0;
}
