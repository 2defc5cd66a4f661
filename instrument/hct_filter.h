/* hct_filter.h: HCATRACE_FILTER, the regions the user excludes by name: a list
 * of glob patterns (fnmatch) given inline or in a file (hct_filter.c;
 * docs/configuration.md, "Thinning and filtering"). Pure: no tracer state. */
#ifndef HCT_FILTER_H
#define HCT_FILTER_H

#include <stddef.h>

#define HCT_FILTER_MAX 64       /* patterns */
#define HCT_FILTER_PATTERN 128  /* bytes of one pattern, its NUL included */

typedef struct {
    int n;
    char pattern[HCT_FILTER_MAX][HCT_FILTER_PATTERN];
} hct_filter;

/* Parses the value of HCATRACE_FILTER into f: patterns separated by commas,
 * or, when the value has a '/', the file it names (one pattern per line,
 * blank lines and lines starting with '#' ignored); spaces around a pattern
 * are dropped (spaces inside are kept: "omp critical"). Returns 0, or -1
 * with one line saying why in why[len]: an empty pattern, an unclosed '[',
 * too many or too long patterns, an unreadable or empty file. */
int hct_filter_parse(hct_filter *f, const char *value, char *why, size_t len);
/* 1 when `name` matches one of f's patterns. */
int hct_filter_match(const hct_filter *f, const char *name);

#endif
