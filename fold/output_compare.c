/* output_compare.c: the comparison of two folds (compare.h) as text on stdout
 * and as compare.html (self-contained, as report.html): the whole run's time,
 * MPI share and POP metrics before and after, and per region matched by name
 * its time, its phases paired (duration per instance and every counter's rate
 * before and after, the phase that changed most named) and its rate curves
 * overlaid. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "html_svg.h"
#include "units.h"

#define MAX_CHART_COUNTERS 8

static double percent(double before, double after)
{
    return before != 0 ? 100.0 * (after - before) / fabs(before) : 0.0;
}

/* "P2 0.40-1.00", or "P1-P2 0.00-0.25" for merged phases */
static void phase_span(FILE *out, const fold_phase_span *s)
{
    fprintf(out, "P%zu", s->first + 1);
    if (s->last > s->first)
        fprintf(out, "-P%zu", s->last + 1);
    fprintf(out, " %.2f-%.2f", s->start, s->end);
}

/* "instructions 3.00 G/s -> 1.50 G/s (-50.0 %)" for every counter of both */
static void phase_rates(FILE *out, const fold_region_pair *p, const fold_phase_pair *q, const char *sep)
{
    for (size_t c = 0; c < p->after->ncounters; c++) {
        const fold_counter_result *ka = &p->after->counters[c], *kb = fold_counter_named(p->before, ka->name);
        if (!kb || !kb->phase_rate || !ka->phase_rate)
            continue;
        double vb = fold_span_rate(p->before, kb, &q->before), va = fold_span_rate(p->after, ka, &q->after);
        char rb[64], ra[64];
        fold_rate_format(kb->name, kb->unit, vb, rb, sizeof(rb));
        fold_rate_format(ka->name, ka->unit, va, ra, sizeof(ra));
        fprintf(out, "%s%s %s -> %s (%+.1f %%)", sep, ka->name, rb, ra, percent(vb, va));
    }
}

/* "P2 0.40-1.00 -> P2 0.25-1.00: 6.014 -> 12.014 ms (+99.8 %)" */
static void pair_text(FILE *out, const fold_phase_pair *q)
{
    phase_span(out, &q->before);
    fputs(" -> ", out);
    phase_span(out, &q->after);
    fprintf(out, ": %.3f -> %.3f ms per instance (%+.1f %%)", q->before.ms, q->after.ms,
            percent(q->before.ms, q->after.ms));
}

/* "rate changed most: P2 0.40-1.00 -> P2 0.25-1.00: instructions 1000.0 MIPS -> 500.0 MIPS (-50.0 %)" */
static void rate_change_text(FILE *out, const fold_region_pair *p)
{
    const fold_phase_pair *q = &p->pairs[p->rate_changed];
    const fold_counter_result *k = fold_counter_named(p->after, p->rate_counter);
    char rb[64], ra[64];
    fold_rate_format(p->rate_counter, k ? k->unit : "", p->rate_before, rb, sizeof(rb));
    fold_rate_format(p->rate_counter, k ? k->unit : "", p->rate_after, ra, sizeof(ra));
    fputs("    rate changed most: ", out);
    phase_span(out, &q->before);
    fputs(" -> ", out);
    phase_span(out, &q->after);
    fprintf(out, ": %s %s -> %s (%+.1f %%)\n", p->rate_counter, rb, ra, percent(p->rate_before, p->rate_after));
}

void fold_write_compare_summary(const fold_report *before, const fold_report *after, const fold_comparison *c,
                                FILE *out)
{
    const fold_run *rb = &before->run, *ra = &after->run;
    fprintf(out, "compare: %s (before) -> %s (after)\n", before->trace, after->trace);
    fprintf(out, "run: %.3f s -> %.3f s (%+.1f %%), MPI %.1f %% -> %.1f %% of the processes' time\n", rb->runtime_s,
            ra->runtime_s, percent(rb->runtime_s, ra->runtime_s), 100.0 * rb->mpi_share, 100.0 * ra->mpi_share);
    fprintf(out, "  parallel efficiency %.3f -> %.3f (%+.3f), load balance %.3f -> %.3f (%+.3f), "
                 "communication efficiency %.3f -> %.3f (%+.3f)\n",
            rb->parallel_efficiency, ra->parallel_efficiency, ra->parallel_efficiency - rb->parallel_efficiency,
            rb->load_balance, ra->load_balance, ra->load_balance - rb->load_balance, rb->comm_efficiency,
            ra->comm_efficiency, ra->comm_efficiency - rb->comm_efficiency);
    for (size_t i = 0; i < c->nmatched; i++) {
        const fold_region_pair *p = &c->regions[i];
        fprintf(out, "\n%2zu. %s [%s]\n", i + 1, p->after->name, p->after->kind);
        fprintf(out, "    %.3f s -> %.3f s in all, mean %.3f ms -> %.3f ms per instance (%+.1f %%)\n",
                p->before->total_time_s, p->after->total_time_s, p->before->mean_duration_s * 1e3,
                p->after->mean_duration_s * 1e3, percent(p->before->mean_duration_s, p->after->mean_duration_s));
        if (p->changed < p->npairs) {
            fputs("    changed most: ", out);
            pair_text(out, &p->pairs[p->changed]);
            fputc('\n', out);
        }
        if (p->rate_changed < p->npairs)
            rate_change_text(out, p);
        for (size_t k = 0; k < p->npairs; k++) {
            fputs("    ", out);
            pair_text(out, &p->pairs[k]);
            phase_rates(out, p, &p->pairs[k], "; ");
            fputc('\n', out);
        }
    }
    for (size_t i = c->nmatched; i < c->nregions; i++) {
        const fold_region_pair *p = &c->regions[i];
        fprintf(out, "%sonly %s: %s\n", i == c->nmatched ? "\n" : "", p->before ? "before" : "after",
                p->before ? p->before->name : p->after->name);
    }
}

static void run_row(FILE *f, const char *name, double b, double a, const char *fmt)
{
    fprintf(f, "<tr><th>%s</th><td class=\"n\">", name);
    fprintf(f, fmt, b);
    fputs("</td><td class=\"n\">", f);
    fprintf(f, fmt, a);
    fprintf(f, "</td><td class=\"n\">%+.1f %%</td></tr>\n", percent(b, a));
}

/* A counter's rate before (grey) and after (coloured) on one chart. */
static void overlay_chart(FILE *f, const fold_region_pair *p, const fold_counter_result *kb,
                          const fold_counter_result *ka)
{
    double max = 0;
    for (size_t i = 0; i < ka->curve.grid; i++)
        max = ka->rate[i] > max ? ka->rate[i] : max;
    for (size_t i = 0; i < kb->curve.grid; i++)
        max = kb->rate[i] > max ? kb->rate[i] : max;
    fold_rate_unit u = fold_rate_unit_for(ka->name, ka->unit, max);
    double *yb = malloc((kb->curve.grid + 1) * sizeof(double)), *ya = malloc((ka->curve.grid + 1) * sizeof(double));
    if (yb && ya) {
        for (size_t i = 0; i < kb->curve.grid; i++)
            yb[i] = kb->rate[i] / u.scale;
        for (size_t i = 0; i < ka->curve.grid; i++)
            ya[i] = ka->rate[i] / u.scale;
        char title[300];
        snprintf(title, sizeof(title), "%s rate: before (grey) and after; phases after", ka->name);
        svg_line lines[2] = { { kb->curve.x, yb, kb->curve.grid, "before", "#999999", 0 },
                              { ka->curve.x, ya, ka->curve.grid, "after", svg_color(3), 0 } };
        svg_chart chart = { title, u.name, NULL, max > 0 ? 1.05 * max / u.scale : 1, lines, 2, NULL, NULL, 0,
                            p->after->phases.bounds, p->after->phases.nphases };
        svg_write_chart(f, &chart);
    }
    free(yb);
    free(ya);
}

static void region_html(FILE *f, const fold_region_pair *p, size_t index)
{
    fprintf(f, "<section id=\"region-%s\">\n<h2>%zu. ", p->after->slug, index + 1);
    html_escaped(f, p->after->name);
    fprintf(f, "</h2>\n<p>%.3f s &rarr; %.3f s in all; mean %.3f &rarr; %.3f ms per instance (%+.1f %%).</p>\n",
            p->before->total_time_s, p->after->total_time_s, p->before->mean_duration_s * 1e3,
            p->after->mean_duration_s * 1e3, percent(p->before->mean_duration_s, p->after->mean_duration_s));
    for (int part = 0; part < 2; part++) { /* the summary's lines of what changed most */
        char *text = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&text, &len);
        if (!m)
            continue;
        if (part == 0 && p->changed < p->npairs) {
            fputs("    changed most: ", m);
            pair_text(m, &p->pairs[p->changed]);
        } else if (part == 1 && p->rate_changed < p->npairs) {
            rate_change_text(m, p);
        }
        fclose(m);
        if (len) {
            fputs("<p class=\"changed\">", f);
            html_escaped(f, text + strspn(text, " "));
            fputs("</p>\n", f);
        }
        free(text);
    }
    fputs("<table>\n<tr><th>phase before &rarr; after: ms per instance</th><th>rates before &rarr; after</th></tr>\n",
          f);
    for (size_t k = 0; k < p->npairs; k++) {
        fprintf(f, "<tr%s><td>", k == p->changed ? " class=\"changed\" title=\"changed most\"" : "");
        /* the pair and its rates as in the summary, escaped (through a memory stream) */
        for (int part = 0; part < 2; part++) {
            char *text = NULL;
            size_t len = 0;
            FILE *m = open_memstream(&text, &len);
            if (!m)
                continue;
            if (part == 0)
                pair_text(m, &p->pairs[k]);
            else
                phase_rates(m, p, &p->pairs[k], "\n");
            fclose(m);
            html_escaped(f, text + strspn(text, "\n"));
            free(text);
            fputs(part == 0 ? "</td><td class=\"rates\">" : "</td></tr>\n", f);
        }
    }
    fputs("</table>\n", f);
    for (size_t c = 0, shown = 0; c < p->after->ncounters && shown < MAX_CHART_COUNTERS; c++) {
        const fold_counter_result *ka = &p->after->counters[c], *kb = fold_counter_named(p->before, ka->name);
        if (kb && kb->rate && ka->rate) {
            overlay_chart(f, p, kb, ka);
            shown++;
        }
    }
    fputs("</section>\n", f);
}

int fold_write_compare_html(const fold_report *before, const fold_report *after, const fold_comparison *c,
                            const char *dir, char *err, size_t errlen)
{
    char path[4096];
    FILE *f = html_open(dir, "compare.html", path, sizeof(path), err, errlen);
    if (!f)
        return -1;
    fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>hcafold: before and "
               "after</title>\n<style>%s</style>\n</head>\n<body>\n<h1>Before and after</h1>\n<p>before <code>",
            html_style);
    html_escaped(f, before->trace);
    fputs("</code>, after <code>", f);
    html_escaped(f, after->trace);
    fputs("</code></p>\n<section id=\"run\">\n<h2>Whole run</h2>\n<table>\n<tr><th></th><th>before</th><th>after"
          "</th><th>change</th></tr>\n",
          f);
    const fold_run *rb = &before->run, *ra = &after->run;
    run_row(f, "runtime (s)", rb->runtime_s, ra->runtime_s, "%.3f");
    run_row(f, "MPI share", rb->mpi_share, ra->mpi_share, "%.3f");
    run_row(f, "parallel efficiency", rb->parallel_efficiency, ra->parallel_efficiency, "%.3f");
    run_row(f, "load balance", rb->load_balance, ra->load_balance, "%.3f");
    run_row(f, "communication efficiency", rb->comm_efficiency, ra->comm_efficiency, "%.3f");
    fputs("</table>\n</section>\n", f);
    for (size_t i = 0; i < c->nmatched; i++)
        region_html(f, &c->regions[i], i);
    if (c->nmatched < c->nregions) {
        fputs("<section id=\"unmatched\">\n<h2>In one run only</h2>\n<ul>\n", f);
        for (size_t i = c->nmatched; i < c->nregions; i++) {
            const fold_region_pair *p = &c->regions[i];
            fprintf(f, "<li>%s: ", p->before ? "before" : "after");
            html_escaped(f, p->before ? p->before->name : p->after->name);
            fputs("</li>\n", f);
        }
        fputs("</ul>\n</section>\n", f);
    }
    return html_close(f, path, err, errlen);
}
