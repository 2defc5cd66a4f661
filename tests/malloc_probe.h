/* malloc_probe.h: which of some large block sizes glibc's malloc maps of
 * their own at a moment (tests/malloc_app.c, tests/unit/test_line_tables.c).
 * glibc raises its threshold for mapping a block when a mapped one is freed,
 * so a tracer that frees one changes how the program's blocks are served
 * (instrument/hct_scratch.h). */
#ifndef MALLOC_PROBE_H
#define MALLOC_PROBE_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#define MALLOC_PROBES 6
static const size_t malloc_probe_kib[MALLOC_PROBES] = { 160, 256, 384, 768, 1536, 4096 };

/* glibc's chunk header: the size word before a block, bit 1 set when the
 * chunk was mapped of its own (malloc.c, IS_MMAPPED) */
static inline int malloc_mapped(const void *p)
{
    const size_t *header = (const size_t *)((uintptr_t)p - sizeof(size_t));
    return (*header & 2) != 0;
}

/* One block of each size into kept[0..MALLOC_PROBES) (NULL: no memory), kept
 * by the caller (freed, a mapped one would move the threshold itself); one
 * bit each in the result, set when that block is mapped of its own. */
static inline unsigned malloc_probe(void **kept)
{
    unsigned bits = 0;
    for (int i = 0; i < MALLOC_PROBES; i++) {
        kept[i] = malloc(malloc_probe_kib[i] << 10);
        bits |= (unsigned)(kept[i] && malloc_mapped(kept[i])) << i;
    }
    return bits;
}

#endif
