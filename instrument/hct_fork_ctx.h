/* hct_fork_ctx.h: the context an OpenMP fork's team enters, found again for
 * a recurring fork without building it (hct_fork_ctx.c): per thread, the
 * nodes hct_path_peek gave for the same frames, region key and enclosing
 * open region. */
#ifndef HCT_FORK_CTX_H
#define HCT_FORK_CTX_H

#include <stdint.h>

#include "hct_path.h"

#define HCT_FORK_CTX_SITES 128 /* entries per thread: LULESH forks from 50 sites, each once per time step */
#define HCT_FORK_CTX_WAYS 8    /* entries per set, the newest first */
#define HCT_FORK_CTX_FRAMES 8  /* frames below the open region (LULESH 4, halo3d 6): more are not kept */
#define HCT_FORK_CTX_NODES 24  /* their nodes and the region's (LULESH 8-11 with its inline chains) */

/* One fork's nodes below the enclosing open region. */
typedef struct {
    uint32_t key;       /* the region key */
    uint32_t parent;    /* the open region's node (HCA_UNDEF: none open) */
    uint16_t base;      /* the nodes above them: parent's depth */
    uint8_t nframes;    /* frames + 1 (0: empty) */
    uint8_t nnodes;
    uintptr_t frames[HCT_FORK_CTX_FRAMES];
    uint32_t cc[HCT_FORK_CTX_NODES];
} hct_fork_ctx_entry;

/* One thread's memo (22 KiB); a member of hct_thread (hct.h), zero at its start. */
typedef struct {
    hct_fork_ctx_entry entry[HCT_FORK_CTX_SITES];
} hct_fork_ctx;

/* What hct_path_peek(p, key, frames, n, out) gives, from m when the same
 * frames below the same open region's node were peeked before with the same
 * key (its answer then is kept in m); the same IDs, as the process's table
 * never changes a node it gave. */
uint32_t hct_fork_ctx_peek(hct_fork_ctx *m, hct_path *p, uint32_t key, const uintptr_t *frames, int n,
                           hct_ctx *out) HCT_PATH_HIDDEN;

#endif
