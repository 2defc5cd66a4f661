/* hct_markers.c: the user marker API of include/hcatrace.h. Each distinct name
 * becomes a user region (its key is HCT_USER_KEY_BASE + index); instances are
 * calling-context regions keyed by the call site of the begin marker, exactly
 * like MPI calls. A per-thread stack pairs ends with begins. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "../include/hcatrace.h"
#include "hct.h"
#include "hct_boundary.h"
#include "hct_diag.h"
#include "hct_locations.h"
#include "hct_markers.h"
#include "hct_rescue.h"
#include "hct_thin.h"
#include "hct_ticks.h"

#define MAX_NAMES 1024
#define MAX_DEPTH 64

static char *names[MAX_NAMES];
static _Atomic uint32_t nnames;
static pthread_mutex_t names_lock = PTHREAD_MUTEX_INITIALIZER;

typedef struct {
    uint32_t key, cc;
    int mode;            /* enum hct_thin_mode */
    uint64_t t0;         /* filtered out: its begin's time in ticks (hct_ticks.h); probed (hct_thin_probing): its begin's end */
    hct_thin_slot *slot; /* filtered out or probed: its key's statistics */
    uint64_t cost;       /* probed: the tracer's time in its begin */
} open_region;
static HCT_TLS open_region stack[MAX_DEPTH];
static HCT_TLS int depth;

static uint32_t key_of(const char *name)
{
    uint32_t n = atomic_load(&nnames);
    for (uint32_t i = 0; i < n; i++)
        if (strcmp(names[i], name) == 0)
            return HCT_USER_KEY_BASE + i;
    pthread_mutex_lock(&names_lock);
    uint32_t key = HCA_UNDEF;
    n = atomic_load(&nnames);
    for (uint32_t i = 0; i < n && key == HCA_UNDEF; i++)
        if (strcmp(names[i], name) == 0)
            key = HCT_USER_KEY_BASE + i;
    if (key == HCA_UNDEF && n < MAX_NAMES && (names[n] = strdup(name)) != NULL) {
        key = HCT_USER_KEY_BASE + n;
        atomic_store(&nnames, n + 1);
    }
    pthread_mutex_unlock(&names_lock);
    return key;
}

const char *hct_marker_name(uint32_t key)
{
    uint32_t i = key - HCT_USER_KEY_BASE;
    return key >= HCT_USER_KEY_BASE && i < atomic_load(&nnames) ? names[i] : NULL;
}

/* The end of region r: its leave with counter values, or as thinning says
 * (hct_thin.h). */
static void leave(hct_thread *t, const open_region *r)
{
    if (r->mode == HCT_THIN_FILTER) {
        hct_thin_count(r->slot, hct_ticks_ns(hct_ticks_now() - r->t0));
        return;
    }
    uint64_t ts = 0, c0 = r->mode == HCT_THIN_FULL && r->slot ? hca_clock_now() : 0; /* probed */
    uint32_t cc = r->cc;
    if (r->mode == HCT_THIN_LAZY) {
        cc = hct_thin_leave(t, r->cc, &ts);
    } else if (t->extras) {
        ts = hct_boundary(t, 0, 0);
    } else {
        ts = hct_timestamp(t);
    }
    if (cc == HCA_UNDEF)
        return;
    hct_otf2_check(t, OTF2_EvtWriter_CallingContextLeave(t->writer, NULL, ts, cc));
    hct_path_leave(&t->path);
    if (c0)
        hct_thin_probe(r->slot, c0 - r->t0, r->cost + hca_clock_now() - c0);
}

__attribute__((visibility("default"))) void hcatrace_region_begin(const char *name)
{
    hct_thread *t = hct_thread_get();
    if (!t || !name || depth >= MAX_DEPTH)
        return;
    t->in_tool++;
    uint32_t key = key_of(name);
    hct_thin_slot *slot = NULL;
    int mode = key != HCA_UNDEF ? (int)hct_thin_enter(t, key, name, &slot) : HCT_THIN_FULL;
    uint64_t c0 = mode == HCT_THIN_FULL && hct_thin_probing(slot) ? hca_clock_now() : 0;
    if (key != HCA_UNDEF && mode == HCT_THIN_FILTER) {
        stack[depth++] = (open_region){ key, HCA_UNDEF, mode, hct_ticks_now(), slot, 0 };
    } else if (key != HCA_UNDEF) {
        if (mode == HCT_THIN_LAZY && hct_thin_unwinds_late(slot)) { /* unwound if written */
            stack[depth] = (open_region){ key, HCA_UNDEF, mode, 0, slot, 0 };
            hct_thin_defer_site(t, key, slot, __builtin_return_address(0), __builtin_return_address(0),
                                __builtin_dwarf_cfa(), &stack[depth].cc);
            depth++;
            hct_tool_exit(t);
            return;
        }
        uintptr_t frames[HCT_PATH_FRAMES];
        int n = hct.cfg.callsites ? hct_path_unwind(__builtin_return_address(0), frames) : 0;
        if (mode == HCT_THIN_LAZY) {
            stack[depth] = (open_region){ key, HCA_UNDEF, mode, 0, slot, 0 };
            hct_thin_defer(t, key, slot, frames, n, &stack[depth].cc);
            depth++;
            hct_tool_exit(t);
            return;
        }
        uint64_t ts = hct_boundary_ts(t, 1);
        uint32_t unwind = 0, cc = hct_path_enter(&t->path, key, frames, n, &unwind);
        if (cc != HCA_UNDEF) {
            hct_otf2_check(t, OTF2_EvtWriter_CallingContextEnter(t->writer, NULL, ts, cc, unwind));
            uint64_t c1 = c0 ? hca_clock_now() : 0; /* probed: the begin's end and cost */
            stack[depth++] = (open_region){ key, cc, HCT_THIN_FULL, c1, c0 ? slot : NULL, c1 - c0 };
        } else {
            t->dropped_events++;
        }
    }
    hct_tool_exit(t);
}

__attribute__((visibility("default"))) void hcatrace_region_end(const char *name)
{
    hct_thread *t = hct_thread_get();
    if (!t || !name || depth == 0)
        return;
    const char *open = hct_marker_name(stack[depth - 1].key);
    if (!open || strcmp(open, name) != 0)
        return; /* not the innermost open region: ignored */
    t->in_tool++;
    depth--;
    leave(t, &stack[depth]);
    hct_tool_exit(t);
}

/* Closes the regions this thread left open, when tracing stops: each as its
 * end would (a kept-back enter written first, at its time; the samples in the
 * instance after it; the leave with its counter values). */
void hct_markers_close_open(hct_thread *t)
{
    while (depth > 0) {
        depth--;
        leave(t, &stack[depth]);
    }
}
