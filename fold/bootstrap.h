/* bootstrap.h: how sure a fold is. Confidence intervals by the bootstrap over
 * instances: the region's used instances are resampled with replacement (a
 * seeded GSL generator, so the same trace gives the same intervals), each
 * replicate is refitted with what the fit and the segmentation chose kept
 * (fit.h: fold_fit_design, fold_segment_frame), and the spread of the
 * replicates gives a band around every folded rate curve, an interval for
 * every phase boundary and every phase rate. Method and fields: docs/output.md,
 * "Confidence". */
#ifndef FOLD_BOOTSTRAP_H
#define FOLD_BOOTSTRAP_H

#include <stddef.h>

#include "bands.h"
#include "fit.h"

typedef struct {
    size_t replicates; /* default FOLD_BOOTSTRAP_REPLICATES; 0: no intervals */
    double level;      /* default 0.95 */
    unsigned long seed; /* default 1 */
} fold_bootstrap_options;

#define FOLD_BOOTSTRAP_REPLICATES 60
/* Instances are resampled in at most this many blocks of consecutive used
 * instances (each block one draw): with more instances the cost of a
 * replicate stays bounded, and the blocks are still many. */
#define FOLD_BOOTSTRAP_MAX_BLOCKS 5000
/* The source bands of a replicate are found from at most this many stacks
 * (a fixed stride over the samples), the spread of their shares scaled by
 * sqrt(stacks used / stacks) to that of all: banding is the costly part. */
#define FOLD_BOOTSTRAP_MAX_STACKS 5000

void fold_bootstrap_defaults(fold_bootstrap_options *o);

/* One counter of a region, as fitted. */
typedef struct {
    fold_cloud cloud;              /* the points the curve was fitted on (after the cap) */
    const size_t *point_instance;  /* used-instance index of every point of cloud */
    const fold_curve *curve;       /* the fit of cloud */
    size_t ninstances;             /* instances that measured the counter, with: */
    const size_t *instance;        /* their used-instance indices, */
    const double *total, *duration_ns; /* their totals and durations (the rate scale) */
    double rate_scale;             /* events/s per unit of fraction rate */
    int votes;                     /* its cloud places the phase boundaries */
    double *smooth_rate;           /* when the curve took steps (analysis.c): the rate of its fit without
                                      them (units of curve->rate, grid points), which the band holds too;
                                      NULL: none. Owned by the caller */
} fold_bootstrap_counter;

/* The intervals of one counter: each [lo, hi] at the level of the options. */
typedef struct {
    double *rate_lo, *rate_hi;         /* per grid point, events/s */
    double *phase_lo, *phase_hi;       /* per phase, events/s */
    double band_width;                 /* mean of (hi - lo) / 2 over the grid, over the mean rate */
} fold_counter_interval;

typedef struct {
    size_t replicates;
    double level;
    size_t nphases;
    double *bound_lo, *bound_hi;       /* per boundary (nphases + 1; the ends are exact 0 and 1) */
    fold_counter_interval *counters;   /* per counter, in the order given */
    size_t ncounters;
} fold_region_interval;

/* The phase rates of a counter (events/s, per phase) from a segmentation:
 * the slope of its voting cloud (voter < phases->nclouds) times scale, or,
 * when it did not vote or the slope is negative (a line through few noisy
 * points can fall), the mean slope of its monotone fitted curve (cum on a
 * grid of `grid` points) over the phase. */
void fold_phase_rates(const double *bounds, size_t nphases, const double *slopes, size_t nvoters, size_t voter,
                      const double *cum, size_t grid, double scale, double *out);

/* Bootstraps a region: the curves of every counter, then the boundaries
 * (phases->bounds, shared by the voting counters, whose clouds are the
 * phases->nclouds counters with votes, in order) and the phase rates.
 * Boundaries whose interval is wide (wider than half the narrower phase next
 * to it: the data do not place it) are removed, widest first, and their
 * phases merged (phases->bounds and ->slopes updated, the slopes by
 * fold_segment_slopes), until every boundary is placed. phase_rate[c] (room
 * for phases->nphases values as given) gets counter c's phase rates
 * (fold_phase_rates) for the final phases, also without replicates. With
 * replicates and refit not NULL, refit(ctx, phases, bound_lo, bound_hi) is
 * called once the boundaries and their intervals (nphases + 1 each) are
 * final, before the curves' replicates: it may fit the counters' curves
 * again (in place: the curves the counters point to; analysis.c, steps),
 * and the bands, the replicates and the phase rates are then those of the
 * curves as it left them. Returns 0, or -1 when memory ran out or refit
 * failed; *out is then empty. */
typedef int (*fold_bootstrap_refit)(void *ctx, const fold_segmentation *phases, const double *bound_lo,
                                    const double *bound_hi);
int fold_bootstrap_region(const fold_bootstrap_counter *counters, size_t ncounters, size_t ninstances,
                          const fold_segment_options *so, const fold_bootstrap_options *o,
                          fold_segmentation *phases, double **phase_rate, fold_region_interval *out,
                          fold_bootstrap_refit refit, void *ctx);
void fold_region_interval_free(fold_region_interval *r);

/* Intervals of the shares of source bands: stacks (with the used-instance
 * index of each, of ninstances) are resampled as in fold_bootstrap_region
 * and their bands found again (fold_bands, options bo); a band's share in a
 * replicate is the summed share of the replicate's bands of the same
 * function at the same depth that overlap it. lo[i], hi[i] for bands[i].
 * Without replicates (fewer than 2, or fewer than 2 instances) lo = hi =
 * share. Returns 0, or -1 when memory ran out. */
int fold_bootstrap_bands(const fold_stack_sample *stacks, const size_t *stack_instance, size_t n,
                         size_t ninstances, const fold_band_options *bo, const fold_band *bands, size_t nbands,
                         const fold_bootstrap_options *o, double *lo, double *hi);

/* Mean and standard deviation of v[0], v[stride], ... (n values). */
void fold_mean_sd(const double *v, size_t n, size_t stride, double *mean, double *sd);

#endif
