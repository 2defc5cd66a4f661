/* hct_counter_rusage.h: software counters served without perf events: a set
 * of task-clock, page-faults, minor-faults, major-faults and context-switches
 * only is read from the thread's CPU clock and getrusage(RUSAGE_THREAD)
 * (hct_counter_rusage.c), so that no perf event is open on the thread (an open
 * one costs every context switch of the thread 0.7-1.3 us on our VM:
 * docs/benchmarks.md, "Software counters without perf events"). */
#ifndef HCT_COUNTER_RUSAGE_H
#define HCT_COUNTER_RUSAGE_H

#include <stdint.h>

#include "hct.h"
#include "hct_events.h"

/* How an event's value is obtained when not by perf. */
enum {
    HCT_RUSAGE_NONE = 0,     /* not served: perf only */
    HCT_RUSAGE_THREAD_CPU,   /* task-clock: clock_gettime(CLOCK_THREAD_CPUTIME_ID) */
    HCT_RUSAGE_FAULTS,       /* page-faults: ru_minflt + ru_majflt */
    HCT_RUSAGE_MINOR_FAULTS, /* minor-faults: ru_minflt */
    HCT_RUSAGE_MAJOR_FAULTS, /* major-faults: ru_majflt */
    HCT_RUSAGE_SWITCHES,     /* context-switches: ru_nvcsw + ru_nivcsw */
};

/* The source that serves ev without perf, or HCT_RUSAGE_NONE. */
int hct_rusage_source_of(const hct_event *ev) HCT_HIDDEN;
/* One line saying how a source's value is obtained (for the trace). */
const char *hct_rusage_source_text(int source) HCT_HIDDEN;

/* What one read of a set needs. */
typedef struct {
    int nevents;
    uint8_t source[HCT_MAX_SET_EVENTS];
    uint8_t needs_clock, needs_rusage;
} hct_rusage_set;

/* Fills r from the sources of a set's events; 0, or -1 if one is not served. */
int hct_rusage_set_make(const int *sources, int nevents, hct_rusage_set *r) HCT_HIDDEN;
/* The calling thread's values of the set's events into raw[]; their number, or
 * -1. At most one clock_gettime and one getrusage. Async-signal-safe (both are
 * plain system calls: no locks, no allocation). */
int hct_rusage_read(const hct_rusage_set *r, uint64_t *raw) HCT_HIDDEN;

#endif
