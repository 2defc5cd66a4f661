/* hct_sampling.h: per-thread sampling: interrupt source, async-signal-safe
 * handler, drain of the samples into the trace (hct_sampling.c). */
#ifndef HCT_SAMPLING_H
#define HCT_SAMPLING_H

#include <stdint.h>

#include "hct.h"
#include "hct_ticks.h"

void hct_sampling_setup(void) HCT_HIDDEN;
hct_smp_thread *hct_sampling_thread_start(hct_thread *t) HCT_HIDDEN;
/* Writes t's pending samples; on t itself, adds the time this took to t's tool
 * time, and is a section of the tracer by itself (t->in_tool, hct_tool_exit):
 * a sample due meanwhile is taken when the thread leaves the tracer, whether
 * or not the caller entered it. */
void hct_sampling_drain(hct_thread *t) HCT_HIDDEN;
/* Only the samples taken before ts (older than a region enter written late). */
void hct_sampling_drain_before(hct_thread *t, uint64_t ts) HCT_HIDDEN;
/* On t, inside the tracer: the samples it took from `since` to `at` and has
 * not written yet carry at least the tool totals wall and cpu less the time
 * from them to `at` (tool time added at `at` for a wait they fell in: their
 * program time is then not after that of `at`; hct_omp_sync.c). */
void hct_sampling_tool_floor(hct_thread *t, uint64_t since, uint64_t at, uint64_t wall, uint64_t cpu) HCT_HIDDEN;
/* On t itself (t->in_tool > 0): whether its next sample may fall before
 * now + window (now: the trace clock). The wall-clock source knows its next
 * expiry; the CPU-time sources bound the thread's CPU time by the last one
 * read plus the wall time since, and read it (a system call) only when that
 * bound comes within the window of the next interrupt. 0 when not sampled
 * (or parked with its interrupt lapsed). */
int hct_sampling_due_within(hct_thread *t, uint64_t now, uint64_t window) HCT_HIDDEN;
/* The calling thread's next wall-clock expiry as last armed, in hct_ticks.h's
 * clock (0: the other sources, or not sampled). */
extern HCT_TLS uint64_t hct_sampling_quiet_until_ticks HCT_HIDDEN;
/* Whether t's next sample may fall within `window` ns of `at` (hct_ticks.h's
 * clock, read just before): no call and no clock read while the wall-clock
 * source's next expiry (converted to ticks when armed) is further away;
 * else hct_sampling_due_within at the monotonic time now. */
static inline int hct_sampling_maybe_due(hct_thread *t, uint64_t at, uint64_t window)
{
    uint64_t quiet = hct_sampling_quiet_until_ticks;
    if (!t->sample_deferred && quiet > at && hct_ticks_ns(quiet - at) > window)
        return 0;
    return t->smp && hct_sampling_due_within(t, hca_clock_now(), window);
}
/* The first member of a thread's sampling state (hct_sampling.c), read by the
 * inline functions here: a few reads per region boundary without a call. */
typedef struct {
    volatile uint64_t taken; /* samples put in the ring (the handler only) */
} hct_smp_head;
/* Samples the thread's handler has put in its buffer so far. */
static inline uint64_t hct_sampling_taken(const hct_thread *t)
{
    return t->smp ? ((const hct_smp_head *)(const void *)t->smp)->taken : 0;
}
void hct_sampling_disarm(hct_thread *t) HCT_HIDDEN;
/* An OpenMP worker parks in the runtime after its share of a parallel region
 * (t->omp_parked set): an interrupt that lands then takes no sample and is
 * not re-armed, so a parked thread is interrupted at most once. Resumed at its
 * next share's begin: the interrupt re-armed if it lapsed (on the wall clock,
 * at the schedule's next expiry after now), else nothing, no system call. */
void hct_sampling_park(hct_thread *t) HCT_HIDDEN;
void hct_sampling_resume(hct_thread *t) HCT_HIDDEN;
void hct_sampling_finish(hct_thread *t, uint64_t ts, int self) HCT_HIDDEN;
void hct_sampling_thread_close(hct_thread *t) HCT_HIDDEN;
void hct_sampling_report(void) HCT_HIDDEN;

#endif
