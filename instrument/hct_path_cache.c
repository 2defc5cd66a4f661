/* hct_path_cache.c: the call path at a recurring call site, reused without
 * unwinding while the stack above it is provably the one it was unwound from.
 * When a path is cached (x86-64), the stack is walked once more with
 * libunwind's cursor, recording for every frame above the anchor (the caller's
 * return-address slot) where its return address lies and what it is. A later
 * call with the same site and the same anchor reads those slots: if every one
 * still holds its address, the path is the same: from the anchor outwards,
 * a frame's canonical frame address (CFA) follows from its code address and
 * the frames inside it, so the next slot is where it was and the address read
 * there is the real return address (by induction up to the last frame the
 * unwind looked at). A frame of variable size (alloca, variable-length
 * arrays, stack realignment, or any frame built with a frame pointer, as
 * LULESH's main) has its CFA at its frame pointer, rbp: rbp then points into
 * the frame (between its stack pointer and its CFA). For such a frame the
 * chain holds one more check before its slot: where its rbp is saved (in a
 * frame inside it already checked, or in the anchor's function's own frame at
 * a fixed place) and the value it had: the same rbp, the same CFA. A frame
 * whose rbp is not saved in memory there (still in a register in the
 * anchor's function) or a signal frame is not cached (its site is unwound
 * every time), nor one deeper than DEPTH frames above the anchor. The cache
 * is the thread's own: no lock, no allocation; SITES paths, WAYS-way
 * set-associative (LULESH forks from 50 sites, each once per time step); a
 * site and anchor may have several paths, each in an entry of its own
 * (a function calling MPI from several callers with frames of one size:
 * one path replacing the other at every call made the thread walk again and
 * again). */
#include "hct_path_cache.h"

#include <string.h>

#include "hct_path.h"
#include "hct_unwind.h"

#define SITES HCT_PATH_CACHE_SITES
#define WAYS HCT_PATH_CACHE_WAYS
#define DEPTH HCT_PATH_CACHE_DEPTH
#define CHECKS HCT_PATH_CACHE_CHECKS
#define WALKS_FREE 64      /* walks before the hits must pay for them */
#define NOT_CACHEABLE (-2) /* the path at this site and anchor cannot be checked (see above) */

typedef hct_path_cache_entry entry;

/* The index of site's set. */
static inline unsigned set_of(const void *site)
{
    return (unsigned)((((uint64_t)(uintptr_t)site * 0x9e3779b97f4a7c15ull) >> 40) % (SITES / WAYS));
}

/* The index of site's first entry for anchor from way w on, or -1. A site
 * and anchor may have several paths (one function calling it from several
 * callers whose frames put its frame at the same place: LULESH's CommSend),
 * one entry each. */
static inline int entry_of(const hct_path_cache *c, const void *site, const void *anchor, int w)
{
    int first = (int)set_of(site) * WAYS;
    for (; w < WAYS; w++)
        if (c->tag[first + w].site == site && c->tag[first + w].anchor == anchor)
            return first + w;
    return -1;
}

/* Reads stack words of the caller's ancestors (never a redzone of a live
 * frame when the path is the same; when it is not, the word read is checked
 * only against a code address). */
__attribute__((no_sanitize("address"))) static uintptr_t word_at(const void *anchor, intptr_t offset)
{
    const volatile uintptr_t *w = (const volatile void *)((const char *)anchor + offset);
    return *w;
}

static int same(const entry *e, const void *anchor)
{
    const int32_t *slot = e->slot + CHECKS - e->nchain;
    for (int i = 0; i < e->nchain; i++)
        if (word_at(anchor, slot[i]) != e->word[i])
            return 0;
    return 1;
}

int hct_path_cache_get(hct_path_cache *c, const void *site, const void *anchor, uintptr_t *frames)
{
    if (!anchor)
        return -1;
    for (int i = entry_of(c, site, anchor, 0); i >= 0; i = entry_of(c, site, anchor, i % WAYS + 1)) {
        const entry *e = &c->entry[i];
        if (e->nframes >= 0 && same(e, anchor)) {
            memcpy(frames, e->word + e->nchain, (size_t)e->nframes * sizeof(frames[0]));
            c->hits++;
            return e->nframes;
        }
    }
    return -1;
}

/* The checks of a walk, in order, before they are packed into an entry. */
typedef struct {
    int n;
    int32_t slot[CHECKS];
    uintptr_t value[CHECKS];
} chain;

#if defined(__x86_64__)
/* Appends the check that the word at `at` is `value` (at in [low, anchor + 4 GiB)). */
static int check(chain *e, const void *anchor, uintptr_t low, unw_word_t at, unw_word_t value)
{
    intptr_t offset = (intptr_t)(at - (uintptr_t)anchor);
    if (e->n >= CHECKS || at < low || at - low > UINT32_MAX / 2 || word_at(anchor, offset) != value)
        return 0;
    e->slot[e->n] = (int32_t)offset;
    e->value[e->n++] = (uintptr_t)value;
    return 1;
}
#endif

/* The chain above anchor into e; 0 when a frame cannot be checked (and on
 * other architectures than x86-64, where HCT_PATH_ANCHOR() gives no anchor). */
__attribute__((noinline)) static int walk(chain *e, const void *anchor)
{
#if !defined(__x86_64__)
    (void)e;
    (void)anchor;
    return 0;
#else
    unw_context_t uc;
    unw_cursor_t c;
    HCT_UNWIND_CONTEXT(&uc);
    if (unw_init_local(&c, &uc) != 0)
        return 0;
    int found = 0, frames = 0, r = 1;
    uintptr_t a = (uintptr_t)anchor, low = 0; /* low: the anchor's function's stack pointer */
    e->n = 0;
    unw_word_t rbp = 0, sp = 0;
    for (int k = 0; k < DEPTH + 16 && frames < DEPTH; k++) {
        unw_save_loc_t at; /* where the frame about to be left keeps its rbp */
        if (found && unw_get_save_loc(&c, UNW_X86_64_RBP, &at) != 0)
            return 0;
        r = unw_step(&c);
        if (r < 0)
            return 0;
        if (r == 0)
            break;
        unw_word_t ip, nsp, nrbp;
        if (unw_is_signal_frame(&c) > 0 || unw_get_reg(&c, UNW_REG_IP, &ip) != 0 ||
            unw_get_reg(&c, UNW_REG_SP, &nsp) != 0 || unw_get_reg(&c, UNW_X86_64_RBP, &nrbp) != 0)
            return 0;
        uintptr_t slot = (uintptr_t)nsp - sizeof(void *);
        if (!found && slot == a) {
            found = 1;
            low = (uintptr_t)sp;
        } else if (found) {
            /* the frame just left (its CFA is nsp) may be addressed through
             * rbp: its rbp, saved in memory checked already, checked first */
            if (rbp >= sp && rbp < nsp && (at.type != UNW_SLT_MEMORY || !check(e, anchor, low, at.u.addr, rbp)))
                return 0;
        }
        if (found) {
            if (!check(e, anchor, a, slot, ip))
                return 0;
            frames++;
        }
        rbp = nrbp;
        sp = nsp;
    }
    return found && r == 0; /* the whole stack checked */
#endif
}

void hct_path_cache_put(hct_path_cache *c, const void *site, const void *anchor, const uintptr_t *frames, int n)
{
    if (!anchor || n > DEPTH)
        return;
    for (int i = entry_of(c, site, anchor, 0); i >= 0; i = entry_of(c, site, anchor, i % WAYS + 1)) {
        const entry *o = &c->entry[i];
        if (o->nframes == NOT_CACHEABLE ||
            (o->nframes == n && memcmp(o->word + o->nchain, frames, (size_t)n * sizeof(frames[0])) == 0 &&
             same(o, anchor)))
            return; /* cached already, or never */
    }
    if (c->walks >= WALKS_FREE && c->hits < 4 * c->walks)
        return;
    c->walks++;
    /* a new entry, the set's ways in turn (another path of this site and
     * anchor too: each is checked on its own) */
    uint8_t *w = &c->next_way[set_of(site)];
    unsigned i = set_of(site) * WAYS + *w;
    *w = (uint8_t)((*w + 1) % WAYS);
    entry *e = &c->entry[i];
    c->tag[i] = (hct_path_cache_tag){ site, anchor };
    chain ch;
    ch.n = 0; /* walk() sets it on x86-64 only */
    if (!walk(&ch, anchor)) {
        e->nframes = NOT_CACHEABLE;
        e->nchain = 0;
        return;
    }
    /* packed: the slots last in slot[], the frames right after the values */
    memcpy(e->slot + CHECKS - ch.n, ch.slot, (size_t)ch.n * sizeof(ch.slot[0]));
    memcpy(e->word, ch.value, (size_t)ch.n * sizeof(ch.value[0]));
    memcpy(e->word + ch.n, frames, (size_t)n * sizeof(frames[0]));
    e->nchain = ch.n;
    e->nframes = n;
}
