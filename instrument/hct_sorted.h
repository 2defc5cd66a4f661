/* hct_sorted.h: the binary search the tracer's sorted tables share (a code
 * mapping by address, a unit's scope ranges, a module's symbols): how many
 * entries of a table sorted by a key have a key at most x. */
#ifndef HCT_SORTED_H
#define HCT_SORTED_H

#include <stddef.h>
#include <stdint.h>

/* The number of the n entries at base (size bytes each, sorted by key(entry)
 * ascending) whose key is at most x: the index of the first one above x. */
static inline size_t hct_sorted_count_at_most(const void *base, size_t n, size_t size, uint64_t (*key)(const void *),
                                              uint64_t x)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (key((const char *)base + mid * size) <= x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

#endif
