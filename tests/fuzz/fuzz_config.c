/* fuzz_config.c: libFuzzer target of the tracer's configuration parser
 * (instrument/hct_config.c): the input's lines are the environment
 * (HCATRACE_SAMPLING=..., HCATRACE_COUNTERS=..., any NAME=VALUE); each is read
 * to a value or one "hcatrace:" line, never a crash. Built and run by `make fuzz`;
 * seeds: tests/fuzz/config/. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hct_config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void ignore(const char *line)
{
    (void)line;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    char **env = calloc(size + 2, sizeof(char *));
    if (!text || !env) {
        free(text);
        free(env);
        return 0;
    }
    memcpy(text, data, size);
    text[size] = 0;
    size_t n = 0;
    for (char *line = text, *next; line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = 0;
        env[n++] = line;
    }
    env[n] = NULL;
    hct_config cfg;
    hct_config_read(&cfg, env, ignore);
    free(env);
    free(text);
    return 0;
}
