/* hct_scratch.h: the tracer's own large temporary memory, mapped and unmapped
 * directly instead of through malloc. glibc serves a block of 128 KiB or more
 * mapped of its own and, when such a block is freed, raises its threshold for
 * doing so to that block's size: one temporary table freed while the tracer
 * loaded (the counter sets' 280 KiB) made the program's own temporaries below
 * that size come from the heap instead, and LULESH's per-step arrays took
 * 8,474 page faults traced against 221,307 untraced (tests/malloc_app.c,
 * docs/benchmarks.md, "The tracer moved glibc's mmap threshold"). Memory
 * here is zeroed, as calloc's. Not for hot paths (a system call each). */
#ifndef HCT_SCRATCH_H
#define HCT_SCRATCH_H

#include <stddef.h>
#include <sys/mman.h>

/* size bytes, zeroed, or NULL */
static inline void *hct_scratch_alloc(size_t size)
{
    void *p = mmap(NULL, size ? size : 1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

/* a block of hct_scratch_alloc(size), or NULL */
static inline void hct_scratch_free(void *p, size_t size)
{
    if (p)
        munmap(p, size ? size : 1);
}

#endif
