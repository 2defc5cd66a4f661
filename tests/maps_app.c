/* maps_app.c: test program for the traced process's memory (tests/e2e/memory.sh):
 * N iterations of a user region holding a few milliseconds of computation (the
 * tracer samples them and its frames worker symbolizes them), then, still
 * inside the run, prints "mapped NAME" for each NAME given after N that names a
 * file mapped into the process (/proc/self/maps), and a deterministic result.
 * The NAME "+debug-pages" instead prints "debug pages mapped, N kB resident":
 * the resident kB of the private writable mappings of this program's own file
 * at offset 0 (libelf's, made when the frames worker read its DWARF; the
 * loader's are not writable at offset 0), waiting up to 5 s for them to reach
 * 0 (hct_symbolizer_release_pages), or "debug pages not mapped". */
#define _POSIX_C_SOURCE 200809L
#include <hcatrace.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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

/* the resident kB of libelf's mappings of this program; -1: none mapped */
static long debug_pages_kb(const char *exe)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f)
        return -1;
    char line[4352];
    long kb = -1, v;
    int in = 0;
    while (fgets(line, sizeof(line), f)) {
        char perms[8];
        unsigned long offset;
        int pathpos = 0;
        if (sscanf(line, "%*x-%*x %7s %lx %*s %*u %n", perms, &offset, &pathpos) == 2 && pathpos > 0) {
            line[strcspn(line, "\n")] = '\0';
            in = strcmp(perms, "rw-p") == 0 && offset == 0 && strcmp(line + pathpos, exe) == 0;
            if (in && kb < 0)
                kb = 0;
        } else if (in && sscanf(line, "Rss: %ld kB", &v) == 1) {
            kb += v;
        }
    }
    fclose(f);
    return kb;
}

static void debug_pages(void)
{
    char exe[4096];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (len <= 0)
        return;
    exe[len] = '\0';
    long kb = debug_pages_kb(exe);
    for (int i = 0; i < 500 && kb > 0; i++) { /* the worker drops them 50 ms after its last lookup */
        nanosleep(&(struct timespec){ 0, 10000000L }, NULL);
        kb = debug_pages_kb(exe);
    }
    if (kb < 0)
        printf("debug pages not mapped\n");
    else
        printf("debug pages mapped, %ld kB resident\n", kb);
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
        if (strcmp(argv[i], "+debug-pages") == 0) {
            debug_pages();
            continue;
        }
        int m = mapped(argv[i]);
        if (m != 0)
            printf("%s %s\n", m > 0 ? "mapped" : "cannot read the maps for", argv[i]);
    }
    printf("maps_app: %.6f\n", s);
    return 0;
}
