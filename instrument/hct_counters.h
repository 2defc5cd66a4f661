/* hct_counters.h: the counters' setup at load (hct_counters.c); per thread:
 * hct_counter_rotation.h. */
#ifndef HCT_COUNTERS_H
#define HCT_COUNTERS_H

#include "hct.h"

void hct_counters_setup(void) HCT_HIDDEN;
int hct_counters_nsets(void) HCT_HIDDEN;

#endif
