/* hct_ticks.h: a cheap clock for the durations of kept-back instances
 * (hct_thin.c; filtered ones): the CPU's own counter, read without the
 * vDSO's clock_gettime (x86_64: rdtsc, when CPUID says the TSC is invariant;
 * aarch64: the generic timer's virtual count, hct_arch.h), converted to
 * nanoseconds with a factor calibrated against CLOCK_MONOTONIC (the trace
 * clock, src/hca_clock.h): first over about 20 us at load, then over the whole
 * run so far whenever a kept-back instance is written (the baseline grows, the
 * error shrinks: under 1e-6 after a second). Elsewhere, or without such a
 * counter, the ticks are CLOCK_MONOTONIC's nanoseconds themselves (factor 1).
 * Async-signal-safe reads; no allocation. */
#ifndef HCT_TICKS_H
#define HCT_TICKS_H

#include <stdatomic.h>
#include <stdint.h>

#include "hca_clock.h"
#include "arch/hct_arch.h"

#ifndef HCT_HIDDEN
#define HCT_HIDDEN __attribute__((visibility("hidden")))
#endif

#define HCT_TICKS_ONE ((uint64_t)1 << 32) /* the factor's 1.0: nanoseconds per tick, 32.32 fixed point */

typedef struct {
    int fast;                /* the CPU's counter is used */
    _Atomic uint64_t factor; /* nanoseconds per tick, 32.32 fixed point */
    uint64_t mono0, ticks0;  /* the calibration's start */
    _Atomic uint64_t span;   /* nanoseconds the factor was measured over */
} hct_ticks_clock;
extern hct_ticks_clock hct_ticks HCT_HIDDEN;

static inline uint64_t hct_ticks_now(void)
{
#if HCT_ARCH_TICKS
    if (hct_ticks.fast)
        return hct_arch_ticks();
#endif
    return hca_clock_now();
}

/* d ticks in nanoseconds at `factor` (pure). */
static inline uint64_t hct_ticks_scale(uint64_t d, uint64_t factor)
{
    return (uint64_t)(((unsigned __int128)d * factor) >> 32);
}

static inline uint64_t hct_ticks_ns(uint64_t d)
{
    return hct_ticks.fast ? hct_ticks_scale(d, atomic_load_explicit(&hct_ticks.factor, memory_order_relaxed)) : d;
}

/* `ns` nanoseconds in ticks (a division: not for hot paths). */
static inline uint64_t hct_ticks_of_ns(uint64_t ns)
{
    uint64_t factor = hct_ticks.fast ? atomic_load_explicit(&hct_ticks.factor, memory_order_relaxed) : 0;
    return factor ? (uint64_t)(((unsigned __int128)ns << 32) / factor) : ns;
}

/* The factor of `ns` nanoseconds measured as `ticks` ticks (pure; 0 if none). */
uint64_t hct_ticks_factor(uint64_t ns, uint64_t ticks) HCT_HIDDEN;
/* Once, at load, before any thread uses the clock. */
void hct_ticks_init(void) HCT_HIDDEN;
/* The monotonic time `mono` read together with `ticks` now: the factor
 * measured again over the run so far when that baseline is at least twice
 * the last one (so rarely). */
void hct_ticks_calibrate(uint64_t mono, uint64_t ticks) HCT_HIDDEN;
/* The monotonic time `ticks` ticks ago, from `mono` read with `now` (ticks). */
static inline uint64_t hct_ticks_mono_at(uint64_t ticks, uint64_t now, uint64_t mono)
{
    if (!hct_ticks.fast)
        return ticks; /* ticks are the monotonic time itself */
    uint64_t back = ticks <= now ? hct_ticks_ns(now - ticks) : 0;
    return back < mono ? mono - back : 0;
}

#endif
