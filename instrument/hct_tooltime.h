/* hct_tooltime.h: the tracer's own time on each thread, recorded so that a
 * reader can remove it (docs/trace-format.md, "Tool time"): running totals of
 * wall-clock and CPU nanoseconds spent in the tracer (hct_thread.tool_ns,
 * tool_cpu_ns), written as one Metric of the "tool:" class with every region
 * boundary and every sample (hct_tooltime.c). */
#ifndef HCT_TOOLTIME_H
#define HCT_TOOLTIME_H

#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#include "hct.h"

/* At load, when boundaries or samples carry counters or samples: the class. */
void hct_tool_setup(void) HCT_HIDDEN;
/* The totals `wall` and `cpu` as they were at ts (t->in_tool > 0). */
void hct_tool_write(hct_thread *t, uint64_t ts, uint64_t wall, uint64_t cpu) HCT_HIDDEN;

/* The calling thread's innermost OpenMP team of 2+ threads (its
 * hct_omp_sync.tooled, set by hct_omp_sync.c), NULL outside; read by the
 * sampling signal handler. */
extern HCT_TLS _Atomic uint32_t *hct_tool_team_flag HCT_HIDDEN;
/* The calling thread spends tool time (a sample, a drain, a boundary with
 * counter values): its team's arrivals read their CPU time from now on
 * (hct_omp_sync.h). Async-signal-safe. */
static inline void hct_tool_note_team(void)
{
    _Atomic uint32_t *f = hct_tool_team_flag;
    if (f && !atomic_load_explicit(f, memory_order_relaxed)) /* set once: the team's line written once */
        atomic_store_explicit(f, 1, memory_order_relaxed);
}

/* The calling thread's CPU time, ns (a system call: not on hot paths). */
static inline uint64_t hct_thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#endif
