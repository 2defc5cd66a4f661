/* hct_thin_keys.c: the per-thread table of region keys behind thinning and
 * filtering: open addressing on the key, no allocation, no lock (each thread
 * its own table); the filter is matched once per key and thread. */
#include "hct_thin_keys.h"

#include <stddef.h>

#include "hct_delivery.h"

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

void hct_thin_probe(hct_thin_slot *s, uint64_t duration_ns, uint64_t cost_ns)
{
    if (s->probed >= HCT_THIN_PROBE)
        return;
    /* a cost above HCT_DELIVERY_MAX held a preemption or a one-time wait
     * (the first instance's call path looked up while libdw loads): the mean
     * of those before, the first's HCT_DELIVERY_MAX. Counted whole, a loaded
     * machine's 4.5-82 ms at a key's first instance put 50 times the mean
     * cost at milliseconds for the whole probe: any instance was short */
    if (cost_ns > HCT_DELIVERY_MAX)
        cost_ns = s->probed ? s->cost_ns / s->probed : HCT_DELIVERY_MAX;
    s->probed++;
    s->cost_ns += cost_ns;
    /* duration < MULT x the mean cost: duration x probed < MULT x total */
    if (duration_ns * s->probed < (uint64_t)HCT_THIN_COST_MULT * s->cost_ns)
        s->nshort++;
    /* cheap as soon as more than a quarter of HCT_THIN_PROBE were short: the
     * rest of the probe could not change that (the short ones so far are
     * counted for good), so its instances in full are those probed so far */
    if (4u * s->nshort > HCT_THIN_PROBE) {
        s->cheap = s->probed;
        s->probed = HCT_THIN_PROBE; /* the probe ends */
    }
}

enum hct_thin_mode hct_thin_decide(hct_thin_slot *s, unsigned full)
{
    s->seen++;
    if (s->filtered)
        return HCT_THIN_FILTER;
    if (s->cheap && full > s->cheap)
        full = s->cheap;
    return full == 0 || s->seen <= full || s->nests ? HCT_THIN_FULL : HCT_THIN_LAZY;
}
