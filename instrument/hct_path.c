/* hct_path.c: a location's current calling context in the process's one tree
 * of contexts, as Score-P's unwinding mode keeps it. A region's node (MPI
 * call, OpenMP region, marker) is a child of the physical call path that
 * calls it; a sample's stack taken while a region is open hangs under that
 * region's node from the first frame where it leaves the region's own call
 * path (for an MPI call: the MPI library's frames; for a marker: the code
 * between begin and end). Every event's unwind distance is counted against the
 * location's previous context: the nodes new since then, plus one (OTF2's
 * definition of CallingContext). Nodes are found in a small per-thread cache
 * first, then in the process's tables (hct_callsite.c). */
#include "hct_path.h"

#include <string.h>

#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include "hca_defs.h"
#include "hct_callsite.h"
#include "hct_self.h"

#define REGION_TAG ((uintptr_t)1 << 63) /* a region's node key: above every user address */
#define UNWIND_SLACK 16                  /* the tracer's own frames above the call site */

int hct_path_unwind(const void *return_address, uintptr_t *frames)
{
    void *ips[HCT_PATH_FRAMES + UNWIND_SLACK];
    int n = unw_backtrace(ips, HCT_PATH_FRAMES + UNWIND_SLACK);
    int first = -1, extra = 0;
    for (int i = 0; i < n && i < UNWIND_SLACK; i++)
        if (ips[i] == return_address) {
            first = i;
            break;
        }
    if (first < 0) { /* not on the stack (a tail call): below the tracer's frames */
        first = 0;
        while (first < n && !hct_self_contains((uintptr_t)ips[first]))
            first++;
        while (first < n && hct_self_contains((uintptr_t)ips[first]))
            first++;
        extra = return_address != NULL; /* then the given site as the leaf */
    }
    int last = n - 1;
    if (last - first + 1 + extra > HCT_PATH_FRAMES)
        last = first + HCT_PATH_FRAMES - 1 - extra; /* the innermost frames */
    int k = 0;
    for (int i = last; i >= first; i--)
        if (!hct_self_contains((uintptr_t)ips[i]))
            frames[k++] = (uintptr_t)ips[i] - 1; /* the call instruction */
    if (extra)
        frames[k++] = (uintptr_t)return_address - 1;
    return k;
}

/* The child `node` (code address or region tag) of `parent`. */
static uint32_t child(hct_path *p, uint32_t parent, uintptr_t node)
{
    uint64_t h = ((uint64_t)node ^ ((uint64_t)parent << 32) ^ parent) * 0x9e3779b97f4a7c15ull;
    unsigned i = (unsigned)(h >> 56) & (HCT_PATH_CACHE - 1);
    if (p->cache[i].key == node && p->cache[i].parent == parent)
        return p->cache[i].cc;
    uint32_t cc = (node & REGION_TAG) ? hct_region_cc(parent, (uint32_t)(node & ~REGION_TAG))
                                    : hct_sample_cc(parent, node);
    if (cc != HCA_UNDEF) {
        p->cache[i].key = node;
        p->cache[i].parent = parent;
        p->cache[i].cc = cc;
    }
    return cc;
}

/* The path of `frames` (root first), under the innermost open region, then
 * region `key`'s node unless key is HCA_UNDEF, into out (which may be p->now;
 * addr: the nodes' code addresses, or NULL). Returns the new depth, -1 when
 * the tables are full; *common: how many leading nodes it shares with p->now. */
static int build(hct_path *p, const uintptr_t *frames, int n, uint32_t key, hct_ctx *out, uintptr_t *addr,
                 int *common)
{
    int base = 0, j = 0;
    if (p->nopen) {
        const hct_path_open *top = &p->open[p->nopen - 1];
        base = top->at + 1;
        while (j < n && j < top->nframes && frames[j] == top->frames[j])
            j++;
    }
    int room = HCT_PATH_MAX - base - (key != HCA_UNDEF);
    if (room < 0)
        return -1;
    if (n - j > room)
        j = n - room; /* the innermost frames */
    int old = p->now.depth, same = 1, d = base;
    if (out != &p->now)
        memcpy(out->cc, p->now.cc, (size_t)base * sizeof(out->cc[0]));
    *common = base;
    uint32_t parent = base ? p->now.cc[base - 1] : HCA_UNDEF;
    for (int i = j; i <= n; i++, d++) {
        uintptr_t node = i < n ? frames[i] : REGION_TAG | key;
        if (i == n && key == HCA_UNDEF)
            break;
        uint32_t cc;
        if (same && i < n && d < old && p->addr[d] == node) {
            cc = p->now.cc[d];
        } else {
            if (same)
                *common = d;
            same = 0;
            cc = child(p, parent, node);
            if (cc == HCA_UNDEF) {
                if (out == &p->now) /* what is left of the previous context */
                    p->now.depth = *common;
                return -1;
            }
        }
        out->cc[d] = cc;
        if (addr)
            addr[d] = i < n ? node : 0;
        parent = cc;
    }
    if (same)
        *common = d;
    out->depth = d;
    return d;
}

/* OTF2's unwind distance of a context of `depth` nodes sharing `common` with
 * the previous one: the new nodes, plus the one that made progress (or the
 * undefined root above all). */
static uint32_t distance(int depth, int common)
{
    return (uint32_t)(depth - common + 1);
}

static int push_open(hct_path *p, const uintptr_t *frames, int n)
{
    if (p->nopen >= HCT_PATH_OPEN)
        return -1;
    hct_path_open *o = &p->open[p->nopen++];
    o->at = p->now.depth - 1;
    o->nframes = n;
    memcpy(o->frames, frames, (size_t)n * sizeof(frames[0]));
    return 0;
}

uint32_t hct_path_enter(hct_path *p, uint32_t key, const uintptr_t *frames, int n, uint32_t *unwind)
{
    if (p->nopen >= HCT_PATH_OPEN)
        return HCA_UNDEF;
    int common, depth = build(p, frames, n, key, &p->now, p->addr, &common);
    if (depth <= 0)
        return HCA_UNDEF;
    push_open(p, frames, n);
    *unwind = distance(depth, common);
    return p->now.cc[depth - 1];
}

uint32_t hct_path_peek(hct_path *p, uint32_t key, const uintptr_t *frames, int n, hct_ctx *out)
{
    int common, depth = build(p, frames, n, key, out, NULL, &common);
    return depth <= 0 ? HCA_UNDEF : out->cc[depth - 1];
}

uint32_t hct_path_enter_ctx(hct_path *p, const hct_ctx *c, const uintptr_t *frames, int n, uint32_t *unwind)
{
    if (p->nopen >= HCT_PATH_OPEN || c->depth <= 0)
        return HCA_UNDEF;
    int common = 0;
    while (common < c->depth && common < p->now.depth && p->now.cc[common] == c->cc[common])
        common++;
    memcpy(p->now.cc + common, c->cc + common, (size_t)(c->depth - common) * sizeof(c->cc[0]));
    memset(p->addr + common, 0, (size_t)(c->depth - common) * sizeof(p->addr[0])); /* not this thread's frames */
    p->now.depth = c->depth;
    push_open(p, frames, n);
    *unwind = distance(c->depth, common);
    return c->cc[c->depth - 1];
}

void hct_path_leave(hct_path *p)
{
    if (p->nopen == 0)
        return;
    p->now.depth = p->open[--p->nopen].at;
}

uint32_t hct_path_sample(hct_path *p, const uintptr_t *frames, int n, uint32_t *unwind)
{
    int common, depth = build(p, frames, n, HCA_UNDEF, &p->now, p->addr, &common);
    if (depth <= 0)
        return HCA_UNDEF;
    *unwind = distance(depth, common);
    return p->now.cc[depth - 1];
}
