/* hct_counter_rotation.h: counters per thread over its life: start, values
 * written at samples, boundaries and the end, rotation (hct_counter_rotation.c). */
#ifndef HCT_COUNTER_ROTATION_H
#define HCT_COUNTER_ROTATION_H

#include <stdint.h>

#include "hct.h"
#include "hct_events.h"

/* A region boundary's counter values, read right after its timestamp and
 * written once the samples older than it are (hct_boundary.c). */
typedef struct {
    int set, n; /* n <= 0: nothing to write */
    uint64_t raw[HCT_MAX_SET_EVENTS + 2];
} hct_ctr_reading;

/* On the thread t itself: its counters, or NULL. */
hct_ctr_thread *hct_counters_thread_start(hct_thread *t, uint32_t start_set) HCT_HIDDEN;
/* At load, after the counters' setup: sets read without perf events go on
 * from their last values in a forked child. */
void hct_counters_fork_setup(void) HCT_HIDDEN;
/* Signal-safe: raw values of the thread's current set; returns their number. */
int hct_counters_read_signal(const hct_ctr_thread *c, int *set, uint64_t *raw) HCT_HIDDEN;
void hct_counters_write_sample(hct_thread *t, uint64_t ts, int set, const uint64_t *raw, int n) HCT_HIDDEN;
/* A boundary: its values read (t's current set; n = 0 without counters),
 * then written at ts, the set rotated when due (and values were written: r->n > 0). */
void hct_counters_boundary_read(const hct_thread *t, hct_ctr_reading *r) HCT_HIDDEN;
void hct_counters_boundary_write(hct_thread *t, uint64_t ts, int enter, const hct_ctr_reading *r) HCT_HIDDEN;
void hct_counters_thread_close(hct_thread *t) HCT_HIDDEN;

#endif
