/* points.c: folding one region's instances onto normalized time (points.h).
 * Counter sets rotate between instances, so each instance contributes to the
 * clouds of exactly the counters it measured at entry, at exit and at every
 * sample inside; the rate factor of a counter sums totals and durations
 * over those same instances. A point's y is the counter's increase since
 * entry in absolute units, divided by the instance's duration and the rate
 * factor. Samples on a wall-clock schedule fall in each instance in
 * proportion to its duration, so a fit of the points is the
 * duration-weighted mean of these curves, which ends at 1: its slope times
 * the rate factor is the duration-weighted mean of the instances' rates at
 * x, at most one CPU per thread for task-clock. Cumulative fractions of
 * each instance's own total (the former y) weighed a thread that got a small
 * share of a CPU like one that had a whole one, which gave task-clock rates
 * above one CPU when instances were preempted at different places
 * (docs/benchmarks.md, "Sampling clock against truth"). Points come in
 * instance order (location, time), then sample order: deterministic. */
#include "points.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    double *x, *y;
    size_t n, cap;
} vec2;

/* Sets entry k (the instances listed so far) of the counter's list: the
 * instance's used index, first point, total, duration; growing the list in
 * doublings (the capacity is the first power of two >= instances). */
static int push_instance(fold_counter_points *cp, size_t k, size_t used_index, size_t first, double total,
                         double dur)
{
    if ((k & (k - 1)) == 0) { /* 0, 1, 2, 4, ...: full */
        size_t cap = k ? 2 * k : 1;
        size_t *ni = realloc(cp->inst, cap * sizeof(*ni));
        if (!ni)
            return -1;
        cp->inst = ni;
        size_t *nf = realloc(cp->first, (cap + 1) * sizeof(*nf));
        if (!nf)
            return -1;
        cp->first = nf;
        double *nt = realloc(cp->total, cap * sizeof(*nt));
        if (!nt)
            return -1;
        cp->total = nt;
        double *nd = realloc(cp->duration_ns, cap * sizeof(*nd));
        if (!nd)
            return -1;
        cp->duration_ns = nd;
    }
    cp->inst[k] = used_index;
    cp->first[k] = first;
    cp->total[k] = total;
    cp->duration_ns[k] = dur;
    return 0;
}

static int push(vec2 *v, double x, double y)
{
    if (v->n == v->cap) {
        size_t cap = v->cap ? v->cap * 2 : 64;
        double *nx = realloc(v->x, cap * sizeof(double));
        if (!nx)
            return -1;
        v->x = nx;
        double *ny = realloc(v->y, cap * sizeof(double));
        if (!ny)
            return -1;
        v->y = ny;
        v->cap = cap;
    }
    v->x[v->n] = x;
    v->y[v->n] = y;
    v->n++;
    return 0;
}

/* The counter was measured at entry, exit and every sample of the instance. */
static int measured_throughout(const fold_location *L, const fold_instance *in, size_t c)
{
    if (!in->c0 || !in->c1 || isnan(in->c0[c]) || isnan(in->c1[c]))
        return 0;
    for (size_t s = 0; s < in->nsamples; s++) {
        const fold_sample *sm = &L->samples[in->first_sample + s];
        if (!sm->values || isnan(sm->values[c]))
            return 0;
    }
    return 1;
}

/* The counter's total of an instance that measured it throughout, or -1
 * (not measured throughout, or went backwards). */
static double instance_total(const fold_location *L, const fold_instance *in, size_t c)
{
    if (!in->c0 || !in->c1 || !measured_throughout(L, in, c))
        return -1.0;
    double total = in->c1[c] - in->c0[c];
    return total < 0 ? -1.0 : total;
}

int fold_points_build(const fold_trace *t, const fold_region *r, fold_points *out)
{
    memset(out, 0, sizeof(*out));
    size_t nc = t->ncounters;
    out->ncounters = nc;
    out->counters = calloc(nc ? nc : 1, sizeof(*out->counters));
    vec2 *used = calloc(nc ? nc : 1, sizeof(*used)), *excl = calloc(nc ? nc : 1, sizeof(*excl));
    vec2 *frac = calloc(nc ? nc : 1, sizeof(*frac)); /* x unused */
    size_t *listed = calloc(nc ? nc : 1, sizeof(*listed)); /* per counter: instances in its list */
    if (!out->counters || !used || !excl || !frac || !listed)
        goto nomem;
    double dur_sum = 0.0;
    size_t ns = 0;
    for (size_t i = 0; i < r->ninstances; i++)
        if (r->instances[i].excluded == FOLD_USED && r->instances[i].t1 > r->instances[i].t0)
            ns += r->instances[i].nsamples;
    /* first the rate factor of each counter, which scales every y */
    for (size_t i = 0; i < r->ninstances; i++) {
        const fold_instance *in = &r->instances[i];
        if (in->t1 <= in->t0 || in->excluded != FOLD_USED)
            continue;
        for (size_t c = 0; c < nc && in->c0 && in->c1; c++) {
            fold_counter_points *cp = &out->counters[c];
            double total = instance_total(&t->locations[in->location], in, c);
            if (total < 0) {
                if (!(isnan(in->c0[c]) && isnan(in->c1[c])))
                    cp->dropped++; /* measured in part only, or went backwards */
                continue;
            }
            cp->instances++;
            cp->sum_total += total;
            cp->sum_duration_ns += (double)(in->t1 - in->t0);
            cp->zero_total += total == 0;
        }
    }
    out->sx = malloc((ns ? ns : 1) * sizeof(*out->sx));
    out->scontext = malloc((ns ? ns : 1) * sizeof(*out->scontext));
    out->sinstance = malloc((ns ? ns : 1) * sizeof(*out->sinstance));
    if (!out->sx || !out->scontext || !out->sinstance)
        goto nomem;
    for (size_t i = 0; i < r->ninstances; i++) {
        const fold_instance *in = &r->instances[i];
        if (in->t1 <= in->t0)
            continue;
        const fold_location *L = &t->locations[in->location];
        const fold_sample *sm = L->samples + in->first_sample;
        double d = (double)(in->t1 - in->t0);
        int is_used = in->excluded == FOLD_USED;
        if (is_used) {
            out->used_instances++;
            dur_sum += d;
            for (size_t s = 0; s < in->nsamples; s++) {
                out->sx[out->ns] = (double)(sm[s].t - in->t0) / d;
                out->scontext[out->ns] = sm[s].context;
                out->sinstance[out->ns] = out->used_instances - 1;
                out->ns++;
            }
            out->used_samples += in->nsamples;
        }
        for (size_t c = 0; c < nc && in->c0 && in->c1; c++) {
            fold_counter_points *cp = &out->counters[c];
            double mean_rate = fold_points_rate_factor(cp);
            double total = instance_total(L, in, c);
            if (!(mean_rate > 0) || total < 0)
                continue; /* nothing counted in any used instance, or not measured here */
            if (is_used && push_instance(cp, listed[c]++, out->used_instances - 1, used[c].n, total, d) != 0)
                goto nomem;
            /* y: the increase over (duration x rate factor): the duration-weighted mean at 1 is 1 */
            double scale = 1.0 / (d * 1e-9 * mean_rate);
            vec2 *v = is_used ? &used[c] : &excl[c];
            for (size_t s = 0; s < in->nsamples; s++)
                if (push(v, (double)(sm[s].t - in->t0) / d, (sm[s].values[c] - in->c0[c]) * scale) ||
                    (is_used && push(&frac[c], 0.0, total > 0 ? (sm[s].values[c] - in->c0[c]) / total : 0.0)))
                    goto nomem;
        }
    }
    out->mean_duration_ns = out->used_instances ? dur_sum / (double)out->used_instances : 0.0;
    for (size_t c = 0; c < nc; c++) {
        fold_counter_points *cp = &out->counters[c];
        cp->x = used[c].x;
        cp->y = used[c].y;
        cp->n = used[c].n;
        cp->fy = frac[c].y;
        free(frac[c].x);
        cp->ex_x = excl[c].x;
        cp->ex_y = excl[c].y;
        cp->nex = excl[c].n;
        if (cp->first) /* listed[c] == instances: the same instances as the first pass */
            cp->first[listed[c]] = cp->n;
    }
    free(used);
    free(excl);
    free(frac);
    free(listed);
    return 0;
nomem:
    for (size_t c = 0; used && excl && frac && c < nc; c++) {
        free(frac[c].x);
        free(frac[c].y);
        free(used[c].x);
        free(used[c].y);
        free(excl[c].x);
        free(excl[c].y);
    }
    free(used);
    free(excl);
    free(frac);
    free(listed);
    fold_points_free(out);
    return -1;
}

void fold_points_free(fold_points *p)
{
    for (size_t c = 0; p->counters && c < p->ncounters; c++) {
        free(p->counters[c].x);
        free(p->counters[c].y);
        free(p->counters[c].fy);
        free(p->counters[c].ex_x);
        free(p->counters[c].ex_y);
        free(p->counters[c].inst);
        free(p->counters[c].first);
        free(p->counters[c].total);
        free(p->counters[c].duration_ns);
    }
    free(p->counters);
    free(p->sx);
    free(p->scontext);
    free(p->sinstance);
    memset(p, 0, sizeof(*p));
}

fold_cloud fold_points_cloud(const fold_points *p, size_t counter)
{
    fold_cloud c = { NULL, NULL, 0 };
    if (counter < p->ncounters) {
        c.x = p->counters[counter].x;
        c.y = p->counters[counter].y;
        c.n = p->counters[counter].n;
    }
    return c;
}

double fold_points_rate_factor(const fold_counter_points *c)
{
    return c->sum_duration_ns > 0 ? c->sum_total / (c->sum_duration_ns * 1e-9) : 0.0;
}

double fold_points_share(const fold_counter_points *c)
{
    return c->sum_duration_ns > 0 ? c->sum_total / c->sum_duration_ns : NAN;
}

double fold_points_mean_total(const fold_counter_points *c)
{
    return c->instances ? c->sum_total / (double)c->instances : NAN;
}
