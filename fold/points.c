/* points.c: folding one region's instances onto normalized time (points.h).
 * Counter sets rotate between instances, so each instance contributes to the
 * clouds of exactly the counters it measured at entry, at exit and at every
 * sample inside; the rate factor of a counter sums totals and durations over
 * those same instances. Points come in instance order (location, time), then
 * sample order: deterministic. */
#include "points.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    double *x, *y;
    size_t n, cap;
} vec2;

/* Appends the instance (its used index, first point, total, duration) to the
 * counter's list, growing it in doublings (the capacity is the first power of
 * two >= instances). */
static int push_instance(fold_counter_points *cp, size_t used_index, size_t first, double total, double dur)
{
    size_t k = cp->instances;
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

int fold_points_build(const fold_trace *t, const fold_region *r, fold_points *out)
{
    memset(out, 0, sizeof(*out));
    size_t nc = t->ncounters;
    out->ncounters = nc;
    out->counters = calloc(nc ? nc : 1, sizeof(*out->counters));
    vec2 *used = calloc(nc ? nc : 1, sizeof(*used)), *excl = calloc(nc ? nc : 1, sizeof(*excl));
    if (!out->counters || !used || !excl)
        goto nomem;
    double dur_sum = 0.0;
    size_t ns = 0;
    for (size_t i = 0; i < r->ninstances; i++)
        if (r->instances[i].excluded == FOLD_USED && r->instances[i].t1 > r->instances[i].t0)
            ns += r->instances[i].nsamples;
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
            if (!measured_throughout(L, in, c)) {
                if (is_used && !(isnan(in->c0[c]) && isnan(in->c1[c])))
                    cp->dropped++; /* measured in part only */
                continue;
            }
            double total = in->c1[c] - in->c0[c];
            if (total < 0) {
                if (is_used)
                    cp->dropped++;
                continue;
            }
            if (is_used) {
                if (push_instance(cp, out->used_instances - 1, used[c].n, total, d) != 0)
                    goto nomem;
                cp->instances++;
                cp->sum_total += total;
                cp->sum_duration_ns += d;
            }
            if (total == 0) {
                if (is_used)
                    cp->zero_total++;
                continue;
            }
            vec2 *v = is_used ? &used[c] : &excl[c];
            for (size_t s = 0; s < in->nsamples; s++)
                if (push(v, (double)(sm[s].t - in->t0) / d, (sm[s].values[c] - in->c0[c]) / total))
                    goto nomem;
        }
    }
    out->mean_duration_ns = out->used_instances ? dur_sum / (double)out->used_instances : 0.0;
    for (size_t c = 0; c < nc; c++) {
        fold_counter_points *cp = &out->counters[c];
        cp->x = used[c].x;
        cp->y = used[c].y;
        cp->n = used[c].n;
        cp->ex_x = excl[c].x;
        cp->ex_y = excl[c].y;
        cp->nex = excl[c].n;
        if (cp->first)
            cp->first[cp->instances] = cp->n;
    }
    free(used);
    free(excl);
    return 0;
nomem:
    for (size_t c = 0; used && excl && c < nc; c++) {
        free(used[c].x);
        free(used[c].y);
        free(excl[c].x);
        free(excl[c].y);
    }
    free(used);
    free(excl);
    fold_points_free(out);
    return -1;
}

void fold_points_free(fold_points *p)
{
    for (size_t c = 0; p->counters && c < p->ncounters; c++) {
        free(p->counters[c].x);
        free(p->counters[c].y);
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

double fold_points_mean_total(const fold_counter_points *c)
{
    return c->instances ? c->sum_total / (double)c->instances : NAN;
}
