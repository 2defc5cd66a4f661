/* points.h: the folded point clouds of one region: per counter, every sample of
 * every instance that measured the counter at entry, at exit and at every
 * sample in between, as (normalized time x, x + rho (F - x)), F the
 * instance's increase since entry over its own total, rho its rate over the
 * counter's rate factor (points.c says why); the sums that turn a fitted
 * rate of that curve into events per second; and, for the source bands, every sample's normalized time and leaf
 * calling context (instances without counters included). */
#ifndef FOLD_POINTS_H
#define FOLD_POINTS_H

#include <stddef.h>
#include <stdint.h>

#include "fit.h"
#include "trace.h"

typedef struct {
    double *x, *y;          /* used instances: x = (t - t0) / (t1 - t0), y = (C(t) - C(t0)) / ((t1 - t0) R)
                               + (1 - rho) x, R the rate factor (fold_points_rate_factor), rho = the instance's
                               total / ((t1 - t0) R): every instance ends at 1, and the duration-weighted mean of
                               y is that of the increases over ((t1 - t0) R) */
    size_t n;
    double *fy;             /* the same points as fractions of each instance's own total (0 when it is 0):
                               exact 0 and 1 at the anchors, where the edge skew is measured (analysis.c) */
    double *ex_x, *ex_y;    /* the same for the excluded instances (for plots) */
    size_t nex;
    size_t instances;       /* used instances that measured the counter throughout */
    size_t zero_total;      /* of those, instances whose total is 0 (their points are at y = 0) */
    size_t dropped;         /* used instances without the counter throughout, or whose counter went backwards */
    double sum_total;       /* counter total summed over the `instances` */
    double sum_duration_ns; /* their durations summed */
    /* each of the `instances` (none when no used instance counted an event), in point order (for the bootstrap over instances,
     * bootstrap.h): its index among the region's used instances, the index of
     * its first point in x/y (first[instances] = n; a zero total's points are at 0),
     * its total and its duration */
    size_t *inst, *first;
    double *total, *duration_ns;
} fold_counter_points;

typedef struct {
    size_t ncounters;
    fold_counter_points *counters; /* per trace counter (fold_trace.counters) */
    size_t used_instances, used_samples;
    double mean_duration_ns;       /* over the used instances */
    /* every sample of the used instances, in instance order (location, time) */
    double *sx;                    /* normalized time */
    uint32_t *scontext;            /* leaf calling context or FOLD_NONE */
    size_t *sinstance;             /* index of its used instance (for the bootstrap) */
    uint32_t *sexpiries;           /* the sampling timer's expiries it stands for (fold_sample_expiries) */
    size_t ns;
} fold_points;

/* How many expiries of a wall-clock sampling timer (period_ns, 0: another
 * source) a sample at t stands for, the location's previous sample in its
 * instance (or the instance's start) at prev: the gap in periods, at least 1.
 * The tracer gives a late signal one sample per expiry it missed, but one
 * sample in all to expiries missed while the thread was in the tracer
 * (taken at its exit, hct_sample_defer.h); a preemption there is the
 * program's time, not the tracer's (docs/trace-format.md, "Tool time"), and
 * on a loaded machine the scheduler preempts a thread at the tracer's
 * CPU-clock reads: tests/stages_app with one thread beside two busy loops
 * had 615 expiries missed, 495 of them in lagrange_nodal, whose samples per
 * ms of its time were 0.35 against lagrange_elements' 0.44
 * (docs/benchmarks.md, "Bands under contention and threads"). */
static inline uint32_t fold_sample_expiries(uint64_t t, uint64_t prev, uint64_t period_ns)
{
    if (!period_ns || t <= prev)
        return 1;
    uint64_t n = (t - prev + period_ns / 2) / period_ns;
    return n < 1 ? 1 : n > 128 ? 128 : (uint32_t)n;
}

/* Builds the clouds of region r of trace t. Returns 0, or -1 when memory ran out. */
int fold_points_build(const fold_trace *t, const fold_region *r, fold_points *out);
void fold_points_free(fold_points *p);

/* The used cloud of a counter, as the fitting functions take it. */
fold_cloud fold_points_cloud(const fold_points *p, size_t counter);

/* Sum of totals / sum of durations, events per second: a fitted rate of the
 * folded curve (mean 1 over [0,1]) times this is events/s. 0 when the
 * counter was never measured. */
double fold_points_rate_factor(const fold_counter_points *c);

/* The counter's total over the instances' wall time (sum of totals / sum of
 * durations, per ns): for task-clock (ns) the region's CPU share. NAN when
 * never measured. */
double fold_points_share(const fold_counter_points *c);

/* Mean total of the counter per instance, NAN when never measured. */
double fold_points_mean_total(const fold_counter_points *c);

#endif
