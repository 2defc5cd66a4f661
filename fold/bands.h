/* bands.h: source code over normalized time. From the call stacks of the
 * folded samples: per time bin and stack depth the dominant function and line,
 * and contiguous bands where one routine dominates several consecutive bins. */
#ifndef FOLD_BANDS_H
#define FOLD_BANDS_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint32_t function; /* region ID of the function */
    uint32_t line;     /* source line executing in it (0 unknown) */
} fold_frame;

typedef struct {
    double x;                 /* normalized time in [0,1] */
    const fold_frame *frames; /* frames[0] is the outermost (e.g. main), frames[depth-1] the leaf */
    uint32_t depth;
} fold_stack_sample;

typedef struct {
    size_t bins;        /* time bins; default 50 */
    size_t min_bins;    /* consecutive bins a routine must dominate to open a band; default 2 */
    double dominance;   /* share of a bin's samples the dominant routine needs; default 0.5 */
    uint32_t anchor_function; /* the function that opens the region (its call site's), or UINT32_MAX */
} fold_band_options;

typedef struct {
    double start, end;  /* normalized time */
    double share;       /* end - start: the share of region time */
    double purity;      /* share of the band's samples at this depth in this function */
    uint32_t depth;     /* 0 = outermost frame */
    uint32_t function;  /* region ID */
    uint32_t line;      /* most frequent line of the function within the band */
    size_t samples;
} fold_band;

void fold_band_defaults(fold_band_options *o);
/* Bands of every depth, sorted by depth then start. Bins without samples
 * continue the routine of the bin before; with few samples there are fewer
 * bins (about 4 samples per bin, at least 10). *best_depth gets the depth to
 * draw: the shallowest where the dominant routine changes over time; when one
 * routine dominates at every depth, the frame below the anchor function (the
 * code the region's caller calls), else the deepest.
 * Returns 0, or -1 on bad input or no memory. */
int fold_bands(const fold_stack_sample *samples, size_t n, const fold_band_options *o, fold_band **bands,
               size_t *nbands, uint32_t *best_depth);

#endif
