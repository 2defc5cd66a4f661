/* fold_testutil.h: helpers of the unit tests of hcafold's reading side: run the
 * trace synthesizer ($BUILD/tests/hcasynth) into a fresh temporary directory,
 * read its ground truth (truth.txt, key=value), remove the directory. */
#ifndef FOLD_TESTUTIL_H
#define FOLD_TESTUTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline const char *tu_build_dir(void)
{
    const char *b = getenv("BUILD");
    return b && *b ? b : "build";
}

/* Runs hcasynth --out <tmp>/t ARGS; returns the malloc'ed trace directory, or
 * NULL. The caller removes it with tu_remove. */
static inline char *tu_synth(const char *args)
{
    char tmpl[] = "/tmp/hcafoldtest.XXXXXX";
    if (!mkdtemp(tmpl))
        return NULL;
    size_t n = strlen(tmpl) + 8;
    char *dir = malloc(n);
    if (!dir)
        return NULL;
    snprintf(dir, n, "%s/t", tmpl);
    char cmd[4096];
    snprintf(cmd, sizeof(cmd), "%s/tests/hcasynth --out %s %s", tu_build_dir(), dir, args);
    if (system(cmd) != 0) {
        fprintf(stderr, "# failed: %s\n", cmd);
        free(dir);
        return NULL;
    }
    return dir;
}

/* Removes the temporary directory made by tu_synth (the parent of dir). */
static inline void tu_remove(char *dir)
{
    if (!dir)
        return;
    char *slash = strrchr(dir, '/');
    if (slash && strncmp(dir, "/tmp/hcafoldtest.", 17) == 0) {
        *slash = 0;
        char cmd[4200];
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
        if (system(cmd) != 0)
            fprintf(stderr, "# could not remove %s\n", dir);
    }
    free(dir);
}

/* The value of key in dir/truth.txt, copied into buf; NULL if absent. */
static inline const char *tu_truth(const char *dir, const char *key, char *buf, size_t len)
{
    char path[4096], line[4096];
    snprintf(path, sizeof(path), "%s/truth.txt", dir);
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    size_t k = strlen(key);
    const char *found = NULL;
    while (fgets(line, sizeof(line), f)) {
        if (strncmp(line, key, k) == 0 && line[k] == '=') {
            line[strcspn(line, "\n")] = 0;
            size_t m = strlen(line + k + 1);
            if (m >= len)
                m = len - 1;
            memcpy(buf, line + k + 1, m);
            buf[m] = 0;
            found = buf;
            break;
        }
    }
    fclose(f);
    return found;
}

/* dir, or "" (keeps the compiler's null-argument checks quiet after an assert). */
static inline const char *tu_str(const char *dir)
{
    return dir ? dir : "";
}

static inline double tu_truth_num(const char *dir, const char *key)
{
    char buf[256];
    return tu_truth(dir, key, buf, sizeof(buf)) ? strtod(buf, NULL) : -1.0;
}

#endif
