/* regions.h: from the instances read per location to the regions hcafold
 * folds: instances grouped by key (a named region's calling context; a burst's
 * opening and closing MPI call sites), a key split into duration groups when
 * its durations form separate clusters, and duration outliers excluded by
 * median +- k * MAD within each group, durations without the tracer's own time. */
#ifndef FOLD_REGIONS_H
#define FOLD_REGIONS_H

#include <stddef.h>

#include "trace.h"

typedef struct {
    double k;                  /* keep |d - median| <= k * scale * MAD; default 1.5 (BSC folding's -sigma-times) */
    double mad_scale;          /* default 1.4826 (MAD as an estimate of the standard deviation);
                                  1.0 gives BSC folding's unscaled rule */
    double mad_floor;          /* MAD at least this fraction of the median; default 0.005 */
    double tool_tolerance;     /* an instance's window widens by this fraction of the tracer's time
                                  removed from it (the uncertainty of that measurement); default 0.1 */
    int split;                 /* split keys into duration groups; default 1 */
    size_t min_group;          /* a group holds at least this many instances; default 10 */
    double min_group_fraction; /* ... and at least this fraction of the key's instances; default 0.10 */
    double gap_factor;         /* split where the log-duration gap exceeds this many robust spreads
                                  of either side; default 4 */
    double min_gap;            /* ... and exceeds this log-duration gap (0.1: 10.5 %); default 0.1 */
    double min_apart;          /* two modes split past min_gap, whatever the gap, when their medians are
                                * this far apart in ln(duration) (1.0: 2.7 times) and more than
                                * gap_factor * (s_left + s_right); default 1.0 */
} fold_region_options;

void fold_region_defaults(fold_region_options *o);

/* Groups every location's instances into t->folds (ordered by total time,
 * descending; ties by key, then group) and frees the per-location instance
 * lists. Per key, the duration groups (numbered by ascending duration) and the
 * outlier rule, with n the key's instance count:
 *   1. Sort ln(duration). Consider the split points leaving at least
 *      m = max(min_group, ceil(min_group_fraction * n)) instances on each side;
 *      take the one with the widest gap; split there if the gap exceeds
 *      max(min_gap, gap_factor * max(s_left, s_right)), s = 1.4826 * MAD of the
 *      side's ln(duration), or if it exceeds min_gap and the sides' medians
 *      are more than max(min_apart, gap_factor * (s_left + s_right)) apart
 *      (two modes, one spread by the machine's load). Recurse into both sides.
 *      Where no gap splits, at a valley of the density, once (regions.c); of
 *      wall times only between tight modes or when the valley parts the
 *      locations (each with 80 % of its instances on one side).
 *   2. In each group: median M and MAD of the durations; instances with
 *      |d - M| > k * max(mad_scale * MAD, mad_floor * M) + tool_tolerance * tool
 *      are excluded (d and tool: the instance's duration and the tracer's own
 *      time removed from it, fold_instance).
 * Returns 0, or -1 when memory ran out (message in err). */
int fold_regions_build(fold_trace *t, const fold_region_options *o, char *err, size_t errlen);

/* Frees t->folds. */
void fold_regions_free(fold_trace *t);

/* Fold of a name (and group), or NULL. */
const fold_region *fold_region_find(const fold_trace *t, const char *name, unsigned group);

#endif
