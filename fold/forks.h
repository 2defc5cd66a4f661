/* forks.h: the OpenMP runtime's frames on the thread that forks a team. Its
 * samples taken in the runtime around the body it runs itself (starting the
 * team, waiting at the join for the others: GOMP_parallel and libgomp's
 * unnamed code below it) are the parallel region's time; named as the
 * runtime they alternated with the body in the bands of the code calling it
 * (TeaLeaf's calc_ur, miniFE's matvec: up to ten bands). They are given to
 * the body, the outlined function that the calling frame's parallel region
 * runs. Likewise a thread's samples waiting in a barrier (explicit, implicit,
 * taskwait: libgomp's frames or a futex syscall below the barrier's node)
 * are named as the barrier ("omp barrier"), not as the runtime (CloverLeaf's
 * OpenMP loops banded `libgomp.so.1 (OpenMP runtime)` and `syscall` between
 * their own lines). See docs/output.md, "Source bands". */
#ifndef FOLD_FORKS_H
#define FOLD_FORKS_H

#include <stdint.h>

#include "trace.h"

/* Whether a function is the OpenMP runtime's (its file is libgomp, libomp
 * or libiomp5). */
int fold_runtime_function(const fold_trace *t, uint32_t region);

/* Per calling context: the body (function region ID) of the parallel regions
 * entered from that frame, FOLD_NONE if none, FOLD_FORK_MANY if several
 * differ. NULL when out of memory; free() it. */
#define FOLD_FORK_MANY (FOLD_NONE - 1)
uint32_t *fold_fork_bodies(const fold_trace *t);

/* A sampled stack (path[0..n): its frames' contexts, leaf first) with a frame
 * right under a barrier's node, or whose outermost runtime frame (or the C
 * library's syscall(), the runtime's futex wait) is called from a frame that
 * forks a known body: the frames from the root to that
 * frame, and in *body the region to name it by (the barrier's, the body's
 * function); else n and *body FOLD_NONE. */
uint32_t fold_fork_cut(const fold_trace *t, const uint32_t *bodies, const uint32_t *path, uint32_t n,
                       uint32_t *body);

#endif
