/* output_csv.c: CSV files of a fold, per region: <slug>.curves.csv (the fitted
 * cumulative fraction and rate of every counter on the grid), <slug>.points.csv
 * (the folded points, used and excluded), <slug>.lines.csv (the line-number
 * scatter) and <slug>.bands.csv (source bands). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "result.h"
#include "outdir.h"

static FILE *open_file(const char *dir, const char *slug, const char *suffix, char *err, size_t errlen)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s.%s.csv", dir, slug, suffix);
    FILE *f = fold_outdir_create(path);
    if (!f)
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
    return f;
}

static int close_file(FILE *f, const char *what, char *err, size_t errlen)
{
    if (ferror(f) | (fclose(f) != 0)) {
        snprintf(err, errlen, "writing %s failed: %s", what, strerror(errno));
        return -1;
    }
    return 0;
}

/* A CSV field: quoted when it holds a separator or a quote. */
static void field(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static int region_csv(const fold_region_result *r, const char *dir, char *err, size_t errlen)
{
    FILE *f = open_file(dir, r->slug, "curves", err, errlen);
    if (!f)
        return -1;
    fputs("x", f);
    for (size_t c = 0; c < r->ncounters; c++) {
        fputs(",cumulative_", f);
        field(f, r->counters[c].name);
        fputs(",rate_", f);
        field(f, r->counters[c].name);
        if (r->counters[c].rate_lo) {
            fputs(",rate_lo_", f);
            field(f, r->counters[c].name);
            fputs(",rate_hi_", f);
            field(f, r->counters[c].name);
        }
    }
    fputc('\n', f);
    size_t grid = r->ncounters ? r->counters[0].curve.grid : 0;
    for (size_t i = 0; i < grid; i++) {
        fprintf(f, "%.6f", r->counters[0].curve.x[i]);
        for (size_t c = 0; c < r->ncounters; c++) {
            fprintf(f, ",%.9g,%.9g", r->counters[c].curve.cum[i], r->counters[c].rate[i]);
            if (r->counters[c].rate_lo)
                fprintf(f, ",%.9g,%.9g", r->counters[c].rate_lo[i], r->counters[c].rate_hi[i]);
        }
        fputc('\n', f);
    }
    if (close_file(f, "curves.csv", err, errlen))
        return -1;

    if (!(f = open_file(dir, r->slug, "phases", err, errlen)))
        return -1;
    fputs("phase,kind,start,end,start_lo,start_hi,end_lo,end_hi", f);
    for (size_t c = 0; c < r->ncounters; c++) {
        static const char *const cols[] = { "rate_", "rate_lo_", "rate_hi_", "rate_start_", "rate_end_" };
        for (size_t k = 0; k < sizeof(cols) / sizeof(cols[0]); k++) {
            fprintf(f, ",%s", cols[k]);
            field(f, r->counters[c].name);
        }
    }
    fputc('\n', f);
    for (size_t p = 0; p < r->phases.nphases; p++) {
        const double *b = r->phases.bounds;
        const double *lo = r->bound_lo ? r->bound_lo : b, *hi = r->bound_hi ? r->bound_hi : b;
        fprintf(f, "%zu,%s,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f", p + 1,
                r->phases.trend && r->phases.trend[p] ? "trend" : "constant", b[p], b[p + 1], lo[p], hi[p],
                lo[p + 1], hi[p + 1]);
        for (size_t c = 0; c < r->ncounters; c++) {
            const fold_counter_result *k = &r->counters[c];
            double rate = k->phase_rate ? k->phase_rate[p] : 0;
            fprintf(f, ",%.9g,%.9g,%.9g,%.9g,%.9g", rate, k->phase_lo ? k->phase_lo[p] : rate,
                    k->phase_hi ? k->phase_hi[p] : rate, k->phase_start ? k->phase_start[p] : rate,
                    k->phase_end ? k->phase_end[p] : rate);
        }
        fputc('\n', f);
    }
    if (close_file(f, "phases.csv", err, errlen))
        return -1;

    if (!(f = open_file(dir, r->slug, "points", err, errlen)))
        return -1;
    fputs("counter,x,y,used\n", f);
    for (size_t c = 0; c < r->ncounters; c++) {
        const fold_counter_result *k = &r->counters[c];
        for (size_t i = 0; i < k->npoints; i++) {
            field(f, k->name);
            fprintf(f, ",%.6f,%.6f,1\n", k->px[i], k->py[i]);
        }
        for (size_t i = 0; i < k->nexcluded; i++) {
            field(f, k->name);
            fprintf(f, ",%.6f,%.6f,0\n", k->ex[i], k->ey[i]);
        }
    }
    if (close_file(f, "points.csv", err, errlen))
        return -1;

    if (!(f = open_file(dir, r->slug, "lines", err, errlen)))
        return -1;
    fputs("x,function,line\n", f);
    for (size_t i = 0; i < r->nlines; i++) {
        fprintf(f, "%.6f,", r->line_x[i]);
        field(f, r->line_fn[i] ? r->line_fn[i] : "");
        fprintf(f, ",%u\n", r->line_no[i]);
    }
    if (close_file(f, "lines.csv", err, errlen))
        return -1;

    if (!(f = open_file(dir, r->slug, "bands", err, errlen)))
        return -1;
    fputs("start,end,share,function,file,line,depth,purity,share_lo,share_hi\n", f);
    for (size_t i = 0; i < r->nbands; i++) {
        const fold_band_result *b = &r->bands[i];
        fprintf(f, "%.4f,%.4f,%.4f,", b->start, b->end, b->share);
        field(f, b->function);
        fputc(',', f);
        field(f, b->file ? b->file : "");
        fprintf(f, ",%u,%u,%.3f,%.4f,%.4f\n", b->line, b->depth, b->purity, b->share_lo, b->share_hi);
    }
    return close_file(f, "bands.csv", err, errlen);
}

int fold_write_csv(const fold_report *r, const char *dir, char *err, size_t errlen)
{
    for (size_t i = 0; i < r->nregions; i++)
        if (region_csv(&r->regions[i], dir, err, errlen) != 0)
            return -1;
    return 0;
}
