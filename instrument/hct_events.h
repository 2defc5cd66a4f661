/* hct_events.h: counter event names -> perf_event_attr. Generic perf names
 * (cycles, instructions, task-clock, page-faults, ...), PAPI preset aliases where
 * a generic event is equivalent (PAPI_TOT_INS, ...), PMU event names and raw
 * encodings through libpfm4; the closest known names for a misspelt one; the
 * HCATRACE_COUNTERS set syntax. No tracer state: used at load time and by the
 * unit tests. */
#ifndef HCT_EVENTS_H
#define HCT_EVENTS_H

#include <linux/perf_event.h>
#include <perfmon/pfmlib.h>
#include <stddef.h>

#define HCT_EVENT_NAME_MAX 96
#define HCT_MAX_SETS 32      /* counter sets of a process: a model's, then HCATRACE_COUNTERS' */
#define HCT_MAX_SPEC_SETS 8  /* sets written in HCATRACE_COUNTERS */
#define HCT_MAX_SET_EVENTS 12

typedef struct {
    char name[HCT_EVENT_NAME_MAX]; /* canonical name: the metric member's name */
    char desc[256];                /* what was asked and how it is encoded */
    struct perf_event_attr attr;   /* counting (not sampling) attributes, user space only */
    int hardware;                  /* counted by a CPU PMU (not a kernel software event) */
    int unit_ns;                   /* the value is a time in ns (task-clock, cpu-clock) */
} hct_event;

enum {
    HCT_EV_OK = 0,
    HCT_EV_UNKNOWN = -1,   /* no such event anywhere */
    HCT_EV_OTHER_PMU = -2, /* an event of a PMU this machine does not have */
    HCT_EV_INVALID = -3,   /* known event, bad unit mask or modifier */
};

/* Initializes libpfm4 once (LIBPFM_FORCE_PMU is honoured). Returns 0, or -1
 * when libpfm4 is unusable (generic names still resolve). */
int hct_events_init(void);
/* Unloads libpfm4 (hct_pfm.h) when the counters are set up: hct_events_init
 * loads it again if needed. Names from hct_events_core_pmu are gone with it. */
void hct_events_release(void);

/* The first core PMU libpfm4 finds present (the forced one under
 * LIBPFM_FORCE_PMU) into *pi. Returns 0, or -1 when there is none (or no libpfm4). */
int hct_events_core_pmu(pfm_pmu_info_t *pi);

/* Resolves one event name. On failure `why` says why (for HCT_EV_OTHER_PMU
 * and HCT_EV_INVALID). Generic and PAPI names need no libpfm4; the first other
 * name loads it (hct_events_init). */
int hct_event_resolve(const char *spec, hct_event *ev, char *why, size_t whylen);

/* The generic events in table order, for listings: the i-th's canonical name
 * and whether the kernel counts it in software (*software); NULL past the end. */
const char *hct_event_generic_name(size_t i, int *software);

/* The PAPI presets taken as generic events: the i-th preset's name and, in
 * *generic, the generic event it stands for; NULL past the end. */
const char *hct_event_papi_name(size_t i, const char **generic);

/* The (at most) n known names closest to `name`, as "a, b, c". */
void hct_event_closest(const char *name, char *out, size_t outlen, int n);

/* HCATRACE_COUNTERS syntax: sets separated by ';', events by ','; blanks
 * around names are ignored, empty sets skipped. Returns 0, or -1 with a
 * reason in err (too many sets or events, a name too long). */
typedef struct {
    int nsets;
    int nevents[HCT_MAX_SPEC_SETS];
    char names[HCT_MAX_SPEC_SETS][HCT_MAX_SET_EVENTS][HCT_EVENT_NAME_MAX];
} hct_set_spec;
int hct_set_spec_parse(const char *spec, hct_set_spec *out, char *err, size_t errlen);

#endif
