/* hct_thin_keys.c: the per-thread table of region keys behind thinning and
 * filtering: open addressing on the key, no allocation, no lock (each thread
 * its own table); the filter is matched once per key and thread. */
#include "hct_thin_keys.h"

#include <stddef.h>

hct_thin_slot *hct_thin_slot_of(hct_thin_keys *k, uint32_t key, const char *name, const hct_filter *filter)
{
    uint32_t stored = key + 1;
    unsigned i = (unsigned)((stored * 0x9e3779b97f4a7c15ull) >> 57) & (HCT_THIN_SLOTS - 1);
    for (unsigned n = 0; n < HCT_THIN_SLOTS; n++, i = (i + 1) & (HCT_THIN_SLOTS - 1)) {
        hct_thin_slot *s = &k->slot[i];
        if (s->key == stored)
            return s;
        if (s->key == 0) {
            s->key = stored;
            s->filtered = filter && name && hct_filter_match(filter, name);
            return s;
        }
    }
    return NULL;
}

enum hct_thin_mode hct_thin_decide(hct_thin_slot *s, unsigned full)
{
    s->seen++;
    if (s->filtered)
        return HCT_THIN_FILTER;
    return full == 0 || s->seen <= full || s->nests ? HCT_THIN_FULL : HCT_THIN_LAZY;
}
