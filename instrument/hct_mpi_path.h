/* hct_mpi_path.h: the call path of an MPI call, from the thread's cache of
 * MPI call sites when provably the same as an unwind, and its node, from the
 * thread's memo of MPI calls' nodes (hct_mpi_path.c). */
#ifndef HCT_MPI_PATH_H
#define HCT_MPI_PATH_H

#include <stdint.h>

#include "hct.h"
#include "hct_path_cache.h"
#include "hct_path_memo.h"

#define HCT_MPI_PATH_PARTS 4 /* caches of HCT_PATH_CACHE_SITES paths per thread (153 KiB) */
#define HCT_MPI_PATH_MEMOS 2 /* memos of HCT_PATH_MEMO_SITES paths' nodes per thread (44 KiB) */

/* A thread's caches of its MPI calls' paths (t->mpi_paths). */
struct hct_mpi_paths {
    hct_path_cache part[HCT_MPI_PATH_PARTS];
    hct_path_memo memo[HCT_MPI_PATH_MEMOS];
};

/* What hct_path_unwind(site, frames) gives now: from t's cache of MPI call
 * paths (hct_path_cache.c) when the stack above `anchor` is the one cached,
 * else unwound (and cached). anchor: HCT_PATH_ANCHOR() of the MPI wrapper,
 * whose frame is alive (the wrapper calls this); NULL: unwound, not cached.
 * The thread's cache is allocated at its first call. */
int hct_mpi_path(hct_thread *t, const void *site, const void *anchor, uintptr_t *frames) HCT_HIDDEN;
/* hct_path_enter(&t->path, key, frames, n, unwind) of the MPI call at `site`
 * (frames: hct_mpi_path's), from t's memo when it was entered before from the
 * same frames below the same open region (hct_path_memo.h). */
uint32_t hct_mpi_path_enter(hct_thread *t, const void *site, uint32_t key, const uintptr_t *frames, int n,
                            uint32_t *unwind) HCT_HIDDEN;

#endif
