/* bands.c: source bands from folded call stacks (see bands.h). Deterministic:
 * ties between routines go to the lower function ID, then the lower line. */
#include "bands.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void fold_band_defaults(fold_band_options *o)
{
    o->bins = 50;
    o->min_bins = 2;
    o->dominance = 0.5;
    o->anchor_function = UINT32_MAX;
}

typedef struct {
    uint32_t function; /* UINT32_MAX: no dominant routine */
    size_t count, total;
} bin_winner;

static size_t bin_of(double x, size_t bins)
{
    if (!(x > 0))
        return 0;
    size_t b = (size_t)(x * (double)bins);
    return b >= bins ? bins - 1 : b;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Keys (function << 32 | line) of the frames at `depth` of samples [from, to)
 * of order, sorted; returns their number. */
static size_t frame_keys(const fold_stack_sample *s, const size_t *order, size_t from, size_t to, uint32_t depth,
                         uint64_t *keys)
{
    size_t k = 0;
    for (size_t i = from; i < to; i++) {
        const fold_stack_sample *si = &s[order[i]];
        if (si->depth > depth)
            keys[k++] = ((uint64_t)si->frames[depth].function << 32) | si->frames[depth].line;
    }
    qsort(keys, k, sizeof(*keys), cmp_u64);
    return k;
}

/* The most frequent function among sorted keys (ties: the lower ID). */
static uint32_t top_function(const uint64_t *keys, size_t k, size_t *count)
{
    uint32_t best = UINT32_MAX;
    *count = 0;
    for (size_t i = 0; i < k;) {
        size_t j = i;
        while (j < k && keys[j] >> 32 == keys[i] >> 32)
            j++;
        if (j - i > *count) {
            *count = j - i;
            best = (uint32_t)(keys[i] >> 32);
        }
        i = j;
    }
    return best;
}

/* The dominant function at `depth` in each bin. */
static void winners(const fold_stack_sample *s, uint32_t depth, const fold_band_options *o, const size_t *order,
                    const size_t *bin_start, uint64_t *keys, bin_winner *w)
{
    for (size_t b = 0; b < o->bins; b++) {
        size_t k = frame_keys(s, order, bin_start[b], bin_start[b + 1], depth, keys);
        w[b].total = bin_start[b + 1] - bin_start[b];
        w[b].function = top_function(keys, k, &w[b].count);
        if (w[b].total == 0) /* no sample here: the routine of the bin before goes on */
            w[b].function = b ? w[b - 1].function : UINT32_MAX;
        else if ((double)w[b].count < o->dominance * (double)w[b].total)
            w[b].function = UINT32_MAX;
    }
}

static int push(fold_band **bands, size_t *n, size_t *cap, const fold_band *b)
{
    if (*n == *cap) {
        size_t ncap = *cap ? *cap * 2 : 16;
        fold_band *p = realloc(*bands, ncap * sizeof(*p));
        if (!p)
            return -1;
        *bands = p;
        *cap = ncap;
    }
    (*bands)[(*n)++] = *b;
    return 0;
}

/* The most frequent line of `function` at `depth` among samples [from, to) of
 * order (ties: the lower line); *matching counts that function's samples. */
static uint32_t dominant_line(const fold_stack_sample *s, const size_t *order, size_t from, size_t to,
                              uint32_t depth, uint32_t function, uint64_t *keys, size_t *matching)
{
    size_t k = frame_keys(s, order, from, to, depth, keys);
    uint32_t best = 0;
    size_t best_count = 0;
    *matching = 0;
    for (size_t i = 0; i < k;) {
        size_t j = i;
        while (j < k && keys[j] == keys[i])
            j++;
        if ((uint32_t)(keys[i] >> 32) == function) {
            *matching += j - i;
            if (j - i > best_count) {
                best_count = j - i;
                best = (uint32_t)keys[i];
            }
        }
        i = j;
    }
    return best;
}

/* The function of sample si at `depth`, UINT32_MAX when the stack is shallower. */
static uint32_t function_at(const fold_stack_sample *si, uint32_t depth)
{
    return si->depth > depth ? si->frames[depth].function : UINT32_MAX;
}

/* Two adjacent bands a (before) and b at one depth meet at a bin edge: the
 * edge moves to the change of routine among the samples of the bins on
 * either side, the split with the fewest of b's samples before it and a's
 * after it (ties: the nearest the edge), halfway between the two samples
 * around it. A boundary is then as precise as the samples are dense, not a
 * bin wide: with 90 samples, bins were 0.045 wide and burst_app's stage
 * boundary folded up to a bin early (docs/benchmarks.md, "Stage boundaries
 * against truth"). */
static void refine_edge(const fold_stack_sample *s, size_t n, const size_t *order, const size_t *bin_start,
                        size_t bins, uint32_t depth, fold_band *a, fold_band *b)
{
    size_t edge = (size_t)llround(a->end * (double)bins), from = bin_start[edge - 1], to = bin_start[edge + 1];
    size_t cost = 0; /* split before sample `from`: every a-sample of the window is after it */
    for (size_t i = from; i < to; i++)
        cost += function_at(&s[order[i]], depth) == a->function;
    size_t best_cost = SIZE_MAX;
    double best_x = a->end, best_dist = 2;
    for (size_t i = from; i <= to; i++) { /* the split before sample i (i == to: after the window) */
        if (i > from) {
            uint32_t f = function_at(&s[order[i - 1]], depth);
            if (f != a->function && f != b->function)
                continue; /* another routine's sample: the same split as before it */
            cost = cost - (f == a->function) + (f == b->function);
        }
        /* halfway between the nearest samples of a or b on either side */
        double left = a->start, right = b->end;
        for (size_t j = i; j-- > 0;) {
            uint32_t f = function_at(&s[order[j]], depth);
            if (f == a->function || f == b->function) {
                left = s[order[j]].x;
                break;
            }
        }
        for (size_t j = i; j < n; j++) {
            uint32_t f = function_at(&s[order[j]], depth);
            if (f == a->function || f == b->function) {
                right = s[order[j]].x;
                break;
            }
        }
        double x = 0.5 * (left + right), dist = x > a->end ? x - a->end : a->end - x;
        if (x > a->start && x < b->end && (cost < best_cost || (cost == best_cost && dist < best_dist))) {
            best_cost = cost;
            best_x = x;
            best_dist = dist;
        }
    }
    a->end = b->start = best_x;
    a->share = a->end - a->start;
    b->share = b->end - b->start;
}

/* The shares of one depth's bands b[0..nb) (sorted by start, not
 * overlapping): a function's share of region time is the fraction of all n
 * samples whose frame at `depth` runs it (wall-clock samples fall in each
 * instance in proportion to its time: the fraction estimates the share of
 * time, instances weighted by their durations), dealt to its bands in
 * proportion to its samples inside each (by their extents when none is).
 * A band's extent is where the function holds most samples; where the
 * instances' stages overlap in normalized time (a loaded machine moves them
 * by preemptions), a stage's samples lie partly in its neighbours' bands and
 * its bands split, so the extents' sum missed up to half of a stage's share
 * (docs/benchmarks.md, "Bands under contention and threads"). count: room
 * for 2 nb counts. */
static void count_shares(const fold_stack_sample *s, size_t n, const size_t *order, uint32_t depth, fold_band *b,
                         size_t nb, size_t *count)
{
    size_t *inband = count, *total = count + nb; /* total: at the first band of each function */
    for (size_t i = 0; i < 2 * nb; i++)
        count[i] = 0;
    for (size_t i = 0, j = 0; i < n && nb; i++) { /* samples by x, bands by start */
        const fold_stack_sample *si = &s[order[i]];
        uint32_t f = function_at(si, depth);
        while (j + 1 < nb && si->x >= b[j].end)
            j++;
        if (si->x >= b[j].start && (si->x < b[j].end || b[j].end >= 1.0) && f == b[j].function)
            inband[j]++;
        for (size_t k = 0; k < nb; k++)
            if (b[k].function == f) {
                total[k]++;
                break;
            }
    }
    for (size_t i = 0; i < nb; i++) {
        size_t in = 0, first = nb;
        double extent = 0.0;
        for (size_t j = 0; j < nb; j++)
            if (b[j].function == b[i].function) {
                first = first < j ? first : j;
                in += inband[j];
                extent += b[j].end - b[j].start;
            }
        double part = in ? (double)inband[i] / (double)in : extent > 0 ? (b[i].end - b[i].start) / extent : 0.0;
        b[i].share = n ? (double)total[first] / (double)n * part : b[i].end - b[i].start;
    }
}

static const fold_stack_sample *sort_base;
static int by_x(const void *a, const void *b)
{
    double xa = sort_base[*(const size_t *)a].x, xb = sort_base[*(const size_t *)b].x;
    if (xa < xb)
        return -1;
    if (xa > xb)
        return 1;
    return *(const size_t *)a < *(const size_t *)b ? -1 : *(const size_t *)a > *(const size_t *)b;
}

int fold_bands(const fold_stack_sample *s, size_t n, const fold_band_options *opt, fold_band **out, size_t *nout,
               uint32_t *best_depth)
{
    fold_band_options o;
    if (opt)
        o = *opt;
    else
        fold_band_defaults(&o);
    *out = NULL;
    *nout = 0;
    *best_depth = 0;
    if (o.bins == 0 || o.min_bins == 0 || (n && !s))
        return -1;
    if (n / 4 < o.bins) /* about 4 samples per bin at least, never under 10 bins */
        o.bins = n / 4 > 10 ? n / 4 : (o.bins < 10 ? o.bins : 10);
    uint32_t max_depth = 0;
    for (size_t i = 0; i < n; i++) {
        if (!(s[i].x >= 0 && s[i].x <= 1) || (s[i].depth && !s[i].frames))
            return -1;
        if (s[i].depth > max_depth)
            max_depth = s[i].depth;
    }
    size_t *order = malloc((n + 1) * sizeof(*order));
    size_t *bin_start = calloc(o.bins + 1, sizeof(*bin_start));
    bin_winner *w = malloc(o.bins * sizeof(*w));
    uint64_t *keys = malloc((n + 1) * sizeof(*keys));
    size_t *inband = malloc(2 * o.bins * sizeof(*inband)); /* a depth's bands: at most one per bin */
    if (!order || !bin_start || !w || !keys || !inband) {
        free(order);
        free(bin_start);
        free(w);
        free(keys);
        free(inband);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        order[i] = i;
    sort_base = s;
    qsort(order, n, sizeof(*order), by_x);
    for (size_t i = 0, b = 0; b <= o.bins; b++) {
        while (i < n && bin_of(s[order[i]].x, o.bins) < b)
            i++;
        bin_start[b] = i;
    }
    bin_start[o.bins] = n;

    fold_band *bands = NULL;
    size_t nbands = 0, cap = 0;
    int found_split = 0;
    uint32_t deepest_uniform = 0, anchor_depth = UINT32_MAX;
    int rc = 0;
    for (uint32_t depth = 0; depth < max_depth && rc == 0; depth++) {
        winners(s, depth, &o, order, bin_start, keys, w);
        size_t first_band = nbands;
        for (size_t b = 0; b < o.bins;) {
            size_t e = b + 1;
            while (e < o.bins && w[e].function == w[b].function)
                e++;
            if (w[b].function != UINT32_MAX && e - b >= o.min_bins) {
                fold_band band;
                memset(&band, 0, sizeof(band)); /* padding too: results compare bytewise */
                band.start = (double)b / (double)o.bins;
                band.end = (double)e / (double)o.bins;
                band.depth = depth;
                band.function = w[b].function;
                band.share = band.end - band.start;
                size_t from = bin_start[b], to = bin_start[e], matching;
                band.line = dominant_line(s, order, from, to, depth, band.function, keys, &matching);
                band.samples = to - from;
                band.purity = band.samples ? (double)matching / (double)band.samples : 0;
                if (push(&bands, &nbands, &cap, &band) != 0)
                    rc = -1;
            }
            b = e;
        }
        for (size_t i = first_band; i + 1 < nbands; i++)
            if (bands[i].end == bands[i + 1].start && bands[i].function != bands[i + 1].function)
                refine_edge(s, n, order, bin_start, o.bins, depth, &bands[i], &bands[i + 1]);
        if (rc == 0)
            count_shares(s, n, order, depth, bands + first_band, nbands - first_band, inband);
        /* distinct routines among this depth's bands */
        size_t distinct = 0;
        for (size_t i = first_band; i < nbands; i++) {
            int seen = 0;
            for (size_t j = first_band; j < i && !seen; j++)
                seen = bands[j].function == bands[i].function;
            distinct += !seen;
        }
        if (distinct >= 2 && !found_split) {
            /* the shallowest depth where the timeline changes routine */
            found_split = 1;
            *best_depth = depth;
        }
        if (nbands == first_band + 1 && bands[first_band].end - bands[first_band].start >= 0.9) {
            deepest_uniform = depth;
            if (bands[first_band].function == o.anchor_function && anchor_depth == UINT32_MAX)
                anchor_depth = depth;
        }
    }
    if (!found_split) {
        /* one routine at every depth: the one the region's caller calls, else the deepest */
        if (anchor_depth != UINT32_MAX && anchor_depth + 1 < max_depth)
            *best_depth = anchor_depth + 1;
        else
            *best_depth = deepest_uniform;
    }
    free(order);
    free(bin_start);
    free(w);
    free(keys);
    free(inband);
    if (rc != 0) {
        free(bands);
        return -1;
    }
    *out = bands;
    *nout = nbands;
    return 0;
}
