/* hct_path.c: a location's current calling context in the process's one tree
 * of contexts, as Score-P's unwinding mode keeps it. A region's node (MPI
 * call, OpenMP region, marker) is a child of the physical call path that
 * calls it; a sample's stack taken while a region is open hangs under that
 * region's node from the first frame where it leaves the region's own call
 * path (for an MPI call: the MPI library's frames; for a marker: the code
 * between begin and end). A physical frame is one node per function of the
 * inline chain at its address (hct_callsite.c keys them by function and line),
 * on samples and on the call paths unwound at region enters alike. Every
 * event's unwind distance is counted in nodes against the location's previous
 * context: the nodes new since then, plus one (OTF2's definition of
 * CallingContext). Nodes are found in a small per-thread cache first (per
 * call site: parent and frame address), then in the process's tables. */
#include "hct_path.h"

#include <string.h>

#include "hca_defs.h"
#include "hct_callsite.h"
#include "hct_self.h"
#include "hct_symbols.h"
#include "hct_unwind.h"

#define REGION_TAG ((uintptr_t)1 << 63) /* a region's node key: above every user address */
#define UNWIND_SLACK 16                  /* the tracer's own frames above the call site */

/* The call path, root first, of the innermost-first return addresses ips[0..n-1]
 * from the frame that called into the tracer at `return_address` (found among
 * the first UNWIND_SLACK; else below the tracer's frames, with that site as the
 * leaf), the tracer's own frames left out, the innermost HCT_PATH_FRAMES. */
static int select_frames(const uintptr_t *ips, int n, const void *return_address, uintptr_t *frames)
{
    int first = -1, extra = 0;
    for (int i = 0; i < n && i < UNWIND_SLACK; i++)
        if (ips[i] == (uintptr_t)return_address) {
            first = i;
            break;
        }
    if (first < 0) { /* not on the stack (a tail call): below the tracer's frames */
        first = 0;
        while (first < n && !hct_self_contains(ips[first]))
            first++;
        while (first < n && hct_self_contains(ips[first]))
            first++;
        extra = return_address != NULL; /* then the given site as the leaf */
    }
    int last = n - 1;
    if (last - first + 1 + extra > HCT_PATH_FRAMES)
        last = first + HCT_PATH_FRAMES - 1 - extra; /* the innermost frames */
    int k = 0;
    for (int i = last; i >= first; i--)
        if (!hct_self_contains(ips[i]))
            frames[k++] = ips[i] - 1; /* the call instruction */
    if (extra)
        frames[k++] = (uintptr_t)return_address - 1;
    return k;
}

int hct_path_unwind(const void *return_address, uintptr_t *frames)
{
    void *raw[HCT_PATH_FRAMES + UNWIND_SLACK];
    uintptr_t ips[HCT_PATH_FRAMES + UNWIND_SLACK];
    int n = unw_backtrace(raw, HCT_PATH_FRAMES + UNWIND_SLACK);
    for (int i = 0; i < n; i++)
        ips[i] = (uintptr_t)raw[i];
    return select_frames(ips, n, return_address, frames);
}

#define WALK_MAX 256 /* frames walked from the tracer to an open region's caller */

/* Whether the frame at cursor c runs the function holding the return address ret. */
static int frame_of(unw_cursor_t *c, const void *ret)
{
    unw_proc_info_t pi;
    return unw_get_proc_info(c, &pi) == 0 && (unw_word_t)ret > pi.start_ip && (unw_word_t)ret <= pi.end_ip;
}

int hct_path_unwind_from(const void *return_address, const void *ret, const void *cfa, uintptr_t *frames)
{
    unw_context_t uc;
    unw_cursor_t c, frame;
    HCT_UNWIND_CONTEXT(&uc);
    if (unw_init_local(&c, &uc) != 0)
        return -1;
    /* outward, the first frame of ret's function whose own CFA (its caller's
     * stack pointer) lies above cfa: the caller's frame holds the stack
     * pointer it had at the enter (it may have another one now, for a call
     * with arguments on the stack) */
    int found = 0;
    for (int i = 0; i < WALK_MAX && !found; i++) {
        frame = c; /* cursors are copied by assignment */
        unw_word_t sp = 0;
        if (unw_step(&c) <= 0 || unw_get_reg(&c, UNW_REG_SP, &sp) != 0)
            return -1;
        found = sp > (unw_word_t)cfa && frame_of(&frame, ret);
    }
    if (!found)
        return -1;
    uintptr_t ips[HCT_PATH_FRAMES + UNWIND_SLACK];
    int n = 0;
    ips[n++] = (uintptr_t)ret; /* that frame as the enter saw it, then its callers */
    do {
        unw_word_t ip = 0;
        if (unw_get_reg(&c, UNW_REG_IP, &ip) != 0)
            break;
        ips[n++] = (uintptr_t)ip;
    } while (n < HCT_PATH_FRAMES + UNWIND_SLACK && unw_step(&c) > 0);
    return select_frames(ips, n, return_address, frames);
}

/* The first entry of the set of (parent, node) in the thread's cache. */
static inline unsigned cache_set(uint32_t parent, uintptr_t node)
{
    uint64_t h = ((uint64_t)node ^ ((uint64_t)parent << 32) ^ parent) * 0x9e3779b97f4a7c15ull;
    return ((unsigned)(h >> 40) & (HCT_PATH_CACHE / HCT_PATH_WAYS - 1)) * HCT_PATH_WAYS;
}

/* The nodes of `node` under `parent`, outermost first, into out (room for
 * HCT_INLINE_MAX): a region's node (region tag), or a frame's, one per
 * function of the inline chain at its code address. Returns how many, 0 when
 * the tables are full. The thread's cache first: a region's enter walks its
 * whole call path, and the first sight of an address costs a libdw lookup. */
static uint32_t child(hct_path *p, uint32_t parent, uintptr_t node, uint32_t *out)
{
    hct_path_entry *set = p->cache + cache_set(parent, node);
    for (unsigned w = 0; w < HCT_PATH_WAYS; w++)
        if (set[w].n && set[w].key == node && set[w].parent == parent) {
            memcpy(out, set[w].cc, set[w].n * sizeof(out[0]));
            return set[w].n;
        }
    uint32_t n;
    if (node & REGION_TAG) {
        out[0] = hct_region_cc(parent, (uint32_t)(node & ~REGION_TAG));
        n = out[0] != HCA_UNDEF;
    } else {
        n = hct_sample_cc(parent, node, out);
    }
    if (n && n <= HCT_PATH_CHAIN) { /* the newest first in its set, the oldest dropped */
        memmove(set + 1, set, (HCT_PATH_WAYS - 1) * sizeof(set[0]));
        set[0].key = node;
        set[0].parent = parent;
        set[0].n = n;
        memcpy(set[0].cc, out, n * sizeof(out[0]));
    }
    return n;
}

/* A path under construction: its nodes, each one's frame address (0: a
 * region), its level in its frame's inline chain and the chain's length. */
typedef struct {
    uint32_t cc[HCT_PATH_MAX];
    uintptr_t addr[HCT_PATH_MAX];
    uint8_t level[HCT_PATH_MAX], chain[HCT_PATH_MAX];
} path_buf;

/* Whether the chain of frame `node` at p->now's node d is still whole: its
 * last node written with it. Another thread's context entered since
 * (hct_path_enter_ctx) replaces the nodes from the first it does not share
 * and zeroes their frame addresses, which can cut a chain after its first
 * node: the chain's end then shows it (a later walk writing that place from
 * a node after d gives it another level). */
static inline int whole_chain(const hct_path *p, int d, uintptr_t node)
{
    int last = d + p->chain[d] - 1;
    return p->addr[last] == node && p->level[last] == p->chain[d] - 1;
}

/* The nodes of frames[j..n-1] and then of region `key` (unless HCA_UNDEF) in
 * b from index base on (b holds p->now's first base nodes). Returns the
 * depth; -1 when the tables are full, -2 - k when k more nodes than fit;
 * *common: how many leading nodes it shares with p->now (counted in nodes:
 * another address may give the same nodes, another instruction of a line). */
static int walk(hct_path *p, const uintptr_t *frames, int j, int n, uint32_t key, int base, path_buf *b,
                int *common)
{
    int old = p->now.depth, same = 1, d = base;
    *common = base;
    uint32_t parent = base ? b->cc[base - 1] : HCA_UNDEF;
    for (int i = j; i <= n; i++) {
        if (i == n && key == HCA_UNDEF)
            break;
        uintptr_t node = i < n ? frames[i] : REGION_TAG | key;
        uint32_t nodes[HCT_INLINE_MAX];
        uint32_t len;
        if (same && i < n && d < old && p->addr[d] == node && p->level[d] == 0 && d + p->chain[d] <= old &&
            whole_chain(p, d, node)) {
            /* the same frame under the same nodes: the same chain */
            len = p->chain[d];
            memcpy(nodes, p->now.cc + d, len * sizeof(nodes[0]));
        } else {
            len = child(p, parent, node, nodes);
            if (len == 0)
                return -1;
        }
        if (d + (int)len > HCT_PATH_MAX)
            return -2 - (d + (int)len - HCT_PATH_MAX + (n - 1 - i));
        if (len == 1) { /* most frames: no call of memset for one byte (what GCC makes of the loop's chain[]) */
            if (same && (d >= old || p->now.cc[d] != nodes[0])) {
                *common = d;
                same = 0;
            }
            b->cc[d] = nodes[0];
            b->addr[d] = i < n ? node : 0;
            b->level[d] = 0;
            b->chain[d++] = 1;
        } else {
            for (uint32_t k = 0; k < len; k++, d++) {
                if (same && (d >= old || p->now.cc[d] != nodes[k])) {
                    *common = d;
                    same = 0;
                }
                b->cc[d] = nodes[k];
                b->addr[d] = i < n ? node : 0;
                b->level[d] = (uint8_t)k;
                b->chain[d] = (uint8_t)len;
            }
        }
        parent = nodes[len - 1];
    }
    if (same)
        *common = d;
    return d;
}

int hct_path_base(const hct_path *p, const uintptr_t *frames, int n, int *j)
{
    *j = 0;
    if (!p->nopen)
        return 0;
    const hct_path_open *top = &p->open[p->nopen - 1];
    while (*j < n && *j < top->nframes && frames[*j] == top->frames[*j])
        ++*j;
    return top->at + 1;
}

/* The path of `frames` (root first), under the innermost open region, then
 * region `key`'s node unless key is HCA_UNDEF, into out (which may be p->now,
 * then with its nodes' frame addresses). Returns the new depth, -1 when the
 * tables are full (p unchanged); *common: how many leading nodes it shares
 * with p->now. */
static int build(hct_path *p, const uintptr_t *frames, int n, uint32_t key, hct_ctx *out, int *common)
{
    int j, base = hct_path_base(p, frames, n, &j);
    int room = HCT_PATH_MAX - base - (key != HCA_UNDEF);
    if (room < 0)
        return -1;
    if (n - j > room)
        j = n - room; /* the innermost frames */
    path_buf b;
    memcpy(b.cc, p->now.cc, (size_t)base * sizeof(b.cc[0]));
    int d;
    /* inline chains longer than the room: fewer outer frames */
    while ((d = walk(p, frames, j, n, key, base, &b, common)) < -1)
        j = j + (-2 - d) < n ? j + (-2 - d) : n;
    if (d < 0)
        return -1;
    memcpy(out->cc + base, b.cc + base, (size_t)(d - base) * sizeof(b.cc[0]));
    if (out != &p->now)
        memcpy(out->cc, p->now.cc, (size_t)base * sizeof(out->cc[0]));
    out->depth = d;
    if (out == &p->now) {
        memcpy(p->addr + base, b.addr + base, (size_t)(d - base) * sizeof(b.addr[0]));
        memcpy(p->level + base, b.level + base, (size_t)(d - base));
        memcpy(p->chain + base, b.chain + base, (size_t)(d - base));
    }
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
    int common, depth = build(p, frames, n, key, &p->now, &common);
    if (depth <= 0)
        return HCA_UNDEF;
    push_open(p, frames, n);
    *unwind = distance(depth, common);
    return p->now.cc[depth - 1];
}

uint32_t hct_path_enter_nodes(hct_path *p, const uintptr_t *frames, int n, int base, int j, const uint32_t *cc,
                             int nnodes, uint32_t starts, uint32_t *unwind)
{
    if (p->nopen >= HCT_PATH_OPEN || nnodes <= 0 || nnodes > 32 || base + nnodes > HCT_PATH_MAX)
        return HCA_UNDEF;
    int old = p->now.depth, depth = base + nnodes, common = base;
    while (common < depth && common < old && p->now.cc[common] == cc[common - base])
        common++;
    if (starts == (uint32_t)((1ull << nnodes) - 1) && nnodes == n - j + 1) {
        /* every frame one node (most paths): each array in a loop of its own */
        for (int i = 0; i < nnodes; i++)
            p->now.cc[base + i] = cc[i];
        for (int i = 0; i < nnodes - 1; i++)
            p->addr[base + i] = frames[j + i];
        p->addr[base + nnodes - 1] = 0;
        for (int i = 0; i < nnodes; i++) {
            p->level[base + i] = 0;
            p->chain[base + i] = 1;
        }
    } else {
        /* frame by frame (frames[n]: the region's node) */
        for (int i = 0, g = j; i < nnodes; g++) {
            uint64_t rest = (uint64_t)starts >> (i + 1);
            int len = rest ? __builtin_ctzll(rest) + 1 : nnodes - i;
            uintptr_t addr = g < n ? frames[g] : 0;
            for (int k = 0; k < len; k++, i++) {
                p->now.cc[base + i] = cc[i];
                p->addr[base + i] = addr;
                p->level[base + i] = (uint8_t)k;
                p->chain[base + i] = (uint8_t)len;
            }
        }
    }
    p->now.depth = depth;
    push_open(p, frames, n);
    *unwind = distance(depth, common);
    return cc[nnodes - 1];
}

uint32_t hct_path_peek(hct_path *p, uint32_t key, const uintptr_t *frames, int n, hct_ctx *out)
{
    int common, depth = build(p, frames, n, key, out, &common);
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
    int common, depth = build(p, frames, n, HCA_UNDEF, &p->now, &common);
    if (depth <= 0)
        return HCA_UNDEF;
    *unwind = distance(depth, common);
    return p->now.cc[depth - 1];
}
