/* hct_thin_keys.h: what a thread records of each region key (HCATRACE_THIN,
 * HCATRACE_FILTER): a small per-thread table of the keys it entered, with
 * their instance counts and what was not written (hct_thin_keys.c). Pure: the
 * mechanics of a deferred enter are hct_thin.c. */
#ifndef HCT_THIN_KEYS_H
#define HCT_THIN_KEYS_H

#include <stdint.h>

#include "hct_filter.h"

#define HCT_THIN_SLOTS 128 /* keys per thread; beyond: recorded in full */

enum hct_thin_mode {
    HCT_THIN_FULL,   /* enter and leave written with counter values */
    HCT_THIN_LAZY,   /* the enter kept back: written only if the instance turns out to be needed */
    HCT_THIN_FILTER, /* never written (HCATRACE_FILTER) */
};

typedef struct {
    uint32_t key;     /* + 1; 0 = empty */
    uint16_t filtered;
    uint16_t nests;   /* an instance written in full nested in one kept back: in full from then on */
    uint16_t at_enter; /* a kept-back enter's caller returned before it was written: unwound at enter */
    uint16_t pad_;
    /* the cost rule (HCATRACE_THIN unset): its first instances in full, probed */
    uint16_t probed;  /* instances probed (at most HCT_THIN_PROBE) */
    uint16_t nshort;  /* of them: shorter than HCT_THIN_COST_MULT x the mean cost of writing one */
    uint32_t cheap;   /* its instances are short against that cost: the instances probed until
                         that was certain, written in full (0: not cheap, or not decided yet) */
    uint64_t cost_ns; /* the tracer's time writing the probed instances */
    uint64_t seen;    /* instances entered */
    uint64_t thinned; /* instances not written, */
    uint64_t time_ns; /* and their total time */
} hct_thin_slot;

typedef struct {
    hct_thin_slot slot[HCT_THIN_SLOTS];
} hct_thin_keys;

#define HCT_THIN_FRAMES 64 /* = HCT_PATH_FRAMES */

#define HCT_THIN_DEPTH 4 /* enters kept back at once (nested); deeper ones are written */

struct hct_thread;

/* An enter kept back: a region's (constructs, user markers: written from
 * `key` and `frames`, or from `site`, `ret` and `cfa`, unwound only then), or, when `write` is set, another kind's (a thread's
 * share of a parallel region), written by write(t, arg, ts, frames, nframes),
 * which returns the region's context. */
typedef struct {
    uint32_t (*write)(struct hct_thread *t, void *arg, uint64_t ts, const uintptr_t *frames, int n);
    void *arg;
    uint32_t key;
    uint64_t ts;           /* the enter's time: in ticks (hct_ticks.h) until it is written */
    uint64_t samples;      /* the thread's samples taken then */
    hct_thin_slot *slot;
    uint32_t *cc_out;      /* where the region's context goes once written */
    int nframes;           /* the enter's call path, root first; -1: not unwound yet */
    uintptr_t frames[HCT_THIN_FRAMES];
    /* nframes -1: what unwinds it when the enter is written (hct_path_unwind_from) */
    const void *site, *ret, *cfa;
} hct_thin_pending;

/* A thread's thinning: its keys and the enters it keeps back (the innermost
 * open regions, while it is not known whether they are needed, outermost
 * first); a member of hct_thread (hct.h), zero at its start. */
typedef struct {
    hct_thin_keys keys;
    int npending;
    hct_thin_pending pending[HCT_THIN_DEPTH];
} hct_thin_thread;

/* The slot of `key` (created on first sight, matched against the filter by
 * `name` then, when name is not NULL), NULL when the table is full. */
hct_thin_slot *hct_thin_slot_of(hct_thin_keys *k, uint32_t key, const char *name, const hct_filter *filter);
/* The cost rule (HCATRACE_THIN unset; docs/configuration.md, "Thinning and
 * filtering"): each of a key's first HCT_THIN_PROBE instances written in full
 * is probed: its duration without the tracer's time in its enter and leave
 * (a parallel region's: its team's longest share), and that time (the cost of
 * writing it; above HCT_DELIVERY_MAX, a preemption: the mean so far). If more than a quarter of them
 * (not half: preemptions on a loaded machine stretch many) lasted less than
 * HCT_THIN_COST_MULT times the mean cost so far, writing such an instance in
 * full costs the program more than 1/HCT_THIN_COST_MULT of it: the key is
 * `cheap`, decided at the short instance that makes more than a quarter (the
 * 26th short one: from the 26th instance on when all are short), written in
 * full for the instances probed until then only, then thinned (instances of
 * HCATRACE_THIN's duration or more still written). */
#define HCT_THIN_PROBE 100u
#define HCT_THIN_COST_MULT 50u
void hct_thin_probe(hct_thin_slot *s, uint64_t duration_ns, uint64_t cost_ns);
/* What to record of the instance being entered: counts it; the first `full`
 * instances of a key in full (full = 0: every instance; a cheap key: those
 * probed until it was found cheap), and every instance once something was seen nested
 * in one (s->nests: a region that holds others keeps its counter values). */
enum hct_thin_mode hct_thin_decide(hct_thin_slot *s, unsigned full);
/* An instance of s that was not written, lasting ns. */
static inline void hct_thin_count(hct_thin_slot *s, uint64_t ns)
{
    s->thinned++;
    s->time_ns += ns;
}

#endif
