/* hct_config.c: parsing of the HCATRACE_* environment variables. Unknown names
 * and unknown values are reported (with the closest known name) and replaced by
 * their defaults, so a typo never stops the application. */
#include "hct_config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every variable the tracer knows, also those read by other parts. */
static const char *const known_names[] = {
    "HCATRACE_ENABLE", "HCATRACE_DIR", "HCATRACE_VERBOSE", "HCATRACE_CALLSITES",
    "HCATRACE_CLOCK_SYNC_ROUNDS",
};

static size_t edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 63 || lb > 63)
        return 64;
    size_t row[64];
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
            size_t best = diag + cost;
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

static const char *closest_name(const char *name)
{
    const char *best = known_names[0];
    size_t best_d = (size_t)-1;
    for (size_t i = 0; i < sizeof(known_names) / sizeof(known_names[0]); i++) {
        size_t d = edit_distance(name, known_names[i]);
        if (d < best_d) {
            best_d = d;
            best = known_names[i];
        }
    }
    return best;
}

static int parse_bool(const char *v, int *out)
{
    static const char *const yes[] = { "1", "on", "yes", "true" };
    static const char *const no[] = { "0", "off", "no", "false" };
    for (size_t i = 0; i < 4; i++) {
        if (strcmp(v, yes[i]) == 0) {
            *out = 1;
            return 0;
        }
        if (strcmp(v, no[i]) == 0) {
            *out = 0;
            return 0;
        }
    }
    return -1;
}

static int parse_uint(const char *v, unsigned lo, unsigned hi, unsigned *out)
{
    char *end;
    unsigned long x = strtoul(v, &end, 10);
    if (!*v || *end || x < lo || x > hi)
        return -1;
    *out = (unsigned)x;
    return 0;
}

int hct_config_read(hct_config *cfg, char *const *envp, void (*report)(const char *line))
{
    char line[512];
    int problems = 0;
    cfg->enable = 1;
    cfg->verbose = 0;
    cfg->callsites = 1;
    cfg->dir = NULL;
    cfg->clock_sync_rounds = 10;
    for (char *const *e = envp; e && *e; e++) {
        if (strncmp(*e, "HCATRACE_", 9) != 0)
            continue;
        const char *eq = strchr(*e, '=');
        if (!eq)
            continue;
        char name[64];
        size_t nlen = (size_t)(eq - *e);
        if (nlen >= sizeof(name))
            nlen = sizeof(name) - 1;
        memcpy(name, *e, nlen);
        name[nlen] = 0;
        const char *v = eq + 1;
        int bad = 0;
        unsigned u;
        if (strcmp(name, "HCATRACE_ENABLE") == 0) {
            bad = parse_bool(v, &cfg->enable);
        } else if (strcmp(name, "HCATRACE_CALLSITES") == 0) {
            bad = parse_bool(v, &cfg->callsites);
        } else if (strcmp(name, "HCATRACE_VERBOSE") == 0) {
            bad = parse_uint(v, 0, 2, &u);
            if (!bad)
                cfg->verbose = (int)u;
        } else if (strcmp(name, "HCATRACE_CLOCK_SYNC_ROUNDS") == 0) {
            bad = parse_uint(v, 1, 1000, &u);
            if (!bad)
                cfg->clock_sync_rounds = u;
        } else if (strcmp(name, "HCATRACE_DIR") == 0) {
            if (!*v)
                bad = 1;
            else
                cfg->dir = v;
        } else {
            snprintf(line, sizeof(line), "unknown variable %s (did you mean %s?); ignored", name,
                     closest_name(name));
            report(line);
            problems++;
            continue;
        }
        if (bad) {
            snprintf(line, sizeof(line), "invalid value '%.200s' for %s; using the default", v, name);
            report(line);
            problems++;
        }
    }
    return problems;
}
