/* output_plot.c: one gnuplot script per region (<slug>.gp, reading the CSV
 * files beside it) and its rendering to <slug>.png and <slug>.svg: the source
 * bands on top; below, per counter, the folded samples (used and excluded),
 * the fitted cumulative curve, the rate on the second axis and the phase
 * boundaries. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "gnuplot.h"
#include "result.h"
#include "units.h"

#define MAX_PANELS 4

/* The base name of the file all shown bands are in, or NULL. */
static const char *common_file(const fold_region_result *r)
{
    const char *file = NULL;
    for (size_t i = 0; i < r->nbands_shown; i++) {
        const char *f = r->bands[i].file;
        if (!f || !*f || (file && strcmp(f, file) != 0))
            return NULL;
        file = f;
    }
    const char *base = file ? strrchr(file, '/') : NULL;
    return base ? base + 1 : file;
}

static const char *const band_colors[] = { "#8dd3c7", "#ffffb3", "#bebada", "#fb8072", "#80b1d3",
                                           "#fdb462", "#b3de69", "#fccde5", "#d9d9d9", "#bc80bd" };

/* Colour of a function: the same function gets the same colour in a plot. */
static const char *color_of(const fold_region_result *r, size_t band)
{
    size_t distinct = 0;
    for (size_t i = 0; i < band; i++) {
        int seen = 0;
        for (size_t j = 0; j < i && !seen; j++)
            seen = strcmp(r->bands[j].function, r->bands[i].function) == 0;
        distinct += !seen;
    }
    for (size_t j = 0; j < band; j++)
        if (strcmp(r->bands[j].function, r->bands[band].function) == 0)
            return color_of(r, j);
    return band_colors[distinct % (sizeof(band_colors) / sizeof(band_colors[0]))];
}

#define MAX_KEYED 16 /* functions named in a plot's key */

static void body(FILE *f, const fold_region_result *r)
{
    size_t panels = r->ncounters;
    if (panels > MAX_PANELS)
        panels = MAX_PANELS;
    size_t known_lines = 0; /* samples whose leaf frame has a line number */
    for (size_t i = 0; i < r->nlines; i++)
        known_lines += r->line_no[i] > 0;
    double band_h = 0.14, top = 0.06, lines_h = known_lines ? 0.12 : 0, free_h = 1.0 - band_h - top - lines_h;
    double panel_h = panels ? free_h / (double)panels : free_h;
    fputs("set multiplot\nset lmargin 12\nset rmargin 12\nset xrange [0:1]\n", f);
    /* source bands */
    fprintf(f, "set origin 0,%.4f\nset size 1,%.4f\n", 1.0 - top - band_h, band_h + top);
    /* band labels: the name where it fits (about 120 characters across the
     * plot at this font), else a key number "[n]" explained under the title */
    const char *keyed[MAX_KEYED];
    size_t nkeyed = 0;
    char text[512];
    for (size_t i = 0; i < r->nbands_shown; i++) {
        const fold_band_result *b = &r->bands[i];
        fprintf(f, "set object %zu rect from %.4f,0.05 to %.4f,0.95 fc rgb '%s' fs solid 0.8 border lc rgb '#666666'\n",
                i + 1, b->start, b->end, color_of(r, i));
        double room = (b->end - b->start) * 120;
        if (room < 3) /* too narrow even for a number: see bands.csv */
            continue;
        const char *base = b->file ? strrchr(b->file, '/') : NULL;
        base = base ? base + 1 : (b->file ? b->file : "");
        if ((double)strlen(b->function) <= room) {
            if (b->end - b->start >= 0.12)
                snprintf(text, sizeof(text), "%s\n%s:%u", b->function, base, b->line);
            else
                snprintf(text, sizeof(text), "%s", b->function);
        } else {
            size_t k = 0;
            while (k < nkeyed && strcmp(keyed[k], b->function) != 0)
                k++;
            if (k == nkeyed && nkeyed < MAX_KEYED)
                keyed[nkeyed++] = b->function;
            if (k == MAX_KEYED)
                continue;
            snprintf(text, sizeof(text), "[%zu]", k + 1);
        }
        fprintf(f, "set label %zu ", i + 1);
        fold_gp_dquoted(f, text);
        fprintf(f, " at %.4f,0.5 center font ',8'\n", (b->start + b->end) / 2);
    }
    char title[4096];
    size_t len = (size_t)snprintf(title, sizeof(title), "%s  (%zu of %zu instances, %zu samples, mean %.3g ms)",
                                  r->name, r->instances_used, r->instances_found, r->samples_used,
                                  r->mean_duration_s * 1e3);
    for (size_t k = 0; k < nkeyed && len < sizeof(title); k++)
        len += (size_t)snprintf(title + len, sizeof(title) - len, "%s[%zu] %s", k ? "   " : "\n", k + 1, keyed[k]);
    fputs("set title ", f);
    fold_gp_dquoted(f, title);
    fputs("\nset yrange [0:1]\nunset ytics\nunset y2tics\nset format x ''\nunset xlabel\nunset ylabel\n"
          "unset y2label\nunset key\n",
          f);
    fputs("plot NaN notitle\nunset object\nunset label\nunset title\n", f);
    /* the line-number scatter: which source line each sample was on */
    if (known_lines) {
        char lines[600];
        snprintf(lines, sizeof(lines), "%s.lines.csv", r->slug);
        fprintf(f, "set origin 0,%.4f\nset size 1,%.4f\n", 1.0 - top - band_h - lines_h, lines_h);
        /* whole line numbers only, about four ticks; the file named when the bands share one */
        uint32_t lo = UINT32_MAX, hi = 0;
        for (size_t i = 0; i < r->nlines; i++)
            if (r->line_no[i] > 0) {
                lo = r->line_no[i] < lo ? r->line_no[i] : lo;
                hi = r->line_no[i] > hi ? r->line_no[i] : hi;
            }
        uint32_t step = 1; /* 1, 2, 5, 10, 20, 50, ...: at most about four ticks */
        for (uint32_t k = 0; hi > lo && step * 4 < hi - lo; k++)
            step = (k % 3 == 1 ? 5 : 2) * step / (k % 3 == 1 ? 2 : 1);
        fprintf(f, "set autoscale y\nset ytics %u font ',7'\nset format y '%%.0f'\n", step);
        const char *file = common_file(r);
        char ylabel[300];
        snprintf(ylabel, sizeof(ylabel), "line%s%s", file ? " of " : "", file ? file : "");
        fputs("set ylabel ", f);
        fold_gp_quoted(f, ylabel);
        fputs(" font ',7'\nunset key\n", f);
        fputs("plot ", f);
        fold_gp_quoted(f, lines);
        fputs(" skip 1 using 1:($3 > 0 ? $3 : NaN) with points pt 7 ps 0.3 lc rgb '#555555' notitle\n", f);
        fputs("unset ylabel\nset format y '%g'\n", f);
    }
    /* counters */
    for (size_t p = 0; p < panels; p++) {
        const fold_counter_result *c = &r->counters[p];
        fprintf(f, "set origin 0,%.4f\nset size 1,%.4f\n", 1.0 - top - band_h - lines_h - (double)(p + 1) * panel_h,
                panel_h);
        fputs("set yrange [0:1]\nset ytics 0.25 nomirror\nset y2range [0:*]\nset y2tics\nset key top left font ',8'\n", f);
        fputs(p + 1 == panels ? "set format x '%g'\nset xlabel 'normalized region time'\n" : "set format x ''\nunset xlabel\n", f);
        char label[300];
        snprintf(label, sizeof(label), "cumulative %s", c->name);
        fputs("set ylabel ", f);
        fold_gp_quoted(f, label);
        /* the rate axis in a unit that fits its values and their band (units.h) */
        double max = 0;
        for (size_t i = 0; c->rate && i < c->curve.grid; i++) {
            if (c->rate[i] > max)
                max = c->rate[i];
            if (c->rate_hi && c->rate_hi[i] > max)
                max = c->rate_hi[i];
        }
        /* the counter's first column in curves.csv: x, then per counter
         * cumulative, rate and, with a band, its low and high */
        size_t col = 2;
        for (size_t q = 0; q < p; q++)
            col += r->counters[q].rate_lo ? 4 : 2;
        fold_rate_unit u = fold_rate_unit_for(c->name, c->unit, max);
        double scale = u.scale;
        if (u.cpus_busy)
            snprintf(label, sizeof(label), "%s (CPUs busy)", c->name);
        else
            snprintf(label, sizeof(label), "%s rate (%s)", c->name, u.name);
        fputs("\nset y2label ", f);
        fold_gp_quoted(f, label);
        fputc('\n', f);
        for (size_t b = 1; b < r->phases.nphases; b++)
            fprintf(f, "set arrow %zu from %.4f,graph 0 to %.4f,graph 1 nohead dt 2 lc rgb '#444444'\n", b,
                    r->phases.bounds[b], r->phases.bounds[b]);
        char points[600], curves[600];
        snprintf(points, sizeof(points), "%s.points.csv", r->slug);
        snprintf(curves, sizeof(curves), "%s.curves.csv", r->slug);
        fputs("plot ", f);
        fold_gp_quoted(f, points);
        fputs(" skip 1 using (strcol(1) eq ", f);
        fold_gp_quoted(f, c->name);
        fputs(" && $4 == 1 ? $2 : NaN):3 with points pt 7 ps 0.5 lc rgb '#8f8fd0' title 'folded samples', \\\n  ", f);
        fold_gp_quoted(f, points);
        fputs(" skip 1 using (strcol(1) eq ", f);
        fold_gp_quoted(f, c->name);
        fputs(" && $4 == 0 ? $2 : NaN):3 with points pt 2 ps 0.6 lc rgb '#cc3333' title 'excluded instances', \\\n  ", f);
        fold_gp_quoted(f, curves);
        fprintf(f, " skip 1 using 1:%zu with lines lw 2 lc rgb '#000080' title 'fit', \\\n  ", col);
        if (c->rate_lo) { /* the confidence band, shaded under the rate */
            fold_gp_quoted(f, curves);
            fprintf(f,
                    " skip 1 using 1:($%zu/%g):($%zu/%g) axes x1y2 with filledcurves fs transparent solid 0.25 "
                    "noborder lc rgb '#d04000' title '%.0f %% band', \\\n  ",
                    col + 2, scale, col + 3, scale, 100 * r->level);
        }
        fold_gp_quoted(f, curves);
        fprintf(f, " skip 1 using 1:($%zu/%g) axes x1y2 with lines lw 2 lc rgb '#d04000' title 'rate'\n", col + 1,
                scale);
        fputs("unset arrow\n", f);
    }
    if (!panels)
        /* gnuplot refuses a plot with no defined point ("plot NaN"): a line
         * below the y range draws nothing and is valid */
        fputs("set origin 0,0\nset size 1,0.8\nset xrange [0:1]\nset yrange [0:1]\nunset ytics\n"
              "set label 1 'no counter values in its instances' at 0.5,0.5 center\nplot -1 notitle\n",
              f);
    fputs("unset multiplot\n", f);
}

int fold_write_plots(const fold_report *r, const char *dir, unsigned formats, char *err, size_t errlen)
{
    for (size_t i = 0; i < r->nregions; i++) {
        const fold_region_result *reg = &r->regions[i];
        char path[4096], script[600];
        snprintf(script, sizeof(script), "%s.gp", reg->slug);
        FILE *f = fold_gp_open(dir, script, "hcafold plot of one region", path, sizeof(path), err, errlen);
        if (!f)
            return -1;
        fputs("set datafile separator ','\nset termoption noenhanced\n", f);
        if (formats & FOLD_FORMAT_PNG) {
            fprintf(f, "set terminal pngcairo size 1100,%d font 'sans,10' noenhanced\nset output '%s.png'\n",
                    reg->ncounters > 1 ? 900 : 650, reg->slug);
            body(f, reg);
        }
        if (formats & FOLD_FORMAT_SVG) {
            fprintf(f, "set terminal svg size 1100,%d font 'sans,10' noenhanced\nset output '%s.svg'\n",
                    reg->ncounters > 1 ? 900 : 650, reg->slug);
            body(f, reg);
        }
        if (fold_gp_finish(f, path, dir, script, formats & FOLD_FORMAT_PLOTS, err, errlen) != 0)
            return -1;
    }
    return 0;
}
