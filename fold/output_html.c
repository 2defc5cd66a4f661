/* output_html.c: report.html, one self-contained page per fold (inline CSS and
 * SVG; no script, no external reference), from the same report as fold.json:
 * the whole run (time, MPI share, per process spread and bars, POP efficiency
 * metrics, MPI call sites), every region folded or skipped (with the reason),
 * and per folded region its plots, phases table, source bands with the source
 * lines when the files are found (sources.h; else which one is not), and the
 * model's stacks. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "html_svg.h"
#include "model.h"
#include "outdir.h"
#include "result.h"
#include "sources.h"
#include "trace.h"
#include "units.h"

#define MAX_CHART_COUNTERS 8 /* per region; fold.json has them all */
#define MAX_DOTS 800         /* folded points drawn per counter */
#define MAX_BARS 256         /* processes drawn as bars; the table has the spread */
#define SHOWN_ROWS 15        /* rows of a long list shown open; the others behind a <details> */


static void text(FILE *f, const char *s)
{
    html_escaped(f, s);
}

static void head(FILE *f, const fold_report *r)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>hcafold: ",
          f);
    text(f, r->trace);
    fprintf(f, "</title>\n<style>%s</style>\n</head>\n<body>\n<h1>hcafold report</h1>\n<p>trace <code>", html_style);
    text(f, r->trace);
    fprintf(f, "</code>: %zu location%s, %llu samples lost; %zu region%s folded, %zu skipped",
            r->nlocations, r->nlocations == 1 ? "" : "s", (unsigned long long)r->samples_lost, r->nregions,
            r->nregions == 1 ? "" : "s", r->regions_skipped);
    if (r->model) {
        fputs("; model <code>", f);
        text(f, hca_model_id(r->model->model));
        fputs("</code>", f);
    }
    fputs(". The numbers are those of fold.json beside this file.</p>\n", f);
    if (r->nthinned) {
        fputs("<p id=\"thinned\">Not written by the tracer (thinned): ", f);
        for (size_t i = 0; i < r->nthinned; i++) {
            fputs(i ? "; <code>" : "<code>", f);
            text(f, r->thinned[i].name);
            fprintf(f, "</code> %llu instance%s, %.6f s, on %zu location%s", (unsigned long long)r->thinned[i].instances,
                    r->thinned[i].instances == 1 ? "" : "s", (double)r->thinned[i].time_ns * 1e-9,
                    r->thinned[i].locations, r->thinned[i].locations == 1 ? "" : "s");
        }
        fputs(".</p>\n", f);
    }
    fputs("<nav><a href=\"#run\">whole run</a>"
          "<a href=\"#regions\">regions</a>",
          f);
    for (size_t i = 0; i < r->nregions; i++)
        fprintf(f, "<a href=\"#region-%s\">%zu</a>", r->regions[i].slug, i + 1);
    fputs("</nav>\n", f);
}

/* Closes a table after its first rows and opens a <details> element (open
 * and closed without a script) holding the others in a table of the same head. */
static void more_rows(FILE *f, size_t more, const char *what, const char *head)
{
    fprintf(f, "</table>\n<details>\n<summary>%zu more %s</summary>\n%s", more, what, head);
}

static void pop_row(FILE *f, const char *id, const char *name, double value, const char *meaning)
{
    fprintf(f, "<tr><th>%s</th><td class=\"n\" id=\"%s\" data-value=\"%.6f\">%.3f</td><td>%s</td></tr>\n", name, id,
            value, value, meaning);
}

static void spread_row(FILE *f, const char *name, const fold_spread *s)
{
    fprintf(f, "<tr><th>%s</th><td class=\"n\">%.3f</td><td class=\"n\">%.3f</td><td class=\"n\">%.3f</td></tr>\n",
            name, s->min, s->mean, s->max);
}

/* Compute and MPI time of each process as bars (the first MAX_BARS processes). */
static void rank_bars(FILE *f, const fold_run *run)
{
    size_t shown = run->nranks;
    if (shown > MAX_BARS)
        shown = MAX_BARS;
    char(*names)[32] = malloc((shown + 1) * sizeof(*names));
    const char **rows = malloc((shown + 1) * sizeof(*rows));
    if (names && rows) {
        for (size_t i = 0; i < shown; i++) {
            snprintf(names[i], sizeof(names[i]), "rank %u", run->rank[i]);
            rows[i] = names[i];
        }
        svg_write_bars(f, rows, run->compute_s, run->mpi_s, shown, run->elapsed.max, "compute", "MPI");
        if (shown < run->nranks)
            fprintf(f, "<p class=\"why\">the first %zu of %zu processes drawn</p>\n", shown, run->nranks);
    }
    free(names);
    free(rows);
}

static void run_section(FILE *f, const fold_run *run)
{
    fputs("<section id=\"run\">\n<h2>Whole run</h2>\n", f);
    if (!run->nranks) {
        fputs("<p>The trace has no process (no thread 0 of any rank).</p>\n</section>\n", f);
        return;
    }
    fprintf(f, "<p>%.3f s on %zu process%s; MPI <span id=\"mpi-share\">%.1f %%</span>, compute %.1f %% of the "
               "processes' time (a process is thread 0 of a rank, from its first to its last event; its MPI time "
               "is the sum of its outermost MPI calls, the rest is compute).</p>\n",
            run->runtime_s, run->nranks, run->nranks == 1 ? "" : "es", 100.0 * run->mpi_share,
            100.0 * (1 - run->mpi_share));
    fputs("<h3>Efficiency (POP metrics)</h3>\n<table>\n<tr><th>metric</th><th>value</th><th>meaning</th></tr>\n", f);
    pop_row(f, "pop-parallel-efficiency", "parallel efficiency", run->parallel_efficiency,
            "mean compute time / runtime: the share of the processes' time spent computing; equals load balance "
            "&times; communication efficiency");
    pop_row(f, "pop-load-balance", "load balance", run->load_balance,
            "mean / max compute time over the processes: 1 when every process computes as long as the busiest");
    pop_row(f, "pop-communication-efficiency", "communication efficiency", run->comm_efficiency,
            "max compute time / runtime: the share of the run the busiest process is not in MPI");
    fputs("</table>\n<p class=\"why\">Serialization and transfer efficiency (the two factors of communication "
          "efficiency) need a replay on an ideal network; hcafold does not compute them.</p>\n",
          f);
    fputs("<h3>Per process</h3>\n<table>\n<tr><th>seconds</th><th>min</th><th>mean</th><th>max</th></tr>\n", f);
    spread_row(f, "elapsed", &run->elapsed);
    spread_row(f, "compute", &run->compute);
    spread_row(f, "MPI", &run->mpi);
    fputs("</table>\n", f);
    rank_bars(f, run);
    double mpi_total = run->mpi.mean * (double)run->nranks;
    static const char sites_head[] = "<table>\n<tr><th>call site</th><th>calls</th><th>time (s, all processes)</th>"
                                     "<th>% of MPI time</th><th>mean per call (ms)</th></tr>\n";
    fprintf(f, "<h3>MPI call sites</h3>\n%s", sites_head);
    for (size_t i = 0; i < run->nsites; i++) {
        const fold_run_site *s = &run->sites[i];
        if (i == SHOWN_ROWS)
            more_rows(f, run->nsites - i, "call sites", sites_head);
        fputs("<tr><td><code>", f);
        text(f, s->site);
        fprintf(f, "</code></td><td class=\"n\">%llu</td><td class=\"n\">%.3f</td><td class=\"n\">%.1f</td>"
                   "<td class=\"n\">%.3f</td></tr>\n",
                (unsigned long long)s->calls, s->time_s, mpi_total > 0 ? 100.0 * s->time_s / mpi_total : 0.0,
                s->calls ? 1e3 * s->time_s / (double)s->calls : 0.0);
    }
    fputs(run->nsites > SHOWN_ROWS ? "</table>\n</details>\n</section>\n" : "</table>\n</section>\n", f);
}

static void regions_section(FILE *f, const fold_report *r)
{
    double traced = r->run.traced_s;
    static const char regions_head[] =
        "<table>\n<tr><th>#</th><th>region</th><th>kind</th><th>time (s)</th><th>% of traced time</th>"
        "<th>instances used / found</th><th>samples</th><th>folded</th></tr>\n";
    fprintf(f, "<section id=\"regions\">\n<h2>Regions</h2>\n<p class=\"why\">A region's time is summed over the "
               "locations (ranks, threads) that ran it; its share is of the traced time (every location from its "
               "first to its last event). Regions nest (an OpenMP region inside the burst between two MPI calls, "
               "a user region around both), so the shares can add up to more than 100 %%.</p>\n%s",
            regions_head);
    for (size_t i = 0; i < r->nregions; i++) {
        const fold_region_result *g = &r->regions[i];
        fprintf(f, "<tr class=\"region\"><td class=\"n\">%zu</td><td><a href=\"#region-%s\">", i + 1, g->slug);
        text(f, g->name);
        fprintf(f, "</a></td><td>%s</td><td class=\"n\">%.3f</td><td class=\"n\">%.1f</td><td class=\"n\">%zu / %zu"
                   "</td><td class=\"n\">%zu</td><td>yes: %zu phase%s%s</td></tr>\n",
                g->kind, g->total_time_s, traced > 0 ? 100.0 * g->total_time_s / traced : 0.0, g->instances_used,
                g->instances_found, g->samples_used, g->phases.nphases, g->phases.nphases == 1 ? "" : "s",
                g->warning ? " (coarse)" : "");
    }
    for (size_t i = 0; i < r->regions_skipped; i++) {
        const fold_skipped_region *k = &r->skipped[i];
        if (i == SHOWN_ROWS)
            more_rows(f, r->regions_skipped - i, "regions not folded", regions_head);
        fputs("<tr class=\"region skipped\"><td></td><td>", f);
        text(f, k->name);
        fprintf(f, "</td><td>%s</td><td class=\"n\">%.3f</td><td class=\"n\">%.1f</td><td class=\"n\">%zu / %zu</td>"
                   "<td class=\"n\">%zu</td><td class=\"why\">no: ",
                k->kind, k->total_time_s, traced > 0 ? 100.0 * k->total_time_s / traced : 0.0, k->instances_used,
                k->instances_found, k->samples_used);
        text(f, k->reason);
        fputs("</td></tr>\n", f);
    }
    fputs(r->regions_skipped > SHOWN_ROWS ? "</table>\n</details>\n</section>\n" : "</table>\n</section>\n", f);
}

/* One chart per counter: its rate (left axis, in its unit), the fitted
 * cumulative fraction and the folded points (right axis), the phases. */
static void counter_chart(FILE *f, const fold_region_result *g, const fold_counter_result *c)
{
    size_t n = c->curve.grid;
    double max = 0;
    for (size_t i = 0; c->rate && i < n; i++)
        if (c->rate[i] > max)
            max = c->rate[i];
    fold_rate_unit u = fold_rate_unit_for(c->name, c->unit, max);
    double *shown = malloc((n + 1) * sizeof(double));
    size_t stride = c->npoints > MAX_DOTS ? (c->npoints + MAX_DOTS - 1) / MAX_DOTS : 1;
    size_t ndots = c->npoints / stride;
    double *dx = malloc((ndots + 1) * sizeof(double)), *dy = malloc((ndots + 1) * sizeof(double));
    if (shown && dx && dy) {
        for (size_t i = 0; i < n; i++)
            shown[i] = c->rate ? c->rate[i] / u.scale : 0;
        for (size_t i = 0; i < ndots; i++) {
            dx[i] = c->px[i * stride];
            dy[i] = c->py[i * stride];
        }
        char title[300], left[100], rate_label[200];
        snprintf(title, sizeof(title), "%s: %zu instance%s, %zu point%s fitted", c->name, c->instances,
                 c->instances == 1 ? "" : "s", c->points_used, c->points_used == 1 ? "" : "s");
        snprintf(left, sizeof(left), "%s", u.name);
        snprintf(rate_label, sizeof(rate_label), "rate (%s)", u.name);
        svg_line lines[2] = { { c->curve.x, shown, n, rate_label, svg_color(3), 0 },
                              { c->curve.x, c->curve.cum, n, "cumulative fraction", svg_color(0), 1 } };
        svg_chart chart = { title, left, "cumulative fraction", max > 0 ? 1.05 * max / u.scale : 1, lines, 2, dx, dy,
                            ndots, g->phases.bounds, g->phases.nphases };
        svg_write_chart(f, &chart);
    }
    free(shown);
    free(dx);
    free(dy);
}

static void phases_table(FILE *f, const fold_region_result *g)
{
    fputs("<h3>Phases</h3>\n<table class=\"phases\">\n<tr><th>phase</th><th>start</th><th>end</th><th>ms per "
          "instance</th>",
          f);
    for (size_t c = 0; c < g->ncounters; c++) {
        fputs("<th>", f);
        text(f, g->counters[c].name);
        fputs("</th>", f);
    }
    fputs("</tr>\n", f);
    for (size_t p = 0; p < g->phases.nphases; p++) {
        double a = g->phases.bounds[p], b = g->phases.bounds[p + 1];
        fprintf(f, "<tr><td>P%zu</td><td class=\"n\">%.3f</td><td class=\"n\">%.3f</td><td class=\"n\">%.3f</td>",
                p + 1, a, b, (b - a) * g->mean_duration_s * 1e3);
        for (size_t c = 0; c < g->ncounters; c++) {
            char rate[64];
            fold_rate_format(g->counters[c].name, g->counters[c].unit, g->counters[c].phase_rate ? g->counters[c].phase_rate[p] : 0, rate,
                             sizeof(rate));
            fprintf(f, "<td class=\"n\">%s</td>", rate);
        }
        fputs("</tr>\n", f);
    }
    fputs("</table>\n", f);
}

/* The bands of the depth drawn: a strip, then a table with the source lines. */
static void bands_part(FILE *f, fold_sources *sources, const fold_region_result *g)
{
    size_t n = g->nbands_shown;
    if (!n) {
        fputs("<p class=\"why\">No source bands: the samples carry no call stacks.</p>\n", f);
        return;
    }
    fputs("<h3>Source bands</h3>\n", f);
    double *s = malloc(n * sizeof(double)), *e = malloc(n * sizeof(double));
    const char **label = malloc(n * sizeof(char *)), **title = malloc(n * sizeof(char *));
    size_t *colour = malloc(n * sizeof(size_t));
    char (*tips)[300] = malloc(n * sizeof(*tips));
    if (s && e && label && title && colour && tips) {
        for (size_t i = 0; i < n; i++) {
            const fold_band_result *b = &g->bands[i];
            s[i] = b->start;
            e[i] = b->end;
            label[i] = b->function;
            snprintf(tips[i], sizeof(tips[i]), "%s %s:%u, %.0f %% of the region", b->function, b->file ? b->file : "?",
                     b->line, 100.0 * b->share);
            title[i] = tips[i];
            colour[i] = i;
            for (size_t k = 0; k < i; k++) /* one colour per function */
                if (strcmp(g->bands[k].function, b->function) == 0) {
                    colour[i] = colour[k];
                    break;
                }
        }
        svg_write_bands(f, s, e, label, title, colour, n);
    }
    free(s);
    free(e);
    free(label);
    free(title);
    free(colour);
    free(tips);
    fputs("<table class=\"bands\">\n<tr><th>start</th><th>end</th><th>function</th><th>file:line</th><th>share</th>"
          "<th>purity</th><th>called from</th><th>source line</th></tr>\n",
          f);
    const char *missing = NULL;
    for (size_t i = 0; i < n; i++) {
        const fold_band_result *b = &g->bands[i];
        fprintf(f, "<tr><td class=\"n\">%.3f</td><td class=\"n\">%.3f</td><td><code>", b->start, b->end);
        text(f, b->function);
        fputs("</code></td><td><code>", f);
        text(f, b->file && *b->file ? b->file : "?");
        fprintf(f, ":%u</code></td><td class=\"n\">%.0f %%</td><td class=\"n\">%.0f %%</td><td><code>", b->line,
                100.0 * b->share, 100.0 * b->purity);
        text(f, b->caller ? b->caller : "");
        fputs("</code></td><td class=\"src\">", f);
        char line[400];
        enum fold_source_line got = fold_sources_line(sources, b->file, b->line, line, sizeof(line));
        if (got == FOLD_SOURCE_LINE_FOUND)
            text(f, line);
        else if (got == FOLD_SOURCE_NOT_FOUND)
            fputs("<span class=\"why\">file not found</span>", f);
        if (got == FOLD_SOURCE_NOT_FOUND && !missing)
            missing = b->file;
        fputs("</td></tr>\n", f);
    }
    fputs("</table>\n", f);
    if (missing) {
        fputs("<p class=\"why sources-missing\">Source lines not shown: <code>", f);
        text(f, missing);
        fputs("</code> not found from where hcafold ran (<code>hcafold --source-dir DIR</code>: where the sources "
              "are now)</p>\n",
              f);
    }
}

/* The model's stacked plots on this region, and their values per phase. */
static void model_part(FILE *f, const fold_model_report *mr, const fold_model_region *mg, const fold_region_result *g)
{
    const hca_model *m = mr->model;
    fputs("<h3>Model ", f);
    text(f, hca_model_id(m));
    fputs("</h3>\n", f);
    if (!mg->evaluated) {
        fputs("<p class=\"why\">not evaluated here", f);
        if (mg->absent) {
            fputs(": not measured in this region: ", f);
            text(f, mg->absent);
        }
        fputs("</p>\n", f);
        return;
    }
    if (mg->total.predicted && mg->measured > 0)
        fprintf(f, "<p>predicts %.4g per instance, measured %.4g (%+.1f %%)</p>\n", mg->predicted, mg->measured,
                100.0 * (mg->predicted - mg->measured) / mg->measured);
    const double *x = g->ncounters ? g->counters[0].curve.x : NULL;
    for (size_t p = 0; x && p < mg->curve.nplots && p < hca_model_nplots(m); p++) {
        const hca_model_plot *pl = hca_model_plot_at(m, p);
        if (pl->style != HCA_PLOT_STACK || !pl->nitems)
            continue;
        const char **labels = malloc(pl->nitems * sizeof(char *));
        if (!labels)
            continue;
        for (size_t k = 0; k < pl->nitems; k++)
            labels[k] = pl->items[k].label;
        char title[200], ylabel[200];
        snprintf(title, sizeof(title), "%s per %s", pl->name, pl->per);
        snprintf(ylabel, sizeof(ylabel), "%s per %s", *hca_model_unit(m) ? hca_model_unit(m) : "value", pl->per);
        svg_write_stack(f, title, ylabel, x, mg->curve.n, (const double *const *)mg->curve.plot[p], labels, pl->nitems,
                        NULL, g->phases.bounds, g->phases.nphases);
        fputs("<table>\n<tr><th>item</th>", f);
        for (size_t ph = 0; ph < mg->phases.n; ph++)
            fprintf(f, "<th>P%zu</th>", ph + 1);
        fputs("</tr>\n", f);
        for (size_t k = 0; k < pl->nitems; k++) {
            fputs("<tr><td>", f);
            text(f, labels[k]);
            fputs("</td>", f);
            for (size_t ph = 0; ph < mg->phases.n; ph++)
                fprintf(f, "<td class=\"n\">%.4g</td>", mg->phases.plot[p][k][ph]);
            fputs("</tr>\n", f);
        }
        fputs("</table>\n", f);
        free(labels);
    }
}

/* How the instances vary: their durations overall and per location (the
 * first MAX_BARS locations), with the slowest location marked. */
static void variability_part(FILE *f, const fold_region_result *g)
{
    const fold_duration_spread *d = &g->duration;
    fprintf(f, "<h3>Variability</h3>\n<p>Used instances: %.3f ms shortest, %.3f median, %.3f longest; coefficient "
               "of variation %.3f.</p>\n",
            d->min_ms, d->median_ms, d->max_ms, d->cv);
    if (g->nper_location < 2)
        return;
    size_t slowest = 0;
    for (size_t k = 1; k < g->nper_location; k++)
        if (g->per_location[k].mean_ms > g->per_location[slowest].mean_ms)
            slowest = k;
    fputs("<table class=\"variability\">\n<tr><th>rank</th><th>thread</th><th>instances</th><th>mean ms</th>"
          "<th>min ms</th><th>max ms</th></tr>\n",
          f);
    for (size_t k = 0; k < g->nper_location && k < MAX_BARS; k++) {
        const fold_location_spread *l = &g->per_location[k];
        fprintf(f, "<tr%s><td class=\"n\">%u</td><td class=\"n\">%u</td><td class=\"n\">%zu</td><td class=\"n\">"
                   "%.3f</td><td class=\"n\">%.3f</td><td class=\"n\">%.3f</td></tr>\n",
                k == slowest ? " class=\"changed\" title=\"slowest on average\"" : "", l->rank, l->thread,
                l->instances, l->mean_ms, l->min_ms, l->max_ms);
    }
    fputs("</table>\n", f);
    if (g->nper_location > MAX_BARS)
        fprintf(f, "<p class=\"why\">the first %d of %zu locations (all in fold.json)</p>\n", MAX_BARS,
                g->nper_location);
}

static void region_section(FILE *f, const fold_report *r, size_t i)
{
    const fold_region_result *g = &r->regions[i];
    fprintf(f, "<section id=\"region-%s\" class=\"region\">\n<h2>%zu. ", g->slug, i + 1);
    text(f, g->name);
    fprintf(f, " <small>[%s]</small></h2>\n<p>opened at <code>", g->kind);
    text(f, g->open_site);
    fputs("</code>, closed at <code>", f);
    text(f, g->close_site);
    fprintf(f, "</code>. %.3f s in all, %zu of %zu instances folded (%zu excluded as duration outliers", g->total_time_s,
            g->instances_used, g->instances_found, g->instances_excluded);
    if (g->groups > 1)
        fprintf(f, "; the key has %zu duration groups", g->groups);
    fprintf(f, "), mean %.3f ms, %zu samples. Files: <code>%s.*</code></p>\n", g->mean_duration_s * 1e3,
            g->samples_used, g->slug);
    if (g->warning) {
        fputs("<p class=\"warn\">warning: ", f);
        text(f, g->warning);
        fputs("</p>\n", f);
    }
    char coarse[1024];
    if (fold_coarse_counters(g, MAX_CHART_COUNTERS, coarse, sizeof coarse)) {
        fputs("<p class=\"warn\">warning: rates resolved only over ", f);
        text(f, coarse);
        fputs("</p>\n", f);
    }
    bands_part(f, r->sources, g);
    for (size_t c = 0; c < g->ncounters && c < MAX_CHART_COUNTERS; c++)
        counter_chart(f, g, &g->counters[c]);
    if (g->ncounters > MAX_CHART_COUNTERS)
        fprintf(f, "<p class=\"why\">%zu more counters in fold.json</p>\n", g->ncounters - MAX_CHART_COUNTERS);
    phases_table(f, g);
    variability_part(f, g);
    if (r->model && i < r->model->nregions)
        model_part(f, r->model, &r->model->regions[i], g);
    fputs("<p><a href=\"#regions\">back to the regions</a></p>\n</section>\n", f);
}

int fold_write_html(const fold_report *r, const char *dir, char *err, size_t errlen)
{
    char path[4096];
    FILE *f = html_open(dir, "report.html", path, sizeof(path), err, errlen);
    if (!f)
        return -1;
    head(f, r);
    run_section(f, &r->run);
    regions_section(f, r);
    for (size_t i = 0; i < r->nregions; i++)
        region_section(f, r, i);
    return html_close(f, path, err, errlen);
}
