/* fork_path_app.c: test program for the call paths of kept-back OpenMP forks
 * (tests/e2e/thin.sh): ITER parallel regions forked from one function,
 * region_step, whose frame is addressed through its frame pointer (a
 * variable-length array, as LULESH's main), called alternately from phase_a
 * and phase_b. Each of those has a variable-length array of its own, of
 * another size, and passes region_step a size making up for it: the fork
 * sits at the same stack address from both, while region_step's frame (its
 * return address) lies elsewhere; both are called from one call instruction
 * in main. Every LONG-th region called from each is about 2 ms on each
 * thread (written when thinned). Usage: fork_path_app [ITER [LONG]]
 * (defaults 2000, 10); prints the sum and the number of long regions, the
 * same traced or not. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include "work_2ms.h"

__attribute__((noipa)) static long region_step(long i, int is_long, int n)
{
    volatile char scratch[n]; /* the frame's size varies: addressed through rbp */
    scratch[0] = (char)i;
    long sum = 0;
#pragma omp parallel reduction(+ : sum)
    {
        sum += (i + omp_get_thread_num()) % 7;
        if (is_long)
            sum += work_2ms() - 1;
    }
    return sum + scratch[0] - (char)i;
}

/* the same code, their arrays 64 and 192 bytes: region_step's 256 and 128 */
__attribute__((noipa)) static long phase_a(long i, int is_long, int n)
{
    volatile char pad[n]; /* left as it was: only one byte written */
    pad[0] = 0;
    return region_step(i, is_long, 320 - n) + pad[0];
}

__attribute__((noipa)) static long phase_b(long i, int is_long, int n)
{
    volatile char pad[n];
    pad[0] = 0;
    return region_step(i, is_long, 320 - n) + pad[0];
}

int main(int argc, char **argv)
{
    long iter = argc > 1 ? atol(argv[1]) : 2000, every = argc > 2 ? atol(argv[2]) : 10;
    if (iter < 2 || every < 1) {
        fprintf(stderr, "usage: fork_path_app [ITER [LONG]]\n");
        return 2;
    }
    long sum = 0, longs = 0;
    for (long i = 0; i < iter; i++) {
        /* both from one call instruction: the same return address in main */
        int b = i % 2, is_long = i / 2 % every == every - 1;
        long (*phase)(long, int, int) = b ? phase_b : phase_a;
        sum += phase(i, is_long, b ? 192 : 64);
        longs += is_long;
    }
    printf("fork_path_app: threads %d sum %ld long %ld\n", omp_get_max_threads(), sum, longs);
    return 0;
}
