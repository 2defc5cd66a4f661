/* hct_path_cache.h: a thread's call path at a recurring call site (an OpenMP
 * fork kept back by thinning), unwound once and reused while the stack above
 * the site is provably the same one (hct_path_cache.c): no unwind then. */
#ifndef HCT_PATH_CACHE_H
#define HCT_PATH_CACHE_H

#include <stdint.h>

#include "hct.h"

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
int hct_path_cache_get(const void *site, const void *anchor, uintptr_t *frames) HCT_HIDDEN;
/* Caches frames (what hct_path_unwind(site, frames) just gave, called from
 * the same function as this) when the stack above anchor can be checked
 * cheaply: no frame of variable size on it. Call it right after that unwind. */
void hct_path_cache_put(const void *site, const void *anchor, const uintptr_t *frames, int n) HCT_HIDDEN;

#endif
