/* hct_filter.c: HCATRACE_FILTER's patterns: parsed once at load, matched with
 * fnmatch(3) once per region key and thread (hct_thin.c caches the answer). */
#include "hct_filter.h"

#include <ctype.h>
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

/* One pattern, spaces around it dropped; -1 with the reason in why. */
static int add_pattern(hct_filter *f, const char *p, size_t n, char *why, size_t len)
{
    while (n && isspace((unsigned char)*p)) {
        p++;
        n--;
    }
    while (n && isspace((unsigned char)p[n - 1]))
        n--;
    if (n == 0) {
        snprintf(why, len, "an empty pattern");
        return -1;
    }
    if (n >= HCT_FILTER_PATTERN) {
        snprintf(why, len, "a pattern longer than %d characters", HCT_FILTER_PATTERN - 1);
        return -1;
    }
    if (f->n >= HCT_FILTER_MAX) {
        snprintf(why, len, "more than %d patterns", HCT_FILTER_MAX);
        return -1;
    }
    int open = 0;
    for (size_t i = 0; i < n; i++) {
        if (p[i] == '\\' && i + 1 < n)
            i++;
        else if (p[i] == '[')
            open = 1;
        else if (p[i] == ']')
            open = 0;
    }
    if (open) {
        snprintf(why, len, "an unclosed '[' in the pattern '%.*s'", (int)n, p);
        return -1;
    }
    memcpy(f->pattern[f->n], p, n);
    f->pattern[f->n][n] = 0;
    f->n++;
    return 0;
}

static int parse_file(hct_filter *f, const char *path, char *why, size_t len)
{
    FILE *in = fopen(path, "r");
    if (!in) {
        snprintf(why, len, "cannot read the file %s", path);
        return -1;
    }
    char line[512];
    int bad = 0, lineno = 0;
    while (!bad && fgets(line, sizeof(line), in)) {
        lineno++;
        size_t n = strcspn(line, "\r\n");
        const char *p = line;
        while (isspace((unsigned char)*p))
            p++;
        if (*p == 0 || *p == '#' || (size_t)(p - line) >= n)
            continue;
        char reason[256];
        if (add_pattern(f, line, n, reason, sizeof(reason)) != 0) {
            snprintf(why, len, "%s:%d: %s", path, lineno, reason);
            bad = 1;
        }
    }
    fclose(in);
    if (!bad && f->n == 0) {
        snprintf(why, len, "no pattern in the file %s", path);
        bad = 1;
    }
    return bad ? -1 : 0;
}

int hct_filter_parse(hct_filter *f, const char *value, char *why, size_t len)
{
    f->n = 0;
    if (strchr(value, '/'))
        return parse_file(f, value, why, len);
    for (const char *p = value;;) {
        size_t n = strcspn(p, ",");
        if (add_pattern(f, p, n, why, len) != 0)
            return -1;
        if (p[n] == 0)
            return 0;
        p += n + 1;
    }
}

int hct_filter_match(const hct_filter *f, const char *name)
{
    for (int i = 0; i < f->n; i++)
        if (fnmatch(f->pattern[i], name, 0) == 0)
            return 1;
    return 0;
}
