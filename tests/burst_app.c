/* burst_app.c: an MPI program whose compute bursts between two MPI calls are
 * short (about 100 us), as in a sweep solver, with two stages of known shares
 * (tests/e2e/fold_bursts.sh, issue 18). Each iteration runs stage_a (FRACTION
 * of the burst's work) then stage_b (the rest), then polls for messages
 * (MPI_Iprobe); every 100th iteration also exchanges one number with its ring
 * neighbours (MPI_Sendrecv). The work is a fixed number of loop steps
 * calibrated once at the start, so a burst lasts what its work takes: time the
 * tracer spends inside a burst (a sample) makes it longer, as in a real program.
 * Both stages run the same loop, so the stage boundary lies near FRACTION of
 * the burst's time.
 * The exact truth: each rank reads CLOCK_MONOTONIC right after MPI_Iprobe
 * returns, between the stages and right before the next MPI_Iprobe, and with
 * TRUTH_PREFIX writes one line per burst between two MPI_Iprobe (no
 * MPI_Sendrecv inside) to TRUTH_PREFIX.RANK, "B start_ns boundary_ns end_ns":
 * the stage boundary lies at the median of (boundary - start) / (end - start)
 * (a sample the tracer takes in a burst lengthens it; most bursts hold none).
 * Usage: burst_app [ITERATIONS [BURST_US [FRACTION [TRUTH_PREFIX]]]]
 *        (defaults 20000 100 0.4, no truth file)
 * Prints "burst_app: <checksum>", identical with and without the tracer. */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile double sink;

#define STEP(a) ((a) * 0.9999999 + 1e-7)

__attribute__((noinline, noipa)) static double stage_a(long steps, double a)
{
    for (long i = 0; i < steps; i++)
        a = STEP(a);
    return a;
}

__attribute__((noinline, noipa)) static double stage_b(long steps, double a)
{
    for (long i = 0; i < steps; i++)
        a = STEP(a);
    return a;
}

static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* TRUTH_PREFIX.RANK: the bursts between two MPI_Iprobe (no MPI_Sendrecv
 * inside) of times (start, boundary, end per iteration). */
static void write_truth(const char *prefix, int rank, const int64_t *times, long n)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s.%d", prefix, rank);
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "burst_app: cannot write %s\n", path);
        return;
    }
    for (long it = 1; it < n; it++)
        if (it % 100 != 0) /* after an MPI_Sendrecv: another region */
            fprintf(f, "B %lld %lld %lld\n", (long long)times[3 * it], (long long)times[3 * it + 1],
                    (long long)times[3 * it + 2]);
    fclose(f);
}

/* Loop steps per microsecond of CPU time: the fastest of several 5 ms trials. */
static double steps_per_us(void)
{
    const long n = 200000;
    double best = 0;
    for (int k = 0; k < 7; k++) {
        double t0 = cpu_s();
        long done = 0;
        double a = 1.0;
        while (cpu_s() - t0 < 5e-3) {
            a = stage_a(n / 100, a);
            done += n / 100;
        }
        sink = a;
        double rate = (double)done / ((cpu_s() - t0) * 1e6);
        if (rate > best)
            best = rate;
    }
    return best;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long iterations = argc > 1 ? atol(argv[1]) : 20000;
    double burst_us = argc > 2 ? atof(argv[2]) : 100.0;
    double fraction = argc > 3 ? atof(argv[3]) : 0.4;
    const char *truth = argc > 4 ? argv[4] : NULL;
    if (iterations < 2 || burst_us <= 0 || fraction <= 0 || fraction >= 1) {
        if (rank == 0)
            fprintf(stderr, "usage: burst_app [ITERATIONS [BURST_US [FRACTION [TRUTH_PREFIX]]]]\n");
        MPI_Finalize();
        return 2;
    }
    /* every rank the same work: the fastest calibration (the least disturbed) */
    double rate = steps_per_us(), max_rate;
    MPI_Allreduce(&rate, &max_rate, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    long steps = (long)(burst_us * max_rate);
    long steps_a = (long)(fraction * (double)steps), steps_b = steps - steps_a;
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int64_t *times = calloc(3 * (size_t)iterations, sizeof(*times));
    if (!times) {
        fprintf(stderr, "burst_app: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    double a = 1.0, checksum = 0;
    int64_t start = mono_ns();
    for (long it = 0; it < iterations; it++) {
        times[3 * it] = start;
        a = stage_a(steps_a, a);
        times[3 * it + 1] = mono_ns();
        a = stage_b(steps_b, a);
        int flag = 0;
        times[3 * it + 2] = mono_ns();
        MPI_Iprobe(MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE); /* never sent: no wait */
        start = mono_ns();
        if (it % 100 == 99) {
            double mine = (double)(rank + 1), theirs = 0;
            MPI_Sendrecv(&mine, 1, MPI_DOUBLE, right, 0, &theirs, 1, MPI_DOUBLE, left, 0, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
            checksum += theirs + flag;
        }
    }
    sink = a;
    if (truth)
        write_truth(truth, rank, times, iterations);
    free(times);
    double total = 0;
    MPI_Reduce(&checksum, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("burst_app: %.0f\n", total);
    MPI_Finalize();
    return 0;
}
