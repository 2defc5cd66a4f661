/* hca_clock.h: the trace clock. Timestamps are nanoseconds of CLOCK_MONOTONIC,
 * which is consistent across the cores of one host; offsets between hosts are
 * measured over MPI and written to the trace (docs/trace-format.md). */
#ifndef HCA_CLOCK_H
#define HCA_CLOCK_H

#include <stdint.h>
#include <time.h>

#define HCA_CLOCK_RESOLUTION 1000000000ull /* ticks per second */

static inline uint64_t hca_clock_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Nanoseconds since the epoch at the monotonic instant `mono`. */
static inline uint64_t hca_clock_realtime_of(uint64_t mono)
{
    struct timespec rt;
    uint64_t before = hca_clock_now();
    clock_gettime(CLOCK_REALTIME, &rt);
    uint64_t after = hca_clock_now();
    uint64_t real = (uint64_t)rt.tv_sec * 1000000000ull + (uint64_t)rt.tv_nsec;
    uint64_t mid = before + (after - before) / 2;
    return real - (mid - mono);
}

#endif
