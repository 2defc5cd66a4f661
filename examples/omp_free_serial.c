/*
 * omp_free_serial.c - serial program with no MPI and no OpenMP at all. It is
 * used to check that a program which never calls MPI_Init is still traced,
 * as a single process, and that its exit code is kept.
 *
 * Usage: omp_free_serial [CODE]
 * Computes for about 0.3 s (deterministic floating-point work: a damped
 * recurrence plus a Leibniz series for pi), prints exactly one line
 *   serial: result X        (X printed with %.6e; identical on every run)
 * on stdout and exits with CODE (0..255, default 0). A bad argument prints
 * usage on stderr and exits with 2.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#define STEPS 180000000L

__attribute__((noinline)) double serial_work(long steps)
{
    double pi4 = 0.0, x = 1.0, sign = 1.0;
    for (long k = 0; k < steps; k++) {
        pi4 += sign / (double)(2 * k + 1);
        sign = -sign;
        x = 0.9999999 * x + 1e-7 * pi4;
    }
    return 4.0 * pi4 + x;
}

int main(int argc, char **argv)
{
    long code = 0;

    if (argc > 2) {
        fprintf(stderr, "usage: %s [EXIT_CODE]\n", argv[0]);
        return 2;
    }
    if (argc == 2) {
        char *end = NULL;
        errno = 0;
        code = strtol(argv[1], &end, 10);
        if (errno != 0 || end == argv[1] || *end != '\0' || code < 0 || code > 255) {
            fprintf(stderr, "usage: %s [EXIT_CODE]   (0..255)\n", argv[0]);
            return 2;
        }
    }

    printf("serial: result %.6e\n", serial_work(STEPS));
    fflush(stdout);
    return (int)code;
}
