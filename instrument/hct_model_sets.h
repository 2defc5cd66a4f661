/* hct_model_sets.h: a model's events (src/hca_model.h) -> counter sets that fit
 * the CPU's PMU. Resolves model events (libpfm4 and generic names through
 * hct_events, raw(type, config, config1) directly), tells which counter an
 * event needs (general, an Intel fixed counter, none), and packs the events
 * into sets: at most the PMU's general counters per set, instructions and
 * cycles in every set when the PMU has them, groups whole with their leader
 * first, identical encodings merged, model order, first fit. No tracer state:
 * used at load time by hct_counters.c and by tests/unit/test_model_sets.c. */
#ifndef HCT_MODEL_SETS_H
#define HCT_MODEL_SETS_H

#include <stddef.h>

#include "hca_model.h"
#include "hct_events.h"

enum { HCT_VENDOR_OTHER = 0, HCT_VENDOR_INTEL, HCT_VENDOR_AMD, HCT_VENDOR_ARM };

/* What a counter set may hold on this PMU. */
typedef struct {
    int vendor;  /* HCT_VENDOR_*: which encodings the kernel uses for cycles and instructions */
    int general; /* general-purpose counters per set */
    int fixed;   /* fixed counters: Intel's (0 instructions, 1 cycles, 2 ref-cycles,
                  * 3 slots), Arm's cycle counter (as 1); 0 = none (AMD) */
    int metrics; /* Intel PERF_METRICS: topdown metric events use no counter */
    int base;    /* instructions and cycles go into every set */
} hct_pmu_caps;

/* The caps of a libpfm4 core PMU: num_cntrs, num_fixed_cntrs of its
 * pfm_pmu_info_t; smt: the CPU has SMT siblings. On Intel (fixed counters) with
 * SMT, a PMU reporting 8 or more general counters (libpfm4's number with
 * Hyper-Threading off: snb ... skx report 8, icl and spr 16) gets half of
 * them. Arm PMUs (arm_*) have their event counters (6 when libpfm4 does not
 * say) and the cycle counter. `base`: the machine counts instructions and
 * cycles. */
void hct_pmu_caps_make(const char *pmu, int num_cntrs, int num_fixed, int smt, int base, hct_pmu_caps *caps);
/* Caps when libpfm4 knows no core PMU but perf has one: 4 general, no fixed. */
void hct_pmu_caps_unknown(int base, hct_pmu_caps *caps);

/* libpfm4's core PMU (present, PFM_PMU_TYPE_CORE; hct_events_init first):
 * 0 with its name and counters, -1 when libpfm4 detects none. */
int hct_core_pmu(char *name, size_t namelen, int *num_cntrs, int *num_fixed);
/* "0-1", "0,4", "3": more than one CPU in a thread_siblings_list. */
int hct_smt_from_siblings(const char *list);
/* cpu0's thread_siblings_list in sysfs lists more than one CPU. */
int hct_cpu_has_smt(void);

/* The counter an event needs. */
enum {
    HCT_NEED_NONE = 0,       /* kernel software event, or a topdown metric (PERF_METRICS) */
    HCT_NEED_GENERAL = 1,    /* a general-purpose counter */
    HCT_NEED_FIXED = 2,      /* Intel fixed counter *fixed, or else a general one */
    HCT_NEED_FIXED_ONLY = 3, /* Intel fixed counter *fixed only */
};
/* Intel: generic instructions, cycles, ref-cycles and raw event|umask 0x00c0
 * (INST_RETIRED.ANY), 0x003c (CPU_CLK_UNHALTED.THREAD), 0x0100 (the
 * fixed-counter pseudo encoding of INST_RETIRED.ANY), 0x0300 (REF_TSC), 0x0400
 * (TOPDOWN.SLOTS) are fixed-counter events when the PMU has that fixed counter.
 * Arm: generic cycles and raw 0x11 (CPU_CYCLES) may use the cycle counter. */
int hct_event_need(const hct_event *ev, const hct_pmu_caps *caps, int *fixed);

/* Same encoding: perf type, config, config1, config2 and privilege levels. */
int hct_event_same(const hct_event *a, const hct_event *b);
/* The same event as the kernel counts it: the same encoding, or generic cycles
 * or instructions and the raw encoding the kernel programs for them on this
 * vendor (Intel 0x3c and 0xc0, AMD 0x76 and 0xc0, Arm 0x11 and 0x08). */
int hct_event_equivalent(const hct_event *a, const hct_event *b, const hct_pmu_caps *caps);

/* A model event -> hct_event. Non-raw events go through hct_event_resolve
 * (same codes); raw ones are named "r<hex config>" (PERF_TYPE_RAW, config1 0)
 * or "raw:<type>:0x<config>:0x<config1>" and always succeed. */
int hct_model_event_resolve(const hca_model_event *e, hct_event *ev, char *why, size_t whylen);

/* Where an event went (where[i] of hct_model_pack) */
enum {
    HCT_PACK_UNUSABLE = -1, /* not resolved or not countable here (usable[i] == 0) */
    HCT_PACK_NO_ROOM = -2,  /* more than HCT_MAX_SETS sets would be needed */
    HCT_PACK_TOO_BIG = -3,  /* its group needs more counters than one set has */
};

typedef struct {
    int nsets;
    int nevents[HCT_MAX_SETS];
    int ev[HCT_MAX_SETS][HCT_MAX_SET_EVENTS]; /* indices into the packed events, in perf group order */
} hct_packing;

/* Packs events ev[0..n-1]. The first nbase are instructions and cycles (put in
 * every set; nbase = 0 when the PMU lacks them); the others are the model's,
 * usable[i] saying whether each can be counted here. groups[g] lists
 * gsize[g] indices into ev (the leader first). An event equivalent to an
 * earlier one (or to a base event; hct_event_equivalent) is merged into it: same_as[i] is the
 * event counted for it (i itself otherwise; a grouped event is preferred).
 * where[i] is the set counting same_as[i] (0 for base events, which are in
 * every set), or HCT_PACK_*. Each set lists its first group (leader first),
 * then the base events, then the others; units (a group, or one event) are
 * placed in model order, each into the first set it fits. Returns the number
 * of sets. */
int hct_model_pack(const hct_event *ev, const int *usable, int n, int nbase, const int *const *groups,
                   const int *gsize, int ngroups, const hct_pmu_caps *caps, int *same_as, int *where,
                   hct_packing *out);

/* The order of one perf group: the events of the first grouped unit (unit[k]
 * >= 0, in their order), then the base events (base[k] != 0), then the others,
 * each part in its given order. order[] gets the permutation (indices into the
 * inputs). Returns the length of the first two parts. */
int hct_set_order(const int *unit, const int *base, int n, int *order);

#endif
