/* summary.c: the text summary hcafold prints on stdout: the regions by total
 * time, their phases with the rate of each counter, and the dominant source
 * lines (with their text when the file is found: sources.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model.h"
#include "result.h"
#include "sources.h"
#include "trace.h"
#include "units.h"

static const size_t summary_counters = 6; /* per phase line; fold.json has them all */
static const size_t summary_sites = 5;    /* MPI call sites listed */

static void rate(FILE *out, const fold_counter_result *c, double events_per_s)
{
    char text[64];
    fold_rate_format(c->name, c->unit, events_per_s, text, sizeof(text));
    fputs(text, out);
}

/* The model on one region: predicted against measured, and the first stack
 * plot per phase (its largest items). */
static void model_summary(const fold_model_report *mr, const fold_model_region *mg, FILE *out)
{
    const hca_model *m = mr->model;
    if (!mg->evaluated) {
        if (mg->absent)
            fprintf(out, "    model %s: not evaluated (%s not measured in this region)\n", hca_model_id(m), mg->absent);
        return;
    }
    if (mg->total.predicted && mg->measured > 0)
        fprintf(out, "    model %s: predicts %.4g %s per instance, measured %.4g (%+.1f %%)\n", hca_model_id(m),
                mg->predicted, hca_model_unit(m), mg->measured, 100.0 * (mg->predicted - mg->measured) / mg->measured);
    if (mg->curve.overlap_points)
        fprintf(out, "    model %s: branches overlap (exceed their parent) at %zu of %zu points\n", hca_model_id(m),
                mg->curve.overlap_points, mg->curve.n);
    for (size_t p = 0; p < hca_model_nplots(m); p++) {
        const hca_model_plot *pl = hca_model_plot_at(m, p);
        if (pl->style != HCA_PLOT_STACK)
            continue;
        fprintf(out, "    %s per %s:\n", pl->name, pl->per);
        for (size_t ph = 0; ph < mg->phases.n; ph++) {
            fprintf(out, "      phase %zu ", ph + 1);
            double sum = 0;
            for (size_t k = 0; k < pl->nitems; k++)
                sum += isfinite(mg->phases.plot[p][k][ph]) ? mg->phases.plot[p][k][ph] : 0;
            fprintf(out, " sum %.3f:", sum);
            /* the items by value, largest first, those above 1 % of the sum */
            char used[64] = { 0 };
            for (size_t shown = 0; shown < pl->nitems && shown < 64; shown++) {
                size_t best = pl->nitems;
                for (size_t k = 0; k < pl->nitems && k < 64; k++)
                    if (!used[k] && isfinite(mg->phases.plot[p][k][ph]) &&
                        (best == pl->nitems || mg->phases.plot[p][k][ph] > mg->phases.plot[p][best][ph]))
                        best = k;
                if (best == pl->nitems || !(mg->phases.plot[p][best][ph] > 0.01 * sum))
                    break;
                used[best] = 1;
                fprintf(out, " %s %.3f", pl->items[best].label, mg->phases.plot[p][best][ph]);
            }
            fputc('\n', out);
        }
        break;
    }
}

/* The whole run: time, MPI share, spread over the processes, POP metrics, top call sites. */
static void run_summary(const fold_run *run, FILE *out)
{
    if (!run->nranks)
        return;
    fprintf(out, "run: %.3f s, %zu process%s; MPI %.1f %%, compute %.1f %% of the processes' time\n",
            run->runtime_s, run->nranks, run->nranks == 1 ? "" : "es", 100.0 * run->mpi_share,
            100.0 * (1 - run->mpi_share));
    fprintf(out, "  per process (min/mean/max): compute %.3f/%.3f/%.3f s, MPI %.3f/%.3f/%.3f s\n", run->compute.min,
            run->compute.mean, run->compute.max, run->mpi.min, run->mpi.mean, run->mpi.max);
    fprintf(out, "  parallel efficiency %.3f = load balance %.3f x communication efficiency %.3f\n",
            run->parallel_efficiency, run->load_balance, run->comm_efficiency);
    for (size_t i = 0; i < run->nsites && i < summary_sites; i++)
        fprintf(out, "  MPI %-44s %9.3f s %5.1f %% of MPI time, %llu calls\n", run->sites[i].site,
                run->sites[i].time_s, run->mpi.mean > 0 ? 100.0 * run->sites[i].time_s / (run->mpi.mean * (double)run->nranks) : 0.0,
                (unsigned long long)run->sites[i].calls);
    if (run->nsites > summary_sites)
        fprintf(out, "  (+%zu MPI call sites in fold.json)\n", run->nsites - summary_sites);
}

/* Whether region `name` (with or without its "@file:line" call site, its
 * " (duration group ...)" or " (path ...)") is one the tracer thinned. */
static int thinned_region(const fold_report *r, const char *name)
{
    for (size_t i = 0; i < r->nthinned; i++) {
        size_t n = strlen(r->thinned[i].name);
        if (strncmp(name, r->thinned[i].name, n) == 0 && (name[n] == '\0' || name[n] == ' ' || name[n] == '@'))
            return 1;
    }
    return 0;
}

size_t fold_coarse_counters(const fold_region_result *g, size_t max_counters, char *buf, size_t size)
{
    size_t n = 0, used = 0;
    const fold_counter_result *capped = NULL; /* the named counter whose points were capped the most */
    if (size)
        buf[0] = '\0';
    for (size_t c = 0; c < g->ncounters && c < max_counters; c++) {
        const fold_counter_result *k = &g->counters[c];
        double r = k->curve.resolution;
        if (r <= FOLD_COARSE_RESOLUTION)
            continue;
        if (k->points_used < k->points_folded &&
            (!capped || k->points_folded - k->points_used > capped->points_folded - capped->points_used))
            capped = k;
        int w = snprintf(buf + used, size - used, "%s%s %.2f", n ? ", " : "", k->name, r);
        if (w < 0 || (size_t)w >= size - used) {
            buf[used] = '\0'; /* what fits */
            break;
        }
        used += (size_t)w;
        n++;
    }
    if (n == 0)
        return 0;
    char advice[96];
    fold_coarse_advice(capped, "sample faster or fold more instances", advice, sizeof advice);
    (void)snprintf(buf + used, size - used, /* truncated at the buffer's end if it must be */
                   " of the region (their points' scatter at %.1f samples per instance; 1: only the mean rate): "
                   "finer changes are averaged out; %s",
                   g->instances_used ? (double)g->samples_used / (double)g->instances_used : 0.0, advice);
    return n;
}

/* One line for the counters (the shown ones) whose curves are resolved only
 * over more than FOLD_COARSE_RESOLUTION of the region. */
static void coarse_counters(const fold_region_result *g, FILE *out)
{
    char line[1024];
    if (fold_coarse_counters(g, summary_counters, line, sizeof line))
        fprintf(out, "    warning: rates resolved only over %s\n", line);
}

void fold_write_summary(const fold_report *r, FILE *out)
{
    double total = r->run.traced_s;
    fprintf(out, "%s: %zu region%s folded", r->trace, r->nregions, r->nregions == 1 ? "" : "s");
    if (r->regions_skipped)
        fprintf(out, " (%zu skipped, listed at the end)", r->regions_skipped);
    fprintf(out, ", %zu location%s, %llu samples lost", r->nlocations, r->nlocations == 1 ? "" : "s",
            (unsigned long long)r->samples_lost);
    if (r->samples_lost) { /* why, as the tracer counted them (docs/output.md) */
        static const char *const why[FOLD_LOST_WHY] = { "for other reasons", "in the tracer", "to a full sample buffer",
                                                        "to a full calling-context table" };
        const char *sep = " (";
        for (int w = 1; w <= FOLD_LOST_WHY; w++)
            if (r->samples_lost_why[w % FOLD_LOST_WHY]) {
                fprintf(out, "%s%llu %s", sep, (unsigned long long)r->samples_lost_why[w % FOLD_LOST_WHY],
                        why[w % FOLD_LOST_WHY]);
                sep = ", ";
            }
        if (*sep == ',')
            fputc(')', out);
    }
    fputc('\n', out);
    if (r->bare_bursts) /* hcatrace: an MPI enter after a short burst without a sample, a leave before
                           one predicted short (docs/trace-format.md) */
        fprintf(out,
                "without counter values at an end (short, no sample): %llu of %llu compute bursts, "
                "their counts not folded\n",
                (unsigned long long)r->bare_bursts, (unsigned long long)r->bursts);
    for (size_t i = 0; i < r->nthinned; i++)
        fprintf(out, "not written by the tracer (thinned): %s, %llu instance%s, %.6f s, on %zu location%s\n",
                r->thinned[i].name, (unsigned long long)r->thinned[i].instances,
                r->thinned[i].instances == 1 ? "" : "s", (double)r->thinned[i].time_ns * 1e-9, r->thinned[i].locations,
                r->thinned[i].locations == 1 ? "" : "s");
    run_summary(&r->run, out);
    int counted = 0; /* the trace has counter values (in some region's instances) */
    for (size_t i = 0; i < r->nregions && !counted; i++)
        counted = r->regions[i].ncounters > 0 || r->regions[i].nzero_counters > 0;
    for (size_t i = 0; i < r->nregions; i++) {
        const fold_region_result *g = &r->regions[i];
        fprintf(out, "\n%2zu. %s [%s]\n", i + 1, g->name, g->kind);
        fprintf(out, "    %.3f s (%.1f %% of the traced time), %zu/%zu instances used (%zu excluded), "
                     "mean %.3f ms, %zu samples\n",
                g->total_time_s, total > 0 ? 100.0 * g->total_time_s / total : 0.0, g->instances_used,
                g->instances_found, g->instances_excluded, g->mean_duration_s * 1e3, g->samples_used);
        if (r->tool_time)
            fprintf(out, "    %.6f s of the tracer's own time removed (%.1f %% of the instances' traced time)\n",
                    g->tool_time_s,
                    g->total_time_s + g->tool_time_s > 0
                        ? 100.0 * g->tool_time_s / (g->total_time_s + g->tool_time_s)
                        : 0.0);
        if (!isnan(g->cpu_share))
            fprintf(out, "    CPU share %.1f %% (time on CPU / wall time, per thread)\n", 100.0 * g->cpu_share);
        if (g->warning)
            fprintf(out, "    warning: %s\n", g->warning);
        coarse_counters(g, out);
        if (counted && g->ncounters == 0 && g->nzero_counters == 0 && thinned_region(r, g->name))
            fputs("    no counter folded: its instances were thinned and written without counter values (read at a\n"
                  "    kept-back enter only when a sample was due soon; HCATRACE_THIN in docs/configuration.md)\n",
                  out);
        for (size_t p = 0; p < g->phases.nphases; p++) {
            fprintf(out, "    phase %zu  %.2f-%.2f ", p + 1, g->phases.bounds[p], g->phases.bounds[p + 1]);
            /* a model may bring dozens of counters: the first ones here, all in fold.json */
            size_t shown = g->ncounters;
            if (shown > summary_counters)
                shown = summary_counters;
            int trend = g->phases.trend && g->phases.trend[p];
            if (trend)
                fputs(" trend", out);
            for (size_t c = 0; c < shown; c++) {
                const fold_counter_result *k = &g->counters[c];
                fprintf(out, " %s ", k->name);
                if (trend && k->phase_start) {
                    rate(out, k, k->phase_start[p]);
                    fputs(" -> ", out);
                    rate(out, k, k->phase_end[p]);
                    fputs(", mean ", out);
                }
                if (k->phase_lo && k->phase_rate) {
                    char text[128];
                    fold_rate_format_interval(k->name, k->unit, k->phase_rate[p], k->phase_lo[p], k->phase_hi[p], text,
                                              sizeof(text));
                    fputs(text, out);
                } else {
                    rate(out, k, k->phase_rate ? k->phase_rate[p] : 0);
                }
            }
            if (shown < g->ncounters)
                fprintf(out, " (+%zu counters in fold.json)", g->ncounters - shown);
            fputc('\n', out);
        }
        if (g->replicates) {
            fprintf(out, "    %.0f %% intervals (bootstrap over instances, %zu replicates)", 100 * g->level,
                    g->replicates);
            for (size_t b = 1; b < g->phases.nphases && g->bound_lo; b++)
                fprintf(out, "%s %.3f (%.3f-%.3f)", b == 1 ? "; boundaries" : ",", g->phases.bounds[b],
                        g->bound_lo[b], g->bound_hi[b]);
            for (size_t c = 0; c < g->ncounters && c < summary_counters; c++)
                fprintf(out, "%s %s +-%.1f %%", c == 0 ? "; mean band half-width" : ",", g->counters[c].name,
                        100 * g->counters[c].band_width);
            fputc('\n', out);
        }
        for (size_t b = 0; b < g->nbands_shown; b++) {
            const fold_band_result *band = &g->bands[b];
            fprintf(out, "    source %.2f-%.2f  %-24s %s:%u  (%.0f %% of the region", band->start, band->end,
                    band->function, band->file ? band->file : "?", band->line, 100.0 * band->share);
            if (g->replicates)
                fprintf(out, ", %.0f-%.0f %%", 100.0 * band->share_lo, 100.0 * band->share_hi);
            if (band->caller)
                fprintf(out, ", called from %s", band->caller);
            char text[200];
            if (fold_sources_line(r->sources, band->file, band->line, text, sizeof(text)) == FOLD_SOURCE_LINE_FOUND)
                fprintf(out, ")  | %s\n", text + strspn(text, " \t"));
            else
                fputs(")\n", out);
        }
        if (r->model)
            model_summary(r->model, &r->model->regions[i], out);
    }
    if (r->regions_skipped)
        fputs("\nskipped:\n", out);
    for (size_t i = 0; i < r->regions_skipped; i++)
        fprintf(out, "    %s [%s]: %.3f s, %s\n", r->skipped[i].name, r->skipped[i].kind, r->skipped[i].total_time_s,
                r->skipped[i].reason);
    if (r->model) {
        const fold_model_report *mr = r->model;
        fprintf(out, "\nmodel %s (%s, from %s)", hca_model_id(mr->model), mr->path, mr->from);
        if (mr->missing_required || mr->missing_optional)
            fprintf(out, ": %zu required and %zu optional events missing from the trace", mr->missing_required,
                    mr->missing_optional);
        fputc('\n', out);
        if (mr->across_regions.n)
            fprintf(out, "  predicted vs measured over %zu regions: MAPE %.2f %%, Kendall's tau %.3f\n",
                    mr->across_regions.n, mr->across_regions.mape, mr->across_regions.tau);
        if (mr->across_phases.n)
            fprintf(out, "  predicted vs measured over %zu phases: MAPE %.2f %%, Kendall's tau %.3f\n",
                    mr->across_phases.n, mr->across_phases.mape, mr->across_phases.tau);
    }
}
