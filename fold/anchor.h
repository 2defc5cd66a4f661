/* anchor.h: where a region's source bands start. The stacks of its samples are
 * cut at the deepest caller they have in common, so that frame 0 is that
 * caller and the bands one frame below it show where the region's time splits
 * into distinct functions (docs/output.md, "Source bands"). */
#ifndef FOLD_ANCHOR_H
#define FOLD_ANCHOR_H

#include <stddef.h>
#include <stdint.h>

#include "bands.h"
#include "trace.h"

/* Functions that earlier regions' samples split below (their deepest common
 * callers): where a region's samples run one chain, such a function on the
 * chain is the caller of the code the region runs. */
typedef struct {
    uint32_t *functions; /* region IDs */
    size_t n, cap;
} fold_anchors;

/* The depth (0 = the root frame) to cut the stacks at:
 *   1. the common path: from the root, the frames where one function holds 90 %
 *      of the samples that reach that depth, ending where more than 10 % of
 *      them end (in its last function itself);
 *   2. if the samples split below it (another function at the next depth):
 *      its last frame, the deepest common caller;
 *   3. else (one chain down to the leaf) the caller of the code that opens or
 *      closes the region: the function that calls `callers[i]` (the functions
 *      holding the region's boundary calls) wherever the trace's calling
 *      contexts show it, else the chain's function nearest above them in
 *      those contexts (boundary calls made in helpers off the chain), else
 *      the deepest function of `known` (the deepest
 *      common callers of the regions folded before), else the outermost frame
 *      of the chain declared in the same file as a caller, else `main`, found
 *      on the chain; the leaf's caller when that is the leaf (the leaf calls
 *      a boundary function, then runs throughout); else 0.
 * A split's common caller is added to `known` (when known is not NULL and
 * memory allows). */
/* The most frequent value of v[0..n) (ties: the lowest), its count in
 * *count; sorts v. */
uint32_t fold_most_frequent(uint32_t *v, size_t n, size_t *count);

uint32_t fold_anchor_depth(const fold_trace *t, const fold_stack_sample *stacks, size_t n,
                           const char *const *callers, size_t ncallers, fold_anchors *known);

#endif
