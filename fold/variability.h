/* variability.h: how a region's instances vary: the spread of the used
 * instances' durations, and per location (rank, thread) their count and
 * mean, shortest and longest duration. For report.html and fold.json. */
#ifndef FOLD_VARIABILITY_H
#define FOLD_VARIABILITY_H

#include "result.h"
#include "trace.h"

/* Fills g->duration and g->per_location from f's used instances. Returns 0,
 * or -1 when memory ran out. */
int fold_variability(const fold_trace *t, const fold_region *f, fold_region_result *g);

#endif
