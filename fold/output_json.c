/* output_json.c: writes fold.json (format documented field by field in
 * docs/output.md, versioned by "version"), with cJSON. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "result.h"

static cJSON *numbers(const double *v, size_t n)
{
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; a && i < n; i++)
        cJSON_AddItemToArray(a, cJSON_CreateNumber(v ? v[i] : 0));
    return a;
}

static cJSON *counter_json(const fold_counter_result *c, const fold_segmentation *ph)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", c->name);
    cJSON_AddStringToObject(o, "unit", c->unit ? c->unit : "");
    cJSON_AddNumberToObject(o, "instances", (double)c->instances);
    cJSON_AddNumberToObject(o, "mean_total", c->mean_total);
    cJSON_AddNumberToObject(o, "mean_rate", c->rate_scale);
    cJSON_AddNumberToObject(o, "points_used", (double)c->points_used);
    cJSON_AddNumberToObject(o, "fit_rmse", c->curve.rmse);
    cJSON_AddItemToObject(o, "cumulative", numbers(c->curve.cum, c->curve.grid));
    cJSON_AddItemToObject(o, "rate", numbers(c->rate, c->curve.grid));
    cJSON_AddItemToObject(o, "phase_rates", numbers(c->phase_rate, ph->nphases));
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
    cJSON *smp = cJSON_AddObjectToObject(o, "samples");
    cJSON_AddNumberToObject(smp, "used", (double)r->samples_used);
    cJSON_AddNumberToObject(o, "mean_duration_s", r->mean_duration_s);
    cJSON_AddNumberToObject(o, "total_time_s", r->total_time_s);
    if (r->warning)
        cJSON_AddStringToObject(o, "warning", r->warning);
    size_t grid = r->ncounters ? r->counters[0].curve.grid : 0;
    cJSON_AddItemToObject(o, "grid", numbers(r->ncounters ? r->counters[0].curve.x : NULL, grid));
    cJSON *counters = cJSON_AddArrayToObject(o, "counters");
    for (size_t i = 0; i < r->ncounters; i++)
        cJSON_AddItemToArray(counters, counter_json(&r->counters[i], &r->phases));
    cJSON *phases = cJSON_AddArrayToObject(o, "phases");
    for (size_t p = 0; p < r->phases.nphases; p++) {
        cJSON *ph = cJSON_CreateObject();
        cJSON_AddNumberToObject(ph, "start", r->phases.bounds[p]);
        cJSON_AddNumberToObject(ph, "end", r->phases.bounds[p + 1]);
        cJSON *rates = cJSON_AddObjectToObject(ph, "rates");
        for (size_t c = 0; c < r->ncounters; c++)
            cJSON_AddNumberToObject(rates, r->counters[c].name,
                                    r->counters[c].phase_rate ? r->counters[c].phase_rate[p] : 0);
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

int fold_write_json(const fold_report *r, const char *dir, char *err, size_t errlen)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "format", "hcafold");
    cJSON_AddNumberToObject(root, "version", FOLD_JSON_VERSION);
    cJSON_AddStringToObject(root, "trace", r->trace);
    cJSON_AddNumberToObject(root, "locations", (double)r->nlocations);
    cJSON_AddNumberToObject(root, "samples_lost", (double)r->samples_lost);
    cJSON_AddNumberToObject(root, "regions_skipped", (double)r->regions_skipped);
    cJSON *regions = cJSON_AddArrayToObject(root, "regions");
    for (size_t i = 0; i < r->nregions; i++)
        cJSON_AddItemToArray(regions, region_json(&r->regions[i]));
    char *text = cJSON_Print(root);
    cJSON_Delete(root);
    if (!text) {
        snprintf(err, errlen, "out of memory writing fold.json");
        return -1;
    }
    char path[4096];
    snprintf(path, sizeof(path), "%s/fold.json", dir);
    FILE *f = fopen(path, "w");
    int bad = !f || fputs(text, f) == EOF || fputc('\n', f) == EOF;
    if (f && fclose(f) != 0)
        bad = 1;
    if (bad)
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
    cJSON_free(text);
    return bad ? -1 : 0;
}
