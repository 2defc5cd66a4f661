/* hct_path_cache.h: a thread's call path at a recurring call site (an OpenMP
 * fork kept back by thinning, an MPI call: hct_mpi_path.c), unwound once and
 * reused while the stack above the site is provably the same one
 * (hct_path_cache.c): no unwind then. */
#ifndef HCT_PATH_CACHE_H
#define HCT_PATH_CACHE_H

#include <stdint.h>

#include "hct_path.h"

/* Sizes: the cache is 39 KiB of hct_thread. Above glibc's mmap threshold
 * (128 KiB; with hct_path_memo.h 145 KiB) hct_thread is mmap'ed: its pages
 * are touched when the thread registers (hct_locations.c), else they were
 * faulted in during the program's first region instances (+2.5 us each
 * under ASan: tests/e2e/first_instance.sh). */
#define HCT_PATH_CACHE_SITES 96 /* entries per thread: LULESH forks from 50 sites, each once per time step */
#define HCT_PATH_CACHE_WAYS 8   /* entries per set, replaced in turn (4: some of 50 sites evicted each other) */
#define HCT_PATH_CACHE_DEPTH 12 /* frames above the anchor: a deeper path is not cached */
#define HCT_PATH_CACHE_CHECKS (2 * HCT_PATH_CACHE_DEPTH) /* a slot per frame, a saved rbp per frame of variable size */

/* Which site and anchor an entry caches (site NULL: empty); apart from the
 * entries, so that a lookup reads one set's tags, two cache lines, not a line
 * of each of its entries (30 of the 49 perf samples of the MPI calls' gets in
 * LULESH at 8 ranks were that scan, the cache cold after the other ranks ran). */
typedef struct {
    const void *site;
    const void *anchor;
} hct_path_cache_tag;

/* A cached path: see hct_path_cache.c. What a get reads lies in one run of
 * bytes, from the first slot used to the last frame: the slots are the last
 * nchain of slot[], right before the counts, and the frames follow the
 * checked values in word[] (a chain of 10 checks and 8 frames: 192 bytes,
 * 3-4 cache lines; 5-6 when slots, values and frames each had an array of
 * their full size). */
typedef struct {
    int32_t slot[HCT_PATH_CACHE_CHECKS]; /* the last nchain: where each checked word lies (a return address, a saved rbp), less the anchor */
    int nframes; /* or -2: not cacheable */
    int nchain;
    uintptr_t word[HCT_PATH_CACHE_CHECKS + HCT_PATH_CACHE_DEPTH]; /* the nchain values the slots hold, then the nframes frames */
} hct_path_cache_entry;

/* One thread's cache; a member of hct_thread (hct.h), zero at its start. */
typedef struct {
    hct_path_cache_tag tag[HCT_PATH_CACHE_SITES]; /* entry i's */
    hct_path_cache_entry entry[HCT_PATH_CACHE_SITES];
    uint8_t next_way[HCT_PATH_CACHE_SITES / HCT_PATH_CACHE_WAYS]; /* the way each set replaces next */
    /* The walks cost more than an unwind: when call sites keep changing path
     * (or evict each other), the thread stops walking: at most 64 walks
     * unless there are four hits per walk. */
    uint64_t walks, hits;
} hct_path_cache;

/* anchor: the address of the return-address slot of the caller's frame,
 * `(const char *)__builtin_frame_address(0) + sizeof(void *)` in the function
 * that calls hct_path_unwind(site, ...) and these (its frame holds
 * __builtin_return_address(0) there), or NULL where that is not known (then
 * nothing is cached). */
#if defined(__x86_64__) && defined(__GNUC__)
#define HCT_PATH_ANCHOR() ((const void *)((const char *)__builtin_frame_address(0) + sizeof(void *)))
#else
#define HCT_PATH_ANCHOR() ((const void *)0)
#endif

/* The frames hct_path_unwind(site, frames) would give now, from the cache:
 * their number, or -1 when not cached (or not provably the same). */
int hct_path_cache_get(hct_path_cache *c, const void *site, const void *anchor, uintptr_t *frames) HCT_PATH_HIDDEN;
/* Caches frames (what hct_path_unwind(site, frames) just gave, called from
 * the same function as this) when the stack above anchor can be checked
 * cheaply (hct_path_cache.c), in an entry of its own when the site and
 * anchor have another path cached already (each is checked at a get). Call it right after that unwind; get and put
 * from the function whose anchor it is, its frame alive (no tail call). */
void hct_path_cache_put(hct_path_cache *c, const void *site, const void *anchor, const uintptr_t *frames,
                        int n) HCT_PATH_HIDDEN;

#endif
