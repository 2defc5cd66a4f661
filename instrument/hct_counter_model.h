/* hct_counter_model.h: the model of HCATRACE_MODEL on the tracer's side: loading
 * it, its events as wanted counter sets, and what it counts here, recorded as
 * archive properties (hct_counter_model.c). */
#ifndef HCT_COUNTER_MODEL_H
#define HCT_COUNTER_MODEL_H

#include "hct_counter_sets.h"

#include <otf2/otf2.h>

#include "hca_model.h"

/* The model's events after packing: per event, the member counting it or why not. */
typedef struct {
    size_t n;
    char (*member)[HCT_EVENT_NAME_MAX];
    char (*why)[160];
    int no_pmu; /* some were left out for want of a CPU PMU */
} hct_model_result;

/* Finds and parses the model HCATRACE_MODEL names (auto: by the core PMU pmu,
 * when have_core); NULL (said in one line) on failure. */
hca_model *hct_ctr_load_model(const char *want, const char *pmu, int have_core) HCT_HIDDEN;
/* The model's events -> pending sets (want[0..]); returns the number of sets. */
int hct_ctr_model_sets(const hca_model *m, const hct_event *base, int nbase, const hct_pmu_caps *caps,
                       hct_pending_set *want, int maxsets, hct_model_result *r) HCT_HIDDEN;
/* After hct_ctr_build_sets: what the model counts here, as properties and one line. */
void hct_ctr_model_report(const hca_model *m, hct_model_result *r, int full, int using_defaults) HCT_HIDDEN;
/* The model and the PMU as archive properties (HCATRACE::MODEL, ...), on
 * rank 0's archive; other ranks pass NULL (their copies are freed). */
void hct_counters_properties(OTF2_Archive *archive) HCT_HIDDEN;

#endif
