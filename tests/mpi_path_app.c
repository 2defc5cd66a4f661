/* mpi_path_app.c: test program for the call paths of MPI calls taken from
 * the thread's path cache (tests/e2e/mpi_paths.sh): ITER calls of
 * MPI_Allreduce, each followed by an MPI_Barrier, from one function, reduce_step, whose frame is
 * addressed through its frame pointer (a variable-length array, as LULESH's
 * main), called alternately from phase_a and phase_b. Each of those has a
 * variable-length array of its own, of another size, and passes reduce_step
 * a size making up for it: the wrapper's frame sits at the same stack
 * address from both (the same site and anchor), while reduce_step's frame
 * (its return address) lies elsewhere; both are called from one call
 * instruction in main. Every third step, phase_c calls reduce_step through
 * phase_a: a path one frame longer. Prints per rank how many steps went
 * through each: "mpi_path_app: rank R a A b B c C sum S", the same traced
 * or not. Usage: mpi_path_app [ITER] (default 600). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

__attribute__((noipa)) static long reduce_step(long i, int n)
{
    volatile char scratch[n]; /* the frame's size varies: addressed through rbp */
    scratch[0] = (char)i;
    long in = i % 7, out = 0;
    MPI_Allreduce(&in, &out, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    return out + scratch[0] - (char)i;
}

/* the same code, their arrays 64 and 192 bytes: reduce_step's 256 and 128 */
__attribute__((noipa)) static long phase_a(long i, int n)
{
    volatile char pad[n]; /* left as it was: only one byte written */
    pad[0] = 0;
    return reduce_step(i, 320 - n) + pad[0];
}

__attribute__((noipa)) static long phase_b(long i, int n)
{
    volatile char pad[n];
    pad[0] = 0;
    return reduce_step(i, 320 - n) + pad[0];
}

volatile long sink;

__attribute__((noipa)) static long phase_c(long i, int n)
{
    long r = phase_a(i, n);
    sink = r; /* no tail call: phase_c's frame stays on the path */
    return r;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    long iter = argc > 1 ? atol(argv[1]) : 600;
    if (iter < 3) {
        if (rank == 0)
            fprintf(stderr, "usage: mpi_path_app [ITER]\n");
        MPI_Finalize();
        return 2;
    }
    long sum = 0, count[3] = { 0, 0, 0 };
    for (long i = 0; i < iter; i++) {
        /* all from one call instruction: the same return address in main */
        int k = i % 3;
        long (*phase)(long, int) = k == 0 ? phase_a : k == 1 ? phase_b : phase_c;
        sum += phase(i, k == 1 ? 192 : 64);
        count[k]++;
    }
    printf("mpi_path_app: rank %d a %ld b %ld c %ld sum %ld\n", rank, count[0], count[1], count[2], sum);
    MPI_Finalize();
    return 0;
}
