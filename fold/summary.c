/* summary.c: the text summary hcafold prints on stdout: the regions by total
 * time, their phases with the rate of each counter, and the dominant source
 * lines. */
#include <stdio.h>

#include "result.h"

static void rate(FILE *out, double events_per_s)
{
    if (events_per_s >= 1e9)
        fprintf(out, "%.2f G/s", events_per_s / 1e9);
    else if (events_per_s >= 1e6)
        fprintf(out, "%.1f M/s", events_per_s / 1e6);
    else if (events_per_s >= 1e3)
        fprintf(out, "%.1f k/s", events_per_s / 1e3);
    else
        fprintf(out, "%.1f /s", events_per_s);
}

void fold_write_summary(const fold_report *r, FILE *out)
{
    double total = 0;
    for (size_t i = 0; i < r->nregions; i++)
        total += r->regions[i].total_time_s;
    fprintf(out, "%s: %zu region%s folded", r->trace, r->nregions, r->nregions == 1 ? "" : "s");
    if (r->regions_skipped)
        fprintf(out, " (%zu skipped: too few instances or samples)", r->regions_skipped);
    fprintf(out, ", %zu location%s, %llu samples lost\n", r->nlocations, r->nlocations == 1 ? "" : "s",
            (unsigned long long)r->samples_lost);
    for (size_t i = 0; i < r->nregions; i++) {
        const fold_region_result *g = &r->regions[i];
        fprintf(out, "\n%2zu. %s [%s]\n", i + 1, g->name, g->kind);
        fprintf(out, "    %.3f s (%.1f %% of folded time), %zu/%zu instances used (%zu excluded), "
                     "mean %.3f ms, %zu samples\n",
                g->total_time_s, total > 0 ? 100.0 * g->total_time_s / total : 0.0, g->instances_used,
                g->instances_found, g->instances_excluded, g->mean_duration_s * 1e3, g->samples_used);
        if (g->warning)
            fprintf(out, "    warning: %s\n", g->warning);
        for (size_t p = 0; p < g->phases.nphases; p++) {
            fprintf(out, "    phase %zu  %.2f-%.2f ", p + 1, g->phases.bounds[p], g->phases.bounds[p + 1]);
            for (size_t c = 0; c < g->ncounters; c++) {
                fprintf(out, " %s ", g->counters[c].name);
                rate(out, g->counters[c].phase_rate ? g->counters[c].phase_rate[p] : 0);
            }
            fputc('\n', out);
        }
        for (size_t b = 0; b < g->nbands_shown; b++) {
            const fold_band_result *band = &g->bands[b];
            fprintf(out, "    source %.2f-%.2f  %-24s %s:%u  (%.0f %% of the region", band->start, band->end,
                    band->function, band->file ? band->file : "?", band->line, 100.0 * band->share);
            if (band->caller)
                fprintf(out, ", called from %s", band->caller);
            fputs(")\n", out);
        }
    }
}
