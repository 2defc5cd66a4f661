/* hct_ticks.c: the calibration of the cheap clock of hct_ticks.h against
 * CLOCK_MONOTONIC: whether the CPU's counter can be used, its factor measured
 * at load over at least 20 us (longer where the clock is slow to read), then
 * again over the run so far. */
#include "hct_ticks.h"

#if HCT_ARCH_TICKS && defined(__x86_64__)
#include <cpuid.h>
#endif

hct_ticks_clock hct_ticks;

#define CALIBRATE_NS 20000u /* the first measurement's baseline */

uint64_t hct_ticks_factor(uint64_t ns, uint64_t ticks)
{
    if (ticks == 0 || ns >= ((uint64_t)1 << 31) * 1000000000ull)
        return 0;
    return (uint64_t)(((unsigned __int128)ns << 32) / ticks);
}

/* Whether the CPU's counter runs at one rate, on every core, in every state. */
static int counter_usable(void)
{
#if HCT_ARCH_TICKS && defined(__x86_64__)
    unsigned a, b, c, d;
    if (!__get_cpuid(0x80000000u, &a, &b, &c, &d) || a < 0x80000007u)
        return 0;
    __get_cpuid(0x80000007u, &a, &b, &c, &d);
    return (d >> 8) & 1u; /* invariant TSC */
#elif HCT_ARCH_TICKS
    return 1; /* the architecture's timer: a fixed frequency */
#else
    return 0;
#endif
}

#if HCT_ARCH_TICKS
#define POINT_TRIES 8         /* brackets tried per point: the narrowest kept */
#define CALIBRATE_MAX_NS 2000000u /* the first baseline's bound (slow clocks: emulators, VMs without a vDSO) */

/* The counter read between two clock reads: the clock's time of it, the
 * middle of the narrowest of a few brackets; returns that bracket's width,
 * the point's uncertainty (a preemption or a slow clock widens it). */
static uint64_t point(uint64_t *mono, uint64_t *ticks)
{
    uint64_t width = UINT64_MAX;
    for (int i = 0; i < POINT_TRIES; i++) {
        uint64_t before = hca_clock_now(), t = hct_arch_ticks(), after = hca_clock_now();
        if (after - before < width) {
            width = after - before;
            *ticks = t;
            *mono = before + width / 2;
        }
    }
    return width;
}
#endif

void hct_ticks_init(void)
{
    hct_ticks.fast = 0;
    atomic_store(&hct_ticks.factor, HCT_TICKS_ONE);
#if HCT_ARCH_TICKS
    if (!counter_usable())
        return;
    uint64_t m0, t0, m1, t1;
    (void)hca_clock_now(); /* its first call may resolve the symbol */
    uint64_t width0 = point(&m0, &t0), width1;
    /* The factor's error is about the two brackets' widths over the baseline:
     * at least 20 us, and 500 times the widths (0.2 %), within 2 ms. */
    do
        width1 = point(&m1, &t1);
    while (m1 - m0 < CALIBRATE_MAX_NS && (m1 - m0 < CALIBRATE_NS || m1 - m0 < 500 * (width0 + width1)));
    uint64_t f = t1 > t0 ? hct_ticks_factor(m1 - m0, t1 - t0) : 0;
    if (f == 0)
        return;
    hct_ticks.mono0 = m0;
    hct_ticks.ticks0 = t0;
    atomic_store(&hct_ticks.span, m1 - m0);
    atomic_store(&hct_ticks.factor, f);
    hct_ticks.fast = 1;
#endif
}

void hct_ticks_calibrate(uint64_t mono, uint64_t ticks)
{
    if (!hct_ticks.fast || mono < hct_ticks.mono0 || ticks < hct_ticks.ticks0)
        return;
    uint64_t span = mono - hct_ticks.mono0;
    if (span < 2 * atomic_load_explicit(&hct_ticks.span, memory_order_relaxed))
        return;
    uint64_t f = hct_ticks_factor(span, ticks - hct_ticks.ticks0);
    if (f == 0)
        return;
    atomic_store_explicit(&hct_ticks.factor, f, memory_order_relaxed); /* threads racing: each a valid measure */
    atomic_store_explicit(&hct_ticks.span, span, memory_order_relaxed);
}
