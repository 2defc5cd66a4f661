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
 * every time). The cache is the thread's own: no lock, no allocation; a few
 * sites, direct-mapped. */
#include "hct_path_cache.h"

#include <string.h>

#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include "hct_path.h"

#define SITES 8                             /* entries per thread */
#define WALKS_FREE 64                       /* walks before the hits must pay for them */
#define CHAIN (HCT_PATH_FRAMES + 16 + 4)    /* frames checked: what hct_path_unwind looks at, and more */
#define CHECKS (2 * CHAIN)                  /* words checked: a slot per frame, a saved rbp per frame of variable size */
#define NOT_CACHEABLE (-2)                  /* the path at this site and anchor cannot be checked (see above) */

typedef struct {
    const void *site;
    const void *anchor;
    int nframes; /* -1: empty; NOT_CACHEABLE */
    int nchain;
    int32_t slot[CHECKS]; /* where each checked word lies (a return address, a saved rbp), less the anchor */
    uintptr_t value[CHECKS];
    uintptr_t frames[HCT_PATH_FRAMES];
} entry;

static HCT_TLS entry cache[SITES];
/* The walks cost more than an unwind: when call sites keep changing path (or
 * evict each other), the thread stops walking: at most WALKS_FREE walks
 * unless there are four hits per walk. */
static HCT_TLS uint64_t walks, hits;

static inline entry *entry_of(const void *site)
{
    return &cache[((uintptr_t)site >> 4 ^ (uintptr_t)site >> 12) % SITES];
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
    for (int i = 0; i < e->nchain; i++)
        if (word_at(anchor, e->slot[i]) != e->value[i])
            return 0;
    return 1;
}

int hct_path_cache_get(const void *site, const void *anchor, uintptr_t *frames)
{
    const entry *e = entry_of(site);
    if (!anchor || e->site != site || e->anchor != anchor || e->nframes < 0 || !same(e, anchor))
        return -1;
    memcpy(frames, e->frames, (size_t)e->nframes * sizeof(frames[0]));
    hits++;
    return e->nframes;
}

/* Appends the check that the word at `at` is `value` (at in [low, anchor + 4 GiB)). */
static int check(entry *e, uintptr_t a, uintptr_t low, unw_word_t at, unw_word_t value)
{
    if (e->nchain >= CHECKS || at < low || at - low > UINT32_MAX / 2 || word_at((const void *)a, (intptr_t)(at - a)) != value)
        return 0;
    e->slot[e->nchain] = (int32_t)((intptr_t)at - (intptr_t)a);
    e->value[e->nchain++] = (uintptr_t)value;
    return 1;
}

/* The chain above anchor into e; 0 when a frame cannot be checked (and on
 * other architectures than x86-64, where HCT_PATH_ANCHOR() gives no anchor). */
__attribute__((noinline)) static int walk(entry *e, const void *anchor)
{
#if !defined(__x86_64__)
    (void)e;
    (void)anchor;
    return 0;
#else
    unw_context_t uc;
    unw_cursor_t c;
    if (unw_getcontext(&uc) != 0 || unw_init_local(&c, &uc) != 0)
        return 0;
    int found = 0, frames = 0;
    uintptr_t a = (uintptr_t)anchor, low = 0; /* low: the anchor's function's stack pointer */
    e->nchain = 0;
    unw_word_t rbp = 0, sp = 0;
    for (int k = 0; k < CHAIN + 8 && frames < CHAIN; k++) {
        unw_save_loc_t at; /* where the frame about to be left keeps its rbp */
        if (found && unw_get_save_loc(&c, UNW_X86_64_RBP, &at) != 0)
            return 0;
        int r = unw_step(&c);
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
            if (rbp >= sp && rbp < nsp && (at.type != UNW_SLT_MEMORY || !check(e, a, low, at.u.addr, rbp)))
                return 0;
        }
        if (found) {
            if (!check(e, a, a, slot, ip))
                return 0;
            frames++;
        }
        rbp = nrbp;
        sp = nsp;
    }
    return found;
#endif
}

void hct_path_cache_put(const void *site, const void *anchor, const uintptr_t *frames, int n)
{
    entry *e = entry_of(site);
    if (!anchor || (e->site == site && e->anchor == anchor && e->nframes == NOT_CACHEABLE))
        return;
    if (e->site == site && e->anchor == anchor && e->nframes == n &&
        memcmp(e->frames, frames, (size_t)n * sizeof(frames[0])) == 0 && same(e, anchor))
        return; /* cached already */
    if (walks >= WALKS_FREE && hits < 4 * walks)
        return;
    walks++;
    e->site = site;
    e->anchor = anchor;
    if (!walk(e, anchor)) {
        e->nframes = NOT_CACHEABLE;
        return;
    }
    memcpy(e->frames, frames, (size_t)n * sizeof(frames[0]));
    e->nframes = n;
}
