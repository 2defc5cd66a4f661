/* hct_counters.h: counter sets, one perf group and one OTF2 metric class each,
 * rotated across instances (hct_counters.c). */
#ifndef HCT_COUNTERS_H
#define HCT_COUNTERS_H

#include <stdint.h>

#include <otf2/otf2.h>

#include "hct.h"

void hct_counters_setup(void) HCT_HIDDEN;
/* The model and the PMU as archive properties (HCATRACE::MODEL, ...), on
 * rank 0's archive; other ranks pass NULL (their copies are freed). */
void hct_counters_properties(OTF2_Archive *archive) HCT_HIDDEN;
int hct_counters_nsets(void) HCT_HIDDEN;
hct_ctr_thread *hct_counters_thread_start(uint32_t start_set) HCT_HIDDEN;
/* Signal-safe: raw values of the thread's current set; returns their number. */
int hct_counters_read_signal(const hct_ctr_thread *c, int *set, uint64_t *raw) HCT_HIDDEN;
void hct_counters_write_sample(hct_thread *t, uint64_t ts, int set, const uint64_t *raw, int n) HCT_HIDDEN;
void hct_counters_boundary(hct_thread *t, uint64_t ts, int enter) HCT_HIDDEN;
/* The master location's totals, just before its ProgramEnd at ts. */
void hct_counters_final(hct_thread *t, uint64_t ts, int owner) HCT_HIDDEN;
void hct_counters_thread_close(hct_thread *t) HCT_HIDDEN;

#endif
