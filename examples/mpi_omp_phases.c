/*
 * mpi_omp_phases.c - an iterative MPI+OpenMP program (MPI_THREAD_FUNNELED:
 * only the master thread calls MPI) with a known per-thread structure, for
 * tracing with libhcatrace.so.
 *
 * Usage: mpirun -np P mpi_omp_phases [ITERATIONS]
 * Each iteration: one parallel region running a statically scheduled loop
 * whose iterations grow in cost (the threads with the last chunks work
 * longest; higher ranks get a little more work), then, on the master thread,
 * an MPI_Allreduce of the rank's partial result.
 * Rank 0 prints, on stdout, exactly:
 *   mpi_omp_phases: ranks P parallel regions R     (R per rank)
 *   mpi_omp_phases: result X                       (deterministic)
 * Exit code 0; a bad argument prints usage on stderr and exits with 2.
 */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define N 64
#define UNIT 20000L

static double cell[N];

__attribute__((noinline)) static double work(long steps, double seed)
{
    double x = seed;
    for (long k = 0; k < steps; k++)
        x = x * 0.999999 + 1e-6 * (double)(k & 7);
    return x;
}

int main(int argc, char **argv)
{
    int provided, rank, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long iterations = 10;
    if (argc > 1) {
        char *end;
        iterations = strtol(argv[1], &end, 10);
        if (*end || iterations < 1 || iterations > 100000 || argc > 2) {
            if (rank == 0)
                fprintf(stderr, "usage: mpi_omp_phases [ITERATIONS]\n");
            MPI_Finalize();
            return 2;
        }
    }
    long regions = 0;
    double result = 0.0;
    for (long it = 0; it < iterations; it++) {
#pragma omp parallel
        {
#pragma omp for schedule(static)
            for (int i = 0; i < N; i++)
                cell[i] = work(UNIT * (1 + i / 8 + rank), (double)i);
        }
        regions++;
        double part = 0.0, sum = 0.0;
        for (int i = 0; i < N; i++)
            part += cell[i];
        MPI_Allreduce(&part, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        result += sum;
    }
    if (rank == 0) {
        printf("mpi_omp_phases: ranks %d parallel regions %ld\n", size, regions);
        printf("mpi_omp_phases: result %.6e\n", result);
    }
    MPI_Finalize();
    return 0;
}
