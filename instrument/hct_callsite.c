/* hct_callsite.c: the process's run-time calling contexts, one tree and one
 * local ID space for two kinds of nodes: frames of call paths and
 * instrumented regions (a region key under the node of the frame that calls
 * it). A frame is one node per function of the inline chain at its address,
 * outermost first, each keyed by what it will show (function and line:
 * hct_symbol_keys, from libdw once per address on the tracer's worker thread,
 * hct_frame_keys.c, cached here), so that nodes equal in the definitions are
 * one node here and unwind distances agree with them. (parent, node key) -> ID
 * is looked up under a lock, never in a signal handler; hct_path.c keeps a
 * per-thread cache in front. At the end of the run every address is
 * symbolized once and the contexts become definitions (docs/trace-format.md);
 * the contexts made since the last flush of an event buffer become definitions at
 * that flush too (hct_journal.c). */
#include "hct_callsite.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "hct_frame_keys.h"
#include "hct_symbols.h"

#define MAX_CONTEXTS (1u << 22) /* all kinds together */
#define KEY_FRAME UINT32_MAX    /* context kind: a frame of a call path */
#define REGION_SLOT ((uint64_t)1 << 63) /* a region's slot key: REGION_SLOT | key << 1, even; frames' are odd */

typedef struct {
    uintptr_t address; /* code address of a frame (one node per level of its inline chain), 0 for a region */
    uint32_t key;      /* region key or KEY_FRAME */
    uint32_t parent;   /* local cc, or HCA_UNDEF */
    uint32_t level;    /* KEY_FRAME: the function's place in the address's inline chain, 0 = outermost */
} context;

static context *contexts; /* grown under insert_lock; read at the end only */
static uint32_t cap_contexts;
static _Atomic uint32_t ncontexts;
static pthread_mutex_t insert_lock = PTHREAD_MUTEX_INITIALIZER;

/* nodes: open addressing on (parent, frame node key or region slot key), grown under insert_lock */
typedef struct {
    uint64_t key; /* 0 = empty */
    uint32_t parent, cc;
} frame_slot;
static frame_slot *frames;
static uint32_t frames_cap, frames_used;

/* each sampled address's inline chain: its length and where its node keys are
 * in chain_keys; open addressing, grown under insert_lock; found with the
 * frames' symbolizer (hct_frame_keys), which also names the frames at the
 * end, so that both agree */
typedef struct {
    uintptr_t address; /* 0 = empty */
    uint32_t depth, first_key;
} depth_slot;
static depth_slot *depths;
static uint32_t depths_cap, depths_used;
static uint64_t *chain_keys;
static uint32_t chain_keys_cap, chain_keys_used;

/* Called with insert_lock held: the next ID, its entry filled. */
static uint32_t append_context(uint32_t key, uintptr_t address, uint32_t parent)
{
    uint32_t id = atomic_load(&ncontexts);
    if (id >= MAX_CONTEXTS)
        return HCA_UNDEF;
    if (id >= cap_contexts) {
        uint32_t ncap = cap_contexts ? cap_contexts * 2 : 1024;
        context *p = realloc(contexts, (size_t)ncap * sizeof(*p));
        if (!p)
            return HCA_UNDEF;
        contexts = p;
        cap_contexts = ncap;
    }
    contexts[id] = (context){ address, key, parent, 0 };
    atomic_store(&ncontexts, id + 1);
    return id;
}

static inline uint32_t frame_hash(uint32_t parent, uintptr_t address, uint32_t mask)
{
    uint64_t h = ((uint64_t)address ^ ((uint64_t)parent << 40) ^ parent) * 0x9e3779b97f4a7c15ull;
    return (uint32_t)(h >> 32) & mask;
}

static inline uint32_t frame_slot_hash(const frame_slot *f, uint32_t mask)
{
    return frame_hash(f->parent, (uintptr_t)(f->key ^ f->key >> 32), mask);
}

/* Called with insert_lock held. */
static int frames_grow(void)
{
    uint32_t ncap = frames_cap ? frames_cap * 2 : 4096;
    frame_slot *n = calloc(ncap, sizeof(*n));
    if (!n)
        return -1;
    for (uint32_t i = 0; i < frames_cap; i++) {
        if (!frames[i].key)
            continue;
        uint32_t j = frame_slot_hash(&frames[i], ncap - 1);
        while (n[j].key)
            j = (j + 1) & (ncap - 1);
        n[j] = frames[i];
    }
    free(frames);
    frames = n;
    frames_cap = ncap;
    return 0;
}

/* Called with insert_lock held. */
static int depths_grow(void)
{
    uint32_t ncap = depths_cap ? depths_cap * 2 : 1024;
    depth_slot *n = calloc(ncap, sizeof(*n));
    if (!n)
        return -1;
    for (uint32_t i = 0; i < depths_cap; i++) {
        if (!depths[i].address)
            continue;
        uint32_t j = frame_hash(0, depths[i].address, ncap - 1);
        while (n[j].address)
            j = (j + 1) & (ncap - 1);
        n[j] = depths[i];
    }
    free(depths);
    depths = n;
    depths_cap = ncap;
    return 0;
}

/* The node keys of a sampled address's inline chain, outermost first (one
 * without debug information), asked of libdw once per address. Called with
 * insert_lock held. Returns how many; 0 when out of memory. */
static uint32_t inline_chain(uintptr_t address, const uint64_t **keys)
{
    if ((depths_used + 1) * 2 > depths_cap && depths_grow() != 0)
        return 0;
    uint32_t mask = depths_cap - 1, i = frame_hash(0, address, mask);
    while (depths[i].address) {
        if (depths[i].address == address) {
            *keys = chain_keys + depths[i].first_key;
            return depths[i].depth;
        }
        i = (i + 1) & mask;
    }
    if (chain_keys_used + HCT_INLINE_MAX > chain_keys_cap) {
        uint32_t ncap = chain_keys_cap ? chain_keys_cap * 2 : 4096;
        uint64_t *p = realloc(chain_keys, (size_t)ncap * sizeof(*p));
        if (!p)
            return 0;
        chain_keys = p;
        chain_keys_cap = ncap;
    }
    uint64_t *k = chain_keys + chain_keys_used;
    uint32_t depth = (uint32_t)hct_frame_keys(address, k);
    depths[i] = (depth_slot){ address, depth, chain_keys_used };
    depths_used++;
    chain_keys_used += depth;
    *keys = k;
    return depth;
}

void hct_sample_cc_reserve(uint32_t n)
{
    pthread_mutex_lock(&insert_lock);
    while (frames_cap < 2 * n && frames_grow() == 0)
        ;
    if (cap_contexts < n) {
        context *p = realloc(contexts, (size_t)n * sizeof(*p));
        if (p) {
            contexts = p;
            cap_contexts = n;
        }
    }
    /* touch them now: no page faults of ours in the application's counters later */
    if (frames && frames_used == 0)
        memset(frames, 0, (size_t)frames_cap * sizeof(*frames));
    while (depths_cap < n && depths_grow() == 0)
        ;
    if (depths && depths_used == 0)
        memset(depths, 0, (size_t)depths_cap * sizeof(*depths));
    if (chain_keys_cap < 2 * n) {
        uint64_t *p = realloc(chain_keys, (size_t)2 * n * sizeof(*p));
        if (p) {
            chain_keys = p;
            chain_keys_cap = 2 * n;
        }
    }
    if (chain_keys)
        memset(chain_keys + chain_keys_used, 0, (size_t)(chain_keys_cap - chain_keys_used) * sizeof(*chain_keys));
    hct_frame_keys_start();
    uint32_t used = atomic_load(&ncontexts);
    if (contexts)
        memset(contexts + used, 0, (size_t)(cap_contexts - used) * sizeof(*contexts));
    pthread_mutex_unlock(&insert_lock);
}

/* The node (parent, slot key): a frame's node key (odd, hct_symbol_keys) or a
 * region's slot key (even); a new one is a context of kind `key`, symbolized
 * at the end as `level` of the inline chain of `address`. Called with
 * insert_lock held. */
static uint32_t child_node(uint32_t parent, uint64_t slot, uint32_t key, uintptr_t address, uint32_t level)
{
    if ((frames_used + 1) * 2 > frames_cap && frames_grow() != 0)
        return HCA_UNDEF;
    frame_slot slot_key = { slot, parent, 0 };
    uint32_t mask = frames_cap - 1, i = frame_slot_hash(&slot_key, mask);
    while (frames[i].key) {
        if (frames[i].key == slot && frames[i].parent == parent)
            return frames[i].cc;
        i = (i + 1) & mask;
    }
    uint32_t cc = append_context(key, address, parent);
    if (cc != HCA_UNDEF) {
        contexts[cc].level = level;
        slot_key.cc = cc;
        frames[i] = slot_key;
        frames_used++;
    }
    return cc;
}

uint32_t hct_sample_cc(uint32_t parent, uintptr_t address, uint32_t *nodes)
{
    if (!address)
        address = 1; /* 0 marks an empty slot */
    pthread_mutex_lock(&insert_lock);
    const uint64_t *keys = NULL;
    uint32_t depth = inline_chain(address, &keys);
    for (uint32_t level = 0; level < depth; level++) {
        nodes[level] = child_node(parent, keys[level], KEY_FRAME, address, level);
        if (nodes[level] == HCA_UNDEF) {
            depth = 0;
            break;
        }
        parent = nodes[level];
    }
    pthread_mutex_unlock(&insert_lock);
    return depth;
}

uint32_t hct_region_cc(uint32_t parent, uint32_t region_key)
{
    pthread_mutex_lock(&insert_lock);
    uint32_t cc = child_node(parent, REGION_SLOT | (uint64_t)region_key << 1, region_key, 0, 0);
    pthread_mutex_unlock(&insert_lock);
    return cc;
}

/* ---- the end: symbols and definitions ------------------------------------------ */

/* One symbolized code address: its region (function) and source location. */
typedef struct {
    uintptr_t address; /* 0 = empty */
    hca_ref region, scl;
} sym_slot;

typedef struct {
    sym_slot *slots;
    uint32_t cap, used;
    /* regions and source locations deduplicated by content: fewer definitions
     * to merge when stacks touch the same function at many addresses */
    hca_ref *region_of, *scl_of; /* by (string, line) hash */
    uint64_t *region_key, *scl_key;
    uint32_t dcap;
} sym_cache;

static hca_ref dedup(hca_ref *refs, uint64_t *keys, uint32_t cap, uint64_t key, hca_ref (*add)(void *), void *arg)
{
    uint32_t mask = cap - 1, i = (uint32_t)((key * 0x9e3779b97f4a7c15ull) >> 40) & mask;
    for (uint32_t n = 0; n < cap; n++, i = (i + 1) & mask) {
        if (refs[i] == HCA_UNDEF) {
            refs[i] = add(arg);
            keys[i] = key;
            return refs[i];
        }
        if (keys[i] == key)
            return refs[i];
    }
    return add(arg); /* full: no deduplication, still correct */
}

typedef struct {
    const hct_symbol *s;
} sym_arg;

static hca_ref add_region(void *p)
{
    const hct_symbol *s = ((sym_arg *)p)->s;
    return hca_defs_region_canonical(&hct.defs, s->function, s->signature, HCA_KIND_FUNCTION, s->file,
                                     s->function_line, 0, OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_SAMPLING);
}

static hca_ref add_scl(void *p)
{
    const hct_symbol *s = ((sym_arg *)p)->s;
    return hca_defs_scl(&hct.defs, s->file, s->line);
}

/* The region and source location of a symbolized function, deduplicated by
 * content. */
static void define_symbol(sym_cache *c, const hct_symbol *s, hca_ref *region, hca_ref *scl)
{
    sym_arg arg = { s };
    /* keys: the strings are interned, so their IDs name them */
    hca_ref fname = hca_defs_string(&hct.defs, s->function), file = hca_defs_string(&hct.defs, s->file);
    hca_ref signature = hca_defs_string(&hct.defs, s->signature);
    uint64_t rkey = ((uint64_t)fname << 40) ^ ((uint64_t)signature << 28) ^ ((uint64_t)file << 20) ^ s->function_line;
    uint64_t skey = ((uint64_t)file << 32) | s->line;
    *region = dedup(c->region_of, c->region_key, c->dcap, rkey, add_region, &arg);
    *scl = dedup(c->scl_of, c->scl_key, c->dcap, skey, add_scl, &arg);
}

/* The slot of key in the cache: its entry, or the empty slot where it goes. */
static sym_slot *cache_slot(sym_cache *c, uintptr_t key)
{
    uint32_t mask = c->cap - 1, i = frame_hash(0, key, mask);
    while (c->slots[i].address && c->slots[i].address != key)
        i = (i + 1) & mask;
    return &c->slots[i];
}

static void cache_put(sym_cache *c, uintptr_t key, hca_ref region, hca_ref scl)
{
    sym_slot *entry = cache_slot(c, key);
    if (!entry->address && c->used * 2 < c->cap) {
        *entry = (sym_slot){ key, region, scl };
        c->used++;
    }
}

/* Region and source location of the function at `level` of the inline chain
 * of a frame's code address (one symbolization gives all levels; a level past
 * the chain: its innermost function). Frames read DWARF only from the
 * modules themselves (hct_frame_symbolizer, the one their node keys came
 * from): a separate debug file (a distribution's -dbg package: libc, libmpi)
 * costs tens of ms to inflate at the end of every process, for line numbers
 * inside system libraries. */
static void symbolize_cached(sym_cache *c, uintptr_t address, uint32_t level, hca_ref *region, hca_ref *scl)
{
    /* user addresses are below 2^47: the level above them */
    uintptr_t key = address | (uintptr_t)level << 48;
    const sym_slot *hit = cache_slot(c, key);
    if (hit->address) {
        *region = hit->region;
        *scl = hit->scl;
        return;
    }
    hct_symbol *chain = malloc(HCT_INLINE_MAX * sizeof(*chain));
    if (!chain) {
        *region = *scl = HCA_UNDEF;
        return;
    }
    int n = hct_frame_name(address, chain, HCT_INLINE_MAX);
    for (int j = 0; j < n; j++) {
        hca_ref r = HCA_UNDEF, l = HCA_UNDEF;
        define_symbol(c, &chain[j], &r, &l);
        cache_put(c, address | (uintptr_t)j << 48, r, l);
        if ((uint32_t)j == level || j == n - 1) {
            *region = r;
            *scl = l;
            if ((uint32_t)j == level)
                break;
        }
    }
    free(chain);
}

/* Region of each key, defined once: a short list, keys are few. */
typedef struct {
    uint32_t key;
    hca_ref region;
} key_region;

/* contexts [0, defined) are definitions of hct.defs already (an earlier call) */
static uint32_t defined;

int hct_callsite_define(hca_ref (*region_def)(hca_defs *d, uint32_t key))
{
    /* held throughout: the frames' symbolizer is not used by a drain
     * meanwhile, and the table does not move */
    pthread_mutex_lock(&insert_lock);
    uint32_t n = atomic_load(&ncontexts), first = defined;
    key_region *known = NULL;
    size_t nknown = 0;
    int rc = 0;
    sym_cache cache;
    memset(&cache, 0, sizeof(cache));
    cache.cap = 1024;
    while (cache.cap < 2 * (n - first) && cache.cap < (1u << 24))
        cache.cap *= 2;
    cache.dcap = cache.cap;
    cache.slots = calloc(cache.cap, sizeof(*cache.slots));
    cache.region_of = malloc(cache.dcap * sizeof(hca_ref));
    cache.scl_of = malloc(cache.dcap * sizeof(hca_ref));
    cache.region_key = calloc(cache.dcap, sizeof(uint64_t));
    cache.scl_key = calloc(cache.dcap, sizeof(uint64_t));
    if (!cache.slots || !cache.region_of || !cache.scl_of || !cache.region_key || !cache.scl_key) {
        rc = -1;
        goto out;
    }
    memset(cache.region_of, 0xff, cache.dcap * sizeof(hca_ref));
    memset(cache.scl_of, 0xff, cache.dcap * sizeof(hca_ref));
    for (uint32_t i = first; i < n && rc == 0; i++) {
        const context *c = &contexts[i];
        hca_ref region = HCA_UNDEF, scl = HCA_UNDEF;
        if (c->key == KEY_FRAME) {
            /* already the address to look up: the leaf's own, a caller's minus 1 */
            symbolize_cached(&cache, c->address, c->level, &region, &scl);
        } else {
            for (size_t k = 0; k < nknown && region == HCA_UNDEF; k++)
                if (known[k].key == c->key)
                    region = known[k].region;
            if (region == HCA_UNDEF) {
                key_region *p = realloc(known, (nknown + 1) * sizeof(*p));
                if (!p) {
                    rc = -1;
                    break;
                }
                known = p;
                region = region_def(&hct.defs, c->key);
                known[nknown++] = (key_region){ c->key, region };
            }
        }
        if (hca_defs_cc(&hct.defs, region, scl, c->parent) != i)
            rc = -1;
        else
            defined = i + 1;
    }
out:
    free(known);
    free(cache.slots);
    free(cache.region_of);
    free(cache.scl_of);
    free(cache.region_key);
    free(cache.scl_key);
    pthread_mutex_unlock(&insert_lock);
    return rc;
}
