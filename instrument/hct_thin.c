/* hct_thin.c: the enters of thinned instances kept back in the thread's state
 * and written late, when an instance turns out to be needed. Written late,
 * they keep the trace's rules: for each enter kept back, outermost first, the
 * samples taken before it are written (under the enclosing context), then the
 * enter at its own time and call path; the samples inside follow. Such an
 * instance carries counter values at its enter and leave only when they were
 * read at its enter, because a sample could land in it (hct_thin_counters.c).
 * No allocation, no lock: the state is the thread's own. */
#include "hct_thin.h"

#include <string.h>

#include "hct_diag.h"
#include "hct_sampling.h"
#include "hct_thin_counters.h"
#include "hct_ticks.h"

_Static_assert(HCT_THIN_FRAMES == HCT_PATH_FRAMES, "a kept-back call path is a region enter's");

enum hct_thin_mode hct_thin_enter(hct_thread *t, uint32_t key, const char *name, hct_thin_slot **slot)
{
    enum hct_thin_mode mode = HCT_THIN_FULL;
    *slot = NULL;
    if (hct.cfg.thin_full != 0 || hct.cfg.filter) {
        *slot = hct_thin_slot_of(&t->thin.keys, key, name, hct.cfg.filter);
        if (*slot)
            mode = hct_thin_decide(*slot, hct.cfg.thin_full);
    }
    if (mode == HCT_THIN_LAZY && t->thin.npending == HCT_THIN_DEPTH)
        mode = HCT_THIN_FULL;
    /* an instance written in full nests in the ones kept back: they are needed */
    if (mode == HCT_THIN_FULL)
        hct_thin_flush(t);
    return mode;
}

/* The next enter kept back: its key and where its context goes; its call
 * path or call site next, then kept(). */
static hct_thin_pending *pend(hct_thread *t, uint32_t key, hct_thin_slot *slot, uint32_t *cc_out)
{
    hct_thin_pending *p = &t->thin.pending[t->thin.npending];
    p->write = NULL;
    p->key = key;
    p->slot = slot;
    p->cc_out = cc_out;
    p->samples = hct_sampling_taken(t);
    *cc_out = HCT_CC_PENDING;
    return p;
}

/* The enter of p kept back, its time now (the last thing done but the
 * counters' read, which follows its time as at any boundary). */
static void kept(hct_thread *t, hct_thin_pending *p)
{
    p->ts = hct_ticks_now(); /* the monotonic time only when written (hct_thin_write_pending) */
    t->thin.npending++;
    hct_thin_counters_enter(t, p, t->thin.npending - 1); /* if a sample may land in it */
}

void hct_thin_defer(hct_thread *t, uint32_t key, hct_thin_slot *slot, const uintptr_t *frames, int n,
                    uint32_t *cc_out)
{
    hct_thin_pending *p = pend(t, key, slot, cc_out);
    p->nframes = n;
    memcpy(p->frames, frames, (size_t)n * sizeof(frames[0]));
    kept(t, p);
}

void hct_thin_defer_site(hct_thread *t, uint32_t key, hct_thin_slot *slot, const void *site, const void *ret,
                         const void *cfa, uint32_t *cc_out)
{
    hct_thin_pending *p = pend(t, key, slot, cc_out);
    p->nframes = -1;
    p->site = site;
    p->ret = ret;
    p->cfa = cfa;
    kept(t, p);
}

/* The call path of an enter kept back without it (hct_thin_defer_site): from
 * the thread's cache when the stack above the enter's return-address slot
 * (just below its cfa) is provably the one of a path unwound before, as a
 * fork's (hct_path_cache.c). libunwind's steps cost system calls (two
 * rt_sigprocmask each: hct_unwind.h), about 50 per written barrier at 2
 * threads (docs/benchmarks.md, "System calls per parallel region"). */
int hct_thin_unwind_late(hct_thread *t, const void *site, const void *ret, const void *cfa, uintptr_t *frames)
{
    const void *anchor = (const char *)cfa - sizeof(void *);
    int n = hct_path_cache_get(&t->late_paths, site, anchor, frames);
    if (n >= 0)
        return n;
    n = hct_path_unwind_from(site, ret, cfa, frames);
    if (n >= 0)
        hct_path_cache_put(&t->late_paths, site, anchor, frames, n);
    return n;
}

/* p's call path, found now; its caller returned: the stack of now with its
 * site as the leaf. */
static void unwind_late(hct_thread *t, hct_thin_pending *p)
{
    p->nframes = hct_thin_unwind_late(t, p->site, p->ret, p->cfa, p->frames);
    if (p->nframes < 0) { /* its caller returned: unwound at its enters from now on */
        p->slot->at_enter = 1;
        p->nframes = hct_path_unwind(p->site, p->frames);
    }
}

void hct_thin_defer_other(hct_thread *t, hct_thin_slot *slot, hct_thin_write_fn write, void *arg,
                          const uintptr_t *frames, int n, uint32_t *cc_out)
{
    hct_thin_pending *p = pend(t, 0, slot, cc_out);
    p->write = write;
    p->arg = arg;
    p->nframes = frames ? n : -1; /* -1: write() gets NULL */
    if (frames && n > 0) /* else write() finds them, if it is called */
        memcpy(p->frames, frames, (size_t)n * sizeof(frames[0]));
    kept(t, p);
}

void hct_thin_write_pending(hct_thread *t, int nested)
{
    int n = t->thin.npending;
    t->thin.npending = 0;
    /* the enters' times: their ticks as the monotonic time, against one reading of both now */
    uint64_t ticks = hct_ticks_now(), mono = hca_clock_now();
    hct_ticks_calibrate(mono, ticks);
    for (int i = 0; i < n; i++) /* or the time read with its counter values */
        t->thin.pending[i].ts = hct_thin_counters_enter_time(i, hct_ticks_mono_at(t->thin.pending[i].ts, ticks, mono));
    for (int i = 0; i < n; i++) {
        hct_thin_pending *p = &t->thin.pending[i];
        if (nested)
            p->slot->nests = 1;
        if (i > 0 && *t->thin.pending[i - 1].cc_out == HCA_UNDEF) {
            *p->cc_out = HCA_UNDEF; /* its parent could not be entered */
            continue;
        }
        hct_thin_counters_writing(i);
        if (p->write) { /* its older samples were written when it was kept back */
            *p->cc_out = p->write(t, p->arg, p->ts, p->nframes >= 0 ? p->frames : NULL, p->nframes);
            continue;
        }
        if (p->nframes < 0)
            unwind_late(t, p);
        hct_sampling_drain_before(t, p->ts); /* older samples: under the enclosing context */
        uint32_t unwind = 0, cc = hct_path_enter(&t->path, p->key, p->frames, p->nframes, &unwind);
        *p->cc_out = cc;
        if (cc == HCA_UNDEF) {
            t->dropped_events++;
            continue;
        }
        uint64_t ts = hct_timestamp_at(t, p->ts);
        hct_thin_counters_put(t, ts); /* its counter values, if read at its enter */
        hct_otf2_check(t, OTF2_EvtWriter_CallingContextEnter(t->writer, NULL, ts, cc, unwind));
    }
}

uint32_t hct_thin_leave(hct_thread *t, uint32_t cc, uint64_t *ts)
{
    if (cc == HCT_CC_PENDING) { /* the innermost enter kept back is this instance's */
        if (t->thin.npending == 0)
            return HCA_UNDEF;
        hct_thin_pending *p = &t->thin.pending[t->thin.npending - 1];
        uint64_t ns = hct_ticks_ns(hct_ticks_now() - p->ts);
        if (ns < hct.cfg.thin_ns && hct_sampling_taken(t) == p->samples) {
            t->thin.npending--; /* short, nothing in it: counted only */
            hct_thin_count(p->slot, ns);
            return HCA_UNDEF;
        }
        uint32_t *out = p->cc_out;
        hct_thin_write_pending(t, 0);
        cc = *out;
    }
    if (cc == HCA_UNDEF)
        return HCA_UNDEF;
    *ts = hct_thin_counters_leave(t); /* with counter values if its enter has them */
    return cc;
}
