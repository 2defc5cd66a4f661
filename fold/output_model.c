/* output_model.c: the model's outputs per region: <slug>.model.csv (the
 * model's plot items over normalized time, the stacks' layer bounds, the
 * instruction rate), <slug>.model-phases.csv (the per-phase table), and one
 * gnuplot figure per model plot, <slug>.model-<plot>.png/.svg: the stacked
 * layers (the residual hatched, never clipped), the total they explain and
 * the measured value as lines, the instruction rate on the second axis, the
 * phase boundaries. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gnuplot.h"
#include "model.h"
#include "result.h"
#include "outdir.h"

static const char *const layer_colors[] = { "#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948",
                                            "#b07aa1", "#ff9da7", "#9c755f", "#1f3b73", "#d37295", "#8cd17d",
                                            "#b6992d", "#499894", "#79706e", "#d4a6c8" };
#define NCOLORS (sizeof(layer_colors) / sizeof(layer_colors[0]))

/* Column layout of <slug>.model.csv: x, instructions rate, then per plot its
 * items (stacks: value, lower and upper bound of the layer; lines: value),
 * then the plot's total (the items' closest common node / per) and measured
 * value (the model's `against` / per). Columns count from 1, as in gnuplot. */
static size_t plot_base(const hca_model *m, size_t plot)
{
    size_t col = 3;
    for (size_t p = 0; p < plot; p++) {
        const hca_model_plot *pl = hca_model_plot_at(m, p);
        col += pl->nitems * (pl->style == HCA_PLOT_STACK ? 3 : 1) + 2;
    }
    return col;
}

/* The closest node all of a plot's items descend from (or are), or -1. */
static int common_node(const hca_model *m, const hca_model_plot *pl)
{
    int lca = -2;
    for (size_t k = 0; k < pl->nitems; k++) {
        int nd = pl->items[k].node;
        if (nd < 0)
            return -1;
        if (lca == -2) {
            lca = hca_model_node_at(m, (size_t)nd)->parent;
            if (lca < 0)
                lca = nd;
            continue;
        }
        /* climb from nd until an ancestor of (or equal to) lca's chain is found */
        int found = -1;
        for (int a = nd; a >= 0 && found < 0; a = hca_model_node_at(m, (size_t)a)->parent)
            for (int b = lca; b >= 0; b = hca_model_node_at(m, (size_t)b)->parent)
                if (a == b) {
                    found = a;
                    break;
                }
        lca = found;
        if (lca < 0)
            return -1;
    }
    return lca < 0 ? -1 : lca;
}

static double shown(double v) { return isfinite(v) && v > 0 ? v : 0; }

static void num(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, ",%.9g", v);
    else
        fputs(",NaN", f);
}

static int write_curves(const fold_model_report *mr, const fold_model_region *mg, const fold_region_result *r,
                        const char *dir, char *err, size_t errlen)
{
    const hca_model *m = mr->model;
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s.model.csv", dir, r->slug);
    FILE *f = fold_outdir_create(path);
    if (!f) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    fputs("x,instructions_rate", f);
    for (size_t p = 0; p < hca_model_nplots(m); p++) {
        const hca_model_plot *pl = hca_model_plot_at(m, p);
        for (size_t k = 0; k < pl->nitems; k++) {
            fprintf(f, ",%s:%s", pl->name, pl->items[k].label);
            if (pl->style == HCA_PLOT_STACK)
                fprintf(f, ",%s:%s:low,%s:%s:high", pl->name, pl->items[k].label, pl->name, pl->items[k].label);
        }
        fprintf(f, ",%s:total,%s:measured", pl->name, pl->name);
    }
    fputc('\n', f);
    const fold_counter_result *c0 = r->ncounters ? &r->counters[0] : NULL;
    for (size_t i = 0; i < mg->curve.n; i++) {
        fprintf(f, "%.6f", c0 && c0->curve.x ? c0->curve.x[i] : (double)i / (double)(mg->curve.n - 1));
        num(f, mg->inst_rate ? mg->inst_rate[i] : NAN);
        for (size_t p = 0; p < hca_model_nplots(m); p++) {
            const hca_model_plot *pl = hca_model_plot_at(m, p);
            double low = 0;
            for (size_t k = 0; k < pl->nitems; k++) {
                double v = mg->curve.plot[p][k][i];
                num(f, v);
                if (pl->style == HCA_PLOT_STACK) {
                    num(f, low);
                    low += shown(v);
                    num(f, low);
                }
            }
            int lca = common_node(m, pl);
            double per = mg->curve.plot_per[p][i];
            num(f, lca >= 0 && per != 0 ? mg->curve.node[lca][i] / per : NAN);
            num(f, mg->curve.actual && per != 0 ? mg->curve.actual[i] / per : NAN);
        }
        fputc('\n', f);
    }
    int bad = ferror(f);
    if (fclose(f) != 0 || bad) {
        snprintf(err, errlen, "writing %s failed", path);
        return -1;
    }
    /* the per-phase table */
    snprintf(path, sizeof(path), "%s/%s.model-phases.csv", dir, r->slug);
    f = fold_outdir_create(path);
    if (!f) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    fputs("phase,start,end", f);
    for (size_t p = 0; p < hca_model_nplots(m); p++) {
        const hca_model_plot *pl = hca_model_plot_at(m, p);
        for (size_t k = 0; k < pl->nitems; k++)
            fprintf(f, ",%s:%s", pl->name, pl->items[k].label);
    }
    fputs(mg->phases.predicted ? ",predicted_rate,measured_rate\n" : "\n", f);
    for (size_t ph = 0; ph < mg->phases.n; ph++) {
        fprintf(f, "%zu,%.6f,%.6f", ph + 1, r->phases.bounds[ph], r->phases.bounds[ph + 1]);
        for (size_t p = 0; p < hca_model_nplots(m); p++)
            for (size_t k = 0; k < hca_model_plot_at(m, p)->nitems; k++)
                num(f, mg->phases.plot[p][k][ph]);
        if (mg->phases.predicted) {
            num(f, mg->phases.predicted[ph]);
            num(f, mg->phases.actual[ph]);
        }
        fputc('\n', f);
    }
    bad = ferror(f);
    if (fclose(f) != 0 || bad) {
        snprintf(err, errlen, "writing %s failed", path);
        return -1;
    }
    return 0;
}

int fold_write_model_csv(const fold_report *r, const char *dir, char *err, size_t errlen)
{
    for (size_t i = 0; r->model && i < r->nregions; i++)
        if (r->model->regions[i].evaluated &&
            write_curves(r->model, &r->model->regions[i], &r->regions[i], dir, err, errlen) != 0)
            return -1;
    return 0;
}

static void figure(FILE *f, const fold_model_report *mr, const fold_model_region *mg, const fold_region_result *r,
                   size_t p)
{
    const hca_model *m = mr->model;
    const hca_model_plot *pl = hca_model_plot_at(m, p);
    size_t base = plot_base(m, p), stride = pl->style == HCA_PLOT_STACK ? 3 : 1;
    char text[1024], data[600];
    snprintf(data, sizeof(data), "%s.model.csv", r->slug);
    snprintf(text, sizeof(text), "%s: %s, %s (%s)", r->name, hca_model_id(m), pl->name,
             strcmp(pl->per, "1") ? pl->per : "absolute");
    fputs("reset\nset datafile separator ','\nset termoption noenhanced\nset xrange [0:1]\nset tmargin 4\n"
          "set title offset 0,1 ",
          f);
    fold_gp_quoted(f, text);
    fputs("\nset xlabel 'normalized region time'\n", f);
    if (strcmp(pl->per, "1") != 0)
        snprintf(text, sizeof(text), "%s per %s", *hca_model_unit(m) ? hca_model_unit(m) : "value", pl->per);
    else
        snprintf(text, sizeof(text), "%s", pl->style == HCA_PLOT_STACK ? "per second" : "value");
    fputs("set ylabel ", f);
    fold_gp_quoted(f, text);
    /* never clipped: the stack may exceed the total it explains (overlap) */
    fputs("\nset yrange [0:*]\nset offsets 0,0,graph 0.06,0\nset ytics nomirror\nset key outside right top font ',9'\n"
          "set grid ytics lc rgb '#dddddd'\n",
          f);
    if (mg->inst_rate)
        fputs("set y2range [0:*]\nset y2tics\nset y2label 'instructions (MIPS)'\n", f);
    for (size_t b = 1; b < r->phases.nphases; b++)
        fprintf(f, "set arrow %zu from %.4f,graph 0 to %.4f,graph 1 nohead dt 2 lw 1.5 lc rgb '#222222' front\n", b,
                r->phases.bounds[b], r->phases.bounds[b]);
    for (size_t ph = 0; ph < r->phases.nphases && r->phases.nphases > 1; ph++)
        fprintf(f, "set label %zu 'P%zu' at %.4f,graph 1.03 center font ',9'\n", ph + 1, ph + 1,
                (r->phases.bounds[ph] + r->phases.bounds[ph + 1]) / 2);
    fputs("plot ", f);
    int first = 1;
    /* layers top first, so the legend reads like the stack; residuals hatched
     * each in its own pattern */
    size_t nresidual = 0;
    for (size_t kk = pl->nitems; kk-- > 0;) {
        size_t col = base + kk * stride;
        int residual = pl->items[kk].node >= 0 && hca_model_node_at(m, (size_t)pl->items[kk].node)->kind == HCA_NODE_REST;
        int est = pl->items[kk].node >= 0 && hca_model_node_at(m, (size_t)pl->items[kk].node)->est;
        snprintf(text, sizeof(text), "%s%s%s", residual ? "residual: " : "", pl->items[kk].label,
                 est && !strstr(pl->items[kk].label, "estimate") ? " (estimate)" : "");
        if (!first)
            fputs(", \\\n  ", f);
        first = 0;
        fold_gp_quoted(f, data);
        if (pl->style == HCA_PLOT_STACK) {
            fprintf(f, " skip 1 using 1:%zu:%zu with filledcurves ", col + 1, col + 2);
            if (residual)
                fprintf(f, "fc rgb '#777777' fs pattern %zu border lc rgb '#666666'", 4 + nresidual++ % 4);
            else
                fprintf(f, "fc rgb '%s' fs solid %s noborder", layer_colors[kk % NCOLORS], est ? "0.45" : "0.85");
        } else {
            fprintf(f, " skip 1 using 1:%zu with lines lw 2 lc rgb '%s'%s", col, layer_colors[kk % NCOLORS],
                    est ? " dt 3" : "");
        }
        fputs(" title ", f);
        fold_gp_quoted(f, text);
    }
    size_t total_col = base + pl->nitems * stride;
    int lca = common_node(m, pl);
    if (pl->style == HCA_PLOT_STACK && lca >= 0) {
        snprintf(text, sizeof(text), "total: %s", hca_model_node_at(m, (size_t)lca)->label);
        fputs(", \\\n  ", f);
        fold_gp_quoted(f, data);
        fprintf(f, " skip 1 using 1:%zu with lines lw 2 lc rgb '#000000' title ", total_col);
        fold_gp_quoted(f, text);
    }
    if (mg->curve.actual) {
        fputs(", \\\n  ", f);
        fold_gp_quoted(f, data);
        fprintf(f, " skip 1 using 1:%zu with lines lw 2 dt 2 lc rgb '#d00000' title 'measured'", total_col + 1);
    }
    if (mg->inst_rate) {
        fputs(", \\\n  ", f);
        fold_gp_quoted(f, data);
        fputs(" skip 1 using 1:($2/1e6) axes x1y2 with lines lw 2.5 lc rgb '#6a3d9a' title 'instructions (MIPS)'", f);
    }
    fputs("\n", f);
}

int fold_write_model_plots(const fold_report *r, const char *dir, unsigned formats, char *err, size_t errlen)
{
    const fold_model_report *mr = r->model;
    for (size_t i = 0; mr && i < r->nregions; i++) {
        const fold_model_region *mg = &mr->regions[i];
        if (!mg->evaluated)
            continue;
        const fold_region_result *reg = &r->regions[i];
        char path[4096], script[600];
        snprintf(script, sizeof(script), "%s.model.gp", reg->slug);
        char what[300];
        snprintf(what, sizeof(what), "hcafold's model plots of one region (model %s)", hca_model_id(mr->model));
        FILE *f = fold_gp_open(dir, script, what, path, sizeof(path), err, errlen);
        if (!f)
            return -1;
        for (size_t p = 0; p < hca_model_nplots(mr->model); p++) {
            const char *name = hca_model_plot_at(mr->model, p)->name;
            if (formats & FOLD_FORMAT_PNG) {
                fprintf(f, "set terminal pngcairo size 1100,600 font 'sans,10' noenhanced\nset output '%s.model-%s.png'\n",
                        reg->slug, name);
                figure(f, mr, mg, reg, p);
            }
            if (formats & FOLD_FORMAT_SVG) {
                fprintf(f, "set terminal svg size 1100,600 font 'sans,10' noenhanced\nset output '%s.model-%s.svg'\n",
                        reg->slug, name);
                figure(f, mr, mg, reg, p);
            }
        }
        if (fold_gp_finish(f, path, dir, script, formats & FOLD_FORMAT_PLOTS, err, errlen) != 0)
            return -1;
    }
    return 0;
}
