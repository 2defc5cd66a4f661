/* hct_callsite.c: the process's run-time calling contexts, one tree and one
 * local ID space for two kinds of nodes: frames of call paths (a code address
 * under its caller's node) and instrumented regions (a region key under the
 * node of the frame that calls it). (parent, node) -> ID is looked up under a
 * lock, never in a signal handler; hct_path.c keeps a per-thread cache in
 * front. At the end of the run every address is symbolized once and the
 * contexts become definitions (docs/trace-format.md). */
#include "hct_callsite.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "hct_symbols.h"

#define MAX_CONTEXTS (1u << 22) /* all kinds together */
#define KEY_FRAME UINT32_MAX    /* context kind: a frame of a call path */
#define REGION_SLOT ((uintptr_t)1 << 63) /* a region's slot key: above every user address */

typedef struct {
    uintptr_t address; /* code address of a frame, 0 for a region */
    uint32_t key;      /* region key or KEY_FRAME */
    uint32_t parent;   /* local cc, or HCA_UNDEF */
} context;

static context *contexts; /* grown under insert_lock; read at the end only */
static uint32_t cap_contexts;
static _Atomic uint32_t ncontexts;
static pthread_mutex_t insert_lock = PTHREAD_MUTEX_INITIALIZER;

/* nodes: open addressing on (parent, address or region slot key), grown under insert_lock */
typedef struct {
    uintptr_t address; /* 0 = empty */
    uint32_t parent, cc;
} frame_slot;
static frame_slot *frames;
static uint32_t frames_cap, frames_used;

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
    contexts[id] = (context){ address, key, parent };
    atomic_store(&ncontexts, id + 1);
    return id;
}

static inline uint32_t frame_hash(uint32_t parent, uintptr_t address, uint32_t mask)
{
    uint64_t h = ((uint64_t)address ^ ((uint64_t)parent << 40) ^ parent) * 0x9e3779b97f4a7c15ull;
    return (uint32_t)(h >> 32) & mask;
}

/* Called with insert_lock held. */
static int frames_grow(void)
{
    uint32_t ncap = frames_cap ? frames_cap * 2 : 4096;
    frame_slot *n = calloc(ncap, sizeof(*n));
    if (!n)
        return -1;
    for (uint32_t i = 0; i < frames_cap; i++) {
        if (!frames[i].address)
            continue;
        uint32_t j = frame_hash(frames[i].parent, frames[i].address, ncap - 1);
        while (n[j].address)
            j = (j + 1) & (ncap - 1);
        n[j] = frames[i];
    }
    free(frames);
    frames = n;
    frames_cap = ncap;
    return 0;
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
    uint32_t used = atomic_load(&ncontexts);
    if (contexts)
        memset(contexts + used, 0, (size_t)(cap_contexts - used) * sizeof(*contexts));
    pthread_mutex_unlock(&insert_lock);
}

/* The child of `parent` keyed `slot` (a frame's address or a region's slot key). */
static uint32_t child_cc(uint32_t parent, uintptr_t slot, uint32_t key, uintptr_t address)
{
    pthread_mutex_lock(&insert_lock);
    uint32_t cc = HCA_UNDEF;
    if ((frames_used + 1) * 2 > frames_cap && frames_grow() != 0)
        goto out;
    uint32_t mask = frames_cap - 1, i = frame_hash(parent, slot, mask);
    while (frames[i].address) {
        if (frames[i].address == slot && frames[i].parent == parent) {
            cc = frames[i].cc;
            goto out;
        }
        i = (i + 1) & mask;
    }
    cc = append_context(key, address, parent);
    if (cc != HCA_UNDEF) {
        frames[i] = (frame_slot){ slot, parent, cc };
        frames_used++;
    }
out:
    pthread_mutex_unlock(&insert_lock);
    return cc;
}

uint32_t hct_sample_cc(uint32_t parent, uintptr_t address)
{
    if (!address)
        address = 1; /* 0 marks an empty slot */
    return child_cc(parent, address & ~REGION_SLOT, KEY_FRAME, address);
}

uint32_t hct_region_cc(uint32_t parent, uint32_t region_key)
{
    return child_cc(parent, REGION_SLOT | region_key, region_key, 0);
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
    hct_symbolizer *sym_frames;
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
    return hca_defs_region(&hct.defs, s->function, HCA_KIND_FUNCTION, s->file, s->function_line, 0,
                           OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_SAMPLING);
}

static hca_ref add_scl(void *p)
{
    const hct_symbol *s = ((sym_arg *)p)->s;
    return hca_defs_scl(&hct.defs, s->file, s->line);
}

/* Region and source location of a code address (symbolized once). Sampled
 * frames use the modules' own debug information only: a separate debug file
 * (a distribution's -dbg package: libc, libmpi) costs tens of ms to inflate at
 * the end of every process, for line numbers inside system libraries. */
static void symbolize_cached(sym_cache *c, uintptr_t address, hca_ref *region, hca_ref *scl)
{
    uintptr_t key = address;
    uint32_t mask = c->cap - 1, i = frame_hash(0, key, mask);
    while (c->slots[i].address) {
        if (c->slots[i].address == key) {
            *region = c->slots[i].region;
            *scl = c->slots[i].scl;
            return;
        }
        i = (i + 1) & mask;
    }
    hct_symbol s;
    if (!c->sym_frames)
        c->sym_frames = hct_symbolizer_open(0);
    hct_symbolize(c->sym_frames, address, &s);
    sym_arg arg = { &s };
    /* keys: the strings are interned, so their IDs name them */
    hca_ref fname = hca_defs_string(&hct.defs, s.function), file = hca_defs_string(&hct.defs, s.file);
    uint64_t rkey = ((uint64_t)fname << 40) ^ ((uint64_t)file << 20) ^ s.function_line;
    uint64_t skey = ((uint64_t)file << 32) | s.line;
    *region = dedup(c->region_of, c->region_key, c->dcap, rkey, add_region, &arg);
    *scl = dedup(c->scl_of, c->scl_key, c->dcap, skey, add_scl, &arg);
    if (c->used * 2 < c->cap) {
        c->slots[i] = (sym_slot){ key, *region, *scl };
        c->used++;
    }
}

/* Region of each key, defined once: a short list, keys are few. */
typedef struct {
    uint32_t key;
    hca_ref region;
} key_region;

int hct_callsite_define(hca_ref (*region_def)(hca_defs *d, uint32_t key))
{
    uint32_t n = atomic_load(&ncontexts);
    key_region *known = NULL;
    size_t nknown = 0;
    int rc = 0;
    sym_cache cache;
    memset(&cache, 0, sizeof(cache));
    cache.cap = 1024;
    while (cache.cap < 2 * n && cache.cap < (1u << 24))
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
    for (uint32_t i = 0; i < n && rc == 0; i++) {
        const context *c = &contexts[i];
        hca_ref region = HCA_UNDEF, scl = HCA_UNDEF;
        if (c->key == KEY_FRAME) {
            /* already the address to look up: the leaf's own, a caller's minus 1 */
            symbolize_cached(&cache, c->address, &region, &scl);
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
    }
out:
    free(known);
    free(cache.slots);
    free(cache.region_of);
    free(cache.scl_of);
    free(cache.region_key);
    free(cache.scl_key);
    hct_symbolizer_close(cache.sym_frames);
    return rc;
}
