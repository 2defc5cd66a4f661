/* hct_path.h: a location's current calling context in the process's one tree
 * of contexts: sampled frames and region nodes (MPI calls, OpenMP regions,
 * markers) spliced into them, and OTF2's unwind distance of each event against
 * the location's previous one (hct_path.c; docs/trace-format.md, "Regions and
 * calling contexts"). */
#ifndef HCT_PATH_H
#define HCT_PATH_H

#include <stdint.h>

#define HCT_PATH_FRAMES 64 /* physical frames of one stack, the innermost ones */
#define HCT_PATH_MAX 256   /* nodes of a path: frames (inline chains expanded), region nodes, frames under them */
#define HCT_PATH_OPEN 16   /* regions open at once on a thread */
#define HCT_PATH_CACHE 1024 /* (parent, frame address or region) -> nodes, per thread */
#define HCT_PATH_WAYS 4     /* entries per set of that cache: LULESH's 50 parallel loops thrashed a direct-mapped one */
#define HCT_PATH_CHAIN 12  /* a frame's nodes kept in that cache; longer inline chains are looked up */

/* A calling context as its path of local context IDs, root first. */
typedef struct {
    uint32_t cc[HCT_PATH_MAX];
    int depth;
} hct_ctx;

/* An entry of a thread's cache of nodes. */
typedef struct {
    uintptr_t key;      /* frame address or region tag */
    uint32_t parent, n; /* n = 0: empty */
    uint32_t cc[HCT_PATH_CHAIN];
} hct_path_entry;

/* A region open on a thread. */
typedef struct {
    int at;      /* index of the region's node in the thread's path */
    int nframes; /* the physical stack at its enter, root first */
    uintptr_t frames[HCT_PATH_FRAMES];
} hct_path_open;

/* One thread's state; a member of hct_thread (hct.h), zero at its start. */
typedef struct hct_path {
    hct_ctx now;                  /* the context of the location's last event */
    uintptr_t addr[HCT_PATH_MAX]; /* frame address of each node of `now`; 0: not this thread's frame */
    /* each node's place in its frame's inline chain (0: outermost) and the
     * chain's length: a frame is one node per function inlined at its address */
    uint8_t level[HCT_PATH_MAX], chain[HCT_PATH_MAX];
    int nopen;
    hct_path_open open[HCT_PATH_OPEN];
    hct_path_entry cache[HCT_PATH_CACHE];
} hct_path;

#define HCT_PATH_HIDDEN __attribute__((visibility("hidden")))

/* The physical stack of a region boundary, root first, up to the frame that
 * called into the tracer at `return_address` (the call instruction's address:
 * return address - 1), the tracer's own frames left out; returns the count. */
int hct_path_unwind(const void *return_address, uintptr_t *frames) HCT_PATH_HIDDEN;
/* The same stack as hct_path_unwind gave at a region's enter, found later
 * while that enter's caller is still running (its region open): `ret` is the
 * enter's own return address, `cfa` the stack pointer its caller had then
 * (the entry function's __builtin_dwarf_cfa()), `return_address` the call
 * site as for hct_path_unwind. The frames outside the caller's are the same
 * as long as that frame lives: they are unwound now, from the frame found at
 * `cfa`, `ret` its address. -1 when no frame of `ret`'s function is at `cfa`
 * (the caller returned). Not async-signal-safe (libunwind's cursor). */
int hct_path_unwind_from(const void *return_address, const void *ret, const void *cfa,
                         uintptr_t *frames) HCT_PATH_HIDDEN;
/* Enters region `key` called from the stack `frames` (root first, n of them):
 * the region's node becomes a child of the path that calls it. Returns its
 * context and sets *unwind; HCA_UNDEF (nothing changed) when the tables are full. */
uint32_t hct_path_enter(hct_path *p, uint32_t key, const uintptr_t *frames, int n, uint32_t *unwind) HCT_PATH_HIDDEN;
/* What hct_path_enter(p, key, frames, n, unwind) does when its nodes below
 * the innermost open region are known (hct_path_memo.c): base and j as
 * hct_path_base gives them, cc[0..nnodes-1] those nodes (the region's last),
 * bit i of starts set where node i is the first of a frame's inline chain,
 * frame j's the first. */
uint32_t hct_path_enter_nodes(hct_path *p, const uintptr_t *frames, int n, int base, int j, const uint32_t *cc,
                             int nnodes, uint32_t starts, uint32_t *unwind) HCT_PATH_HIDDEN;
/* What hct_path_enter would give, as a whole path, without entering (p's
 * cache only is touched): the context an OpenMP team's threads enter. */
uint32_t hct_path_peek(hct_path *p, uint32_t key, const uintptr_t *frames, int n, hct_ctx *out) HCT_PATH_HIDDEN;
/* Where the path of `frames` (root first) starts, as hct_path_enter and
 * hct_path_peek build it: the nodes of p->now it keeps (the innermost open
 * region's path, up to its node; 0 when none is open) are returned, *j is
 * the first frame below that region's own stack. What they add from there
 * depends only on frames[*j..n-1], the region key and the last node kept. */
int hct_path_base(const hct_path *p, const uintptr_t *frames, int n, int *j) HCT_PATH_HIDDEN;
/* Enters the given context (its last node a region: another thread's
 * hct_path_peek); `frames` is this thread's own stack at the enter. */
uint32_t hct_path_enter_ctx(hct_path *p, const hct_ctx *c, const uintptr_t *frames, int n,
                            uint32_t *unwind) HCT_PATH_HIDDEN;
/* Leaves the innermost open region: its parent becomes the current context. */
void hct_path_leave(hct_path *p) HCT_PATH_HIDDEN;
/* A sample's context: its stack (root first, the leaf's own address last)
 * under the innermost open region. HCA_UNDEF when the tables are full. */
uint32_t hct_path_sample(hct_path *p, const uintptr_t *frames, int n, uint32_t *unwind) HCT_PATH_HIDDEN;

#endif
