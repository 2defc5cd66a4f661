/* hct_counter_rotation.h: counters per thread over its life: start, values
 * written at samples, boundaries and the end, rotation (hct_counter_rotation.c). */
#ifndef HCT_COUNTER_ROTATION_H
#define HCT_COUNTER_ROTATION_H

#include <stdint.h>

#include "hct.h"

hct_ctr_thread *hct_counters_thread_start(uint32_t start_set) HCT_HIDDEN;
/* Signal-safe: raw values of the thread's current set; returns their number. */
int hct_counters_read_signal(const hct_ctr_thread *c, int *set, uint64_t *raw) HCT_HIDDEN;
void hct_counters_write_sample(hct_thread *t, uint64_t ts, int set, const uint64_t *raw, int n) HCT_HIDDEN;
void hct_counters_boundary(hct_thread *t, uint64_t ts, int enter) HCT_HIDDEN;
void hct_counters_thread_close(hct_thread *t) HCT_HIDDEN;

#endif
