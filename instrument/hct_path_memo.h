/* hct_path_memo.h: the nodes a recurring region enter's path gets below the
 * enclosing open region, found again without building them (hct_path_memo.c):
 * per thread, what hct_path_peek (an OpenMP fork's team context) or
 * hct_path_enter (an MPI call) gave for the same frames, region key and
 * enclosing open region. */
#ifndef HCT_PATH_MEMO_H
#define HCT_PATH_MEMO_H

#include <stdint.h>

#include "hct_path.h"

#define HCT_PATH_MEMO_SITES 128 /* entries per memo: LULESH forks from 50 sites, each once per time step */
#define HCT_PATH_MEMO_WAYS 8    /* entries per set, the newest first */
#define HCT_PATH_MEMO_FRAMES 12 /* frames below the open region (forks: LULESH 4, halo3d 6; MPI calls: TeaLeaf 9): more are not kept */
#define HCT_PATH_MEMO_NODES 16  /* their nodes and the region's (LULESH 8-11 with its inline chains): 176 bytes an entry */

/* One path's nodes below the enclosing open region. */
typedef struct {
    uint32_t key;       /* the region key */
    uint32_t parent;    /* the open region's node (HCA_UNDEF: none open) */
    uint16_t base;      /* the nodes above them: parent's depth */
    uint8_t nframes;    /* frames + 1 (0: empty) */
    uint8_t nnodes;
    uint32_t starts;    /* bit i: node i is the first of a frame's inline chain (0: kept by a peek) */
    uintptr_t frames[HCT_PATH_MEMO_FRAMES];
    uint32_t cc[HCT_PATH_MEMO_NODES];
} hct_path_memo_entry;

/* One memo (22 KiB), zero at its start; it serves peeks or enters, not both:
 * a thread's forks (in hct_thread, hct.h), its MPI calls (hct_mpi_path.c). */
typedef struct {
    hct_path_memo_entry entry[HCT_PATH_MEMO_SITES];
} hct_path_memo;

/* What hct_path_peek(p, key, frames, n, out) gives, from m when the same
 * frames below the same open region's node were peeked before with the same
 * key (its answer then is kept in m); the same IDs, as the process's table
 * never changes a node it gave. */
uint32_t hct_path_memo_peek(hct_path_memo *m, hct_path *p, uint32_t key, const uintptr_t *frames, int n,
                            hct_ctx *out) HCT_PATH_HIDDEN;
/* What hct_path_enter(p, key, frames, n, unwind) does and gives (p's path,
 * open regions and *unwind alike), from m when the same frames below the same
 * open region's node were entered before with the same key; p's cache of
 * nodes is then not touched. */
uint32_t hct_path_memo_enter(hct_path_memo *m, hct_path *p, uint32_t key, const uintptr_t *frames, int n,
                             uint32_t *unwind) HCT_PATH_HIDDEN;

#endif
