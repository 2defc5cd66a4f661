/* output_json.c: writes fold.json (format documented field by field in
 * docs/output.md, versioned by "version"), with cJSON. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hca_schema.h"
#include "model.h"
#include "result.h"
#include "trace.h"
#include "outdir.h"

static cJSON *numbers(const double *v, size_t n)
{
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; a && i < n; i++)
        cJSON_AddItemToArray(a, cJSON_CreateNumber(v ? v[i] : 0));
    return a;
}

static cJSON *interval(double lo, double hi)
{
    cJSON *a = cJSON_CreateArray();
    cJSON_AddItemToArray(a, cJSON_CreateNumber(lo));
    cJSON_AddItemToArray(a, cJSON_CreateNumber(hi));
    return a;
}

static cJSON *counter_json(const fold_counter_result *c, const fold_segmentation *ph)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", c->name);
    cJSON_AddStringToObject(o, "unit", c->unit ? c->unit : "");
    cJSON_AddStringToObject(o, "description", c->description ? c->description : "");
    cJSON_AddNumberToObject(o, "instances", (double)c->instances);
    cJSON_AddNumberToObject(o, "mean_total", c->mean_total);
    cJSON_AddNumberToObject(o, "mean_rate", c->rate_scale);
    cJSON_AddNumberToObject(o, "points_used", (double)c->points_used);
    cJSON_AddNumberToObject(o, "fit_rmse", c->curve.rmse);
    cJSON_AddNumberToObject(o, "sample_offset", c->curve.offset);
    cJSON_AddItemToObject(o, "cumulative", numbers(c->curve.cum, c->curve.grid));
    cJSON_AddItemToObject(o, "rate", numbers(c->rate, c->curve.grid));
    cJSON_AddItemToObject(o, "phase_rates", numbers(c->phase_rate, ph->nphases));
    if (c->rate_lo) {
        cJSON_AddItemToObject(o, "rate_lo", numbers(c->rate_lo, c->curve.grid));
        cJSON_AddItemToObject(o, "rate_hi", numbers(c->rate_hi, c->curve.grid));
        cJSON_AddItemToObject(o, "phase_rates_lo", numbers(c->phase_lo, ph->nphases));
        cJSON_AddItemToObject(o, "phase_rates_hi", numbers(c->phase_hi, ph->nphases));
        cJSON_AddNumberToObject(o, "band_width", c->band_width);
    }
    if (c->curve.resolution > 0.0)
        cJSON_AddNumberToObject(o, "resolution", c->curve.resolution);
    return o;
}

static cJSON *flags_json(const hca_model_result *res)
{
    cJSON *a = cJSON_CreateArray();
    static const struct {
        unsigned bit;
        const char *name;
    } names[] = { { HCA_EVAL_OVERLAP, "overlap" }, { HCA_EVAL_DIVZERO, "division_by_zero" },
                  { HCA_EVAL_ABSENT, "absent_event" }, { HCA_EVAL_NONFINITE, "not_finite" } };
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (res->flags & names[i].bit)
            cJSON_AddItemToArray(a, cJSON_CreateString(names[i].name));
    return a;
}

static int any_positive(const double *v, size_t n)
{
    for (size_t i = 0; v && i < n; i++)
        if (v[i] > 0)
            return 1;
    return 0;
}

/* the model evaluated on one region (docs/output.md, "model") */
static cJSON *region_model_json(const fold_model_report *mr, const fold_model_region *mg, const fold_region_result *r)
{
    const hca_model *m = mr->model;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddBoolToObject(o, "evaluated", mg->evaluated);
    if (mg->absent)
        cJSON_AddStringToObject(o, "not_measured_here", mg->absent);
    if (!mg->evaluated)
        return o;
    if (mg->total.predicted) {
        cJSON_AddNumberToObject(o, "predicted", mg->predicted);
        cJSON_AddNumberToObject(o, "measured", mg->measured);
        cJSON_AddNumberToObject(o, "error_percent", 100.0 * (mg->predicted - mg->measured) / mg->measured);
    }
    cJSON_AddNumberToObject(o, "instructions", mg->inst_total);
    cJSON *totals = cJSON_AddObjectToObject(o, "totals");
    for (size_t i = 0; i < mg->total.nnodes; i++)
        cJSON_AddNumberToObject(totals, hca_model_node_at(m, i)->path, mg->total.node[i][0]);
    cJSON_AddItemToObject(o, "flags", flags_json(&mg->curve));
    cJSON_AddNumberToObject(o, "overlap_points", (double)mg->curve.overlap_points);
    cJSON_AddNumberToObject(o, "division_by_zero_points", (double)mg->curve.divzero_points);
    size_t n = mg->curve.n;
    if (mg->inst_rate)
        cJSON_AddItemToObject(o, "instructions_rate", numbers(mg->inst_rate, n));
    if (mg->curve.predicted) {
        cJSON_AddItemToObject(o, "predicted_rate", numbers(mg->curve.predicted, n));
        cJSON_AddItemToObject(o, "measured_rate", numbers(mg->curve.actual, n));
    }
    cJSON *nodes = cJSON_AddArrayToObject(o, "nodes");
    for (size_t i = 0; i < mg->curve.nnodes; i++) {
        const hca_model_node *nd = hca_model_node_at(m, i);
        cJSON *nj = cJSON_CreateObject();
        cJSON_AddStringToObject(nj, "path", nd->path);
        cJSON_AddStringToObject(nj, "label", nd->label);
        cJSON_AddStringToObject(nj, "kind", nd->kind == HCA_NODE_SUM ? "sum" : nd->kind == HCA_NODE_REST ? "rest" : "expr");
        cJSON_AddBoolToObject(nj, "estimate", nd->est);
        cJSON_AddItemToObject(nj, "rate", numbers(mg->curve.node[i], n));
        cJSON_AddItemToObject(nj, "phase_rates", numbers(mg->phases.node[i], mg->phases.n));
        if (any_positive(mg->curve.overlap[i], n))
            cJSON_AddItemToObject(nj, "overlap_rate", numbers(mg->curve.overlap[i], n));
        cJSON_AddItemToArray(nodes, nj);
    }
    cJSON *plots = cJSON_AddArrayToObject(o, "plots");
    for (size_t p = 0; p < mg->curve.nplots; p++) {
        const hca_model_plot *pl = hca_model_plot_at(m, p);
        cJSON *pj = cJSON_CreateObject();
        cJSON_AddStringToObject(pj, "name", pl->name);
        cJSON_AddStringToObject(pj, "style", pl->style == HCA_PLOT_STACK ? "stack" : "lines");
        cJSON_AddStringToObject(pj, "per", pl->per);
        cJSON *items = cJSON_AddArrayToObject(pj, "items");
        for (size_t k = 0; k < pl->nitems; k++) {
            cJSON *ij = cJSON_CreateObject();
            cJSON_AddStringToObject(ij, "label", pl->items[k].label);
            if (pl->items[k].node >= 0) {
                const hca_model_node *nd = hca_model_node_at(m, (size_t)pl->items[k].node);
                cJSON_AddStringToObject(ij, "node", nd->path);
                cJSON_AddBoolToObject(ij, "residual", nd->kind == HCA_NODE_REST);
            }
            cJSON_AddItemToObject(ij, "values", numbers(mg->curve.plot[p][k], n));
            cJSON_AddItemToObject(ij, "phase_values", numbers(mg->phases.plot[p][k], mg->phases.n));
            cJSON_AddNumberToObject(ij, "total", mg->total.plot[p][k][0]);
            cJSON_AddItemToArray(items, ij);
        }
        cJSON_AddItemToArray(plots, pj);
    }
    if (mg->phases.predicted) {
        cJSON *ph = cJSON_AddArrayToObject(o, "phases");
        for (size_t k = 0; k < mg->phases.n; k++) {
            cJSON *pj = cJSON_CreateObject();
            cJSON_AddNumberToObject(pj, "start", r->phases.bounds[k]);
            cJSON_AddNumberToObject(pj, "end", r->phases.bounds[k + 1]);
            cJSON_AddNumberToObject(pj, "predicted_rate", mg->phases.predicted[k]);
            cJSON_AddNumberToObject(pj, "measured_rate", mg->phases.actual[k]);
            cJSON_AddItemToArray(ph, pj);
        }
    }
    return o;
}

static cJSON *agreement_json(const fold_model_agreement *a)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "n", (double)a->n);
    cJSON_AddNumberToObject(o, "mape_percent", a->mape);
    cJSON_AddNumberToObject(o, "kendall_tau", a->tau);
    return o;
}

static cJSON *model_json(const fold_model_report *mr)
{
    const hca_model *m = mr->model;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "id", hca_model_id(m));
    cJSON_AddStringToObject(o, "title", hca_model_title(m));
    cJSON_AddStringToObject(o, "unit", hca_model_unit(m));
    cJSON_AddStringToObject(o, "file", mr->path);
    cJSON_AddStringToObject(o, "from", mr->from);
    cJSON *src = cJSON_AddArrayToObject(o, "sources");
    for (size_t i = 0; i < hca_model_nsources(m); i++)
        cJSON_AddItemToArray(src, cJSON_CreateString(hca_model_source(m, i)));
    cJSON *params = cJSON_AddArrayToObject(o, "params");
    for (size_t i = 0; i < hca_model_nparams(m); i++) {
        const hca_model_param *pa = hca_model_param_at(m, i);
        cJSON *pj = cJSON_CreateObject();
        cJSON_AddStringToObject(pj, "name", pa->name);
        cJSON_AddNumberToObject(pj, "value", pa->value);
        cJSON_AddNumberToObject(pj, "default", pa->default_value);
        cJSON_AddStringToObject(pj, "unit", pa->unit);
        cJSON_AddStringToObject(pj, "doc", pa->doc);
        cJSON_AddItemToArray(params, pj);
    }
    cJSON *events = cJSON_AddArrayToObject(o, "events");
    for (size_t i = 0; i < mr->nevents; i++) {
        const fold_model_event *e = &mr->events[i];
        cJSON *ej = cJSON_CreateObject();
        cJSON_AddStringToObject(ej, "alias", e->alias);
        cJSON_AddStringToObject(ej, "spec", e->spec);
        if (e->counter)
            cJSON_AddStringToObject(ej, "counter", e->counter);
        else
            cJSON_AddNullToObject(ej, "counter");
        cJSON_AddBoolToObject(ej, "optional", e->optional);
        if (!e->counter)
            cJSON_AddStringToObject(ej, "closest_present", e->closest ? e->closest : "");
        cJSON_AddItemToArray(events, ej);
    }
    cJSON_AddNumberToObject(o, "missing_required", (double)mr->missing_required);
    cJSON_AddNumberToObject(o, "missing_optional", (double)mr->missing_optional);
    cJSON_AddBoolToObject(o, "predicts", hca_model_has_prediction(m));
    cJSON *ag = cJSON_AddObjectToObject(o, "agreement");
    cJSON_AddItemToObject(ag, "regions", agreement_json(&mr->across_regions));
    cJSON_AddItemToObject(ag, "phases", agreement_json(&mr->across_phases));
    return o;
}

static cJSON *region_json(const fold_region_result *r)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", r->name);
    cJSON_AddStringToObject(o, "kind", r->kind);
    cJSON *key = cJSON_AddObjectToObject(o, "key");
    cJSON_AddStringToObject(key, "open", r->open_site ? r->open_site : "");
    cJSON_AddStringToObject(key, "close", r->close_site ? r->close_site : "");
    cJSON *inst = cJSON_AddObjectToObject(o, "instances");
    cJSON_AddNumberToObject(inst, "found", (double)r->instances_found);
    cJSON_AddNumberToObject(inst, "used", (double)r->instances_used);
    cJSON_AddNumberToObject(inst, "excluded", (double)r->instances_excluded);
    cJSON_AddNumberToObject(inst, "groups", (double)r->groups);
    cJSON_AddStringToObject(inst, "grouped_on", r->grouped_on_cpu ? "cpu_time" : "wall_time");
    cJSON_AddNumberToObject(key, "call_sites", (double)r->call_sites);
    cJSON *path = cJSON_AddObjectToObject(o, "path");
    cJSON_AddNumberToObject(path, "index", (double)r->path);
    cJSON_AddNumberToObject(path, "of", (double)r->paths);
    cJSON_AddStringToObject(path, "functions", r->path_functions ? r->path_functions : "");
    cJSON *smp = cJSON_AddObjectToObject(o, "samples");
    cJSON_AddNumberToObject(smp, "used", (double)r->samples_used);
    cJSON_AddNumberToObject(o, "mean_duration_s", r->mean_duration_s);
    cJSON_AddNumberToObject(o, "total_time_s", r->total_time_s);
    cJSON_AddNumberToObject(o, "tool_time_s", r->tool_time_s);
    if (!isnan(r->cpu_share))
        cJSON_AddNumberToObject(o, "cpu_share", r->cpu_share);
    if (r->warning)
        cJSON_AddStringToObject(o, "warning", r->warning);
    cJSON *conf = cJSON_AddObjectToObject(o, "confidence");
    cJSON_AddStringToObject(conf, "method", r->replicates ? "bootstrap over instances" : "none");
    cJSON_AddNumberToObject(conf, "replicates", (double)r->replicates);
    cJSON_AddNumberToObject(conf, "level", r->replicates ? r->level : 0);
    cJSON *var = cJSON_AddObjectToObject(o, "variability");
    cJSON *dur = cJSON_AddObjectToObject(var, "duration_ms");
    cJSON_AddNumberToObject(dur, "min", r->duration.min_ms);
    cJSON_AddNumberToObject(dur, "median", r->duration.median_ms);
    cJSON_AddNumberToObject(dur, "max", r->duration.max_ms);
    cJSON_AddNumberToObject(dur, "cv", r->duration.cv);
    cJSON *locs = cJSON_AddArrayToObject(var, "per_location");
    for (size_t i = 0; i < r->nper_location; i++) {
        const fold_location_spread *l = &r->per_location[i];
        cJSON *lj = cJSON_CreateObject();
        cJSON_AddNumberToObject(lj, "rank", l->rank);
        cJSON_AddNumberToObject(lj, "thread", l->thread);
        cJSON_AddNumberToObject(lj, "instances", (double)l->instances);
        cJSON_AddNumberToObject(lj, "mean_ms", l->mean_ms);
        cJSON_AddNumberToObject(lj, "min_ms", l->min_ms);
        cJSON_AddNumberToObject(lj, "max_ms", l->max_ms);
        cJSON_AddItemToArray(locs, lj);
    }
    size_t grid = r->ncounters ? r->counters[0].curve.grid : 0;
    cJSON_AddItemToObject(o, "grid", numbers(r->ncounters ? r->counters[0].curve.x : NULL, grid));
    cJSON *counters = cJSON_AddArrayToObject(o, "counters");
    for (size_t i = 0; i < r->ncounters; i++)
        cJSON_AddItemToArray(counters, counter_json(&r->counters[i], &r->phases));
    cJSON *zero = cJSON_AddArrayToObject(o, "zero_counters");
    for (size_t i = 0; i < r->nzero_counters; i++)
        cJSON_AddItemToArray(zero, cJSON_CreateString(r->zero_counters[i]));
    cJSON *phases = cJSON_AddArrayToObject(o, "phases");
    for (size_t p = 0; p < r->phases.nphases; p++) {
        cJSON *ph = cJSON_CreateObject();
        cJSON_AddNumberToObject(ph, "start", r->phases.bounds[p]);
        cJSON_AddNumberToObject(ph, "end", r->phases.bounds[p + 1]);
        if (r->bound_lo) {
            cJSON_AddItemToObject(ph, "start_interval", interval(r->bound_lo[p], r->bound_hi[p]));
            cJSON_AddItemToObject(ph, "end_interval", interval(r->bound_lo[p + 1], r->bound_hi[p + 1]));
        }
        int trend = r->phases.trend && r->phases.trend[p];
        cJSON_AddStringToObject(ph, "kind", trend ? "trend" : "constant");
        cJSON *rates = cJSON_AddObjectToObject(ph, "rates");
        for (size_t c = 0; c < r->ncounters; c++)
            cJSON_AddNumberToObject(rates, r->counters[c].name,
                                    r->counters[c].phase_rate ? r->counters[c].phase_rate[p] : 0);
        if (trend) {
            cJSON *tr = cJSON_AddObjectToObject(ph, "trend_rates");
            for (size_t c = 0; c < r->ncounters; c++)
                if (r->counters[c].phase_start)
                    cJSON_AddItemToObject(tr, r->counters[c].name,
                                          interval(r->counters[c].phase_start[p], r->counters[c].phase_end[p]));
        }
        if (r->bound_lo) {
            cJSON *ri = cJSON_AddObjectToObject(ph, "rate_intervals");
            for (size_t c = 0; c < r->ncounters; c++)
                if (r->counters[c].phase_lo)
                    cJSON_AddItemToObject(ri, r->counters[c].name,
                                          interval(r->counters[c].phase_lo[p], r->counters[c].phase_hi[p]));
        }
        cJSON_AddItemToArray(phases, ph);
    }
    cJSON *bands = cJSON_AddArrayToObject(o, "source_bands");
    for (size_t i = 0; i < r->nbands; i++) {
        const fold_band_result *b = &r->bands[i];
        cJSON *bj = cJSON_CreateObject();
        cJSON_AddNumberToObject(bj, "start", b->start);
        cJSON_AddNumberToObject(bj, "end", b->end);
        cJSON_AddStringToObject(bj, "function", b->function);
        cJSON_AddStringToObject(bj, "file", b->file ? b->file : "");
        if (b->caller)
            cJSON_AddStringToObject(bj, "caller", b->caller);
        cJSON_AddNumberToObject(bj, "line", b->line);
        cJSON_AddNumberToObject(bj, "share", b->share);
        if (r->replicates)
            cJSON_AddItemToObject(bj, "share_interval", interval(b->share_lo, b->share_hi));
        cJSON_AddNumberToObject(bj, "purity", b->purity);
        cJSON_AddNumberToObject(bj, "depth", b->depth);
        cJSON_AddItemToArray(bands, bj);
    }
    cJSON *lines = cJSON_AddArrayToObject(o, "line_scatter");
    for (size_t i = 0; i < r->nlines; i++) {
        cJSON *l = cJSON_CreateArray();
        cJSON_AddItemToArray(l, cJSON_CreateNumber(r->line_x[i]));
        cJSON_AddItemToArray(l, cJSON_CreateString(r->line_fn[i] ? r->line_fn[i] : ""));
        cJSON_AddItemToArray(l, cJSON_CreateNumber(r->line_no[i]));
        cJSON_AddItemToArray(lines, l);
    }
    return o;
}

static cJSON *spread_json(const fold_spread *s)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "min", s->min);
    cJSON_AddNumberToObject(o, "mean", s->mean);
    cJSON_AddNumberToObject(o, "max", s->max);
    return o;
}

/* the whole run (docs/output.md, "run") */
static cJSON *run_json(const fold_run *run)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "processes", (double)run->nranks);
    cJSON_AddNumberToObject(o, "runtime_s", run->runtime_s);
    cJSON_AddNumberToObject(o, "traced_s", run->traced_s);
    cJSON_AddNumberToObject(o, "mpi_share", run->mpi_share);
    cJSON_AddItemToObject(o, "elapsed_s", spread_json(&run->elapsed));
    cJSON_AddItemToObject(o, "compute_s", spread_json(&run->compute));
    cJSON_AddItemToObject(o, "mpi_s", spread_json(&run->mpi));
    cJSON *pop = cJSON_AddObjectToObject(o, "pop");
    cJSON_AddNumberToObject(pop, "parallel_efficiency", run->parallel_efficiency);
    cJSON_AddNumberToObject(pop, "load_balance", run->load_balance);
    cJSON_AddNumberToObject(pop, "communication_efficiency", run->comm_efficiency);
    cJSON *ranks = cJSON_AddArrayToObject(o, "per_process");
    for (size_t i = 0; i < run->nranks; i++) {
        cJSON *rj = cJSON_CreateObject();
        cJSON_AddNumberToObject(rj, "rank", run->rank[i]);
        cJSON_AddNumberToObject(rj, "elapsed_s", run->elapsed_s[i]);
        cJSON_AddNumberToObject(rj, "compute_s", run->compute_s[i]);
        cJSON_AddNumberToObject(rj, "mpi_s", run->mpi_s[i]);
        cJSON_AddItemToArray(ranks, rj);
    }
    cJSON *sites = cJSON_AddArrayToObject(o, "mpi_sites");
    for (size_t i = 0; i < run->nsites; i++) {
        cJSON *sj = cJSON_CreateObject();
        cJSON_AddStringToObject(sj, "site", run->sites[i].site);
        cJSON_AddNumberToObject(sj, "calls", (double)run->sites[i].calls);
        cJSON_AddNumberToObject(sj, "time_s", run->sites[i].time_s);
        cJSON_AddItemToArray(sites, sj);
    }
    return o;
}

static cJSON *skipped_json(const fold_skipped_region *k)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", k->name);
    cJSON_AddStringToObject(o, "kind", k->kind);
    cJSON_AddNumberToObject(o, "instances_found", (double)k->instances_found);
    cJSON_AddNumberToObject(o, "instances_used", (double)k->instances_used);
    cJSON_AddNumberToObject(o, "samples_used", (double)k->samples_used);
    cJSON_AddNumberToObject(o, "total_time_s", k->total_time_s);
    cJSON_AddStringToObject(o, "reason", k->reason);
    return o;
}

int fold_write_json(const fold_report *r, const char *dir, char *err, size_t errlen)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "format", "hcafold");
    cJSON_AddNumberToObject(root, "version", FOLD_JSON_VERSION);
    cJSON_AddStringToObject(root, "trace", r->trace);
    cJSON_AddNumberToObject(root, "locations", (double)r->nlocations);
    cJSON_AddNumberToObject(root, "samples_lost", (double)r->samples_lost);
    cJSON *bursts = cJSON_AddObjectToObject(root, "bursts_without_values");
    cJSON_AddNumberToObject(bursts, "bursts", (double)r->bare_bursts);
    cJSON_AddNumberToObject(bursts, "of", (double)r->bursts);
    cJSON *why = cJSON_AddObjectToObject(root, "samples_lost_why");
    cJSON_AddNumberToObject(why, "in_tool", (double)r->samples_lost_why[HCA_STAT_LOST_IN_TOOL]);
    cJSON_AddNumberToObject(why, "buffer_full", (double)r->samples_lost_why[HCA_STAT_LOST_BUFFER_FULL]);
    cJSON_AddNumberToObject(why, "no_context", (double)r->samples_lost_why[HCA_STAT_LOST_NO_CONTEXT]);
    cJSON_AddNumberToObject(why, "other", (double)r->samples_lost_why[0]);
    cJSON_AddBoolToObject(root, "tool_time_removed", r->tool_time);
    cJSON *thinned = cJSON_AddArrayToObject(root, "thinned");
    for (size_t i = 0; i < r->nthinned; i++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "region", r->thinned[i].name);
        cJSON_AddNumberToObject(o, "instances", (double)r->thinned[i].instances);
        cJSON_AddNumberToObject(o, "time_s", (double)r->thinned[i].time_ns * 1e-9);
        cJSON_AddNumberToObject(o, "locations", (double)r->thinned[i].locations);
        cJSON_AddItemToArray(thinned, o);
    }
    cJSON_AddNumberToObject(root, "regions_skipped", (double)r->regions_skipped);
    cJSON_AddItemToObject(root, "run", run_json(&r->run));
    cJSON *skipped = cJSON_AddArrayToObject(root, "skipped");
    for (size_t i = 0; i < r->regions_skipped; i++)
        cJSON_AddItemToArray(skipped, skipped_json(&r->skipped[i]));
    if (r->model)
        cJSON_AddItemToObject(root, "model", model_json(r->model));
    cJSON *regions = cJSON_AddArrayToObject(root, "regions");
    for (size_t i = 0; i < r->nregions; i++) {
        cJSON *rj = region_json(&r->regions[i]);
        if (r->model)
            cJSON_AddItemToObject(rj, "model", region_model_json(r->model, &r->model->regions[i], &r->regions[i]));
        cJSON_AddItemToArray(regions, rj);
    }
    char *text = cJSON_Print(root);
    cJSON_Delete(root);
    if (!text) {
        snprintf(err, errlen, "out of memory writing fold.json");
        return -1;
    }
    char path[4096];
    snprintf(path, sizeof(path), "%s/fold.json", dir);
    FILE *f = fold_outdir_create(path);
    int bad = !f || fputs(text, f) == EOF || fputc('\n', f) == EOF;
    if (f && fclose(f) != 0)
        bad = 1;
    if (bad)
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
    cJSON_free(text);
    return bad ? -1 : 0;
}
