/* paths.h: the code paths of one region key. Two code paths that run between
 * the same two MPI calls (a conjugate-gradient step reaching the same dot
 * product from SpMV or from the multigrid) are one key; their samples tell
 * them apart. The rule (docs/output.md, "Regions"):
 *   1. the samples of the key's instances share a call path from the root
 *      down to the first depth where no function holds 90 % of them; the
 *      function a sample runs at that depth is its branch;
 *   2. branches seen together in one instance are one path (union-find);
 *      so are paths whose samples are ordered in region time (a sample of
 *      one after a sample of the other in at most 10 % of the pairs, or in
 *      at least 90 %): stages of one path, rarely both sampled in one
 *      instance when samples are sparse, while alternative paths each fill
 *      their own instances from start to end; paths with less than 5 % of
 *      the samples join the largest;
 *   3. the paths are kept apart only if, were they one, instances with two
 *      or more samples would have mixed them at least 5 times (expected
 *      count, sum over those instances of 1 - sum_p share_p^m): none did;
 *      copies of one interrupt (same stack and counter values) count once;
 *   4. an instance goes to the path of most of its samples; an instance
 *      without samples to the path whose median duration is nearest its own
 *      (in log duration; ties: the larger path). */
#ifndef FOLD_PATHS_H
#define FOLD_PATHS_H

#include <stddef.h>
#include <stdint.h>

#include "trace.h"

typedef struct {
    size_t npaths;     /* 1 when the key is one path */
    uint32_t *path_of; /* per instance */
    char **labels;     /* per path: its branches' functions, "path_smooth" or "a, b"; NULL when npaths == 1 */
    size_t nlabels;
} fold_paths;

/* The paths of the key's instances ins[0..n) (their samples are in t's
 * locations). Returns 0, or -1 when memory ran out. */
int fold_paths_find(const fold_trace *t, const fold_instance *ins, size_t n, fold_paths *out);
void fold_paths_free(fold_paths *p);

#endif
