/* score.h: `hcafold --score TRACE`, what tracing costs per region, as
 * scorep-score gives it for Score-P: from a (short) run's trace, per region
 * name the instances written, the bytes of their event records, the tracer's
 * time they cost, what HCATRACE_THIN and HCATRACE_FILTER would save, and a
 * suggested filter (score.c; docs/output.md, "Score"). */
#ifndef FOLD_SCORE_H
#define FOLD_SCORE_H

#include <stdio.h>

typedef struct {
    const char *filter;         /* HCATRACE_FILTER syntax: evaluate this filter (NULL: none) */
    const char *suggest_path;   /* write the suggested filter file here (NULL: not) */
    unsigned long thin_first;   /* HCATRACE_THIN's N evaluated (default 1000) */
    unsigned long long thin_ns; /* ... and its DURATION (default 50 us) */
} fold_score_options;

/* Scores the archive at path (traces.otf2) onto out. Returns 0, 1 when the
 * trace cannot be read, 2 for a bad filter, 3 when the suggested filter
 * cannot be written; err[errlen] says why. */
int fold_score(const char *path, const fold_score_options *o, FILE *out, char *err, size_t errlen);

#endif
