/* late_rank_app.c: test program for the tracer's waits at the end of a job
 * (tests/e2e/quiet_end.sh): every rank makes a few MPI calls, then the last
 * rank is busy elsewhere (asleep: it takes no CPU from the others) for DELAY
 * seconds before MPI_Finalize, while the others call it at once and wait
 * there for it. Each rank prints the CPU time (user + system, all its
 * threads) and the wall time its MPI_Finalize took: "late_rank_app: rank R
 * finalize cpu_ms C wall_ms W". A waiting rank that polls spends much of its
 * wait on a CPU when one is free; one that sleeps, a few ms. Usage:
 * late_rank_app [DELAY] (default 2). */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

static double wall_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static double cpu_ms(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
           (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
}

int main(int argc, char **argv)
{
    double delay = argc > 1 ? atof(argv[1]) : 2.0;
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long in = rank, out = 0;
    for (int i = 0; i < 10; i++)
        MPI_Allreduce(&in, &out, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == size - 1) {
        struct timespec t = { (time_t)delay, (long)((delay - (double)(time_t)delay) * 1e9) };
        while (nanosleep(&t, &t) != 0)
            ;
    }
    double c0 = cpu_ms(), w0 = wall_ms();
    MPI_Finalize();
    printf("late_rank_app: rank %d finalize cpu_ms %.1f wall_ms %.1f sum %ld\n", rank, cpu_ms() - c0, wall_ms() - w0,
           out);
    return 0;
}
