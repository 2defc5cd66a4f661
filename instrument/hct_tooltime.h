/* hct_tooltime.h: the tracer's own time on each thread, recorded so that a
 * reader can remove it (docs/trace-format.md, "Tool time"): running totals of
 * wall-clock and CPU nanoseconds spent in the tracer (hct_thread.tool_ns,
 * tool_cpu_ns), written as one Metric of the "tool:" class with every region
 * boundary and every sample (hct_tooltime.c). */
#ifndef HCT_TOOLTIME_H
#define HCT_TOOLTIME_H

#include <stdint.h>
#include <time.h>

#include "hct.h"

/* At load, when boundaries or samples carry counters or samples: the class. */
void hct_tool_setup(void) HCT_HIDDEN;
/* The totals `wall` and `cpu` as they were at ts (t->in_tool > 0). */
void hct_tool_write(hct_thread *t, uint64_t ts, uint64_t wall, uint64_t cpu) HCT_HIDDEN;

/* The calling thread's CPU time, ns (a system call: not on hot paths). */
static inline uint64_t hct_thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#endif
