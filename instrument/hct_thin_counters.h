/* hct_thin_counters.h: counter values for kept-back instances (hct_thin.h)
 * that turn out to be needed, without a system call per kept-back instance
 * (hct_thin_counters.c; docs/trace-format.md, "Thinned regions"). At a
 * kept-back enter the counters are read only when the thread's next sample
 * may fall within the key's window (hct_thin_read_window): then the enter's
 * time and values are read back to back, as at a boundary written in full.
 * If the instance is written, its enter carries those values and its leave
 * reads its own (hct_boundary_values); otherwise the read is the only cost. */
#ifndef HCT_THIN_COUNTERS_H
#define HCT_THIN_COUNTERS_H

#include <stdint.h>

#include "hct.h"
#include "hct_thin_keys.h"

/* The window: a kept-back instance reads its counters at its enter when the
 * next sample may fall within it: HCT_THIN_READ_MULT times the mean duration
 * of the key's kept-back instances on the thread (`ns` over `n`: counted and
 * written), at least HCT_THIN_READ_FLOOR_NS (HCATRACE_THIN's default
 * DURATION: every instance written only for a sample in it is shorter, so
 * by default each of them has its values). The reads cost about window /
 * sampling period of the kept-back enters: for any key at most
 * HCT_THIN_READ_MULT reads per sampling period of its own time, plus the
 * floor's share. */
#define HCT_THIN_READ_FLOOR_NS 50000u
#define HCT_THIN_READ_MULT 16u
static inline uint64_t hct_thin_read_window(uint64_t ns, uint64_t n)
{
    /* mean > floor / mult, without a division for the short keys (most) */
    if (n == 0 || ns <= n * (HCT_THIN_READ_FLOOR_NS / HCT_THIN_READ_MULT))
        return HCT_THIN_READ_FLOOR_NS;
    return HCT_THIN_READ_MULT * (ns / n);
}

/* At the kept-back enter of pending entry i (t->thin.pending[i], its time
 * p->ts just read in hct_ticks.h's clock; t->in_tool > 0): the counters read
 * if the next sample may fall within the window, right after the monotonic
 * time, which is then the enter's (hct_thin_counters_enter_time). */
void hct_thin_counters_enter(hct_thread *t, hct_thin_pending *p, int i) HCT_HIDDEN;
/* The monotonic time of pending entry i's enter: the one read with its
 * counter values, else `ts` (its ticks converted). */
uint64_t hct_thin_counters_enter_time(int i, uint64_t ts) HCT_HIDDEN;
/* Pending entry i is being written now (hct_thin_write_pending). */
void hct_thin_counters_writing(int i) HCT_HIDDEN;
/* Its enter at ts, entered in t's path, its region event next: its values
 * (counters, tool time) written at ts if it has them. */
void hct_thin_counters_put(hct_thread *t, uint64_t ts) HCT_HIDDEN;
/* The leave of a written kept-back instance (the innermost open region of
 * t's path): pending samples written; its time, read with counter values
 * (a boundary's) when its enter had them. */
uint64_t hct_thin_counters_leave(hct_thread *t) HCT_HIDDEN;

#endif
