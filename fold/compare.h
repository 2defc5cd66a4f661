/* compare.h: two folds of the same program side by side (hcafold --compare
 * BEFORE AFTER): regions matched by name, each phase of the region before
 * paired with the phase after that overlaps it most on normalized time, the
 * change of each pair's duration per instance and rates, the phase that
 * changed most, and the change of the whole run's POP metrics. Pure: reads two
 * reports, computes, writes nothing. */
#ifndef FOLD_COMPARE_H
#define FOLD_COMPARE_H

#include <stddef.h>

#include "result.h"

/* Consecutive phases of a region whose counter rates all differ by less than
 * FOLD_COMPARE_SAME_RATE (relative) are one phase here: a segmentation may
 * split a phase in one run and not in the other. */
#define FOLD_COMPARE_SAME_RATE 0.1

typedef struct {
    size_t first, last;        /* the region's phases merged into this one */
    double start, end;         /* normalized time */
    double ms;                 /* duration per instance: width x mean duration */
} fold_phase_span;

typedef struct {
    fold_phase_span before, after;
} fold_phase_pair;

typedef struct {
    const fold_region_result *before, *after; /* NULL: the region is in one run only */
    size_t ibefore, iafter;    /* their indices in the reports */
    fold_phase_pair *pairs;    /* one per (merged) phase before: the same index when both runs have
                                  as many, else the phase after that overlaps it most */
    size_t npairs;
    size_t changed;            /* the pair whose duration changed most (npairs when none) */
    size_t rate_changed;       /* the pair where a counter's rate changed most (by ratio; npairs: none) */
    const char *rate_counter;  /* that counter */
    double rate_before, rate_after;
} fold_region_pair;

typedef struct {
    fold_region_pair *regions; /* the matched ones first (in the order after), then those only before, only after */
    size_t nregions, nmatched;
} fold_comparison;

/* Returns 0, or -1 when memory ran out. */
int fold_compare(const fold_report *before, const fold_report *after, fold_comparison *out);
void fold_comparison_free(fold_comparison *c);

/* The rate of counter k over a span: the phases' rates weighted by their widths. */
double fold_span_rate(const fold_region_result *g, const fold_counter_result *k, const fold_phase_span *s);

/* The counter of the same name in g, or NULL. */
const fold_counter_result *fold_counter_named(const fold_region_result *g, const char *name);

/* Writes the comparison: on out (text), and compare.html in dir (0, or -1
 * with a one-line reason in err). */
void fold_write_compare_summary(const fold_report *before, const fold_report *after, const fold_comparison *c,
                                FILE *out);
int fold_write_compare_html(const fold_report *before, const fold_report *after, const fold_comparison *c,
                            const char *dir, char *err, size_t errlen);

#endif
