/* hct_mpi_path.h: the call path of an MPI call, from the thread's cache of
 * MPI call sites when provably the same as an unwind (hct_mpi_path.c). */
#ifndef HCT_MPI_PATH_H
#define HCT_MPI_PATH_H

#include <stdint.h>

#include "hct.h"

#define HCT_MPI_PATH_PARTS 4 /* caches of HCT_PATH_CACHE_SITES paths per thread (157 KiB) */

/* What hct_path_unwind(site, frames) gives now: from t's cache of MPI call
 * paths (hct_path_cache.c) when the stack above `anchor` is the one cached,
 * else unwound (and cached). anchor: HCT_PATH_ANCHOR() of the MPI wrapper,
 * whose frame is alive (the wrapper calls this); NULL: unwound, not cached.
 * The thread's cache is allocated at its first call. */
int hct_mpi_path(hct_thread *t, const void *site, const void *anchor, uintptr_t *frames) HCT_HIDDEN;

#endif
