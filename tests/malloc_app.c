/* malloc_app.c: test program that prints how glibc's malloc serves large
 * blocks (mapped of their own, or from the heap) at points of an MPI +
 * OpenMP run: at start, after MPI_Init, after OpenMP parallel regions and
 * MPI calls, at the end. glibc raises its threshold for mapping a block of
 * its own when a mapped block is freed, so a tracer that frees one changes
 * how the program's own large temporaries are served (LULESH's per-step
 * arrays: 221,307 page faults untraced, 8,474 traced). Its output must be the
 * same with and without the tracer (rank 0 prints every line). The program
 * frees no mapped block of its own before the end (each probe's block is kept
 * until then).
 *     malloc_app [STEPS] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "malloc_probe.h"

#define MAX_KEPT (3 * MALLOC_PROBES)
static void *kept[MAX_KEPT];
static int nkept;

/* one line into buf: for each size, M (mapped) or H (heap); the blocks are kept */
static void probe(const char *when, char *buf, size_t size)
{
    void **blocks = kept + nkept;
    unsigned bits = malloc_probe(blocks);
    nkept += MALLOC_PROBES;
    size_t used = (size_t)snprintf(buf, size, "%-28s", when);
    for (int i = 0; i < MALLOC_PROBES && used < size; i++)
        used += (size_t)snprintf(buf + used, size - used, " %zuK:%c", malloc_probe_kib[i],
                                 !blocks[i] ? '?' : bits >> i & 1 ? 'M' : 'H');
}

int main(int argc, char **argv)
{
    int steps = argc > 1 ? atoi(argv[1]) : 50;
    char start[256], init[256], end[256];
    probe("start", start, sizeof(start)); /* printed by rank 0 only, below */
    MPI_Init(&argc, &argv);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    probe("after MPI_Init", init, sizeof(init));
    double sum = 0.0;
    for (int s = 0; s < steps; s++) {
        double part = 0.0;
#pragma omp parallel for reduction(+ : part)
        for (int i = 0; i < 200000; i++)
            part += 1.0 / (1.0 + i + s);
        double all = 0.0;
        MPI_Allreduce(&part, &all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        sum += all;
    }
    probe("after the steps", end, sizeof(end));
    if (rank == 0)
        printf("%s\n%s\n%s\nsum %.6f\n", start, init, end, sum);
    MPI_Finalize();
    for (int i = 0; i < nkept; i++)
        free(kept[i]);
    return 0;
}
