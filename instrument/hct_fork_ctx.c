/* hct_fork_ctx.c: a recurring OpenMP fork's context found again. At a fork
 * the master's call path (hct_path_cache.c gives it without unwinding) and
 * the region's node become the context the team's threads enter
 * (hct_path_peek): a walk over every frame's nodes, in the thread's cache of
 * nodes per (parent, frame), the process's table on a miss, for the largest
 * part of a kept-back fork's cost (docs/benchmarks.md, "The fork's contexts").
 * For a fork from a site seen before, that walk gives what it gave the last
 * time: its nodes are a function of the frames below the enclosing open
 * region, the region key and that region's node (hct_path_base), and the
 * process's table never changes a node once given. So they are kept per
 * thread under that key, and a fork finds them again with one comparison of
 * its frames, then copies them after the open region's path. The memo is the
 * thread's own: no lock, no allocation; SITES entries, WAYS-way set
 * associative, the newest first in its set. */
#include "hct_fork_ctx.h"

#include <string.h>

#include "hca_defs.h"

#define SITES HCT_FORK_CTX_SITES
#define WAYS HCT_FORK_CTX_WAYS
#define FRAMES HCT_FORK_CTX_FRAMES
#define NODES HCT_FORK_CTX_NODES

typedef hct_fork_ctx_entry entry;

/* The first entry of the set of (parent, key, the innermost frame). */
static inline entry *set_of(hct_fork_ctx *m, uint32_t parent, uint32_t key, uintptr_t leaf)
{
    uint64_t h = (((uint64_t)leaf * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)parent << 32 | key)) * 0x9e3779b97f4a7c15ull;
    return m->entry + ((unsigned)(h >> 40) % (SITES / WAYS)) * WAYS;
}

/* A context's nodes copied: a few, where an inlined memcpy of unknown size
 * becomes `rep movsq` (its start-up was 60 % of a hit's time). */
static inline void copy_nodes(uint32_t *to, const uint32_t *from, int n)
{
    for (int i = 0; i < n; i++)
        to[i] = from[i];
}

static inline int matches(const entry *e, uint32_t key, uint32_t parent, int base, const uintptr_t *frames, int nf)
{
    if (e->nframes != nf + 1 || e->key != key || e->parent != parent || e->base != base)
        return 0;
    for (int i = nf - 1; i >= 0; i--) /* the innermost first: where sites differ */
        if (e->frames[i] != frames[i])
            return 0;
    return 1;
}

uint32_t hct_fork_ctx_peek(hct_fork_ctx *m, hct_path *p, uint32_t key, const uintptr_t *frames, int n, hct_ctx *out)
{
    int j, base = hct_path_base(p, frames, n, &j), nf = n - j;
    if (nf > FRAMES)
        return hct_path_peek(p, key, frames, n, out);
    uint32_t parent = base ? p->now.cc[base - 1] : HCA_UNDEF;
    entry *set = set_of(m, parent, key, nf ? frames[n - 1] : 0);
    for (int w = 0; w < WAYS; w++)
        if (matches(&set[w], key, parent, base, frames + j, nf)) {
            copy_nodes(out->cc, p->now.cc, base);
            copy_nodes(out->cc + base, set[w].cc, set[w].nnodes);
            out->depth = base + set[w].nnodes;
            return out->cc[out->depth - 1];
        }
    uint32_t cc = hct_path_peek(p, key, frames, n, out);
    int nodes = out->depth - base;
    if (cc == HCA_UNDEF || nodes <= 0 || nodes > NODES)
        return cc;
    memmove(set + 1, set, (WAYS - 1) * sizeof(set[0])); /* the oldest dropped */
    set[0].key = key;
    set[0].parent = parent;
    set[0].base = (uint16_t)base;
    set[0].nframes = (uint8_t)(nf + 1);
    set[0].nnodes = (uint8_t)nodes;
    memcpy(set[0].frames, frames + j, (size_t)nf * sizeof(frames[0]));
    memcpy(set[0].cc, out->cc + base, (size_t)nodes * sizeof(out->cc[0]));
    return cc;
}
