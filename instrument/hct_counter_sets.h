/* hct_counter_sets.h: the counter sets of this process (one perf group and one
 * OTF2 MetricClass each) and how they are built at load: events opened alone and
 * as groups, wanted sets split where the kernel refuses them (hct_counter_sets.c). */
#ifndef HCT_COUNTER_SETS_H
#define HCT_COUNTER_SETS_H

#include "hct.h"

#include <linux/perf_event.h>

#include "hct_counter_rusage.h"
#include "hct_events.h"
#include "hct_model_sets.h"

#define MAX_VALUES (HCT_MAX_SET_EVENTS + 2)
#define MAX_MEMBERS (HCT_MAX_SETS * MAX_VALUES)

typedef struct {
    hct_event ev[HCT_MAX_SET_EVENTS];
    int nevents, nvalues; /* nvalues = nevents (+ time enabled, time running) */
    int hardware;         /* has a PMU event: multiplexing is possible */
    int no_perf;          /* read without perf events (hct_counter_rusage.h) */
    hct_rusage_set rusage; /* how, when no_perf */
    hca_ref class_ref;
    uint32_t member[MAX_VALUES]; /* index into members[] */
} hct_ctr_set;

/* When all sets together hold more than LAZY_FDS events (a model may have
 * 30 sets), a thread holds the file descriptors of one set at a time, the
 * enabled one, so that a program with many threads does not run out of
 * descriptors because of us: rotating then opens the next set and closes the
 * previous one (about 9 us on our VM, against 3 us for switching between
 * open sets). */
#define LAZY_FDS 16
struct hct_ctr_sets {
    int nsets;
    hct_ctr_set set[HCT_MAX_SETS];
    int nmembers;
    char member_name[MAX_MEMBERS][HCT_EVENT_NAME_MAX];
    hca_ref member_ref[MAX_MEMBERS];
    int has_pmu;
    int lazy; /* open one set at a time per thread (LAZY_FDS) */
    int no_perf; /* every set is read without perf events (hct_ctr_choose_source) */
};
extern struct hct_ctr_sets hct_ctr HCT_HIDDEN;

/* A set before the kernel has seen it: what does not fit in one perf group
 * (HCT_MAX_SET_EVENTS) goes on in the next set. */
#define PEND_MAX (HCT_MAX_SET_EVENTS + 2)
typedef struct {
    hct_event ev[PEND_MAX];
    int unit[PEND_MAX]; /* the model group of each event, -1 if none */
    int nevents;
    int from_model;     /* its events are reported in the model's line */
} hct_pending_set;

/* 0 if the event opens alone here, else the errno of perf_event_open. */
int hct_ctr_open_alone(const hct_event *ev) HCT_HIDDEN;
/* Opens events as one group; returns how many joined, their fds in fds[]. */
int hct_ctr_open_group(const hct_event *ev, int nevents, int *fds, int enable) HCT_HIDDEN;
void hct_ctr_close_fds(int *fds, int n) HCT_HIDDEN;
/* perf_event_open's errno as one line (with kernel.perf_event_paranoid). */
const char *hct_ctr_open_error(int err, char *buf, size_t n) HCT_HIDDEN;
void hct_ctr_pending_add(hct_pending_set *p, const hct_event *ev, int unit) HCT_HIDDEN;
/* The wanted sets -> hct_ctr.set; 1 when HCT_MAX_SETS ran out. */
int hct_ctr_build_sets(const hct_pending_set *want, int nwant, const hct_event *base, int nbase) HCT_HIDDEN;
/* HCATRACE_COUNTER_SOURCE: unless it is "perf", when every event of every set
 * can be read without perf events (hct_counter_rusage.h), all sets are; their
 * events' descriptions say how. Before hct_ctr_define_sets. */
void hct_ctr_choose_source(void) HCT_HIDDEN;
/* Metric members and classes of the sets, in the definitions. */
void hct_ctr_define_sets(void) HCT_HIDDEN;

#endif
