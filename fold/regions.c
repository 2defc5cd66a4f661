/* regions.c: instances grouped by key, keys split into duration groups,
 * duration outliers excluded (the rules are in regions.h). Deterministic: the
 * result does not depend on the order the locations were read in. */
#include "regions.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "paths.h"
#include "read.h"
#include "sites.h"

void fold_region_defaults(fold_region_options *o)
{
    o->k = 1.5;
    o->mad_scale = 1.4826;
    o->mad_floor = 0.005;
    o->tool_tolerance = 0.1;
    o->split = 1;
    o->min_group = 10;
    o->min_group_fraction = 0.10;
    o->gap_factor = 4.0;
    o->min_gap = 0.1;
    o->min_apart = 1.0;
}

typedef struct {
    fold_instance *in;
    uint32_t loc_index; /* position in its location's list: the last tie-breaker */
} inst_ref;

static int cmp_key(const fold_instance *a, const fold_instance *b)
{
    if (!a || !b) /* never: every ref points at an instance */
        return (a != NULL) - (b != NULL);
    if (a->kind != b->kind)
        return a->kind < b->kind ? -1 : 1;
    if (a->open_context != b->open_context)
        return a->open_context < b->open_context ? -1 : 1;
    if (a->close_context != b->close_context)
        return a->close_context < b->close_context ? -1 : 1;
    return 0;
}

static int cmp_ref(const void *pa, const void *pb)
{
    const inst_ref *ra = pa, *rb = pb;
    const fold_instance *a = ra->in, *b = rb->in;
    int c = cmp_key(a, b);
    if (c || !a || !b)
        return c;
    if (a->location != b->location)
        return a->location < b->location ? -1 : 1;
    if (a->t0 != b->t0)
        return a->t0 < b->t0 ? -1 : 1;
    if (a->t1 != b->t1)
        return a->t1 < b->t1 ? -1 : 1;
    return ra->loc_index < rb->loc_index ? -1 : ra->loc_index > rb->loc_index;
}

/* Orders refs as qsort with cmp_ref would (cmp_ref is a total order, so the
 * result is the same), without sorting them all: instances are bucketed by
 * key in encounter order, which is already (location, leave time); only the
 * few keys are sorted, and a bucket is sorted only if found out of order
 * (nested instances of one key). */
static int sort_refs_by_key(inst_ref *refs, size_t n)
{
    if (n < 2)
        return 0;
    size_t cap = 64;
    uint32_t *slots = calloc(cap, sizeof(*slots)); /* bucket + 1 */
    uint32_t *bucket_of = malloc(n * sizeof(*bucket_of));
    size_t nb = 0, capb = 16;
    size_t *count = malloc(capb * sizeof(*count)), *rep = malloc(capb * sizeof(*rep)); /* rep: index into refs */
    inst_ref *out = calloc(n, sizeof(*out));
    int rc = -1;
    if (!slots || !bucket_of || !out || !count || !rep)
        goto done;
    for (size_t i = 0; i < n; i++) {
        const fold_instance *in = refs[i].in;
        if ((nb + 1) * 2 > cap) { /* grow and rehash the buckets */
            size_t ncap = cap * 2;
            uint32_t *ns = calloc(ncap, sizeof(*ns));
            if (!ns)
                goto done;
            for (size_t b = 0; b < nb; b++) {
                const fold_instance *rb = refs[rep[b]].in;
                uint64_t h = ((uint64_t)rb->open_context * 0x9e3779b97f4a7c15ull) ^
                             ((uint64_t)rb->close_context * 0xc2b2ae3d27d4eb4full) ^ (uint64_t)rb->kind;
                size_t j = (size_t)(h >> 17) & (ncap - 1);
                while (ns[j])
                    j = (j + 1) & (ncap - 1);
                ns[j] = (uint32_t)b + 1;
            }
            free(slots);
            slots = ns;
            cap = ncap;
        }
        uint64_t h = ((uint64_t)in->open_context * 0x9e3779b97f4a7c15ull) ^
                     ((uint64_t)in->close_context * 0xc2b2ae3d27d4eb4full) ^ (uint64_t)in->kind;
        size_t j = (size_t)(h >> 17) & (cap - 1);
        while (slots[j] && cmp_key(refs[rep[slots[j] - 1]].in, in) != 0)
            j = (j + 1) & (cap - 1);
        if (!slots[j]) {
            if (nb == capb) {
                size_t nc = capb * 2;
                size_t *c2 = realloc(count, nc * sizeof(*c2));
                if (!c2)
                    goto done;
                count = c2;
                size_t *r2 = realloc(rep, nc * sizeof(*r2));
                if (!r2)
                    goto done;
                rep = r2;
                capb = nc;
            }
            rep[nb] = i;
            count[nb] = 0;
            slots[j] = (uint32_t)++nb;
        }
        bucket_of[i] = slots[j] - 1;
        count[bucket_of[i]]++;
    }
    /* the keys in cmp_key order, then each bucket's start */
    size_t *order = malloc((nb + 1) * sizeof(*order)), *start = malloc((nb + 1) * sizeof(*start));
    if (!order || !start) {
        free(order);
        free(start);
        goto done;
    }
    for (size_t b = 0; b < nb; b++)
        order[b] = b;
    for (size_t a = 1; a < nb; a++) /* insertion sort: keys are few */
        for (size_t b = a; b > 0 && cmp_key(refs[rep[order[b - 1]]].in, refs[rep[order[b]]].in) > 0; b--) {
            size_t t = order[b];
            order[b] = order[b - 1];
            order[b - 1] = t;
        }
    for (size_t b = 0, pos = 0; b < nb; b++) {
        start[order[b]] = pos;
        pos += count[order[b]];
    }
    size_t *fill = calloc(nb + 1, sizeof(*fill));
    if (!fill) {
        free(order);
        free(start);
        goto done;
    }
    for (size_t i = 0; i < n; i++)
        out[start[bucket_of[i]] + fill[bucket_of[i]]++] = refs[i];
    for (size_t b = 0; b < nb; b++) {
        inst_ref *slice = out + start[b];
        for (size_t i = 1; i < count[b]; i++)
            if (cmp_ref(&slice[i - 1], &slice[i]) > 0) {
                qsort(slice, count[b], sizeof(*slice), cmp_ref);
                break;
            }
    }
    memcpy(refs, out, n * sizeof(*refs));
    free(order);
    free(start);
    free(fill);
    rc = 0;
done:
    free(slots);
    free(bucket_of);
    free(count);
    free(rep);
    free(out);
    return rc;
}

/* Median of a sorted array. */
static double median_sorted(const double *v, size_t n)
{
    if (n == 0)
        return 0.0;
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* MAD (unscaled) of a sorted array around its median, in O(n): the
 * deviations below and above the median are two sorted runs; walking both
 * from the median outwards meets the deviations in increasing order. */
static double mad_sorted(const double *v, size_t n, double median)
{
    if (n == 0)
        return 0.0;
    size_t r = 0;
    while (r < n && v[r] < median)
        r++;
    size_t l = r; /* v[l-1] is the next below, v[r] the next above */
    double prev = 0.0, cur = 0.0;
    for (size_t k = 0; k <= n / 2; k++) {
        double dl = l > 0 ? median - v[l - 1] : INFINITY;
        double dr = r < n ? v[r] - median : INFINITY;
        prev = cur;
        if (dl <= dr) {
            cur = dl;
            l--;
        } else {
            cur = dr;
            r++;
        }
    }
    return n % 2 ? cur : 0.5 * (prev + cur);
}

typedef struct {
    const fold_region_options *o;
    const double *logd; /* sorted ln(duration) of the key */
    size_t min;         /* smallest group */
    size_t *cuts;       /* group starts after the first, ascending */
    size_t ncuts;
    int wall; /* logd are wall times: a valley splits only tight modes (tight_modes) or locations (own_sides) */
    const uint32_t *location; /* the location of each logd's instance */
    uint32_t nlocations;      /* locations are below this */
    int failed;               /* memory ran out */
} splitter;

#define VALLEY_BINS 128
#define VALLEY_DEPTH 0.5 /* the density at the valley, at most this fraction of the lower peak */

typedef struct {
    int valid;   /* enough instances, a span past min_gap: the bins below were filled */
    double lo, w; /* the first bin's start, the bins' width (in logd) */
    double count[VALLEY_BINS], dens[VALLEY_BINS];
} valley_density;

/* The density of logd[a..b) on VALLEY_BINS bins (valley_cut's), computed once
 * for both of split_range's searches. */
static void density_of(const splitter *s, size_t a, size_t b, valley_density *d)
{
    const double *x = s->logd + a;
    size_t n = b - a;
    d->valid = 0;
    if (n < 2 * s->min)
        return;
    /* the bins start at the first duration above 1 ns: CPU times of 0
     * (cpu_times) would leave the modes a few bins; they count in bin 0 */
    size_t first = 0;
    while (first < n && !(x[first] > 0))
        first++;
    if (first == n)
        return;
    double lo = x[first], hi = x[n - 1];
    if (!(hi - lo > s->o->min_gap))
        return;
    double mean = 0, var = 0;
    for (size_t i = 0; i < n; i++)
        mean += x[i];
    mean /= (double)n;
    for (size_t i = 0; i < n; i++)
        var += (x[i] - mean) * (x[i] - mean);
    double sd = sqrt(var / (double)(n - 1)), iqr = (x[3 * n / 4] - x[n / 4]) / 1.34;
    double h = 0.45 * (iqr > 0 && iqr < sd ? iqr : sd) * pow((double)n, -0.2);
    double w = (hi - lo) / VALLEY_BINS;
    if (!(h > w / 2))
        h = w / 2;
    memset(d->count, 0, sizeof(d->count));
    memset(d->dens, 0, sizeof(d->dens));
    for (size_t i = 0; i < n; i++) {
        double k = floor((x[i] - lo) / w);
        d->count[k < 0 ? 0 : k < VALLEY_BINS ? (size_t)k : VALLEY_BINS - 1] += 1;
    }
    for (size_t k = 0; k < VALLEY_BINS; k++)
        for (size_t j = 0; j < VALLEY_BINS; j++)
            if (d->count[j] > 0) {
                double z = ((double)k - (double)j) * w / h;
                if (z * z < 50)
                    d->dens[k] += d->count[j] * exp(-0.5 * z * z);
            }
    d->lo = lo;
    d->w = w;
    d->valid = 1;
}

/* Where two modes of logd[a..b) are separated by a valley of their density
 * that noise fills (no empty gap): the density is a Gaussian kernel estimate
 * on VALLEY_BINS bins, bandwidth half Silverman's 0.9 * min(sd, IQR / 1.34) *
 * n^(-1/5) (his rule oversmooths several modes); the deepest local minimum
 * whose density is at most VALLEY_DEPTH of the highest peak on either side,
 * the peaks at least min_gap apart; with between_groups, among the bins
 * that leave s->min instances on each side only: the empty bins between a
 * few stragglers far in a tail are the deepest valleys of all (density 0),
 * but no cut between groups (truth_app beside a busy process: the stragglers
 * at 40-51 ms hid the valley at 14 ms between the ranks' modes at 12.3 and
 * 16 ms). Without, as before own_sides: such a tail's valley hides the
 * others, and a region splits less often (a single rank of truth_app on a
 * loaded machine split off 22 of 200 instances at a valley of CPU times it
 * had not found). Returns the first index above the valley when each side
 * keeps s->min instances, else a; d: density_of(s, a, b). */
static size_t valley_cut(const splitter *s, size_t a, size_t b, const valley_density *d, int between_groups)
{
    if (!d->valid)
        return a;
    const double *x = s->logd + a, *count = d->count, *dens = d->dens;
    size_t n = b - a;
    double w = d->w;
    /* the deepest valley: a bin whose density is at most VALLEY_DEPTH of the
     * highest density on each side, those peaks at least min_gap apart */
    size_t v = VALLEY_BINS;
    double best_ratio = VALLEY_DEPTH, below = count[0];
    for (size_t k = 1; k + 1 < VALLEY_BINS; below += count[k], k++) {
        if (!(dens[k] <= dens[k - 1] && dens[k] <= dens[k + 1]))
            continue;
        if (between_groups && (below < (double)s->min || (double)n - below - count[k] < (double)s->min))
            continue;
        size_t pl = 0, pr = k + 1;
        for (size_t j = 0; j < k; j++)
            if (dens[j] > dens[pl])
                pl = j;
        for (size_t j = k + 1; j < VALLEY_BINS; j++)
            if (dens[j] > dens[pr])
                pr = j;
        double lower = dens[pl] < dens[pr] ? dens[pl] : dens[pr];
        if ((double)(pr - pl) * w < s->o->min_gap || !(lower > 0))
            continue;
        if (dens[k] / lower <= best_ratio) {
            best_ratio = dens[k] / lower;
            v = k;
        }
    }
    if (v == VALLEY_BINS)
        return a;
    double cut = d->lo + ((double)v + 0.5) * w;
    size_t i = 0;
    while (i < n && x[i] < cut)
        i++;
    return i >= s->min && n - i >= s->min ? a + i : a;
}

/* Whether the sides [a, cut) and [cut, b) of a valley in wall times are two
 * modes: their medians apart by more than gap_factor times their spreads
 * added. A machine's load spreads wall times into a tail, whose valley below
 * it is no second mode (test_regions one_mode_with_a_tail_stays_one_group);
 * the same work run in two conditions keeps two tight modes (truth_app's
 * ranks beside a busy process: spreads 0.02-0.04 of ln(duration), medians
 * 0.36 apart). */
static int tight_modes(const splitter *s, size_t a, size_t cut, size_t b)
{
    double ml = median_sorted(s->logd + a, cut - a), mr = median_sorted(s->logd + cut, b - cut);
    double sl = 1.4826 * mad_sorted(s->logd + a, cut - a, ml), sr = 1.4826 * mad_sorted(s->logd + cut, b - cut, mr);
    return mr - ml > s->o->gap_factor * (sl + sr);
}

#define OWN_SIDE 0.8 /* a location is on a side of a cut when at least this fraction of its instances are */

/* Whether a cut at [cut] of logd[a..b) parts the locations: each location
 * with instances there has at least OWN_SIDE of them on one side, and each
 * side is some location's. The same work run in two conditions (ranks on a
 * core of their own and ranks sharing theirs with another process) is that,
 * however far the preempted instances of each spread (truth_app's rank
 * beside a busy process: 16.5 ms, a robust spread of 0.06-0.09 in
 * ln(duration) and instances up to 51 ms; too wide for tight_modes); a
 * machine's load slows every location alike, into a tail below which no
 * location stays (test_regions one_mode_with_a_tail_stays_one_group). Returns
 * -1 when memory ran out. */
static int own_sides(const splitter *s, size_t a, size_t cut, size_t b)
{
    if (!s->location || s->nlocations < 2)
        return 0;
    size_t *lower = calloc(2 * (size_t)s->nlocations, sizeof(*lower));
    if (!lower)
        return -1;
    size_t *upper = lower + s->nlocations;
    for (size_t i = a; i < b; i++)
        (i < cut ? lower : upper)[s->location[i]]++;
    int low_side = 0, high_side = 0, parted = 1;
    for (uint32_t l = 0; l < s->nlocations && parted; l++) {
        double all = (double)(lower[l] + upper[l]);
        if (all == 0)
            continue;
        low_side |= (double)lower[l] >= OWN_SIDE * all;
        high_side |= (double)upper[l] >= OWN_SIDE * all;
        parted = (double)lower[l] >= OWN_SIDE * all || (double)upper[l] >= OWN_SIDE * all;
    }
    free(lower);
    return parted && low_side && high_side;
}

/* Splits at the widest gap, recursively; where no gap is wide enough, at a
 * valley, once: the sides of a valley split only at gaps. */
static void split_range(splitter *s, size_t a, size_t b, int valleys)
{
    if (s->min < 1 || (b - a) / 2 < s->min) /* never overflows */
        return;
    size_t best = 0;
    double gap = -1.0;
    for (size_t i = a + s->min; i + s->min <= b; i++) {
        double g = s->logd[i] - s->logd[i - 1];
        if (g > gap) {
            gap = g;
            best = i;
        }
    }
    double sl = 1.4826 * mad_sorted(s->logd + a, best - a, median_sorted(s->logd + a, best - a));
    double sr = 1.4826 * mad_sorted(s->logd + best, b - best, median_sorted(s->logd + best, b - best));
    /* a gap wide against both sides' spreads; or, past min_gap, two modes far
     * apart (min_apart) and against their spreads added: a mode spread by the
     * machine's noise (wall times of a loaded machine) narrows the gap between
     * modes, not the distance between their medians */
    double need = s->o->gap_factor * (sl > sr ? sl : sr);
    if (need < s->o->min_gap)
        need = s->o->min_gap;
    double apart = median_sorted(s->logd + best, b - best) - median_sorted(s->logd + a, best - a);
    int modes = gap > s->o->min_gap && apart > s->o->min_apart && apart > s->o->gap_factor * (sl + sr);
    if (best <= a || !(gap > need || modes)) {
        valley_density d;
        d.valid = 0;
        if (valleys)
            density_of(s, a, b, &d);
        best = valleys ? valley_cut(s, a, b, &d, 0) : a;
        if (s->wall && best > a && !tight_modes(s, a, best, b))
            best = a;
        if (s->wall && valleys && best <= a) { /* or a valley between groups that parts the locations */
            size_t cut = valley_cut(s, a, b, &d, 1);
            int parted = cut > a ? own_sides(s, a, cut, b) : 0;
            if (parted < 0)
                s->failed = 1;
            if (parted > 0)
                best = cut;
        }
        valleys = 0;
    }
    if (best <= a)
        return;
    split_range(s, a, best, valleys);
    s->cuts[s->ncuts++] = best;
    split_range(s, best, b, valleys);
}

typedef struct {
    fold_instance *in;
    double d;
} by_duration;

/* Sorts by duration, ties in input order (the instances' order), as qsort
 * comparing durations then positions would: a stable LSD radix sort on the bits of the
 * durations, which are non-negative doubles (their bits order as they do). */
static int sort_by_duration(by_duration *bd, size_t n)
{
    by_duration *tmp = malloc((n ? n : 1) * sizeof(*tmp));
    if (!tmp)
        return -1;
    by_duration *src = bd, *dst = tmp;
    for (int shift = 0; shift < 64; shift += 8) {
        size_t count[257] = { 0 };
        for (size_t i = 0; i < n; i++) {
            uint64_t bits;
            memcpy(&bits, &src[i].d, sizeof(bits));
            count[((bits >> shift) & 0xff) + 1]++;
        }
        for (int b = 0; b < 256; b++)
            count[b + 1] += count[b];
        for (size_t i = 0; i < n; i++) {
            uint64_t bits;
            memcpy(&bits, &src[i].d, sizeof(bits));
            dst[count[(bits >> shift) & 0xff]++] = src[i];
        }
        by_duration *t = src;
        src = dst;
        dst = t;
    }
    /* 8 passes: the result is back in bd */
    free(tmp);
    return 0;
}

/* Makes the fold(s) of one path of a key from its instances (sorted by
 * location, time): its duration groups. */
static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The CPU time of every instance (ns), when the trace has a "task-clock"
 * counter measured at both ends of all of them: what groups split on, since
 * wall time on a shared machine smears modes that CPU time keeps apart. Not
 * for OpenMP regions: a thread's share of one construct takes the CPU time
 * its runtime spins or sleeps, which differs by thread, not by code. A CPU
 * time below 0 by at most the tracer's time removed from the instance (its
 * CPU time removed, measured a little long) is 0. */
static int cpu_times(const fold_trace *t, const fold_instance *ins, size_t n, double *cpu)
{
    size_t c = 0;
    if (n && ins[0].kind == FOLD_KIND_OPENMP) /* threads' shares: CPU time differs by thread (spinning, waiting) */
        return 0;
    while (c < t->ncounters && strcmp(t->counters[c].name, "task-clock") != 0)
        c++;
    if (c == t->ncounters)
        return 0;
    for (size_t i = 0; i < n; i++) {
        if (!ins[i].c0 || !ins[i].c1)
            return 0;
        double d = ins[i].c1[c] - ins[i].c0[c];
        if (d < 0 && d >= -(double)ins[i].tool_ns)
            d = 0; /* the tracer's CPU time removed, measured a little long */
        if (!(d >= 0))
            return 0;
        cpu[i] = d;
    }
    return 1;
}

static int build_groups(const fold_trace *t, const fold_region_options *o, fold_instance *ins, size_t n,
                        uint32_t path, const fold_paths *paths, fold_region **folds, size_t *nfolds, size_t *cap)
{
    int rc = -1;
    by_duration *bd = malloc(n * sizeof(*bd));
    double *logd = calloc(n ? n : 1, sizeof(*logd)), *dur = calloc(n ? n : 1, sizeof(*dur));
    size_t *cuts = malloc((n + 1) * sizeof(*cuts)), *group_of = calloc(n, sizeof(*group_of));
    uint32_t *location = calloc(n ? n : 1, sizeof(*location));
    if (!bd || !logd || !dur || !cuts || !group_of || !location)
        goto out;
    int on_cpu = cpu_times(t, ins, n, dur);
    for (size_t i = 0; i < n; i++) {
        bd[i].in = &ins[i];
        bd[i].d = on_cpu ? dur[i] : (double)(ins[i].t1 - ins[i].t0);
    }
    if (sort_by_duration(bd, n) != 0)
        goto out;
    for (size_t i = 0; i < n; i++) {
        logd[i] = log(bd[i].d > 1.0 ? bd[i].d : 1.0);
        location[i] = bd[i].in->location;
    }
    splitter s = { o, logd, 0, cuts, 0, !on_cpu, location, (uint32_t)t->nlocations, 0 };
    if (o->split) {
        s.min = (size_t)ceil(o->min_group_fraction * (double)n);
        if (s.min < o->min_group)
            s.min = o->min_group;
        if (s.min < 1)
            s.min = 1;
        /* at a valley of wall times too: the same work run in different
         * conditions, such as the ranks of a job on 2 cores beside a busy
         * process, one sharing its core and one not, each rank's instances
         * stretched alike (truth_app: 15.9 against 11.1 ms, page faults from
         * 0.57 against 0.375 of the region). Folded together, the points at a
         * normalized time mixed both shapes in the proportion the samples
         * happened to fall there: curves scattered by the shapes' difference
         * (page faults 7.5-11.7 % MAE against 2.7-3.3 % split), phases of
         * neither (docs/benchmarks.md, "The loaded check (issue 17, branch
         * loaded2)"); where wall times are spread by the machine's noise
         * instead, a valley splits only tight modes (tight_modes) or where
         * it parts the locations (own_sides) */
        split_range(&s, 0, n, 1);
        if (s.failed)
            goto out;
    }
    size_t ngroups = s.ncuts + 1;
    if (*nfolds + ngroups > *cap) {
        size_t ncap = *cap ? *cap * 2 : 16;
        while (ncap < *nfolds + ngroups)
            ncap *= 2;
        fold_region *p = realloc(*folds, ncap * sizeof(*p));
        if (!p)
            goto out;
        *folds = p;
        *cap = ncap;
    }
    if (!*folds)
        goto out;
    for (size_t g = 0, start = 0; g < ngroups; g++) {
        size_t end = g < s.ncuts ? cuts[g] : n;
        for (size_t i = start; i < end; i++)
            group_of[bd[i].in - ins] = g;
        /* outliers of the group */
        size_t m = end - start;
        for (size_t i = 0; i < m; i++)
            dur[i] = (double)(bd[start + i].in->t1 - bd[start + i].in->t0);
        if (on_cpu)
            qsort(dur, m, sizeof(*dur), cmp_double);
        double med = median_sorted(dur, m), mad = mad_sorted(dur, m, med);
        double spread = o->mad_scale * mad;
        if (spread < o->mad_floor * med)
            spread = o->mad_floor * med;
        double lo = med - o->k * spread, hi = med + o->k * spread;
        if (m < 3) {
            lo = -INFINITY;
            hi = INFINITY;
        }
        fold_region *f = &(*folds)[*nfolds + g];
        memset(f, 0, sizeof(*f));
        f->kind = ins[0].kind;
        f->open_context = ins[0].open_context;
        f->close_context = ins[0].close_context;
        f->group = (uint32_t)g;
        f->ngroups = (uint32_t)ngroups;
        f->grouped_on_cpu = on_cpu;
        f->path = path;
        f->npaths = (uint32_t)paths->npaths;
        f->path_label = paths->npaths > 1 ? strdup(paths->labels[path]) : NULL;
        if (paths->npaths > 1 && !f->path_label) {
            for (size_t k = 0; k < g; k++) {
                free((*folds)[*nfolds + k].instances);
                free((*folds)[*nfolds + k].path_label);
            }
            goto out;
        }
        f->median_ns = med;
        f->mad_ns = mad;
        f->keep_lo_ns = lo;
        f->keep_hi_ns = hi;
        f->instances = malloc((m ? m : 1) * sizeof(*f->instances));
        if (!f->instances) {
            free(f->path_label);
            for (size_t k = 0; k < g; k++) {
                free((*folds)[*nfolds + k].instances);
                free((*folds)[*nfolds + k].path_label);
            }
            goto out;
        }
        for (size_t i = start; i < end; i++) {
            double d = (double)(bd[i].in->t1 - bd[i].in->t0);
            double tol = o->tool_tolerance * (double)bd[i].in->tool_ns;
            bd[i].in->excluded = (d < lo - tol || d > hi + tol) ? FOLD_EXCLUDED_OUTLIER : FOLD_USED;
        }
        start = end;
    }
    /* copy in location/time order */
    for (size_t i = 0; i < n; i++) {
        fold_region *f = &(*folds)[*nfolds + group_of[i]];
        f->instances[f->ninstances++] = ins[i];
        f->total_ns += (double)(ins[i].t1 - ins[i].t0);
        f->tool_ns += (double)ins[i].tool_ns;
        f->nsamples += ins[i].nsamples;
        if (ins[i].excluded == FOLD_USED) {
            f->nused++;
            f->nsamples_used += ins[i].nsamples;
        } else {
            f->nexcluded++;
        }
    }
    *nfolds += ngroups;
    rc = 0;
out:
    free(bd);
    free(logd);
    free(dur);
    free(cuts);
    free(group_of);
    free(location);
    return rc;
}

/* Makes the folds of one key: its code paths (paths.h), each split into
 * duration groups. */
static int build_key(const fold_trace *t, const fold_region_options *o, fold_instance *ins, size_t n,
                     fold_region **folds, size_t *nfolds, size_t *cap)
{
    fold_paths paths;
    if (fold_paths_find(t, ins, n, &paths) != 0)
        return -1;
    if (paths.npaths < 2) {
        int rc = build_groups(t, o, ins, n, 0, &paths, folds, nfolds, cap);
        fold_paths_free(&paths);
        return rc;
    }
    fold_instance *sub = malloc((n ? n : 1) * sizeof(*sub));
    int rc = sub ? 0 : -1;
    for (uint32_t p = 0; rc == 0 && p < paths.npaths; p++) {
        size_t m = 0;
        for (size_t i = 0; i < n; i++)
            if (paths.path_of[i] == p)
                sub[m++] = ins[i];
        if (m)
            rc = build_groups(t, o, sub, m, p, &paths, folds, nfolds, cap);
    }
    free(sub);
    fold_paths_free(&paths);
    return rc;
}

static int cmp_fold(const void *pa, const void *pb)
{
    const fold_region *a = pa, *b = pb;
    if (a->total_ns != b->total_ns)
        return a->total_ns > b->total_ns ? -1 : 1;
    int c = cmp_key(&a->instances[0], &b->instances[0]);
    if (c)
        return c;
    if (a->path != b->path)
        return a->path < b->path ? -1 : 1;
    return a->group < b->group ? -1 : a->group > b->group;
}

static const char *region_name(const fold_trace *t, uint32_t ctx)
{
    return ctx < t->ncontexts ? t->regions[t->contexts[ctx].region].name : "?";
}

static char *site_label(const fold_trace *t, uint32_t context, const char *merged)
{
    char buf[512];
    if (merged)
        return strdup(merged);
    fold_context_label(t, context, buf, sizeof(buf));
    return strdup(buf);
}

/* Names: bursts "A@f:l -> B@f:l"; MPI calls "A@f:l"; other regions by their
 * name, with "@file:line" of the call site when several keys share the name.
 * A key merged from several lines (sites.h) shows them all: "A@f:l1|l2". */
static int name_folds(fold_trace *t, const fold_site_merges *merges)
{
    for (size_t i = 0; i < t->nfolds; i++) {
        fold_region *f = &t->folds[i];
        const fold_site_merge *m = fold_site_merge_find(merges, f->kind, f->open_context, f->close_context);
        f->sites = m ? m->variants : 1;
        f->open_site = site_label(t, f->open_context, m ? m->open_label : NULL);
        f->close_site = site_label(t, f->close_context, m ? m->close_label : NULL);
        if (!f->open_site || !f->close_site)
            return -1;
        if (f->kind == FOLD_KIND_BURST) {
            size_t len = strlen(f->open_site) + strlen(f->close_site) + 5;
            f->name = malloc(len);
            if (f->name)
                snprintf(f->name, len, "%s -> %s", f->open_site, f->close_site);
        } else if (m) {
            f->name = strdup(f->open_site);
        } else {
            const char *name = region_name(t, f->open_context);
            int shared = f->kind == FOLD_KIND_MPI;
            for (size_t j = 0; j < t->nfolds && !shared; j++) {
                const fold_region *g = &t->folds[j];
                shared = g->kind != FOLD_KIND_BURST && g->open_context != f->open_context &&
                         strcmp(region_name(t, g->open_context), name) == 0;
            }
            char label[512];
            if (shared)
                fold_context_label(t, f->open_context, label, sizeof(label));
            else
                snprintf(label, sizeof(label), "%s", name);
            f->name = strdup(label);
        }
        if (!f->name)
            return -1;
    }
    return 0;
}

#define CHAIN_MAX 256

/* A context's call path, root first (context IDs); its length. */
static size_t context_chain(const fold_trace *t, uint32_t context, uint32_t *chain)
{
    uint32_t rev[CHAIN_MAX];
    size_t n = 0;
    for (uint32_t c = context; c < t->ncontexts && n < CHAIN_MAX; c = t->contexts[c].parent)
        rev[n++] = c;
    for (size_t i = 0; i < n; i++)
        chain[i] = rev[n - 1 - i];
    return n;
}

/* Where two call paths part: the first depth at which their contexts differ
 * (the shorter one's length if one is a prefix of the other). */
static size_t parting_depth(const uint32_t *a, size_t na, const uint32_t *b, size_t nb)
{
    size_t d = 0;
    while (d < na && d < nb && a[d] == b[d])
        d++;
    return d;
}

static uint32_t region_at(const fold_trace *t, const uint32_t *chain, size_t n, size_t d)
{
    return d < n ? t->contexts[chain[d]].region : FOLD_NONE;
}

/* " via F" for where a path (mine) parts from another's at depth d: the
 * function there, or, where both run the same function there (called at
 * different lines), the functions they call if those differ, else that
 * function at the line this path runs: " via F@file:line". */
static char *parting_label(const fold_trace *t, const uint32_t *mine, size_t nmine, const uint32_t *other,
                           size_t nother, size_t d)
{
    uint32_t region = region_at(t, mine, nmine, d);
    int same = region == region_at(t, other, nother, d);
    if (same && d + 1 < nmine && d + 1 < nother &&
        region_at(t, mine, nmine, d + 1) != region_at(t, other, nother, d + 1)) {
        region = region_at(t, mine, nmine, d + 1);
        same = 0;
    }
    const fold_context_def *c = &t->contexts[mine[d]];
    const char *name = region < t->nregions ? t->regions[region].name : "?";
    char buf[600];
    if (same && c->file && *c->file) {
        const char *base = strrchr(c->file, '/');
        snprintf(buf, sizeof(buf), " via %s@%s:%u", name, base ? base + 1 : c->file, c->line);
    } else {
        snprintf(buf, sizeof(buf), " via %s", name);
    }
    return strdup(buf);
}

/* Keys named alike (the same call sites reached through different callers:
 * CloverLeaf's halo exchange at clover.f90:348 from advection, timestep and
 * PdV) get the frame where their call paths part from the nearest such
 * key's, the opening call's path first, then the closing one's:
 * "A@f:l -> B@f:l via advection_module::advection". Returns how many keys
 * were renamed, -1 when memory ran out. */
static int name_callers(fold_trace *t)
{
    char **via = calloc(t->nfolds ? t->nfolds : 1, sizeof(*via));
    if (!via)
        return -1;
    int rc = 0;
    for (size_t i = 0; i < t->nfolds && rc == 0; i++) {
        const fold_region *f = &t->folds[i];
        uint32_t fo[CHAIN_MAX], fc[CHAIN_MAX], g_chain[CHAIN_MAX], best_chain[CHAIN_MAX];
        size_t nfo = context_chain(t, f->open_context, fo), nfc = context_chain(t, f->close_context, fc);
        size_t best = 0, nbest = 0;
        int found = 0, best_side = 0; /* 0: the opening paths part, 1: the closing ones */
        for (size_t j = 0; j < t->nfolds; j++) {
            const fold_region *g = &t->folds[j];
            if (j == i || strcmp(g->name, f->name) != 0 ||
                (g->open_context == f->open_context && g->close_context == f->close_context))
                continue;
            int side = g->open_context != f->open_context ? 0 : 1;
            const uint32_t *mine = side == 0 ? fo : fc;
            size_t nmine = side == 0 ? nfo : nfc;
            size_t ng = context_chain(t, side == 0 ? g->open_context : g->close_context, g_chain);
            size_t d = parting_depth(mine, nmine, g_chain, ng);
            /* the nearest key: the deepest parting; ties to the opening paths */
            if (d >= nmine || (found && (d < best || (d == best && side >= best_side))))
                continue;
            found = 1;
            best = d;
            best_side = side;
            nbest = ng;
            memcpy(best_chain, g_chain, ng * sizeof(*g_chain));
        }
        if (found && !(via[i] = parting_label(t, best_side == 0 ? fo : fc, best_side == 0 ? nfo : nfc, best_chain,
                                              nbest, best)))
            rc = -1;
    }
    int renamed = 0;
    for (size_t i = 0; i < t->nfolds && rc == 0; i++) {
        if (!via[i])
            continue;
        renamed++;
        size_t len = strlen(t->folds[i].name) + strlen(via[i]) + 1;
        char *name = malloc(len);
        if (!name) {
            rc = -1;
            break;
        }
        snprintf(name, len, "%s%s", t->folds[i].name, via[i]);
        free(t->folds[i].name);
        t->folds[i].name = name;
    }
    for (size_t i = 0; i < t->nfolds; i++)
        free(via[i]);
    free(via);
    return rc ? rc : renamed;
}

#define NAME_ROUNDS 4

/* name_callers until every name is its own: keys still named alike after a
 * round (a grid of call paths: each key's nearest namesake parted at the same
 * frame) part again from each other, further up ("... via u@cg.c:50 via
 * main@cg.c:10"); at most NAME_ROUNDS rounds. */
static int name_all_callers(fold_trace *t)
{
    for (int round = 0; round < NAME_ROUNDS; round++) {
        int renamed = name_callers(t);
        if (renamed <= 0)
            return renamed < 0 ? -1 : 0;
    }
    return 0;
}

/* Call sites whose lines differ only between locations become one key (sites.h). */
static long merge_sites(const fold_trace *t, inst_ref *refs, size_t n, fold_site_merges *merges)
{
    fold_instance **ins = calloc(n ? n : 1, sizeof(fold_instance_ptr));
    if (!ins)
        return -1;
    for (size_t i = 0; i < n; i++)
        ins[i] = refs[i].in;
    long merged = fold_sites_merge(t, ins, n, merges);
    free(ins);
    return merged;
}

void fold_regions_free(fold_trace *t)
{
    for (size_t i = 0; i < t->nfolds; i++) {
        free(t->folds[i].name);
        free(t->folds[i].instances);
        free(t->folds[i].path_label);
        free(t->folds[i].open_site);
        free(t->folds[i].close_site);
    }
    free(t->folds);
    t->folds = NULL;
    t->nfolds = 0;
}

int fold_regions_build(fold_trace *t, const fold_region_options *opts, char *err, size_t errlen)
{
    fold_region_options dflt;
    if (!opts) {
        fold_region_defaults(&dflt);
        opts = &dflt;
    }
    size_t n = 0;
    for (size_t i = 0; i < t->nlocations; i++)
        n += t->locations[i].ninstances;
    inst_ref *refs = malloc((n ? n : 1) * sizeof(*refs));
    fold_instance *sorted = malloc((n ? n : 1) * sizeof(*sorted));
    fold_region *folds = NULL;
    size_t nfolds = 0, cap = 0;
    fold_site_merges merges = { NULL, 0 };
    if (!refs || !sorted)
        goto nomem;
    size_t k = 0;
    for (size_t i = 0; i < t->nlocations; i++)
        for (size_t j = 0; j < t->locations[i].ninstances; j++)
            refs[k++] = (inst_ref){ &t->locations[i].instances[j], (uint32_t)j };
    n = k;
    if (sort_refs_by_key(refs, n) != 0)
        goto nomem;
    long merged = merge_sites(t, refs, n, &merges);
    if (merged < 0 || (merged > 0 && sort_refs_by_key(refs, n) != 0))
        goto nomem;
    for (size_t i = 0; i < n; i++)
        sorted[i] = *refs[i].in;
    free(refs);
    refs = NULL;
    for (size_t a = 0; a < n;) {
        size_t b = a + 1;
        while (b < n && cmp_key(&sorted[a], &sorted[b]) == 0)
            b++;
        if (build_key(t, opts, sorted + a, b - a, &folds, &nfolds, &cap))
            goto nomem;
        a = b;
    }
    free(sorted);
    sorted = NULL;
    fold_regions_free(t);
    t->folds = folds;
    t->nfolds = nfolds;
    if (nfolds)
        qsort(t->folds, nfolds, sizeof(*t->folds), cmp_fold);
    int named = name_folds(t, &merges) || name_all_callers(t);
    fold_site_merges_free(&merges);
    if (named) {
        snprintf(err, errlen, "out of memory naming the regions");
        return -1;
    }
    for (size_t i = 0; i < t->nlocations; i++) {
        free(t->locations[i].instances);
        t->locations[i].instances = NULL;
        t->locations[i].ninstances = 0;
    }
    return 0;
nomem:
    free(refs);
    free(sorted);
    fold_site_merges_free(&merges);
    for (size_t i = 0; i < nfolds; i++) {
        free(folds[i].instances);
        free(folds[i].path_label);
    }
    free(folds);
    if (err && errlen)
        snprintf(err, errlen, "out of memory grouping the instances");
    return -1;
}

const fold_region *fold_region_find(const fold_trace *t, const char *name, unsigned group)
{
    for (size_t i = 0; i < t->nfolds; i++)
        if (t->folds[i].group == group && t->folds[i].name && strcmp(t->folds[i].name, name) == 0)
            return &t->folds[i];
    return NULL;
}
