/* paths.c: the code paths of a region key from its samples' call stacks (the
 * rule is in paths.h). Deterministic: ties go to the lower region ID or path. */
#include "paths.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anchor.h"

#define COMMON_SHARE 0.9   /* a frame every sample shares, but for this fraction */
#define MIN_PATH_SHARE 0.05 /* of the samples, for a path of its own */
#define MIN_EXPECTED_MIXED 5.0
#define MAX_BRANCHES 64

#define TIME_BINS 64         /* of normalized region time, for the order of two paths */
#define SEQUENTIAL_ORDER 0.1 /* P(a sample of one path is after one of the other) at most this: stages */

typedef struct {
    const uint32_t *chain; /* regions, root first */
    uint32_t len;
    uint32_t instance;
    int copy;   /* the same interrupt as the sample before (see same_interrupt) */
    uint8_t bin; /* its normalized time in its instance, of TIME_BINS */
} stack;

/* Two samples of one instance with the same stack and the same counter values
 * are one interrupt: a wall-clock signal that arrived after several expiries
 * (a preempted thread) stands for all of them, one copy each
 * (docs/trace-format.md, "Samples"). They are one observation of the path:
 * counted apart, the copies in preempted instances looked like instances
 * whose samples never mixed two branches, and burst_app's bursts split into
 * a stage_a path and a stage_b path. */
static int same_interrupt(const fold_trace *t, const fold_sample *a, const fold_sample *b)
{
    return a->context == b->context && t->ncounters > 0 && a->values && b->values &&
           memcmp(a->values, b->values, t->ncounters * sizeof(*a->values)) == 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static uint32_t find(uint32_t *parent, uint32_t x)
{
    while (parent[x] != x)
        x = parent[x] = parent[parent[x]];
    return x;
}

static void unite(uint32_t *parent, uint32_t a, uint32_t b)
{
    a = find(parent, a);
    b = find(parent, b);
    if (a < b)
        parent[b] = a;
    else if (b < a)
        parent[a] = b;
}

/* The depth below the frames (almost) all stacks share. */
static uint32_t common_depth(const stack *s, size_t ns, uint32_t *scratch, uint8_t *on)
{
    memset(on, 1, ns);
    for (uint32_t d = 0;; d++) {
        size_t k = 0, best_n;
        for (size_t i = 0; i < ns; i++)
            if (on[i] && s[i].len > d)
                scratch[k++] = s[i].chain[d];
        if (k == 0)
            return d;
        uint32_t best = fold_most_frequent(scratch, k, &best_n);
        if ((double)best_n < COMMON_SHARE * (double)k)
            return d;
        for (size_t i = 0; i < ns; i++)
            on[i] = on[i] && (s[i].len <= d || s[i].chain[d] == best);
    }
}

/* Paths whose samples are ordered in region time, one's before the
 * other's in (nearly) every pair, are stages of one path: calc_ur's sweep,
 * then its OpenMP loop. Alternative paths each fill their own instances
 * from start to end (a pair is ordered either way about half the time).
 * Sampled sparsely (0.2 samples per instance), stages are rarely seen in
 * one instance, and the instances holding two samples are mostly preempted
 * in one stage (both samples there): the mixing rule alone split them.
 * Unites such paths in parent (roots over nb branches, sbranch per sample);
 * returns 1 when it united any. */
static int unite_stages(const stack *s, size_t ns, const uint32_t *sbranch, uint32_t *parent, size_t nb)
{
    double hist[MAX_BRANCHES][TIME_BINS];
    double total[MAX_BRANCHES];
    memset(hist, 0, sizeof(hist));
    memset(total, 0, sizeof(total));
    for (size_t i = 0; i < ns; i++)
        if (sbranch[i] != UINT32_MAX && !s[i].copy) {
            uint32_t r = find(parent, sbranch[i]);
            hist[r][s[i].bin] += 1.0;
            total[r] += 1.0;
        }
    int united = 0;
    for (size_t a = 0; a < nb; a++)
        for (size_t b = a + 1; b < nb; b++) {
            if (find(parent, (uint32_t)a) != a || find(parent, (uint32_t)b) != b || total[a] < 1.0 ||
                total[b] < 1.0)
                continue;
            /* P(x_a < x_b) + P(x_a = x_b) / 2, by bins */
            double below = 0.0, less = 0.0;
            for (size_t k = 0; k < TIME_BINS; k++) {
                less += hist[a][k] * (below + 0.5 * hist[b][k]);
                below += hist[b][k];
            }
            double p_after = less / (total[a] * total[b]); /* a sample of b after one of a */
            if (p_after <= SEQUENTIAL_ORDER || p_after >= 1.0 - SEQUENTIAL_ORDER) {
                unite(parent, (uint32_t)a, (uint32_t)b);
                united = 1;
            }
        }
    return united;
}

static char *path_label(const fold_trace *t, const uint32_t *branch_region, const uint32_t *root, size_t nb,
                        uint32_t path)
{
    char buf[512];
    size_t len = 0;
    buf[0] = 0;
    for (size_t b = 0; b < nb && len < sizeof(buf) - 2; b++)
        if (root[b] == path) {
            const char *name = branch_region[b] < t->nregions ? t->regions[branch_region[b]].name : "?";
            len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s", len ? ", " : "", name);
        }
    return strdup(buf);
}

int fold_paths_find(const fold_trace *t, const fold_instance *ins, size_t n, fold_paths *out)
{
    memset(out, 0, sizeof(*out));
    out->npaths = 1;
    out->path_of = calloc(n ? n : 1, sizeof(*out->path_of));
    if (!out->path_of)
        return -1;
    size_t ns = 0, nframes = 0;
    for (size_t i = 0; i < n; i++) {
        const fold_location *L = &t->locations[ins[i].location];
        for (size_t k = 0; k < ins[i].nsamples && ins[i].first_sample + k < L->nsamples; k++) {
            uint32_t c = L->samples[ins[i].first_sample + k].context;
            if (c < t->ncontexts) {
                ns++;
                nframes += t->contexts[c].depth + 1;
            }
        }
    }
    if (ns < 2)
        return 0;
    int rc = -1;
    stack *s = malloc(ns * sizeof(*s));
    uint32_t *frames = malloc(nframes * sizeof(*frames)), *scratch = malloc(ns * sizeof(*scratch));
    uint8_t *on = malloc(ns);
    uint32_t branch_region[MAX_BRANCHES], parent[MAX_BRANCHES], root[MAX_BRANCHES];
    size_t branch_n[MAX_BRANCHES] = { 0 }, path_n[MAX_BRANCHES] = { 0 };
    uint32_t *sbranch = malloc(ns * sizeof(*sbranch));
    double *median_log = NULL;
    if (!s || !frames || !scratch || !on || !sbranch)
        goto out;
    size_t k = 0, f = 0;
    for (size_t i = 0; i < n; i++) {
        const fold_location *L = &t->locations[ins[i].location];
        for (size_t j = 0; j < ins[i].nsamples && ins[i].first_sample + j < L->nsamples; j++) {
            uint32_t c = L->samples[ins[i].first_sample + j].context;
            if (c >= t->ncontexts)
                continue;
            uint32_t len = t->contexts[c].depth + 1;
            const fold_sample *sample = &L->samples[ins[i].first_sample + j];
            int copy = k > 0 && s[k - 1].instance == i && same_interrupt(t, sample - 1, sample);
            for (uint32_t d = len; d > 0 && c < t->ncontexts; d--, c = t->contexts[c].parent)
                frames[f + d - 1] = t->contexts[c].region;
            double x = fold_instance_x(&ins[i], sample);
            uint8_t bin = (uint8_t)(x >= 1.0 ? TIME_BINS - 1 : (int)(x * TIME_BINS));
            s[k++] = (stack){ frames + f, len, (uint32_t)i, copy, bin };
            f += len;
        }
    }
    uint32_t depth = common_depth(s, ns, scratch, on);
    /* branches: the functions at that depth, the most frequent MAX_BRANCHES */
    size_t nb = 0;
    for (size_t i = 0; i < ns; i++) {
        sbranch[i] = UINT32_MAX;
        if (s[i].len <= depth)
            continue;
        uint32_t r = s[i].chain[depth];
        size_t b = 0;
        while (b < nb && branch_region[b] != r)
            b++;
        if (b == nb) {
            if (nb == MAX_BRANCHES)
                continue;
            branch_region[nb] = r;
            nb++;
        }
        branch_n[b]++;
        sbranch[i] = (uint32_t)b;
    }
    if (nb < 2) {
        rc = 0;
        goto out;
    }
    for (size_t b = 0; b < nb; b++)
        parent[b] = (uint32_t)b;
    /* branches seen in one instance are one path */
    for (size_t a = 0; a < ns;) {
        size_t e = a;
        uint32_t first = UINT32_MAX;
        while (e < ns && s[e].instance == s[a].instance) {
            if (sbranch[e] != UINT32_MAX) {
                if (first == UINT32_MAX)
                    first = sbranch[e];
                else
                    unite(parent, first, sbranch[e]);
            }
            e++;
        }
        a = e;
    }
    /* paths ordered in time are stages of one path */
    for (size_t round = 0; round < nb && unite_stages(s, ns, sbranch, parent, nb); round++)
        ;
    size_t nbranched = 0;
    for (size_t b = 0; b < nb; b++) {
        path_n[find(parent, (uint32_t)b)] += branch_n[b];
        nbranched += branch_n[b];
    }
    /* small paths join the largest (ties: the lower) */
    uint32_t largest = find(parent, 0);
    for (size_t b = 0; b < nb; b++)
        if (path_n[b] > path_n[largest])
            largest = (uint32_t)b;
    for (size_t b = 0; b < nb; b++) {
        uint32_t r = find(parent, (uint32_t)b);
        if (r != largest && (double)path_n[r] < MIN_PATH_SHARE * (double)nbranched) {
            path_n[largest] += path_n[r];
            path_n[r] = 0;
            parent[r] = largest;
        }
    }
    size_t npaths = 0;
    for (size_t b = 0; b < nb; b++) {
        root[b] = find(parent, (uint32_t)b);
        npaths += root[b] == b;
    }
    if (npaths < 2) {
        rc = 0;
        goto out;
    }
    /* were they one path, how many instances would have mixed them? */
    double expected = 0;
    for (size_t a = 0; a < ns;) {
        size_t e = a, m = 0;
        for (; e < ns && s[e].instance == s[a].instance; e++)
            m += sbranch[e] != UINT32_MAX && !s[e].copy;
        if (m >= 2) {
            double same = 0;
            for (size_t b = 0; b < nb; b++)
                if (root[b] == b)
                    same += pow((double)path_n[b] / (double)nbranched, (double)m);
            expected += 1.0 - same;
        }
        a = e;
    }
    if (expected < MIN_EXPECTED_MIXED) {
        rc = 0;
        goto out;
    }
    /* paths numbered by their first branch (most samples first, ties lower region) */
    uint32_t number[MAX_BRANCHES];
    size_t np = 0;
    for (size_t b = 0; b < nb; b++)
        number[b] = UINT32_MAX;
    for (size_t pass = 0; pass < npaths; pass++) {
        size_t best = nb;
        for (size_t b = 0; b < nb; b++)
            if (root[b] == b && number[b] == UINT32_MAX &&
                (best == nb || path_n[b] > path_n[best] ||
                 (path_n[b] == path_n[best] && branch_region[b] < branch_region[best])))
                best = b;
        number[best] = (uint32_t)np++;
    }
    /* paths that only ever run on different locations are threads entering
     * the same code from their own roots (an OpenMP master and its workers),
     * not different code: a location must run two of them */
    int shared = 0;
    uint64_t seen = 0; /* roots seen on the current location */
    for (size_t i = 0; i < ns && !shared; i++) {
        if (i && ins[s[i].instance].location != ins[s[i - 1].instance].location)
            seen = 0;
        if (sbranch[i] != UINT32_MAX)
            seen |= 1ull << root[sbranch[i]];
        shared = (seen & (seen - 1)) != 0;
    }
    if (!shared) {
        rc = 0;
        goto out;
    }
    out->labels = calloc(npaths, sizeof(*out->labels));
    out->nlabels = npaths;
    median_log = calloc(npaths, sizeof(*median_log));
    if (!out->labels || !median_log)
        goto out;
    for (size_t b = 0; b < nb; b++)
        if (root[b] == b && !(out->labels[number[b]] = path_label(t, branch_region, root, nb, (uint32_t)b)))
            goto out;
    out->npaths = npaths;
    /* instances: the path of most of their samples; UINT32_MAX without */
    for (size_t i = 0; i < n; i++)
        out->path_of[i] = UINT32_MAX;
    for (size_t a = 0; a < ns;) {
        size_t e = a, votes[MAX_BRANCHES] = { 0 };
        while (e < ns && s[e].instance == s[a].instance) {
            if (sbranch[e] != UINT32_MAX)
                votes[number[root[sbranch[e]]]]++;
            e++;
        }
        size_t best = 0;
        for (size_t p = 1; p < npaths; p++)
            if (votes[p] > votes[best])
                best = p;
        if (votes[best])
            out->path_of[s[a].instance] = (uint32_t)best;
        a = e;
    }
    /* the others: nearest median log duration */
    for (size_t p = 0; p < npaths; p++) {
        size_t m = 0;
        for (size_t i = 0; i < n; i++)
            if (out->path_of[i] == p)
                scratch[m++] = (uint32_t)i;
        double *v = malloc((m ? m : 1) * sizeof(*v));
        if (!v)
            goto out;
        for (size_t i = 0; i < m; i++) {
            double d = (double)(ins[scratch[i]].t1 - ins[scratch[i]].t0);
            v[i] = log(d > 1 ? d : 1);
        }
        qsort(v, m, sizeof(*v), cmp_double);
        median_log[p] = m ? v[m / 2] : 0;
        free(v);
    }
    for (size_t i = 0; i < n; i++) {
        if (out->path_of[i] != UINT32_MAX)
            continue;
        double d = (double)(ins[i].t1 - ins[i].t0), ld = log(d > 1 ? d : 1);
        size_t best = 0;
        for (size_t p = 1; p < npaths; p++)
            if (fabs(ld - median_log[p]) < fabs(ld - median_log[best]))
                best = p;
        out->path_of[i] = (uint32_t)best;
    }
    rc = 0;
out:
    if (rc != 0) {
        fold_paths_free(out);
        out->npaths = 1;
    }
    free(s);
    free(frames);
    free(scratch);
    free(on);
    free(sbranch);
    free(median_log);
    return rc;
}

void fold_paths_free(fold_paths *p)
{
    for (size_t i = 0; p->labels && i < p->nlabels; i++)
        free(p->labels[i]);
    free(p->labels);
    free(p->path_of);
    memset(p, 0, sizeof(*p));
}
