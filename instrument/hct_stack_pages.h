/* hct_stack_pages.h: gives back the pages of the calling thread's stack below
 * its stack pointer (hct_stack_pages.c). The frames worker's libdw lookups
 * (a unit's DIE tree walked, recursively) touch a few hundred KiB of its stack
 * once; an idle worker keeps them resident for the rest of the run. */
#ifndef HCT_STACK_PAGES_H
#define HCT_STACK_PAGES_H

#include <stddef.h>

#include "hct.h"

/* Drops (madvise MADV_DONTNEED) the resident pages of the calling thread's stack
 * more than `keep` bytes below the caller's frame: they read as zero when
 * touched again, which is all a stack asks of pages below its pointer. Not for
 * a thread whose signals may run on that stack (the frames worker blocks every
 * signal). Returns the bytes advised, 0 when there are none, -1 when the
 * thread's stack cannot be found. */
long hct_stack_pages_release(size_t keep) HCT_HIDDEN;

#endif
