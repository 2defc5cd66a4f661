/* hct_thin.h: cost that follows what the analysis needs (HCATRACE_THIN,
 * HCATRACE_FILTER; design decision 13). Per thread and region key, the first
 * instances are recorded in full; after them an instance's enter is kept back
 * (time and call path in the thread's state) and written only if the instance
 * turns out to be needed: a sample lands in it, something nests in it, or it
 * lasts at least the threshold; otherwise it is only counted (instances, total
 * time), and the trace says so at the end (hct_thin.c; docs/trace-format.md,
 * "Thinned regions"). */
#ifndef HCT_THIN_H
#define HCT_THIN_H

#include <stdint.h>

#include "hct.h"

#define HCT_CC_PENDING (HCA_UNDEF - 1) /* a region's context while its enter is kept back */

/* The enters kept back, written now: something else is written on the
 * thread (t->in_tool > 0). `nested`: because something nests in them; their
 * keys are then written in full from now on (hct_thin_decide). */
void hct_thin_write_pending(hct_thread *t, int nested) HCT_HIDDEN;
static inline void hct_thin_flush(hct_thread *t)
{
    if (t->thin.npending)
        hct_thin_write_pending(t, 1);
}

/* At a region's enter (t->in_tool > 0): what to record of this instance;
 * *slot: the key's statistics (NULL when the thread's table is full: then
 * always HCT_THIN_FULL). Before an instance in full, the enters kept back are
 * written (something nests in them). */
enum hct_thin_mode hct_thin_enter(hct_thread *t, uint32_t key, const char *name, hct_thin_slot **slot) HCT_HIDDEN;
/* Whether the instance of slot being written in full is probed for the cost
 * rule (hct_thin_probe): its caller then times its enter and leave. */
static inline int hct_thin_probing(const hct_thin_slot *slot)
{
    return slot && hct.cfg.thin_cost && slot->probed < HCT_THIN_PROBE;
}

/* An HCT_THIN_LAZY instance of `key` entered now from the call path `frames`
 * (root first): its enter kept back; *cc_out is HCT_CC_PENDING until the enter
 * is written, then the region's context (HCA_UNDEF if it could not be). */
void hct_thin_defer(hct_thread *t, uint32_t key, hct_thin_slot *slot, const uintptr_t *frames, int n,
                    uint32_t *cc_out) HCT_HIDDEN;
/* The same without the call path unwound: it is unwound only if the enter is
 * written, from the enter's call site `site` (as for hct_path_unwind), its
 * return address `ret` and its caller's stack pointer `cfa`
 * (hct_path_unwind_from), the caller's frame still running then (a
 * construct's start and end are called from one frame). The caller's frame
 * gone (a marker's end called from another function, written late): the
 * stack of the moment with `site` as the leaf, and the key's enters are
 * unwound at once from then on (its slot's `at_enter`). */
/* Whether an HCT_THIN_LAZY enter of slot's key keeps only its call site
 * (hct_thin_defer_site): call paths are recorded, and no caller of the key
 * returned before an enter was written (at_enter). */
static inline int hct_thin_unwinds_late(const hct_thin_slot *slot)
{
    return hct.cfg.callsites && !slot->at_enter;
}
void hct_thin_defer_site(hct_thread *t, uint32_t key, hct_thin_slot *slot, const void *site, const void *ret,
                         const void *cfa, uint32_t *cc_out) HCT_HIDDEN;
/* The call path such an enter is written with: what hct_path_unwind_from(site,
 * ret, cfa, frames) gives, from the thread's cache of late paths when the
 * stack above the enter's return-address slot (just below cfa) is provably
 * one unwound before (hct_path_cache.h); -1 when the caller returned. Also
 * a kept-back GOMP team of one's fork (hct_openmp.c). */
int hct_thin_unwind_late(hct_thread *t, const void *site, const void *ret, const void *cfa,
                         uintptr_t *frames) HCT_HIDDEN;
/* The same for an enter of another kind, written by write(t, arg, ts,
 * frames, n) if the instance turns out to be needed (hct_thin_keys.h).
 * frames NULL: nothing is copied, write() gets NULL and finds the enter's
 * call path itself (an OpenMP share's, from the fork and the thread's
 * cached stack: hct_openmp.c). */
typedef uint32_t (*hct_thin_write_fn)(hct_thread *t, void *arg, uint64_t ts, const uintptr_t *frames, int n);
void hct_thin_defer_other(hct_thread *t, hct_thin_slot *slot, hct_thin_write_fn write, void *arg,
                          const uintptr_t *frames, int n, uint32_t *cc_out) HCT_HIDDEN;
/* The leave of an HCT_THIN_LAZY instance whose context is cc: HCA_UNDEF when
 * nothing is to be written (the instance was counted, or its enter could not
 * be written); else the context to leave at *ts, the thread's samples written
 * before it, and counter values at *ts when its enter has them
 * (hct_thin_counters.h). */
uint32_t hct_thin_leave(hct_thread *t, uint32_t cc, uint64_t *ts) HCT_HIDDEN;

#endif
