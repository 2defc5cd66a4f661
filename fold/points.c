/* points.c: folding one region's instances onto normalized time (points.h).
 * Counter sets rotate between instances, so each instance contributes to the
 * clouds of exactly the counters it measured at entry, at exit and at every
 * sample inside; the rate factor of a counter sums totals and durations
 * over those same instances.
 *
 * What is folded is the duration-weighted mean over instances of A_i(x) =
 * C_i(x) / (d_i R): the increase since entry in absolute units over the
 * instance's duration d_i and the rate factor R (sum of totals / sum of
 * durations). It ends at 1, and its slope times R is the duration-weighted
 * mean of the instances' rates at x, at most one CPU per thread for
 * task-clock. Samples on a wall-clock schedule fall in each instance in
 * proportion to its duration, so a fit of per-sample points estimates that
 * mean. Cumulative fractions of each instance's own total, F_i (the first y),
 * weighed a thread that got a small share of a CPU like one that had a whole
 * one: task-clock rates above one CPU when instances were preempted at
 * different places (docs/benchmarks.md, "Sampling clock against truth").
 * A_i itself (the second y) = rho_i F_i, rho_i = the instance's rate / R,
 * carries the instance's rate: instances of one shape at different rates
 * scatter by (rho_i - 1) F_i, up to the rate noise itself at x = 1, and the
 * fit of synthetic truths was 1.5-4 times less precise. The y used is
 * A_i(x) - (rho_i - 1) h(x) = F_i + (rho_i - 1)(F_i - h(x)) for a curve h
 * the same for all instances: the term subtracted has a duration-weighted
 * mean of exactly 0 (sum of d_i rho_i = sum of d_i, by the definition of R),
 * so the mean folded is the same for any h, while an instance's rate moves
 * its points only by (rho_i - 1)(F_i - h). h is a pilot of the mean of the
 * F_i (binned means, pilot_build), so that is (rho_i - 1) times the
 * instance's departure from the mean shape, 0 at both ends; h(x) = x left
 * 1.2-1.5 times the error of fractions on the same truths, the pilot none
 * (docs/benchmarks.md, "Folding estimator"). Points come in instance order
 * (location, time), then sample order: deterministic. */
#include "points.h"

#include "hca_schema.h"
#include "read.h"

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

/* A pilot of the mean of the instances' fractions F over x: the mean x and
 * mean F of the points in each of PILOT_BINS bins of x that has points,
 * between (0, 0) and (1, 1), joined by straight lines. */
#define PILOT_BINS 50
typedef struct {
    double x[PILOT_BINS + 2], y[PILOT_BINS + 2];
    size_t n;
} pilot_curve;

static void pilot_build(const double *x, const double *F, size_t n, pilot_curve *pc)
{
    double sx[PILOT_BINS] = { 0 }, sy[PILOT_BINS] = { 0 };
    size_t cnt[PILOT_BINS] = { 0 };
    for (size_t k = 0; k < n; k++) {
        double u = x[k] < 0.0 ? 0.0 : (x[k] > 1.0 ? 1.0 : x[k]);
        size_t b = (size_t)(u * PILOT_BINS);
        b = b < PILOT_BINS ? b : PILOT_BINS - 1;
        sx[b] += u;
        sy[b] += F[k];
        cnt[b]++;
    }
    pc->n = 0;
    pc->x[pc->n] = 0.0;
    pc->y[pc->n++] = 0.0;
    for (size_t b = 0; b < PILOT_BINS; b++)
        if (cnt[b]) {
            pc->x[pc->n] = sx[b] / (double)cnt[b];
            pc->y[pc->n++] = sy[b] / (double)cnt[b];
        }
    pc->x[pc->n] = 1.0;
    pc->y[pc->n++] = 1.0;
}

static double pilot_at(const pilot_curve *pc, double x)
{
    size_t k = 1;
    while (k < pc->n - 1 && pc->x[k] < x)
        k++;
    double x0 = pc->x[k - 1], x1 = pc->x[k];
    if (x <= x0 || x1 <= x0)
        return pc->y[k - 1];
    if (x >= x1)
        return pc->y[k];
    return pc->y[k - 1] + (pc->y[k] - pc->y[k - 1]) * (x - x0) / (x1 - x0);
}

/* A point's y from its instance's fraction F (of its own total) at x and
 * its rate over the counter's rate factor, rho: F + (rho - 1)(F - h(x)), h
 * the pilot (above). */
static double fold_y(double x, double F, double rho, const pilot_curve *pc)
{
    return F + (rho - 1.0) * (F - pilot_at(pc, x));
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
    /* per counter, parallel to used and excl: each point's instance's rho (x) and its fraction F (y) */
    vec2 *frac = calloc(nc ? nc : 1, sizeof(*frac)), *exfrac = calloc(nc ? nc : 1, sizeof(*exfrac));
    size_t *listed = calloc(nc ? nc : 1, sizeof(*listed)); /* per counter: instances in its list */
    if (!out->counters || !used || !excl || !frac || !exfrac || !listed)
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
    out->sexpiries = malloc((ns ? ns : 1) * sizeof(*out->sexpiries));
    if (!out->sx || !out->scontext || !out->sinstance || !out->sexpiries)
        goto nomem;
    const char *clock = fold_trace_property(t, HCA_PROP_SAMPLING_CLOCK);
    uint64_t period = clock && strcmp(clock, "wall") == 0 ? t->sample_period_ns : 0;
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
                out->sx[out->ns] = fold_instance_x(in, &sm[s]);
                out->scontext[out->ns] = sm[s].context;
                out->sinstance[out->ns] = out->used_instances - 1;
                out->sexpiries[out->ns] = fold_sample_expiries(sm[s].t, s ? sm[s - 1].t : in->t0, period);
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
            /* the fraction F of the instance's own total and its rate over
             * the factor, rho; y is made of both below (fold_y) */
            double rho = total / (d * 1e-9 * mean_rate);
            vec2 *v = is_used ? &used[c] : &excl[c], *f = is_used ? &frac[c] : &exfrac[c];
            for (size_t s = 0; s < in->nsamples; s++) {
                double F = total > 0 ? (sm[s].values[c] - in->c0[c]) / total : 0.0;
                if (push(v, fold_instance_x(in, &sm[s]), F) || push(f, rho, F))
                    goto nomem;
            }
        }
    }
    out->mean_duration_ns = out->used_instances ? dur_sum / (double)out->used_instances : 0.0;
    for (size_t c = 0; c < nc; c++) {
        fold_counter_points *cp = &out->counters[c];
        cp->x = used[c].x;
        cp->y = used[c].y;
        cp->n = used[c].n;
        pilot_curve pc;
        pilot_build(cp->x, frac[c].y, cp->n, &pc);
        for (size_t k = 0; k < cp->n; k++)
            cp->y[k] = fold_y(cp->x[k], frac[c].y[k], frac[c].x[k], &pc);
        for (size_t k = 0; k < excl[c].n; k++)
            excl[c].y[k] = fold_y(excl[c].x[k], exfrac[c].y[k], exfrac[c].x[k], &pc);
        cp->fy = frac[c].y;
        free(frac[c].x);
        free(exfrac[c].x);
        free(exfrac[c].y);
        cp->ex_x = excl[c].x;
        cp->ex_y = excl[c].y;
        cp->nex = excl[c].n;
        if (cp->first) /* listed[c] == instances: the same instances as the first pass */
            cp->first[listed[c]] = cp->n;
    }
    free(used);
    free(excl);
    free(frac);
    free(exfrac);
    free(listed);
    return 0;
nomem:
    for (size_t c = 0; used && excl && frac && exfrac && c < nc; c++) {
        free(frac[c].x);
        free(frac[c].y);
        free(exfrac[c].x);
        free(exfrac[c].y);
        free(used[c].x);
        free(used[c].y);
        free(excl[c].x);
        free(excl[c].y);
    }
    free(used);
    free(excl);
    free(frac);
    free(exfrac);
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
    free(p->sexpiries);
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
