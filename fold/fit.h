/* fit.h: the numerics of folding, on point clouds of one region: a smooth
 * monotone fit of a cumulative curve (GSL penalized B-splines) and its
 * derivative, and the optimal segmentation of one or more curves into linear
 * pieces (the phases), with a penalty chosen by BIC. Pure functions: no trace,
 * no I/O; deterministic. */
#ifndef FOLD_FIT_H
#define FOLD_FIT_H

#include <stddef.h>

/* Folded points of one counter: x = normalized time in [0,1], y = the
 * instance's cumulative count in units in which the mean over the points
 * ends at 1 (fold/points.h; an instance's own curve may end above or below 1). The
 * anchors (0,0) and (1,1) of the mean curve are implied and need not be in
 * the cloud. A NaN or infinite coordinate makes the call fail (-1); finite x
 * outside [0,1] is clamped to it, a negative y to 0. */
typedef struct {
    const double *x, *y;
    size_t n;
} fold_cloud;

/* Phases that touch 0 or 1 are at least this wide, and a constant offset of
 * the points from the anchors is measured within this distance of them
 * (fold_cloud_offset). */
#define FOLD_EDGE_WIDTH 0.03
/* Largest offset taken for a measurement skew; a larger one is the data's. */
#define FOLD_MAX_OFFSET 0.02

/* The offset along x of a cloud's points from its anchors. A sample whose
 * counter values were read a little later than its timestamp, relative to
 * the region's boundaries, carries the values of a later normalized time
 * x + d (d = the skew / the instance's duration), and the exact anchors would
 * bend that into steep edge phases. A least-squares line through the points
 * within FOLD_EDGE_WIDTH of each edge gives the local rate there and the
 * shift d at which it meets the anchor. Both edges must have a significant
 * rate and a significant shift of the same sign (beyond 3 standard errors,
 * each edge from at least 10 points); then d is their inverse-variance
 * weighted mean if they agree within 3 standard errors, else the smaller
 * one, if |d| <= FOLD_MAX_OFFSET; otherwise 0. A real edge phase moves one
 * edge, or the two in opposite directions, or is wider than the window and
 * moves neither. The fit and the segmentation use x + d (clamped to [0,1]).
 * Pure; deterministic. */
double fold_cloud_offset(const fold_cloud *cloud);

/* A folded point (x, y) in units of one rate factor R (fold/points.h: y = F +
 * (rho - 1)(F - h(x)), rho the instance's rate over R, F its fraction of its
 * own total, h a pilot of the mean fraction) put into units of another factor
 * R', scale = R / R': x + scale (y - x). The bootstrap's replicates have their
 * own factor. Exact for h(x) = x; with the pilot h, (scale - 1)(h(x) - x) is
 * neglected: scale is within about 0.1 % of 1 for a replicate of a few
 * hundred instances whose rates vary by 2 %. */
double fold_y_rescale(double x, double y, double scale);

/* The most points an output curve may have (hcafold --grid): each costs some 1.7 KB
 * per region and counter across the fit, the outputs and the plots. */
#define FOLD_MAX_GRID 10000

typedef struct {
    size_t grid;        /* points of the output curve, x_i = i / (grid - 1); default 101, at most
                           FOLD_MAX_GRID */
    size_t max_points;  /* cap on points fed to the fit, chosen deterministically (fold_cap_points);
                           default 20000; 0: no cap */
    size_t coarse_max_points; /* the raised cap of a counter whose fit at max_points is coarse
                                 (fold_fit_raised_cap); default FOLD_COARSE_MAX_POINTS; 0 (hcafold
                                 --max-points given): max_points is exact */
    int offset_given;   /* 1: use `offset` instead of fold_cloud_offset of the cloud (default 0) */
    double offset;
    double smoothing;   /* penalty weight of the P-spline: the fit minimizes
                           mean squared residual + smoothing * sum of squared (robustly
                           weighted) second differences of the coefficients;
                           <= 0: chosen by GCV (typical values 0.01 - 0.1) */
    const double *breaks; /* steps: normalized times (the points' x after the offset) where the rate may
                             jump; the cumulative curve stays continuous there, its slope is free (a
                             triple knot, no penalty across it). Ascending; those within a knot interval
                             of 0, 1 or the previous one are ignored. NULL (default): none */
    size_t nbreaks;
    int trend;          /* 1: the penalty is on the changes of the rate's slope (third differences of the
                           coefficients, not robust), so that a linear rate, a trend, costs nothing and is
                           not pulled towards the mean at the anchors; 0 (default): on the changes of the
                           rate (second differences, robust) */
    int dense;          /* 1: the reference solves (an eigendecomposition of the dense system, O(K^3) per
                           reweighting; the refits' dense Cholesky), against which the default banded ones
                           (O(K), fold/band.h) are tested; 0 (default) */
} fold_fit_options;

typedef struct {
    size_t grid;
    double *x;     /* grid */
    double *cum;   /* fitted cumulative fraction, non-decreasing, cum[0] = 0, cum[grid-1] = 1 */
    double *rate;  /* d cum / dx >= 0: fraction per unit of normalized time (mean 1) */
    double rmse;   /* root mean square residual of the points against the fit */
    double gcv;    /* its generalized cross-validation score (mean squared residual over (1 - GCV_GAMMA x
                      effective parameters / points) squared): to choose between fits of one cloud */
    size_t used;   /* points used after the cap */
    double smoothing; /* the penalty weight used (chosen by GCV or given), in the units of
                         fold_fit_options.smoothing */
    double offset; /* fold_cloud_offset of the cloud: added to every point's x before fitting */
    /* what the fit chose, for refits of resampled clouds (fold_fit_design) */
    size_t intervals;  /* knot intervals */
    double lambda;     /* the penalty weight in the units of the normal equations */
    double *weights;   /* the robust penalty's final weights, one per difference of the coefficients */
    double *breaks;    /* the steps the fit took from fold_fit_options.breaks (NULL: none) */
    size_t nbreaks;
    int trend;         /* fold_fit_options.trend */
    int dense;         /* fold_fit_options.dense */
    double resolution; /* the width (normalized time) over which the rate is known within about
                          2.25 % of its mean rate (one standard error) from the points' scatter and
                          density, where the counter counts (fit.c, curve_resolution): changes of the
                          rate over shorter spans are averaged out. At most 1 (only the mean rate is
                          known); 0: too few points to tell */
} fold_curve;

/* A counter's curve whose resolution (fold_curve.resolution) is coarser than
 * this (normalized time, ten steps of the default grid) is not resolved at
 * the scale of its phases: the summary names that counter (summary.c). Near idle,
 * tests/truth_app's page faults read 0.10-0.18 at 2 ms (their MAE 6-9 %),
 * its task-clock 0.03-0.11 (MAE 1-3 %) (docs/benchmarks.md, "What any fold
 * could do"). */
#define FOLD_COARSE_RESOLUTION 0.1

/* A capped counter's curve coarser than this is fitted again from the raised
 * cap (fold_fit_raised_cap), a little below FOLD_COARSE_RESOLUTION: truth_app's
 * rank sharing its core with a busy process, its task-clock at 1 ms sampling
 * resolved over 0.090-0.094 of the region from 20,000 of its 35,414 points,
 * read 5.3 % MAE against the truth (7.1 % with the tracer's time removed), 3.1
 * % (4.8 %) from all of them; its rate waves with the busy process's slices
 * (0.32-0.55 CPUs over 0.1 of the region). Near idle, truth_app's task-clock
 * and page faults read 0.030-0.074 at 1-2 ms and are not refitted
 * (docs/benchmarks.md, "The rank that shares its core (issue 17, branch
 * loaded17)"). */
#define FOLD_REFIT_RESOLUTION 0.08

/* The raised cap (fold_fit_options.coarse_max_points): loaded, a region's
 * instances differ so much that its rates are resolved only over 0.1-0.4 of
 * it at 20,000 points, and the fold's error falls with more points (issue 17:
 * truth_app beside a busy process, 8 folds of 800-5000 instances per rank,
 * task-clock MAE 5.8 -> 3.7 %, page faults 9.2 -> 6.7 % on average;
 * docs/benchmarks.md, "The fit against truth"). Five times the default cap:
 * the region's fold took 2.5-3 times as long there. */
#define FOLD_COARSE_MAX_POINTS 100000

void fold_fit_defaults(fold_fit_options *o);
/* Returns 0, or -1 (errno-free: only on bad input or no memory; *out is then
 * zeroed). Knots: one interval per 2 points, 10 to 80; then 160 when each
 * holds 4 points and the fit with them has the lower GCV score (fold/fit.c).
 * Cost: O(n) to accumulate the points per knot count tried, plus the
 * coefficient-sized banded solves, O(K) for each of the GCV's ~190 smoothing
 * weights per reweighting; thread-safe. */
int fold_fit_cumulative(const fold_cloud *cloud, const fold_fit_options *o, fold_curve *out);
void fold_curve_free(fold_curve *c);

/* Refits of a cloud under point weights with the knots (its steps too), the smoothing weight
 * and the offset the fit of `like` chose kept; the robust penalty's weights
 * are found again from 1 by the fit's reweighting (at most its 10 linear
 * solves: the data's weights follow the data's own wiggles, and kept they
 * made every replicate bend where the data bent, a band 1.5-2 times too
 * narrow at 0.25 samples per instance), then the monotone solve when the
 * solution is not monotone. The basis at every
 * point and on the grid is evaluated once, in fold_fit_design_new. For the
 * bootstrap (bootstrap.h): a replicate's resampled instances are weights
 * (multiplicities) on the same points. */
typedef struct fold_fit_design fold_fit_design;
/* NULL on bad input or no memory. The cloud is used as given (no cap). */
fold_fit_design *fold_fit_design_new(const fold_cloud *cloud, const fold_curve *like);
/* w: a weight >= 0 per point of the design's cloud (NULL: all 1); yscale: the
 * points' y rescaled by fold_y_rescale (1: as given; the anchors stay at 0 and
 * 1: the replicate's points in units of its own rate factor, points.h). Writes the
 * grid values of the cumulative curve and of the rate (like->grid each).
 * Returns 0, or -1 when memory ran out. Not thread-safe on one design. */
int fold_fit_refit(fold_fit_design *d, const double *w, double yscale, double *cum, double *rate);
void fold_fit_design_free(fold_fit_design *d);

/* The cap to fit a cloud of n points again with, when its fit c at
 * o->max_points was coarse: o->coarse_max_points (at most n) when the cloud
 * was capped (n > o->max_points > 0), c->resolution is coarser than
 * FOLD_REFIT_RESOLUTION and the raised cap is larger; else 0 (keep c). Pure. */
size_t fold_fit_raised_cap(const fold_fit_options *o, size_t n, const fold_curve *c);

/* Deterministic cap: indices of at most max of n points (a fixed stride over
 * the input order, so the same input gives the same choice): index
 * floor(k * n / max) for k < max, or all n if n <= max or max == 0; chosen
 * holds min(n, max) entries (n if max == 0). Returns their number. */
size_t fold_cap_points(size_t n, size_t max, size_t *chosen);

typedef struct {
    size_t max_phases;  /* default 8 */
    double penalty;     /* <= 0: BIC; > 0: this much residual sum of squares (y units squared) per phase */
    size_t bins;        /* points are averaged into this many x-bins before the search; default 200 */
    double min_width;   /* smallest phase width in normalized time; default 0.02 */
    double edge_width;  /* smallest width of a phase that starts at 0 or ends at 1 (a narrower
                           one is a measurement artifact, not a phase); default FOLD_EDGE_WIDTH */
    const double *offsets; /* per cloud, the offset to take out; NULL (default): fold_cloud_offset */
    const double *max_rate; /* per cloud, the highest possible rate (cloud units: CPU time, one CPU per
                               thread), <= 0 none; a phase above it by more than 5 % is merged into a
                               neighbour; NULL (default): no limit */
} fold_segment_options;

typedef struct {
    size_t nphases;
    double *bounds;  /* nphases + 1 values from 0 to 1 */
    double *slopes;  /* nphases x nclouds, row-major: slope of cloud c in phase p is slopes[p * nclouds + c],
                        in cumulative fraction per unit of normalized time: the phase's mean rate
                        relative to the region's (sum over phases of slope x width = 1) */
    size_t nclouds;
    unsigned char *trend; /* per phase, or NULL (none): 1 when the phase is a trend, a linear rate
                             (fold_segment_trends) */
    double *trend_start, *trend_end; /* nphases x nclouds: a trend's rate at its start and end, in the
                                        units of slopes (0 for other phases) */
} fold_segmentation;

void fold_segment_defaults(fold_segment_options *o);
/* Optimal (dynamic programming) segmentation shared by all clouds (each
 * cloud's x moved by its fold_cloud_offset first): the boundaries minimize the summed squared error of per-phase lines over all
 * clouds plus a penalty per phase (see segment.c for the weighting, the
 * boundary refinement and the check of every phase). Returns 0, or -1 on bad
 * input (no clouds, NULL, NaN/infinite points or penalty) or no memory; *out
 * is then zeroed. */
int fold_segment(const fold_cloud *clouds, size_t nclouds, const fold_segment_options *o, fold_segmentation *out);
void fold_segmentation_free(fold_segmentation *s);

/* Refits of given boundaries under point weights (the bootstrap's
 * replicates, bootstrap.h): the clouds are sorted once (each moved by its
 * offset, offsets[c], or its fold_cloud_offset when offsets is NULL, with its
 * anchors; the same for the trends and slopes below), then each refit weighs every point
 * (w[c][i] >= 0 for point i of cloud c; w or w[c] NULL: 1) and rescales its
 * y by fold_y_rescale with yscale[c] (the anchors kept; yscale NULL: 1), moves each inner
 * boundary to its best continuous two-line (hinge) position within the
 * midpoints of the given phases next to it (a scan of one bin, then of 1/20
 * bin), and gives the phases' slopes (np x nclouds, row-major, as
 * fold_segmentation.slopes) of the continuous piecewise-linear least-squares
 * curve through the anchors. Returns 0, or -1 on bad input or no memory. */
typedef struct fold_segment_frame fold_segment_frame;
fold_segment_frame *fold_segment_frame_new(const fold_cloud *clouds, size_t nclouds, const double *offsets);
int fold_segment_frame_refit(fold_segment_frame *f, const double *const *w, const double *yscale,
                             const double *bounds, size_t np, const fold_segment_options *o, double *out_bounds,
                             double *out_slopes);
void fold_segment_frame_free(fold_segment_frame *f);
/* Trends: a ramp of the rate is cut into many phases of constant rate, at
 * places that mean nothing. Phases i..j (the longest run first, from the
 * first phase on) become one trend phase when a quadratic cumulative curve
 * (a linear rate: 3 parameters per cloud) over them has a BIC no worse than
 * their lines (2 parameters per cloud per phase, one per boundary, plain
 * least squares on the points without the anchors) and its rate changes by
 * more than 10 % from start to end (the rates at the ends, clamped at 0, in
 * trend_start and trend_end). A trend whose end rates are impossible is not
 * taken: an end below 0 by more than a tenth of the other, or above
 * max_rate[c] (+2 %; per cloud, in the clouds' units; NULL or <= 0: no
 * bound), the physical limit of a CPU-time counter. A single phase is not
 * tested: a phase that holds two routines is curved too. Updates bounds,
 * slopes (at unit weights, when seg->nclouds == nclouds), trend, trend_start,
 * trend_end. Returns 0, or -1 on bad input or no memory. */
int fold_segment_trends(const fold_cloud *clouds, size_t nclouds, const double *offsets, const double *max_rate,
                        fold_segmentation *seg);
/* The slopes of the continuous model (unit weights) at fixed boundaries, as
 * above without moving them: for phases merged after the segmentation. */
int fold_segment_slopes(const fold_cloud *clouds, size_t nclouds, const double *offsets, const double *bounds,
                        size_t np, double *slopes);

#endif
