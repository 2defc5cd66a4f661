/* hct_prefault.c: a buffer's pages made resident a step ahead of its writer
 * (see hct_prefault.h). */
#include "hct_prefault.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

/* Populates [p->done, up to): 0, or -1 when the kernel cannot. */
static int populate(hct_prefault *p, size_t up)
{
    if (up > p->size)
        up = p->size;
    if (up <= p->done)
        return 0;
    if (madvise(p->base + p->done, up - p->done, MADV_POPULATE_WRITE) != 0)
        return -1;
    p->done = up;
    return 0;
}

/* Whether the page at `at` is resident: a madvise that returned 0 but
 * populated nothing (qemu-user passes unknown advice over as done) is not
 * relied on. */
static int resident(void *at)
{
    unsigned char v = 0;
    return mincore(at, 1, &v) == 0 && (v & 1);
}

void hct_prefault_init(hct_prefault *p, void *base, size_t size)
{
    p->base = base;
    p->size = size;
    p->done = 0;
    if (populate(p, HCT_PREFAULT_STEP) != 0 || !resident(base)) {
        memset(base, 0, size); /* an older kernel: every page now, none in the handler */
        p->done = size;
    }
}

void hct_prefault_touch(void *base, size_t size)
{
    for (size_t at = 0; at < size; at += 4096)
        ((volatile char *)base)[at] = 0;
}

void hct_prefault_slow(hct_prefault *p, size_t end)
{
    /* whole steps past `end`: the base is page-aligned, so are the ranges */
    size_t up = (end / HCT_PREFAULT_STEP + 2) * HCT_PREFAULT_STEP;
    int saved = errno; /* a signal handler's caller keeps its errno */
    if (populate(p, up) != 0)
        p->done = p->size; /* not again: the handler takes its page faults */
    errno = saved;
}
