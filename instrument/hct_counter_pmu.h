/* hct_counter_pmu.h: the core PMU libpfm4 detects, the trace's HCATRACE::PMU
 * (hct_counter_pmu.c). A model's packing needs the PMU at load; without a
 * model only rank 0's property does, so the detection (libpfm4's dlopen and
 * pfm_initialize: about 2.5 ms, a cpuid per x86 PMU model, each leaving a
 * virtual machine) is done at load by the process the launcher's environment
 * names rank 0, and deferred by the others, which never load libpfm4. A rank 0
 * the environment did not name detects it when it writes the property, while
 * the other ranks wait (docs/benchmarks.md, "libpfm4 at rank 0 only"). */
#ifndef HCT_COUNTER_PMU_H
#define HCT_COUNTER_PMU_H

#include <stddef.h>

#include "hct.h"

#define HCT_PMU_NAME_MAX 64

/* Detects the core PMU now (libpfm4 loaded if it was not): its name is
 * libpfm4's, or HCA_PMU_NONE. 1 and its counters' numbers if there is one,
 * else 0. */
int hct_ctr_pmu_detect(int *num_cntrs, int *num_fixed) HCT_HIDDEN;
/* The name to be detected when first asked for (hct_ctr_pmu_name). */
void hct_ctr_pmu_defer(void) HCT_HIDDEN;
/* The core PMU's name, detected now if deferred (libpfm4 loaded and unloaded
 * again), or "" when counters are off (no property). */
const char *hct_ctr_pmu_name(void) HCT_HIDDEN;

#endif
