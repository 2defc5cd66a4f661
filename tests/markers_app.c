/* markers_app.c: test program for the user marker API (include/hcatrace.h):
 * N iterations, each a region "iteration" holding a nested region "solve".
 * Prints a deterministic result; runs the same with and without the tracer. */
#include <hcatrace.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 20;
    double s = 0;
    for (int it = 0; it < n; it++) {
        HCATRACE_BEGIN("iteration");
        HCATRACE_BEGIN("solve");
        for (int j = 0; j < 20000; j++)
            s += j * 1e-9;
        HCATRACE_END("solve");
        HCATRACE_END("iteration");
    }
    HCATRACE_END("never opened"); /* ignored */
    printf("markers: %.6f\n", s);
    return 0;
}
