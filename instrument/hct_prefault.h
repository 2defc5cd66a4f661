/* hct_prefault.h: the pages of a buffer that a signal handler fills, made
 * resident a step ahead of where it writes instead of all at once. A page is
 * populated with madvise(MADV_POPULATE_WRITE) (Linux 5.14): the kernel maps it
 * without a page fault of the process, so none lands in the program's
 * page-fault counters (tests/e2e/sampling.sh), and a thread that takes few
 * samples keeps only the pages it uses resident (docs/benchmarks.md, "Peak
 * resident memory"). Where the kernel cannot (before 5.14, or an emulator
 * that takes the advice without acting on it: the first page is checked with
 * mincore), the whole buffer is touched at once, as before. */
#ifndef HCT_PREFAULT_H
#define HCT_PREFAULT_H

#include <stddef.h>

#include "hct.h"

/* What is resident ahead of the writer: one step at a time. */
#define HCT_PREFAULT_STEP ((size_t)64 << 10)

typedef struct {
    unsigned char *base;
    size_t size;
    size_t done; /* bytes from base that are resident: [base, base + done) */
} hct_prefault;

/* Makes the first step resident (or, without MADV_POPULATE_WRITE, the whole
 * buffer, by writing zeros: the buffer must be fresh). */
void hct_prefault_init(hct_prefault *p, void *base, size_t size) HCT_HIDDEN;

/* Every page of [base, base + size) written now (a zero byte per 4 KiB): a
 * fresh calloc'ed state whose zero pages calloc may not have faulted in yet,
 * so that their faults are the tracer's now, not in the program's next
 * region. Not for a signal handler's buffer (hct_prefault_init). */
void hct_prefault_touch(void *base, size_t size) HCT_HIDDEN;

/* Before bytes up to `end` (from base) are written: when they come within half a
 * step of what is resident, the next step is populated. Async-signal-safe (one
 * madvise per step); by the one writer only. */
void hct_prefault_slow(hct_prefault *p, size_t end) HCT_HIDDEN;
static inline void hct_prefault_ahead(hct_prefault *p, size_t end)
{
    if (end + HCT_PREFAULT_STEP / 2 > p->done && p->done < p->size)
        hct_prefault_slow(p, end);
}

#endif
