/* sites.c: call-site identity across ranks (the rule is in sites.h): function
 * paths of calling contexts, and region keys whose lines differ only between
 * locations merged into one. Deterministic: merges depend on the keys and the
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
    size_t first, count; /* its instances: ins[first ...] */
} exact_key;

static int cmp_exact(const void *pa, const void *pb)
{
    const exact_key *a = pa, *b = pb;
    if (a->kind != b->kind)
        return a->kind < b->kind ? -1 : 1;
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

long fold_sites_merge(const fold_trace *t, fold_instance *const *ins, size_t n, fold_site_merges *out)
{
    long merged = 0;
    uint32_t *cls = fold_site_classes(t);
    exact_key *keys = malloc((n + 1) * sizeof(*keys));
    uint32_t *owner = malloc((t->nlocations + 1) * sizeof(*owner)); /* key (in this function key) + 1 */
    if (!cls || !keys || !owner) {
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
        keys[nkeys++] = (exact_key){ in->kind, o, c, o < t->ncontexts ? cls[o] : o, c < t->ncontexts ? cls[c] : c,
                                     a, b - a };
        a = b;
    }
    qsort(keys, nkeys, sizeof(*keys), cmp_exact);
    for (size_t a = 0; a < nkeys;) {
        size_t b = a + 1;
        while (b < nkeys && keys[b].kind == keys[a].kind && keys[b].fopen == keys[a].fopen &&
               keys[b].fclose == keys[a].fclose)
            b++;
        if (b - a > 1) {
            /* does one location run two of these keys? */
            int conflict = 0;
            for (size_t k = a; k < b; k++)
                for (size_t i = 0; i < keys[k].count; i++)
                    owner[ins[keys[k].first + i]->location] = 0;
            for (size_t k = a; k < b && !conflict; k++)
                for (size_t i = 0; i < keys[k].count && !conflict; i++) {
                    uint32_t *w = &owner[ins[keys[k].first + i]->location];
                    if (*w && *w != k - a + 1)
                        conflict = 1;
                    *w = (uint32_t)(k - a + 1);
                }
            if (!conflict) {
                if (record_merge(t, keys + a, b - a, out) != 0) {
                    merged = -1;
                    goto out;
                }
                for (size_t k = a + 1; k < b; k++)
                    for (size_t i = 0; i < keys[k].count; i++) {
                        ins[keys[k].first + i]->open_context = keys[a].open;
                        ins[keys[k].first + i]->close_context = keys[a].close;
                    }
                merged++;
            }
        }
        a = b;
    }
out:
    free(cls);
    free(keys);
    free(owner);
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
