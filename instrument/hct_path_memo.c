/* hct_path_memo.c: a recurring region enter's nodes found again. An OpenMP
 * fork's team context (hct_path_peek) and an MPI call's node (hct_path_enter)
 * come from a walk over every frame's nodes, in the thread's cache of nodes
 * per (parent, frame), the process's table on a miss: the largest part of a
 * kept-back fork's cost and 930 instructions of an MPI call's
 * (docs/benchmarks.md, "The fork's contexts", "MPI calls at 8 ranks"). For
 * an enter from a site seen before, that walk gives what it gave the last
 * time: its nodes are a function of the frames below the enclosing open
 * region, the region key and that region's node (hct_path_base), and the
 * process's table never changes a node once given. So they are kept per
 * thread under that key, and an enter finds them again with one comparison
 * of its frames, then copies them after the open region's path (an enter
 * with each frame's inline chain: hct_path_enter_nodes). The memo is the
 * thread's own: no lock, no allocation; SITES entries, WAYS-way set
 * associative, the newest first in its set. HCT_PATH_MEMO_CHECK (a debug
 * build) enters every hit with hct_path_enter as well, on a copy of the
 * path, and counts what differs (printed at exit). */
#include "hct_path_memo.h"

#include <string.h>

#include "hca_defs.h"

#define SITES HCT_PATH_MEMO_SITES
#define WAYS HCT_PATH_MEMO_WAYS
#define FRAMES HCT_PATH_MEMO_FRAMES
#define NODES HCT_PATH_MEMO_NODES

typedef hct_path_memo_entry entry;

/* The first entry of the set of (parent, key, the innermost frame). */
static inline entry *set_of(hct_path_memo *m, uint32_t parent, uint32_t key, uintptr_t leaf)
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

/* Where the path of frames[0..n-1] and key would be kept */
typedef struct {
    int base, j;      /* hct_path_base's */
    uint32_t parent;  /* the open region's node */
    entry *set;       /* NULL: too many frames to keep */
} place;

/* The entry holding that path, or NULL (then at->set is where it goes). */
static inline entry *find(hct_path_memo *m, const hct_path *p, uint32_t key, const uintptr_t *frames, int n, place *at)
{
    at->base = hct_path_base(p, frames, n, &at->j);
    int nf = n - at->j;
    at->parent = at->base ? p->now.cc[at->base - 1] : HCA_UNDEF;
    at->set = nf > FRAMES ? NULL : set_of(m, at->parent, key, nf ? frames[n - 1] : 0);
    for (int w = 0; at->set && w < WAYS; w++)
        if (matches(&at->set[w], key, at->parent, at->base, frames + at->j, nf))
            return &at->set[w];
    return NULL;
}

/* Keeps nodes cc[0..nodes-1] (below the open region) in the newest way of
 * at's set, the oldest dropped. */
static void keep(const place *at, uint32_t key, const uintptr_t *frames, int n, const uint32_t *cc, int nodes,
                 uint32_t starts)
{
    if (!at->set || nodes <= 0 || nodes > NODES)
        return;
    entry *set = at->set;
    int nf = n - at->j;
    memmove(set + 1, set, (WAYS - 1) * sizeof(set[0]));
    set[0].key = key;
    set[0].parent = at->parent;
    set[0].base = (uint16_t)at->base;
    set[0].nframes = (uint8_t)(nf + 1);
    set[0].nnodes = (uint8_t)nodes;
    set[0].starts = starts;
    memcpy(set[0].frames, frames + at->j, (size_t)nf * sizeof(frames[0]));
    memcpy(set[0].cc, cc, (size_t)nodes * sizeof(cc[0]));
}

uint32_t hct_path_memo_peek(hct_path_memo *m, hct_path *p, uint32_t key, const uintptr_t *frames, int n,
                            hct_ctx *out)
{
    place at;
    const entry *e = find(m, p, key, frames, n, &at);
    if (e) {
        copy_nodes(out->cc, p->now.cc, at.base);
        copy_nodes(out->cc + at.base, e->cc, e->nnodes);
        out->depth = at.base + e->nnodes;
        return out->cc[out->depth - 1];
    }
    uint32_t cc = hct_path_peek(p, key, frames, n, out);
    if (cc != HCA_UNDEF)
        keep(&at, key, frames, n, out->cc + at.base, out->depth - at.base, 0);
    return cc;
}

/* The first node of each frame's chain in p->now from node `base` on (bit i:
 * node base + i), when there is one chain per frame frames[j..n-1] and then
 * the region's node; else 0 (frames left out for room). */
static uint32_t starts_of(const hct_path *p, int base, const uintptr_t *frames, int j, int n)
{
    if (p->now.depth - base > NODES)
        return 0;
    uint32_t starts = 0;
    int g = j; /* the frame of the chain at hand */
    for (int d = base; d < p->now.depth; d++) {
        if (p->level[d] != 0)
            continue;
        uintptr_t addr = g < n ? frames[g] : 0;
        if (g > n || p->addr[d] != addr)
            return 0;
        starts |= 1u << (d - base);
        g++;
    }
    return g == n + 1 && p->chain[p->now.depth - 1] == 1 ? starts : 0;
}

#ifdef HCT_PATH_MEMO_CHECK
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

static _Atomic unsigned long checked_enters, checked_hits, checked_differ;

/* hct_path_enter on a copy of p as it was (before: p before the memo's enter). */
static void check_hit(const hct_path *before, const hct_path *p, uint32_t key, const uintptr_t *frames, int n,
                      uint32_t cc, uint32_t unwind)
{
    hct_path *q = malloc(sizeof(*q));
    if (!q)
        return;
    memcpy(q, before, sizeof(*q));
    uint32_t u = 0, c = hct_path_enter(q, key, frames, n, &u);
    int d = q->now.depth;
    int same = c == cc && u == unwind && d == p->now.depth && q->nopen == p->nopen &&
               !memcmp(q->now.cc, p->now.cc, (size_t)d * sizeof(q->now.cc[0])) &&
               !memcmp(q->addr, p->addr, (size_t)d * sizeof(q->addr[0])) && !memcmp(q->level, p->level, (size_t)d) &&
               !memcmp(q->chain, p->chain, (size_t)d) && !memcmp(q->open, p->open, sizeof(q->open));
    checked_hits++;
    checked_differ += !same;
    free(q);
}

__attribute__((destructor)) static void check_report(void)
{
    if (checked_enters)
        fprintf(stderr, "hcatrace: path memo check: %lu enters, %lu from the memo, %lu differ\n",
                (unsigned long)checked_enters, (unsigned long)checked_hits, (unsigned long)checked_differ);
}
#endif

uint32_t hct_path_memo_enter(hct_path_memo *m, hct_path *p, uint32_t key, const uintptr_t *frames, int n,
                             uint32_t *unwind)
{
    if (p->nopen >= HCT_PATH_OPEN)
        return HCA_UNDEF;
    place at;
    const entry *e = find(m, p, key, frames, n, &at);
#ifdef HCT_PATH_MEMO_CHECK
    checked_enters++;
    if (e && (e->starts & 1)) {
        hct_path *before = malloc(sizeof(*before));
        if (before) {
            memcpy(before, p, sizeof(*before));
            uint32_t cc = hct_path_enter_nodes(p, frames, n, at.base, at.j, e->cc, e->nnodes, e->starts, unwind);
            check_hit(before, p, key, frames, n, cc, *unwind);
            free(before);
            return cc;
        }
    }
#endif
    if (e && (e->starts & 1)) /* kept by an enter */
        return hct_path_enter_nodes(p, frames, n, at.base, at.j, e->cc, e->nnodes, e->starts, unwind);
    uint32_t cc = hct_path_enter(p, key, frames, n, unwind);
    if (cc != HCA_UNDEF) {
        uint32_t starts = starts_of(p, at.base, frames, at.j, n);
        if (starts)
            keep(&at, key, frames, n, p->now.cc + at.base, p->now.depth - at.base, starts);
    }
    return cc;
}
