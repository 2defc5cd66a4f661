/* hct_callsite.c: maps (instrumented region, return address of its caller) to a
 * local calling-context ID at run time, without locks on the hot path; at the end
 * of the run symbolizes the call sites and defines the calling-context tree
 * "caller function @ file:line -> region" (docs/trace-format.md). */
#include "hct.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define TABLE_SIZE 16384u /* slots; at most half are used */
#define MAX_CONTEXTS (TABLE_SIZE / 2)
#define KEY_CALLER UINT32_MAX /* slot kind: the caller node of an address */

typedef struct {
    _Atomic uintptr_t stored; /* return address + 1, published last; 0 = empty */
    uint32_t key;
    uint32_t cc;
} slot;

typedef struct {
    uintptr_t address; /* return address of the call, 0 when unknown */
    uint32_t key;      /* region key, or KEY_CALLER */
    uint32_t parent;   /* local cc, or HCA_UNDEF */
} context;

static slot table[TABLE_SIZE];
static context contexts[MAX_CONTEXTS];
static _Atomic uint32_t ncontexts;
static pthread_mutex_t insert_lock = PTHREAD_MUTEX_INITIALIZER;

static inline uint32_t slot_of(uint32_t key, uintptr_t stored)
{
    uint64_t h = ((uint64_t)stored ^ ((uint64_t)key << 48)) * 0x9e3779b97f4a7c15ull;
    return (uint32_t)(h >> 40) & (TABLE_SIZE - 1);
}

static uint32_t lookup(uint32_t key, uintptr_t stored)
{
    for (uint32_t i = slot_of(key, stored), n = 0; n < TABLE_SIZE; i = (i + 1) & (TABLE_SIZE - 1), n++) {
        uintptr_t a = atomic_load_explicit(&table[i].stored, memory_order_acquire);
        if (a == 0)
            return HCA_UNDEF;
        if (a == stored && table[i].key == key)
            return table[i].cc;
    }
    return HCA_UNDEF;
}

/* Called with insert_lock held. */
static uint32_t new_context(uint32_t key, uintptr_t stored, uint32_t parent)
{
    uint32_t id = atomic_load(&ncontexts);
    if (id >= MAX_CONTEXTS)
        return HCA_UNDEF;
    contexts[id] = (context){ stored - 1, key, parent };
    atomic_store(&ncontexts, id + 1);
    uint32_t i = slot_of(key, stored);
    while (atomic_load_explicit(&table[i].stored, memory_order_relaxed))
        i = (i + 1) & (TABLE_SIZE - 1);
    table[i].key = key;
    table[i].cc = id;
    atomic_store_explicit(&table[i].stored, stored, memory_order_release);
    return id;
}

uint32_t hct_callsite_cc(uint32_t region_key, const void *return_address)
{
    uintptr_t stored = (hct.cfg.callsites ? (uintptr_t)return_address : 0) + 1;
    uint32_t cc = lookup(region_key, stored);
    if (cc != HCA_UNDEF)
        return cc;
    pthread_mutex_lock(&insert_lock);
    cc = lookup(region_key, stored);
    if (cc == HCA_UNDEF) {
        uint32_t parent = HCA_UNDEF;
        if (stored != 1) {
            parent = lookup(KEY_CALLER, stored);
            if (parent == HCA_UNDEF)
                parent = new_context(KEY_CALLER, stored, HCA_UNDEF);
        }
        if (stored == 1 || parent != HCA_UNDEF)
            cc = new_context(region_key, stored, parent);
    }
    pthread_mutex_unlock(&insert_lock);
    return cc; /* HCA_UNDEF only when the table is full: the caller drops the event */
}

void hct_callsite_reset(void)
{
    memset(table, 0, sizeof(table));
    atomic_store(&ncontexts, 0);
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
    hct_symbolizer *sym = n ? hct_symbolizer_open() : NULL;
    for (uint32_t i = 0; i < n && rc == 0; i++) {
        const context *c = &contexts[i];
        hca_ref region = HCA_UNDEF, scl = HCA_UNDEF;
        if (c->key == KEY_CALLER) {
            hct_symbol s;
            /* the call instruction is just before the return address */
            hct_symbolize(sym, c->address - 1, &s);
            region = hca_defs_region(&hct.defs, s.function, HCA_KIND_FUNCTION, s.file, s.function_line, 0,
                                     OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_SAMPLING);
            scl = hca_defs_scl(&hct.defs, s.file, s.line);
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
    free(known);
    hct_symbolizer_close(sym);
    return rc;
}
