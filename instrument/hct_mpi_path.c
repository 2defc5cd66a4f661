/* hct_mpi_path.c: the call path of an MPI call. The wrapper's return-address
 * slot is the anchor of the thread's path cache (hct_path_cache.c, as for an
 * OpenMP fork): a call repeated from the same site under the same stack (the
 * return addresses above the anchor, and the saved rbp of every frame
 * addressed through it, as they were) gets its frames from the cache, without
 * libunwind; any other call is unwound. The cache is the thread's own,
 * allocated at its first MPI call (the one whose path is unwound anyway) and
 * kept for the thread's life, as its hct_thread, which holds only a pointer:
 * threads that never call MPI (OpenMP workers) do not carry 197 KiB each,
 * and hct_thread stays small (hct_path_cache.h). It is PARTS caches of
 * HCT_PATH_CACHE_SITES entries, a site's part chosen by its address: LULESH
 * has 50-70 paths of MPI calls per rank (25 call sites, some in functions
 * called from 3 callers), which overflowed the 12 sets of one and made the
 * thread stop caching (its walks not paid for by 4 hits each). The same
 * allocation holds the thread's memos of its MPI calls' nodes
 * (hct_path_memo.c): a recurring call's nodes are copied, not walked again
 * frame by frame; MEMOS of them, a site's chosen by its address as well. */
#include "hct_mpi_path.h"

#include <stdlib.h>

#include "hct_path.h"
#include "hct_prefault.h"

#define PARTS HCT_MPI_PATH_PARTS
#define MEMOS HCT_MPI_PATH_MEMOS

/* The hash of a site's address: its top bits choose a part or memo
 * (hct_path_cache.c and hct_path_memo.c pick the set from lower ones). */
static inline uint64_t site_hash(const void *site)
{
    return (uint64_t)(uintptr_t)site * 0x9e3779b97f4a7c15ull;
}

/* site's part of t's cache, the cache allocated and its pages touched (their
 * faults now, in the tracer, not in the program's next burst); NULL when out
 * of memory (then unwound). */
static hct_path_cache *cache_of(hct_thread *t, const void *site)
{
    if (!t->mpi_paths && !t->mpi_paths_failed) {
        t->mpi_paths = calloc(1, sizeof(*t->mpi_paths));
        t->mpi_paths_failed = t->mpi_paths == NULL;
        if (t->mpi_paths)
            hct_prefault_touch(t->mpi_paths, sizeof(*t->mpi_paths));
    }
    if (!t->mpi_paths)
        return NULL;
    return &t->mpi_paths->part[(site_hash(site) >> 62) % PARTS];
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

uint32_t hct_mpi_path_enter(hct_thread *t, const void *site, uint32_t key, const uintptr_t *frames, int n,
                            uint32_t *unwind)
{
    if (!t->mpi_paths)
        return hct_path_enter(&t->path, key, frames, n, unwind);
    hct_path_memo *m = &t->mpi_paths->memo[(site_hash(site) >> 61) % MEMOS];
    return hct_path_memo_enter(m, &t->path, key, frames, n, unwind);
}
