/* sites.c: call-site identity across ranks (the rules are in sites.h): function
 * paths of calling contexts, and region keys whose lines (or, for bursts, the
 * helper making the call) differ only between locations merged into one. Deterministic: merges depend on the keys and the
 * locations of their instances, not on reading order. */
#include "sites.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read.h"

uint32_t *fold_site_classes(const fold_trace *t)
{
    size_t n = t->ncontexts, cap = 16;
    while (cap < 2 * n + 2)
        cap *= 2;
    uint32_t *cls = malloc((n + 1) * sizeof(*cls));
    uint32_t *order = calloc(n + 1, sizeof(*order));
    uint32_t *slots = malloc(cap * sizeof(*slots)); /* context + 1 of each class, 0 free */
    size_t maxdepth = 0;
    for (size_t i = 0; i < n; i++)
        if (t->contexts[i].depth > maxdepth)
            maxdepth = t->contexts[i].depth;
    size_t *start = calloc(maxdepth + 2, sizeof(*start));
    if (!cls || !order || !slots || !start) {
        free(cls);
        cls = NULL;
        goto out;
    }
    memset(slots, 0, cap * sizeof(*slots));
    for (size_t i = 0; i < n; i++)
        cls[i] = FOLD_NONE;
    /* by depth, then ID: parents get their class first, and the smallest ID
     * of a class is its representative */
    for (size_t i = 0; i < n; i++)
        start[t->contexts[i].depth + 1]++;
    for (size_t d = 1; d <= maxdepth + 1; d++)
        start[d] += start[d - 1];
    for (size_t i = 0; i < n; i++)
        order[start[t->contexts[i].depth]++] = (uint32_t)i;
    for (size_t k = 0; k < n; k++) {
        uint32_t c = order[k], region = t->contexts[c].region, parent = t->contexts[c].parent;
        uint32_t pcls = parent < n ? cls[parent] : FOLD_NONE;
        uint64_t h = ((uint64_t)region * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)pcls * 0xc2b2ae3d27d4eb4full);
        size_t j = (size_t)(h >> 17) & (cap - 1);
        for (;;) {
            if (!slots[j]) {
                slots[j] = c + 1;
                cls[c] = c;
                break;
            }
            uint32_t o = slots[j] - 1, op = t->contexts[o].parent;
            if (o < n && t->contexts[o].region == region && (op < n ? cls[op] : FOLD_NONE) == pcls) {
                cls[c] = o; /* inserted before c: of its depth, a lower ID */
                break;
            }
            j = (j + 1) & (cap - 1);
        }
    }
out:
    free(order);
    free(slots);
    free(start);
    return cls;
}

typedef struct {
    int kind;
    uint32_t open, close, fopen, fclose;
    uint64_t lopen, lclose; /* the helper-free function keys (rule 3; = fopen, fclose but for bursts) */
    size_t first, count;    /* its instances: ins[first ...] */
} exact_key;

/* Rule 3's function key of a burst's call: its region and the function path
 * of its caller's caller, so the helper that makes the call is left out
 * (CloverLeaf's halo exchange opens with the MPI_Isend of
 * clover_send_recv_message_left on ranks with a left neighbour, of ..._right
 * on the others). */
static uint64_t helper_free(const fold_trace *t, const uint32_t *cls, uint32_t c)
{
    if (c >= t->ncontexts)
        return c;
    uint32_t p = t->contexts[c].parent, g = p < t->ncontexts ? t->contexts[p].parent : FOLD_NONE;
    return (uint64_t)t->contexts[c].region << 32 | (g < t->ncontexts ? cls[g] : FOLD_NONE);
}

static int cmp_exact(const void *pa, const void *pb)
{
    const exact_key *a = pa, *b = pb;
    if (a->kind != b->kind)
        return a->kind < b->kind ? -1 : 1;
    if (a->lopen != b->lopen)
        return a->lopen < b->lopen ? -1 : 1;
    if (a->lclose != b->lclose)
        return a->lclose < b->lclose ? -1 : 1;
    if (a->fopen != b->fopen)
        return a->fopen < b->fopen ? -1 : 1;
    if (a->fclose != b->fclose)
        return a->fclose < b->fclose ? -1 : 1;
    if (a->open != b->open)
        return a->open < b->open ? -1 : 1;
    return a->close < b->close ? -1 : a->close > b->close;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* "name@file:l1|l2|l3" when the labels of contexts differ only in their line,
 * else the labels joined with " | ". */
static char *merged_label(const fold_trace *t, uint32_t *ctx, size_t n)
{
    qsort(ctx, n, sizeof(*ctx), cmp_u32);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (!m || ctx[m - 1] != ctx[i])
            ctx[m++] = ctx[i];
    char first[512], label[512], out[2048];
    fold_context_label(t, ctx[0], first, sizeof(first));
    const char *colon = strrchr(first, ':');
    size_t prefix = colon ? (size_t)(colon - first) + 1 : 0;
    int same = prefix > 0;
    for (size_t i = 1; i < m && same; i++) {
        fold_context_label(t, ctx[i], label, sizeof(label));
        same = strncmp(label, first, prefix) == 0 && !strchr(label + prefix, ':');
    }
    size_t len = (size_t)snprintf(out, sizeof(out), "%s", first);
    if (same) {
        uint32_t lines[64] = { 0 };
        size_t nl = 0;
        for (size_t i = 0; i < m && nl < 64; i++)
            lines[nl++] = ctx[i] < t->ncontexts && t->contexts[ctx[i]].parent < t->ncontexts
                              ? t->contexts[t->contexts[ctx[i]].parent].line
                              : 0;
        qsort(lines, nl, sizeof(*lines), cmp_u32);
        len = prefix;
        out[len] = 0;
        for (size_t i = 0; i < nl && len < sizeof(out) - 16; i++)
            if (!i || lines[i] != lines[i - 1])
                len += (size_t)snprintf(out + len, sizeof(out) - len, "%s%u", len > prefix ? "|" : "", lines[i]);
    } else {
        for (size_t i = 1; i < m && len < sizeof(out) - 16; i++) {
            fold_context_label(t, ctx[i], label, sizeof(label));
            len += (size_t)snprintf(out + len, sizeof(out) - len, " | %s", label);
        }
    }
    return strdup(out);
}

static int record_merge(const fold_trace *t, const exact_key *keys, size_t nkeys, fold_site_merges *out)
{
    fold_site_merge *p = realloc(out->merges, (out->n + 1) * sizeof(*p));
    uint32_t *ctx = malloc(nkeys * sizeof(*ctx));
    if (!p || !ctx) {
        free(ctx);
        if (p)
            out->merges = p;
        return -1;
    }
    out->merges = p;
    fold_site_merge *m = &p[out->n];
    memset(m, 0, sizeof(*m));
    m->kind = keys[0].kind;
    m->open_context = keys[0].open;
    m->close_context = keys[0].close;
    m->variants = (uint32_t)nkeys;
    for (size_t i = 0; i < nkeys; i++)
        ctx[i] = keys[i].open;
    m->open_label = merged_label(t, ctx, nkeys);
    for (size_t i = 0; i < nkeys; i++)
        ctx[i] = keys[i].close;
    m->close_label = merged_label(t, ctx, nkeys);
    free(ctx);
    out->n++;
    return m->open_label && m->close_label ? 0 : -1;
}

/* 1 when one location has instances of two of the keys k[0..nk) (owner:
 * scratch, per location). */
static int one_location_runs_two(const exact_key *k, size_t nk, fold_instance *const *ins, uint32_t *owner)
{
    for (size_t j = 0; j < nk; j++)
        for (size_t i = 0; i < k[j].count; i++)
            owner[ins[k[j].first + i]->location] = 0;
    for (size_t j = 0; j < nk; j++)
        for (size_t i = 0; i < k[j].count; i++) {
            uint32_t *w = &owner[ins[k[j].first + i]->location];
            if (*w && *w != j + 1)
                return 1;
            *w = (uint32_t)(j + 1);
        }
    return 0;
}

/* Merges the keys k[0..nk) into k[0]: 0, or -1 when memory ran out. */
static int merge_keys(const fold_trace *t, const exact_key *k, size_t nk, fold_instance *const *ins,
                      fold_site_merges *out)
{
    if (record_merge(t, k, nk, out) != 0)
        return -1;
    for (size_t j = 1; j < nk; j++)
        for (size_t i = 0; i < k[j].count; i++) {
            ins[k[j].first + i]->open_context = k[0].open;
            ins[k[j].first + i]->close_context = k[0].close;
        }
    return 0;
}

/* Rule 3: the units of keys k[0..nk) (unit[], 0..nunits) placed in bins,
 * each unit in the first bin where no location runs one of its keys
 * already; bin[] gets each key's bin. 0, or -1 when memory ran out. */
static int bin_units(const exact_key *k, size_t nk, const uint32_t *unit, size_t nunits, fold_instance *const *ins,
                     size_t nlocations, uint32_t *bin)
{
    uint8_t *runs = calloc(nunits * (nlocations + 1), 1); /* per bin, per location */
    uint8_t *mine = calloc(nlocations + 1, 1);
    int rc = runs && mine ? 0 : -1;
    size_t nbins = 0;
    for (size_t u = 0; rc == 0 && u < nunits; u++) {
        memset(mine, 0, nlocations + 1);
        for (size_t j = 0; j < nk; j++)
            if (unit[j] == u)
                for (size_t i = 0; i < k[j].count; i++)
                    mine[ins[k[j].first + i]->location] = 1;
        size_t b = 0;
        for (; b < nbins; b++) {
            size_t l = 0;
            while (l < nlocations && !(mine[l] && runs[b * (nlocations + 1) + l]))
                l++;
            if (l == nlocations)
                break;
        }
        nbins += b == nbins;
        for (size_t l = 0; l < nlocations; l++)
            runs[b * (nlocations + 1) + l] |= mine[l];
        for (size_t j = 0; j < nk; j++)
            if (unit[j] == u)
                bin[j] = (uint32_t)b;
    }
    free(runs);
    free(mine);
    return rc;
}

long fold_sites_merge(const fold_trace *t, fold_instance *const *ins, size_t n, fold_site_merges *out)
{
    long merged = 0;
    uint32_t *cls = fold_site_classes(t);
    exact_key *keys = malloc((n + 1) * sizeof(*keys));
    uint32_t *owner = malloc((t->nlocations + 1) * sizeof(*owner)); /* key (in this function key) + 1 */
    uint32_t *unit = malloc((n + 1) * sizeof(*unit)), *bin = malloc((n + 1) * sizeof(*bin));
    exact_key *group = malloc((n + 1) * sizeof(*group));
    if (!cls || !keys || !owner || !unit || !bin || !group) {
        merged = -1;
        goto out;
    }
    size_t nkeys = 0;
    for (size_t a = 0; a < n;) {
        size_t b = a + 1;
        while (b < n && ins[b]->kind == ins[a]->kind && ins[b]->open_context == ins[a]->open_context &&
               ins[b]->close_context == ins[a]->close_context)
            b++;
        const fold_instance *in = ins[a];
        uint32_t o = in->open_context, c = in->close_context;
        exact_key *k = &keys[nkeys++];
        *k = (exact_key){ in->kind, o, c, o < t->ncontexts ? cls[o] : o, c < t->ncontexts ? cls[c] : c, 0, 0,
                          a, b - a };
        k->lopen = in->kind == FOLD_KIND_BURST ? helper_free(t, cls, o) : k->fopen;
        k->lclose = in->kind == FOLD_KIND_BURST ? helper_free(t, cls, c) : k->fclose;
        a = b;
    }
    qsort(keys, nkeys, sizeof(*keys), cmp_exact);
    /* per helper-free key: rule 2 in each of its function keys, then rule 3
     * over what that left */
    for (size_t la = 0; la < nkeys;) {
        size_t lb = la + 1;
        while (lb < nkeys && keys[lb].kind == keys[la].kind && keys[lb].lopen == keys[la].lopen &&
               keys[lb].lclose == keys[la].lclose)
            lb++;
        size_t nunits = 0;
        for (size_t a = la; a < lb;) {
            size_t b = a + 1;
            while (b < lb && keys[b].fopen == keys[a].fopen && keys[b].fclose == keys[a].fclose)
                b++;
            int one = b - a > 1 && !one_location_runs_two(keys + a, b - a, ins, owner);
            for (size_t k = a; k < b; k++) /* a unit: the merged keys, or each key */
                unit[k] = one ? (uint32_t)nunits : (uint32_t)(nunits + k - a);
            nunits += one ? 1 : b - a;
            a = b;
        }
        if (keys[la].kind == FOLD_KIND_BURST && nunits > 1 &&
            bin_units(keys + la, lb - la, unit + la, nunits, ins, t->nlocations, bin + la) != 0) {
            merged = -1;
            goto out;
        }
        if (keys[la].kind != FOLD_KIND_BURST || nunits < 2)
            for (size_t k = la; k < lb; k++)
                bin[k] = unit[k];
        /* each bin of two or more keys is merged into its first key */
        for (size_t k = la; k < lb; k++) {
            size_t m = 0;
            for (size_t j = la; j < lb; j++)
                if (bin[j] == k - la)
                    group[m++] = keys[j];
            if (m > 1) {
                if (merge_keys(t, group, m, ins, out) != 0) {
                    merged = -1;
                    goto out;
                }
                merged++;
            }
        }
        la = lb;
    }
out:
    free(cls);
    free(keys);
    free(owner);
    free(unit);
    free(bin);
    free(group);
    return merged;
}

const fold_site_merge *fold_site_merge_find(const fold_site_merges *m, int kind, uint32_t open_context,
                                            uint32_t close_context)
{
    for (size_t i = 0; m && i < m->n; i++)
        if (m->merges[i].kind == kind && m->merges[i].open_context == open_context &&
            m->merges[i].close_context == close_context)
            return &m->merges[i];
    return NULL;
}

void fold_site_merges_free(fold_site_merges *m)
{
    for (size_t i = 0; i < m->n; i++) {
        free(m->merges[i].open_label);
        free(m->merges[i].close_label);
    }
    free(m->merges);
    m->merges = NULL;
    m->n = 0;
}
