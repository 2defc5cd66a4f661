/* model.c: applies a model to a folded report (see model.h): picks the model
 * (--model, or the one the tracer recorded in the trace's properties), maps
 * its events to the trace's counters (the tracer's own mapping when the model
 * is the traced one, else by name), reports what is missing with the closest
 * names present, evaluates it per region on the rate curves, the phase rates
 * and the totals, and measures how well its predictions agree with the
 * measurements across regions and phases. */
#include "model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "hca_model_path.h"
#include "hca_names.h"
#include "hca_schema.h"
#include "read.h"
#include "result.h"


static const char *strip_pmu(const char *s)
{
    const char *c = strstr(s, "::");
    return c ? c + 2 : s;
}

/* ---- statistics ------------------------------------------------------------ */

static int sign(double v) { return (v > 0) - (v < 0); }

double fold_kendall_tau_b(const double *x, const double *y, size_t n)
{
    if (n < 2)
        return NAN;
    double concordant = 0, discordant = 0, tie_x = 0, tie_y = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++) {
            int dx = sign(x[i] - x[j]), dy = sign(y[i] - y[j]);
            if (dx == 0)
                tie_x++;
            if (dy == 0)
                tie_y++;
            if (dx * dy > 0)
                concordant++;
            else if (dx * dy < 0)
                discordant++;
        }
    double pairs = (double)n * (double)(n - 1) / 2;
    double den = sqrt((pairs - tie_x) * (pairs - tie_y));
    return den > 0 ? (concordant - discordant) / den : NAN;
}

fold_model_agreement fold_model_agreement_of(const double *predicted, const double *measured, const double *norm,
                                             size_t n)
{
    fold_model_agreement a = { 0, NAN, NAN };
    double *x = malloc((n + 1) * sizeof(double)), *y = malloc((n + 1) * sizeof(double));
    if (!x || !y) {
        free(x);
        free(y);
        return a;
    }
    double sum = 0;
    for (size_t i = 0; i < n; i++) {
        double p = predicted[i], m = measured[i], d = norm ? norm[i] : 1.0;
        if (!isfinite(p) || !isfinite(m) || !(m > 0) || !(d > 0) || !isfinite(d))
            continue;
        sum += fabs(p - m) / m;
        x[a.n] = p / d;
        y[a.n] = m / d;
        a.n++;
    }
    if (a.n)
        a.mape = 100.0 * sum / (double)a.n;
    a.tau = fold_kendall_tau_b(x, y, a.n);
    free(x);
    free(y);
    return a;
}

/* ---- choosing and loading --------------------------------------------------- */

static int load(const fold_trace *t, const fold_model_options *o, fold_model_report *mr, char *err, size_t errlen)
{
    const char *traced = fold_trace_property(t, HCA_PROP_MODEL);
    const char *text = fold_trace_property(t, HCA_PROP_MODEL_TEXT);
    char path[4096], why[1024];
    if (o->name) {
        /* auto: the model for the PMU the trace was recorded on, as the tracer's auto */
        int is_auto = strcmp(o->name, "auto") == 0;
        const char *pmu = is_auto ? fold_trace_property(t, HCA_PROP_PMU) : NULL;
        if (!(pmu && hca_model_for_pmu(pmu, path, sizeof(path)) == 0) &&
            hca_model_find(is_auto ? "generic" : o->name, path, sizeof(path), why, sizeof(why)) != 0) {
            snprintf(err, errlen, "--model%s: %s", is_auto ? " auto" : "", why);
            return FOLD_MODEL_BAD;
        }
        mr->model = hca_model_load(path, why, sizeof(why));
        mr->from = "--model";
    } else if (text && *text) {
        snprintf(path, sizeof(path), "trace");
        char fname[300];
        snprintf(fname, sizeof(fname), "%.200s (recorded in the trace)", traced ? traced : "model");
        mr->model = hca_model_parse(text, fname, why, sizeof(why));
        mr->from = "trace";
    } else if (traced && *traced) {
        if (hca_model_find(traced, path, sizeof(path), why, sizeof(why)) != 0) {
            snprintf(err, errlen, "the trace's model: %s", why);
            return FOLD_MODEL_BAD;
        }
        mr->model = hca_model_load(path, why, sizeof(why));
        mr->from = "trace";
    } else {
        return FOLD_MODEL_NONE;
    }
    if (!mr->model) {
        snprintf(err, errlen, "%s", why);
        return FOLD_MODEL_BAD;
    }
    mr->path = strdup(path);
    for (size_t i = 0; i < o->nset; i++)
        if (hca_model_set_param_arg(mr->model, o->set[i], why, sizeof(why)) != 0) {
            snprintf(err, errlen, "--set %s", why);
            return FOLD_MODEL_BAD;
        }
    return mr->path ? FOLD_MODEL_OK : FOLD_MODEL_NOMEM;
}

/* ---- matching events to counters -------------------------------------------- */

/* The tracer's own "ALIAS=member;..." for the alias, copied into buf. */
static const char *traced_member(const char *map, const char *alias, char *buf, size_t len)
{
    size_t al = strlen(alias);
    for (const char *p = map; p && *p;) {
        size_t n = strcspn(p, ";");
        if (n > al && strncmp(p, alias, al) == 0 && p[al] == '=') {
            snprintf(buf, len, "%.*s", (int)(n - al - 1), p + al + 1);
            return buf;
        }
        p += n + (p[n] == ';');
    }
    return NULL;
}

static void closest_counters(const fold_trace *t, const char *want, char *out, size_t len)
{
    const char **names = malloc((t->ncounters + 1) * sizeof(char *));
    out[0] = 0;
    if (!names)
        return;
    for (size_t j = 0; j < t->ncounters; j++)
        names[j] = t->counters[j].name;
    hca_closest_names(want, names, t->ncounters, 3, strip_pmu, hca_is_perf_member, out, len);
    free(names);
}

static int match_events(const fold_trace *t, fold_model_report *mr)
{
    const hca_model *m = mr->model;
    const char *traced = fold_trace_property(t, HCA_PROP_MODEL);
    const char *map = traced && strcmp(traced, hca_model_id(m)) == 0 ? fold_trace_property(t, HCA_PROP_MODEL_EVENTS) : NULL;
    mr->events = calloc(hca_model_nevents(m) + 1, sizeof(fold_model_event));
    if (!mr->events)
        return -1;
    mr->nevents = hca_model_nevents(m);
    for (size_t i = 0; i < mr->nevents; i++) {
        const hca_model_event *ev = hca_model_event_at(m, i);
        fold_model_event *fe = &mr->events[i];
        char spec[128], buf[256];
        if (ev->raw)
            snprintf(spec, sizeof(spec), "r%llx", (unsigned long long)ev->config);
        else
            snprintf(spec, sizeof(spec), "%s", ev->spec);
        fe->alias = ev->name;
        fe->optional = ev->optional;
        fe->spec = strdup(spec);
        if (!fe->spec)
            return -1;
        const char *member = map ? traced_member(map, ev->name, buf, sizeof(buf)) : NULL;
        for (size_t j = 0; j < t->ncounters && !fe->counter; j++) {
            const char *name = t->counters[j].name;
            if (member ? strcmp(name, member) == 0 : strcasecmp(strip_pmu(name), strip_pmu(spec)) == 0)
                fe->counter = name;
        }
        if (fe->counter)
            continue;
        if (fe->optional)
            mr->missing_optional++;
        else
            mr->missing_required++;
        closest_counters(t, strip_pmu(spec), buf, sizeof(buf));
        fe->closest = strdup(buf);
        if (!fe->closest)
            return -1;
    }
    return 0;
}

/* ---- evaluation --------------------------------------------------------------- */

static const fold_counter_result *region_counter(const fold_region_result *g, const char *name)
{
    for (size_t c = 0; name && c < g->ncounters; c++)
        if (strcmp(g->counters[c].name, name) == 0)
            return &g->counters[c];
    return NULL;
}

static int is_zero_counter(const fold_region_result *g, const char *name)
{
    for (size_t c = 0; name && c < g->nzero_counters; c++)
        if (strcmp(g->zero_counters[c], name) == 0)
            return 1;
    return 0;
}

static int eval_region(const fold_model_report *mr, const fold_region_result *g, fold_model_region *out)
{
    const hca_model *m = mr->model;
    size_t n = mr->nevents;
    const double **curve = calloc(n + 1, sizeof(double *));
    const double **phase = calloc(n + 1, sizeof(double *));
    const double **total = calloc(n + 1, sizeof(double *));
    /* a counter measured but always 0 in this region has no curve: its rate is 0 */
    size_t grid = 0, nph = g->phases.nphases;
    for (size_t c = 0; c < g->ncounters && !grid; c++)
        grid = g->counters[c].curve.grid;
    double *zeros = calloc((grid > nph ? grid : nph) + 1, sizeof(double));
    char absent[1024] = "";
    size_t used = 0;
    int rc = -1, required_absent = 0;
    out->predicted = out->measured = out->inst_total = NAN;
    if (!curve || !phase || !total || !zeros)
        goto done;
    for (size_t i = 0; i < n; i++) {
        const fold_counter_result *c = region_counter(g, mr->events[i].counter);
        if (c && c->rate && c->phase_rate) {
            curve[i] = c->rate;
            phase[i] = c->phase_rate;
            total[i] = &c->mean_total;
            continue;
        }
        if (is_zero_counter(g, mr->events[i].counter)) {
            curve[i] = phase[i] = total[i] = zeros;
            continue;
        }
        required_absent += !mr->events[i].optional;
        if (mr->events[i].counter && used < sizeof(absent)) { /* in the trace, not in this region */
            int w = snprintf(absent + used, sizeof(absent) - used, "%s%s", used ? ", " : "", mr->events[i].alias);
            if (w > 0)
                used += (size_t)w;
        }
    }
    if (absent[0] && !(out->absent = strdup(absent)))
        goto done;
    rc = 0;
    if (required_absent || !grid)
        goto done;
    if (hca_model_eval(m, curve, grid, &out->curve) != 0 ||
        hca_model_eval(m, phase, g->phases.nphases, &out->phases) != 0 || hca_model_eval(m, total, 1, &out->total) != 0) {
        rc = -1;
        goto done;
    }
    out->evaluated = 1;
    int inst = hca_model_instructions(m);
    const fold_counter_result *ic =
        inst >= 0 ? region_counter(g, mr->events[inst].counter) : region_counter(g, "instructions");
    if (ic) {
        out->inst_rate = ic->rate;
        out->inst_phase_rate = ic->phase_rate;
        out->inst_total = ic->mean_total;
    }
    if (out->total.predicted) {
        out->predicted = out->total.predicted[0];
        out->measured = out->total.actual[0];
    }
done:
    free(zeros);
    free(curve);
    free(phase);
    free(total);
    return rc;
}

static void agreement(const fold_report *r, fold_model_report *mr)
{
    size_t nphases = 0;
    for (size_t i = 0; i < r->nregions; i++)
        nphases += mr->regions[i].evaluated && mr->regions[i].phases.predicted ? r->regions[i].phases.nphases : 0;
    double *buf = calloc(3 * (r->nregions + nphases) + 6, sizeof(double));
    if (!buf) {
        mr->across_regions = mr->across_phases = (fold_model_agreement){ 0, NAN, NAN };
        return;
    }
    double *p = buf, *m = p + r->nregions + 1, *d = m + r->nregions + 1;
    size_t k = 0;
    for (size_t i = 0; i < r->nregions; i++) {
        const fold_model_region *mg = &mr->regions[i];
        if (!mg->evaluated || !mg->total.predicted)
            continue;
        p[k] = mg->predicted;
        m[k] = mg->measured;
        d[k++] = isfinite(mg->inst_total) ? mg->inst_total : 1.0;
    }
    mr->across_regions = fold_model_agreement_of(p, m, d, k);
    p = d + r->nregions + 1;
    m = p + nphases + 1;
    d = m + nphases + 1;
    k = 0;
    for (size_t i = 0; i < r->nregions; i++) {
        const fold_model_region *mg = &mr->regions[i];
        if (!mg->evaluated || !mg->phases.predicted)
            continue;
        for (size_t ph = 0; ph < r->regions[i].phases.nphases; ph++) {
            p[k] = mg->phases.predicted[ph];
            m[k] = mg->phases.actual[ph];
            d[k++] = mg->inst_phase_rate ? mg->inst_phase_rate[ph] : 1.0;
        }
    }
    mr->across_phases = fold_model_agreement_of(p, m, d, k);
    free(buf);
}

int fold_model_apply(fold_report *r, const fold_model_options *o, char *err, size_t errlen)
{
    const fold_trace *t = r->owner;
    if (err && errlen)
        err[0] = 0;
    if (!t)
        return FOLD_MODEL_NONE;
    fold_model_report *mr = calloc(1, sizeof(*mr));
    if (!mr)
        return FOLD_MODEL_NOMEM;
    int rc = load(t, o, mr, err, errlen);
    if (rc != FOLD_MODEL_OK) {
        fold_model_report_free(mr);
        free(mr);
        return rc;
    }
    if (match_events(t, mr) != 0)
        goto nomem;
    mr->regions = calloc(r->nregions + 1, sizeof(fold_model_region));
    if (!mr->regions)
        goto nomem;
    mr->nregions = r->nregions;
    for (size_t i = 0; i < r->nregions; i++)
        if (eval_region(mr, &r->regions[i], &mr->regions[i]) != 0)
            goto nomem;
    agreement(r, mr);
    r->model = mr;
    if (mr->missing_required) {
        size_t used = (size_t)snprintf(err, errlen, "model %s: %zu of %zu events missing from the trace, not evaluated: ",
                                       hca_model_id(mr->model), mr->missing_required, mr->nevents);
        size_t k = 0;
        for (size_t i = 0; i < mr->nevents && used < errlen; i++) {
            const fold_model_event *e = &mr->events[i];
            if (e->counter || e->optional)
                continue;
            /* the closest names present when few are missing; fold.json has them all */
            int few = mr->missing_required <= 3;
            int w = snprintf(err + used, errlen - used, "%s%s (%s)%s%s%s", k++ ? "; " : "", e->alias, e->spec,
                             few && e->closest && *e->closest ? " [closest present: " : "",
                             few && e->closest ? e->closest : "", few && e->closest && *e->closest ? "]" : "");
            if (w > 0)
                used += (size_t)w;
        }
        return FOLD_MODEL_MISSING;
    }
    return FOLD_MODEL_OK;
nomem:
    fold_model_report_free(mr);
    free(mr);
    snprintf(err, errlen, "out of memory evaluating the model");
    return FOLD_MODEL_NOMEM;
}

void fold_model_report_free(fold_model_report *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->nregions; i++) {
        hca_model_result_free(&m->regions[i].curve);
        hca_model_result_free(&m->regions[i].phases);
        hca_model_result_free(&m->regions[i].total);
        free(m->regions[i].absent);
    }
    free(m->regions);
    for (size_t i = 0; i < m->nevents; i++) {
        free(m->events[i].spec);
        free(m->events[i].closest);
    }
    free(m->events);
    free(m->path);
    hca_model_free(m->model);
    memset(m, 0, sizeof(*m));
}
