/* hct_mpi_path.c: the call path of an MPI call. The wrapper's return-address
 * slot is the anchor of the thread's path cache (hct_path_cache.c, as for an
 * OpenMP fork): a call repeated from the same site under the same stack (the
 * return addresses above the anchor, and the saved rbp of every frame
 * addressed through it, as they were) gets its frames from the cache, without
 * libunwind; any other call is unwound. The cache is the thread's own,
 * allocated at its first MPI call (the one whose path is unwound anyway) and
 * kept for the thread's life, as its hct_thread, which holds only a pointer:
 * threads that never call MPI (OpenMP workers) do not carry 157 KiB each,
 * and hct_thread stays small (hct_path_cache.h). It is PARTS caches of
 * HCT_PATH_CACHE_SITES entries, a site's part chosen by its address: LULESH
 * has 50-70 paths of MPI calls per rank (25 call sites, some in functions
 * called from 3 callers), which overflowed the 12 sets of one and made the
 * thread stop caching (its walks not paid for by 4 hits each). */
#include "hct_mpi_path.h"

#include <stdlib.h>

#include "hct_path.h"
#include "hct_path_cache.h"

#define PARTS HCT_MPI_PATH_PARTS

/* site's part of t's cache, the cache allocated and its pages touched (their
 * faults now, in the tracer, not in the program's next burst); NULL when out
 * of memory (then unwound). */
static hct_path_cache *cache_of(hct_thread *t, const void *site)
{
    if (!t->mpi_paths && !t->mpi_paths_failed) {
        size_t size = PARTS * sizeof(*t->mpi_paths);
        t->mpi_paths = calloc(PARTS, sizeof(*t->mpi_paths));
        t->mpi_paths_failed = t->mpi_paths == NULL;
        for (size_t at = 0; t->mpi_paths && at < size; at += 4096)
            ((volatile char *)t->mpi_paths)[at] = 0;
    }
    if (!t->mpi_paths)
        return NULL;
    /* the hash's top bits: hct_path_cache.c picks the set from lower ones */
    return t->mpi_paths + (((uint64_t)(uintptr_t)site * 0x9e3779b97f4a7c15ull) >> 62) % PARTS;
}

int hct_mpi_path(hct_thread *t, const void *site, const void *anchor, uintptr_t *frames)
{
    hct_path_cache *c = cache_of(t, site);
    int n = c ? hct_path_cache_get(c, site, anchor, frames) : -1;
    if (n < 0) {
        n = hct_path_unwind(site, frames);
        if (c)
            hct_path_cache_put(c, site, anchor, frames, n);
    }
    return n;
}
