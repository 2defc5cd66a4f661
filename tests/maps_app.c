/* maps_app.c: test program for the traced process's memory (tests/e2e/memory.sh):
 * N iterations of a user region holding a few milliseconds of computation (the
 * tracer samples them and its frames worker symbolizes them), then, still
 * inside the run, prints "mapped NAME" for each NAME given after N that names a
 * file mapped into the process (/proc/self/maps), and a deterministic result. */
#include <hcatrace.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int mapped(const char *name)
{
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f)
        return -1;
    char line[4096];
    int found = 0;
    while (!found && fgets(line, sizeof(line), f)) {
        const char *slash = strrchr(line, '/');
        found = slash && strstr(slash, name) != NULL;
    }
    fclose(f);
    return found;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 100;
    volatile double s = 0;
    for (int it = 0; it < n; it++) {
        HCATRACE_BEGIN("iteration");
        for (int j = 0; j < 200000; j++)
            s = s + j * 1e-9;
        HCATRACE_END("iteration");
    }
    for (int i = 2; i < argc; i++) {
        int m = mapped(argv[i]);
        if (m != 0)
            printf("%s %s\n", m > 0 ? "mapped" : "cannot read the maps for", argv[i]);
    }
    printf("maps_app: %.6f\n", s);
    return 0;
}
