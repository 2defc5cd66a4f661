/* hct_counter_read.h: a thread's counters: its open sets, and reading them with
 * one read() of the group or in user space (arch/hct_arch.h) at region
 * boundaries and in the sampling handler (hct_counter_read.c). */
#ifndef HCT_COUNTER_READ_H
#define HCT_COUNTER_READ_H

#include "hct_counter_sets.h"

#include <sys/types.h>

struct hct_ctr_thread {
    int cur;                   /* the enabled (and only open) set */
    pid_t tid;
    int fd[HCT_MAX_SETS][HCT_MAX_SET_EVENTS]; /* -1 when the set is not open */
    int usable[HCT_MAX_SETS];  /* 0 once the set could not be opened on this thread */
    // cppcheck-suppress unusedStructMember ; used where HCT_ARCH_USER_READ (arch/hct_arch.h)
    int rdpmc[HCT_MAX_SETS]; /* read with rdpmc from the mmap'ed pages */
    struct perf_event_mmap_page *page[HCT_MAX_SETS][HCT_MAX_SET_EVENTS];
    uint64_t offset[HCT_MAX_SETS][MAX_VALUES]; /* added to raw values: continuity */
    uint64_t last[MAX_MEMBERS];                 /* last value of each member */
    uint32_t instances;                         /* region entries since the last switch */
    uint64_t switch_ts;
};

/* The raw values of a set (events, then the times of hardware sets); their
 * number, or -1. `owner`: on the thread itself (user-space reads allowed).
 * Async-signal-safe. */
int hct_ctr_read_raw(const hct_ctr_thread *c, int set, uint64_t *raw, int owner) HCT_HIDDEN;
void hct_ctr_enable(hct_ctr_thread *c, int set) HCT_HIDDEN;
void hct_ctr_disable(hct_ctr_thread *c, int set) HCT_HIDDEN;
/* Opens a set as a disabled group on this thread; 0, or -1 (left out from then on). */
int hct_ctr_open_set(hct_ctr_thread *c, int set) HCT_HIDDEN;
void hct_ctr_close_set(hct_ctr_thread *c, int set) HCT_HIDDEN;

#endif
