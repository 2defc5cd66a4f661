/* compare.c: matching two folds (compare.h). Regions are matched by their
 * name (the same user region, OpenMP region or pair of MPI call sites); a
 * run's consecutive phases of the same rates are merged first (a segmentation
 * may split a phase in one run only); then phases are paired by order when
 * both runs have as many, else each phase before with the phase after that
 * overlaps it most on normalized region time. */
#include "compare.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const fold_counter_result *fold_counter_named(const fold_region_result *g, const char *name)
{
    for (size_t c = 0; g && c < g->ncounters; c++)
        if (strcmp(g->counters[c].name, name) == 0)
            return &g->counters[c];
    return NULL;
}

static double overlap(const fold_phase_span *a, const fold_phase_span *b)
{
    double lo = a->start > b->start ? a->start : b->start, hi = a->end < b->end ? a->end : b->end;
    return hi > lo ? hi - lo : 0;
}

double fold_span_rate(const fold_region_result *g, const fold_counter_result *k, const fold_phase_span *s)
{
    double sum = 0, width = 0;
    for (size_t p = s->first; k->phase_rate && p <= s->last; p++) {
        double w = g->phases.bounds[p + 1] - g->phases.bounds[p];
        sum += k->phase_rate[p] * w;
        width += w;
    }
    return width > 0 ? sum / width : 0;
}

static int same_rates(const fold_region_result *g, const fold_phase_span *s, size_t next)
{
    for (size_t c = 0; c < g->ncounters; c++) {
        const fold_counter_result *k = &g->counters[c];
        if (!k->phase_rate)
            continue;
        double a = fold_span_rate(g, k, s), b = k->phase_rate[next], big = fabs(a) > fabs(b) ? fabs(a) : fabs(b);
        if (big > 0 && fabs(a - b) > FOLD_COMPARE_SAME_RATE * big)
            return 0;
    }
    return 1;
}

/* The region's phases, consecutive ones of the same rates merged; n of them. */
static fold_phase_span *merged_phases(const fold_region_result *g, size_t *n)
{
    fold_phase_span *s = calloc(g->phases.nphases + 1, sizeof(*s));
    *n = 0;
    for (size_t p = 0; s && p < g->phases.nphases; p++) {
        if (*n && same_rates(g, &s[*n - 1], p))
            s[*n - 1].last = p;
        else
            s[(*n)++] = (fold_phase_span){ p, p, 0, 0, 0 };
        fold_phase_span *cur = &s[*n - 1];
        cur->start = g->phases.bounds[cur->first];
        cur->end = g->phases.bounds[cur->last + 1];
        cur->ms = (cur->end - cur->start) * g->mean_duration_s * 1e3;
    }
    return s;
}

/* The pair and counter whose rate changed most by ratio, if by more than 5 %;
 * rates below 1 % of the counter's largest phase rate in the region are left
 * out (their ratios are noise). */
static void rate_change(fold_region_pair *p)
{
    double most = log1p(FOLD_COMPARE_SAME_RATE / 2); /* smaller changes are not named */
    p->rate_changed = p->npairs;
    for (size_t c = 0; c < p->after->ncounters; c++) {
        const fold_counter_result *ka = &p->after->counters[c], *kb = fold_counter_named(p->before, ka->name);
        if (!kb || !kb->phase_rate || !ka->phase_rate)
            continue;
        double top = 0;
        for (size_t k = 0; k < p->npairs; k++) {
            top = fmax(top, fold_span_rate(p->before, kb, &p->pairs[k].before));
            top = fmax(top, fold_span_rate(p->after, ka, &p->pairs[k].after));
        }
        for (size_t k = 0; k < p->npairs; k++) {
            double vb = fold_span_rate(p->before, kb, &p->pairs[k].before);
            double va = fold_span_rate(p->after, ka, &p->pairs[k].after);
            if (!(vb > 0.01 * top) || !(va > 0.01 * top))
                continue;
            double change = fabs(log(va / vb));
            if (change > most) {
                most = change;
                p->rate_changed = k;
                p->rate_counter = ka->name;
                p->rate_before = vb;
                p->rate_after = va;
            }
        }
    }
}

static int pair_phases(fold_region_pair *p)
{
    size_t nb, na;
    fold_phase_span *b = merged_phases(p->before, &nb), *a = merged_phases(p->after, &na);
    p->pairs = calloc(nb + 1, sizeof(*p->pairs));
    if (!a || !b || !p->pairs) {
        free(a);
        free(b);
        return -1;
    }
    double best_change = -1;
    p->changed = nb;
    for (size_t i = 0; i < nb; i++) {
        size_t best = i < na ? i : na - 1;
        if (na != nb) { /* the phase after that overlaps it most */
            double most = -1;
            for (size_t j = 0; j < na; j++)
                if (overlap(&b[i], &a[j]) > most) {
                    most = overlap(&b[i], &a[j]);
                    best = j;
                }
        }
        p->pairs[p->npairs++] = (fold_phase_pair){ b[i], a[best] };
        double change = fabs(a[best].ms - b[i].ms);
        if (change > best_change) {
            best_change = change;
            p->changed = i;
        }
    }
    free(a);
    free(b);
    rate_change(p);
    return 0;
}

int fold_compare(const fold_report *before, const fold_report *after, fold_comparison *out)
{
    memset(out, 0, sizeof(*out));
    out->regions = calloc(before->nregions + after->nregions + 1, sizeof(*out->regions));
    char *matched = calloc(before->nregions + 1, 1);
    if (!out->regions || !matched) {
        free(matched);
        return -1;
    }
    for (size_t j = 0; j < after->nregions; j++)
        for (size_t i = 0; i < before->nregions; i++)
            if (!matched[i] && strcmp(before->regions[i].name, after->regions[j].name) == 0) {
                matched[i] = 1;
                fold_region_pair *p = &out->regions[out->nregions++];
                *p = (fold_region_pair){ .before = &before->regions[i], .after = &after->regions[j], .ibefore = i, .iafter = j };
                if (pair_phases(p) != 0) {
                    free(matched);
                    return -1;
                }
                break;
            }
    out->nmatched = out->nregions;
    for (size_t i = 0; i < before->nregions; i++)
        if (!matched[i])
            out->regions[out->nregions++] = (fold_region_pair){ .before = &before->regions[i], .ibefore = i };
    for (size_t j = 0; j < after->nregions; j++) {
        size_t k = 0;
        while (k < out->nmatched && out->regions[k].iafter != j)
            k++;
        if (k == out->nmatched)
            out->regions[out->nregions++] = (fold_region_pair){ .after = &after->regions[j], .iafter = j };
    }
    free(matched);
    return 0;
}

void fold_comparison_free(fold_comparison *c)
{
    for (size_t i = 0; i < c->nregions; i++)
        free(c->regions[i].pairs);
    free(c->regions);
    memset(c, 0, sizeof(*c));
}
