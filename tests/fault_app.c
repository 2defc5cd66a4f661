/* fault_app.c: an MPI program that ends abnormally, for tests/e2e/survive.sh: ITERS
 * iterations of compute then MPI_Allreduce on every rank; half way, rank RANK ends as
 * MODE says: "abort" (MPI_Abort, error code 3), "segv" (a write through a null
 * pointer), "exit" (exit(5) without MPI_Finalize), "hang" (every rank prints "rank R
 * waits" and sleeps until it is killed: for SIGTERM to mpirun), "kill" (SIGKILL, which no program can act on;
 * iterations of about 10 us instead of 10 ms, so that many events are written before),
 * or "none" (a normal end). Prints "done" at a normal end.
 * Usage: fault_app MODE RANK ITERS */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static double compute(long n)
{
    double s = 0;
    for (long i = 1; i <= n; i++)
        s += 1.0 / ((double)i * (double)i);
    return s;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: fault_app abort|segv|exit|hang|kill|none RANK ITERS\n");
        return 2;
    }
    const char *mode = argv[1];
    int who = atoi(argv[2]), iters = atoi(argv[3]), rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double total = 0;
    int short_iterations = strcmp(mode, "kill") == 0;
    for (int i = 0; i < iters; i++) {
        long work = short_iterations ? 5000 : 5000000; /* about 10 us or 10 ms */
        double x = compute(work), sum = 0;
        MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        total += sum;
        if (i != iters / 2)
            continue;
        if (strcmp(mode, "hang") == 0) {
            printf("rank %d waits\n", rank); /* survive.sh sends SIGTERM after every rank's line */
            fflush(stdout);
            for (;;)
                pause();
        }
        if (rank != who)
            continue;
        if (strcmp(mode, "abort") == 0)
            MPI_Abort(MPI_COMM_WORLD, 3);
        if (strcmp(mode, "segv") == 0)
            *(volatile int *)(argv[0] - (size_t)argv[0]) = 1; /* null */
        if (strcmp(mode, "exit") == 0)
            exit(5);
        if (strcmp(mode, "kill") == 0)
            raise(SIGKILL);
    }
    MPI_Finalize();
    if (rank == 0)
        printf("done %.3f\n", total);
    return 0;
}
