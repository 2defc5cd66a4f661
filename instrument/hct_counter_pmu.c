/* hct_counter_pmu.c: the core PMU's name, detected at load or when rank 0
 * writes it (see hct_counter_pmu.h). */
#include "hct_counter_pmu.h"

#include <stdio.h>

#include "hca_schema.h"
#include "hct_events.h"
#include "hct_model_sets.h"

static char pmu_name[HCT_PMU_NAME_MAX]; /* libpfm4's core PMU, "none", or "" when counters are off */
static int deferred;

int hct_ctr_pmu_detect(int *num_cntrs, int *num_fixed)
{
    deferred = 0;
    int have_core = hct_core_pmu(pmu_name, sizeof(pmu_name), num_cntrs, num_fixed) == 0;
    if (!have_core)
        snprintf(pmu_name, sizeof(pmu_name), HCA_PMU_NONE);
    return have_core;
}

void hct_ctr_pmu_defer(void)
{
    deferred = 1;
}

const char *hct_ctr_pmu_name(void)
{
    if (deferred) {
        int ncntrs = 0, nfixed = 0;
        hct_ctr_pmu_detect(&ncntrs, &nfixed);
        hct_events_release(); /* as after the setup: its pages go (hct_pfm.h) */
    }
    return pmu_name;
}
