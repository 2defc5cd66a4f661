/* hct_pfm.h: libpfm4, loaded (dlopen) when counter names are first resolved and
 * unloaded when the counters are set up, instead of being linked: it is needed
 * only while the tracer starts, and its event tables are 2.4 MiB of a traced
 * process's resident memory for the whole run when linked (docs/benchmarks.md,
 * "Peak resident memory"). Not thread-safe: used while the tracer starts (and by
 * hcatrace's list-events), from one thread. */
#ifndef HCT_PFM_H
#define HCT_PFM_H

#include <perfmon/pfmlib_perf_event.h>

#include "hct.h"

typedef struct {
    __typeof__(pfm_get_pmu_info) *get_pmu_info;
    __typeof__(pfm_get_event_next) *get_event_next;
    __typeof__(pfm_get_event_info) *get_event_info;
    __typeof__(pfm_get_os_event_encoding) *get_os_event_encoding;
    __typeof__(pfm_strerror) *strerror;
} hct_pfm_api;

/* libpfm4's functions once hct_pfm_load() returned 0. */
extern hct_pfm_api hct_pfm HCT_HIDDEN;

/* Loads and initializes libpfm4 (once until hct_pfm_unload): 0, or -1 when it
 * cannot be loaded or does not initialize. */
int hct_pfm_load(void) HCT_HIDDEN;
/* Terminates and unloads it; the next hct_pfm_load() loads it again. Nothing
 * libpfm4 returned may be used afterwards (names, descriptions: copy them).
 * A libpfm4 the process had loaded before (the application's own, PAPI's) is
 * neither terminated nor unmapped: only our reference is dropped. */
void hct_pfm_unload(void) HCT_HIDDEN;

#endif
