/* burst_loop_app.c: an MPI program whose MPI calls come from call sites of
 * the two kinds the tracer's prediction of a leave's burst must tell apart
 * (instrument/hct_mpi_burst.h, tests/e2e/mpi_leave_reads.sh): per iteration,
 * MPI_Iprobe from one call site in a loop of LOOP calls (short bursts between
 * them, then, after the loop's last, a long burst of about BURST_US of work),
 * then MPI_Iprobe from a second site followed at once by the next iteration's
 * loop (a short burst). The work is a fixed number of loop steps calibrated
 * once at the start (by the fastest of 5 runs: on a loaded machine a
 * preempted run made the bursts shorter than 50 us, in one run under load).
 * Usage: burst_loop_app [ITERATIONS [LOOP [BURST_US]]]  (defaults 400 4 200)
 * Prints "burst_loop_app: <checksum>". */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile double sink;

__attribute__((noinline, noipa)) static double work(long steps, double a)
{
    for (long i = 0; i < steps; i++)
        a = a * 0.9999999 + 1e-7;
    return a;
}

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* the fastest of 5 runs of steps loop steps, us (a preemption lengthens one) */
static double fastest(long steps)
{
    double best = 0;
    for (int k = 0; k < 5; k++) {
        double t0 = now_us();
        sink = work(steps, 1.0);
        double t = now_us() - t0;
        if (k == 0 || t < best)
            best = t;
    }
    return best;
}

/* loop steps for about us microseconds */
static long calibrate(double us)
{
    long steps = 1000;
    for (;;) {
        double t = fastest(steps);
        if (t > 2000.0)
            return (long)((double)steps * us / t) + 1;
        steps *= 2;
    }
}

int main(int argc, char **argv)
{
    int iterations = argc > 1 ? atoi(argv[1]) : 400, loop = argc > 2 ? atoi(argv[2]) : 4;
    double burst_us = argc > 3 ? atof(argv[3]) : 200.0;
    if (iterations < 1 || loop < 1 || burst_us <= 0) {
        fprintf(stderr, "usage: burst_loop_app [ITERATIONS [LOOP [BURST_US]]]\n");
        return 2;
    }
    MPI_Init(&argc, &argv);
    long steps = calibrate(burst_us);
    double a = 1.0;
    int flag = 0;
    MPI_Status status;
    for (int it = 0; it < iterations; it++) {
        for (int k = 0; k < loop; k++)
            MPI_Iprobe(MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, &flag, &status); /* the loop's site */
        a = work(steps, a);
        MPI_Iprobe(MPI_ANY_SOURCE, 8, MPI_COMM_WORLD, &flag, &status); /* the second site */
    }
    sink = a;
    printf("burst_loop_app: %.6f\n", a);
    MPI_Finalize();
    return 0;
}
