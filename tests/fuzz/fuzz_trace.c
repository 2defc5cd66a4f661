/* fuzz_trace.c: libFuzzer target of hcafold's trace reading (fold/read*.c,
 * src/hca_schema_read.c, through OTF2's reader): an input's first byte picks a file
 * of a small synthetic trace (the event file, the local definitions, the global
 * definitions, the anchor), the rest replaces that file's content; fold_read must
 * read it or fail with one message, never crash. The trace is copied from
 * $FUZZ_TRACE (a directory written by hcasynth; `make fuzz` makes it) into a
 * private directory at start; seeds are its own files (`make fuzz`). */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "read.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const files[] = { "traces/0.evt", "traces/0.def", "traces.def", "traces.otf2" };
#define NFILES (sizeof(files) / sizeof(files[0]))
static char dir[64];
static unsigned char *original[NFILES];
static size_t original_len[NFILES];

static unsigned char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    unsigned char *buf = NULL;
    size_t cap = 0, n = 0, got;
    do {
        if (n == cap) {
            unsigned char *b = realloc(buf, cap = cap ? 2 * cap : 4096);
            if (!b)
                break;
            buf = b;
        }
        got = fread(buf + n, 1, cap - n, f);
        n += got;
    } while (got);
    fclose(f);
    *len = n;
    return buf;
}

static void put(const char *name, const void *data, size_t len)
{
    char path[128];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (f) {
        if (len)
            fwrite(data, 1, len, f);
        fclose(f);
    }
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *seed = getenv("FUZZ_TRACE");
    snprintf(dir, sizeof(dir), "/tmp/fuzz_trace.XXXXXX");
    if (!seed || !mkdtemp(dir)) {
        fprintf(stderr, "fuzz_trace: set FUZZ_TRACE to a trace directory written by hcasynth\n");
        exit(1);
    }
    char sub[128];
    snprintf(sub, sizeof(sub), "%s/traces", dir);
    if (mkdir(sub, 0755) != 0)
        exit(1);
    for (size_t i = 0; i < NFILES; i++) {
        char path[4096];
        snprintf(path, sizeof(path), "%s/%s", seed, files[i]);
        original[i] = slurp(path, &original_len[i]);
        if (!original[i])
            exit(1);
        put(files[i], original[i], original_len[i]);
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    size_t which = data[0] % NFILES;
    put(files[which], data + 1, size - 1);
    fold_trace t;
    char err[512];
    char anchor[128];
    snprintf(anchor, sizeof(anchor), "%s/traces.otf2", dir);
    if (fold_read(anchor, NULL, &t, err, sizeof(err)) == FOLD_OK)
        fold_trace_free(&t);
    put(files[which], original[which], original_len[which]);
    return 0;
}
