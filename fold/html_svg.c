/* html_svg.c: HTML escaping and the inline SVG charts of report.html
 * (html_svg.h). Coordinates are written with 1 decimal; every chart has a
 * viewBox, so the browser scales it to the page. */
#include "html_svg.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "outdir.h"

#define W 760.0
#define H 240.0
#define LEFT 64.0
#define RIGHT 56.0
#define TOP 34.0
#define BOTTOM 36.0
#define PW (W - LEFT - RIGHT)
#define PH (H - TOP - BOTTOM)

const char html_style[] =
    "body{font:14px/1.45 system-ui,sans-serif;margin:0 auto;max-width:1100px;padding:0 16px;color:#222}"
    "h1{font-size:22px}h2{font-size:18px;border-bottom:1px solid #ccc;padding-top:8px}h3{font-size:15px}"
    "table{border-collapse:collapse;margin:6px 0 12px}td,th{border:1px solid #ddd;padding:2px 8px;text-align:left;"
    "vertical-align:top}th{background:#f3f3f3}td.n{text-align:right;font-variant-numeric:tabular-nums}"
    "code,.src{font-family:ui-monospace,monospace;font-size:12px}.warn{color:#a04000}.why{color:#555}"
    "svg.chart{width:100%;max-width:900px;display:block;margin:4px 0}.t{font-size:13px;font-weight:600}"
    ".ax{font-size:11px;fill:#333}.frame{fill:none;stroke:#888}.tick{stroke:#888}"
    ".phase{stroke:#444;stroke-dasharray:4 3}.dot{fill:#1f77b4;fill-opacity:0.25}nav a{margin-right:10px}"
    ".changed{background:#fff3cd}td.rates{white-space:pre-line}";

FILE *html_open(const char *dir, const char *name, char *path, size_t pathlen, char *err, size_t errlen)
{
    snprintf(path, pathlen, "%s/%s", dir, name);
    FILE *f = fold_outdir_create(path);
    if (!f)
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
    return f;
}

int html_close(FILE *f, const char *path, char *err, size_t errlen)
{
    fputs("</body>\n</html>\n", f);
    int bad = ferror(f);
    if (fclose(f) != 0)
        bad = 1;
    if (bad)
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
    return bad ? -1 : 0;
}

void html_escaped(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '&':
            fputs("&amp;", f);
            break;
        case '<':
            fputs("&lt;", f);
            break;
        case '>':
            fputs("&gt;", f);
            break;
        case '"':
            fputs("&quot;", f);
            break;
        case '\'':
            fputs("&#39;", f);
            break;
        default:
            fputc(*s, f);
        }
    }
}

const char *svg_color(size_t i)
{
    static const char *const palette[] = { "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                           "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf" };
    return palette[i % (sizeof(palette) / sizeof(palette[0]))];
}

static double px(double x)
{
    return LEFT + PW * (x < 0 ? 0 : x > 1 ? 1 : x);
}

static double py(double y, double max)
{
    double f = max > 0 && isfinite(y) ? y / max : 0;
    return TOP + PH * (1 - (f < 0 ? 0 : f > 1.05 ? 1.05 : f));
}

static void open_svg(FILE *f, const char *title, double height)
{
    fprintf(f, "<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %.0f %.0f\" role=\"img\">",
            W, height);
    fputs("<title>", f);
    html_escaped(f, title);
    fputs("</title>\n", f);
}

/* The step between the left axis' ticks: about four up to max, 1, 2, 2.5 or 5 times a power of ten. */
static double tick_step(double max)
{
    if (!(max > 0) || !isfinite(max))
        return 0.5;
    double raw = max / 4, magnitude = pow(10, floor(log10(raw)));
    static const double nice[] = { 1, 2, 2.5, 5, 10 };
    size_t i = 0;
    while (i + 1 < sizeof(nice) / sizeof(nice[0]) && nice[i] * magnitude < raw * (1 - 1e-9))
        i++;
    return nice[i] * magnitude;
}

double svg_axis_top(double max)
{
    double step = tick_step(max);
    if (!(max > 0) || !isfinite(max))
        return 1;
    return ceil(max / step * (1 - 1e-9)) * step;
}

/* The frame: x axis 0 .. 1 with ticks, left axis 0 .. left_max (an svg_axis_top) with round
 * ticks, right axis 0 .. 1 when right_label. */
static void axes(FILE *f, const char *title, const char *left_label, double left_max, const char *right_label)
{
    fprintf(f, "<text x=\"%.1f\" y=\"14\" class=\"t\">", LEFT);
    html_escaped(f, title);
    fputs("</text>\n", f);
    fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" class=\"frame\"/>\n", LEFT, TOP, PW, PH);
    for (int i = 0; i <= 5; i++) {
        double x = px(i / 5.0);
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"tick\"/>", x, TOP + PH, x, TOP + PH + 4);
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" class=\"ax\" text-anchor=\"middle\">%.1f</text>\n", x, TOP + PH + 15,
                i / 5.0);
    }
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" class=\"ax\" text-anchor=\"middle\">normalized region time</text>\n",
            LEFT + PW / 2, H - 4);
    double step = tick_step(left_max);
    for (int i = 0; i * step <= left_max * (1 + 1e-9); i++) {
        double y = TOP + PH * (1 - i * step / left_max);
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"tick\"/>", LEFT - 4, y, LEFT, y);
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" class=\"ax\" text-anchor=\"end\">%g</text>", LEFT - 6, y + 3,
                i * step);
    }
    for (int i = 0; right_label && i <= 2; i++)
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" class=\"ax\">%.1f</text>", LEFT + PW + 4,
                TOP + PH * (1 - i / 2.0) + 3, i / 2.0);
    fprintf(f, "<text transform=\"translate(14,%.1f) rotate(-90)\" class=\"ax\" text-anchor=\"middle\">", TOP + PH / 2);
    html_escaped(f, left_label);
    fputs("</text>\n", f);
    if (right_label) {
        fprintf(f, "<text transform=\"translate(%.1f,%.1f) rotate(90)\" class=\"ax\" text-anchor=\"middle\">",
                W - 12, TOP + PH / 2);
        html_escaped(f, right_label);
        fputs("</text>\n", f);
    }
}

static void phase_marks(FILE *f, const double *bounds, size_t nphases)
{
    for (size_t p = 0; bounds && p < nphases; p++) {
        if (p > 0)
            fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"phase\"/>", px(bounds[p]), TOP,
                    px(bounds[p]), TOP + PH);
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" class=\"ax\" text-anchor=\"middle\">P%zu</text>\n",
                px((bounds[p] + bounds[p + 1]) / 2), TOP - 4, p + 1);
    }
}

static void key(FILE *f, const char *const *label, const char *const *color, size_t n)
{
    double x = LEFT + PW;
    for (size_t i = n; i-- > 0;) {
        x -= 12 + 6.5 * (double)strlen(label[i] ? label[i] : "");
        fprintf(f, "<rect x=\"%.1f\" y=\"6\" width=\"9\" height=\"9\" fill=\"%s\"/>", x, color[i]);
        fprintf(f, "<text x=\"%.1f\" y=\"14\" class=\"ax\">", x + 11);
        html_escaped(f, label[i]);
        fputs("</text>", f);
        x -= 8;
    }
    fputc('\n', f);
}

static void polyline(FILE *f, const double *x, const double *y, size_t n, double max, const char *color)
{
    fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.8\" points=\"", color);
    for (size_t i = 0; i < n; i++)
        if (isfinite(y[i]))
            fprintf(f, "%.1f,%.1f ", px(x[i]), py(y[i], max));
    fputs("\"/>\n", f);
}

void svg_write_chart(FILE *f, const svg_chart *c)
{
    double top = svg_axis_top(c->left_max);
    open_svg(f, c->title, H);
    axes(f, c->title, c->left_label, top, c->right_label);
    for (size_t i = 0; i < c->ndots; i++)
        fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"1.3\" class=\"dot\"/>", px(c->dot_x[i]), py(c->dot_y[i], 1));
    if (c->ndots)
        fputc('\n', f);
    phase_marks(f, c->bounds, c->nphases);
    const char *labels[8], *colors[8];
    size_t nkey = 0;
    for (size_t i = 0; i < c->nlines; i++) {
        const svg_line *l = &c->lines[i];
        polyline(f, l->x, l->y, l->n, l->right ? 1 : top, l->color);
        if (nkey < 8) {
            labels[nkey] = l->label;
            colors[nkey++] = l->color;
        }
    }
    key(f, labels, colors, nkey);
    fputs("</svg>\n", f);
}

void svg_write_bands(FILE *f, const double *start, const double *end, const char *const *label,
                     const char *const *title, const size_t *colour, size_t n)
{
    const double height = 44;
    open_svg(f, "source bands", height);
    fprintf(f, "<rect x=\"%.1f\" y=\"4\" width=\"%.1f\" height=\"30\" class=\"frame\"/>\n", LEFT, PW);
    for (size_t i = 0; i < n; i++) {
        double x0 = px(start[i]), x1 = px(end[i]);
        fprintf(f, "<g><title>");
        html_escaped(f, title[i]);
        fprintf(f, "</title><rect x=\"%.1f\" y=\"4\" width=\"%.1f\" height=\"30\" fill=\"%s\" fill-opacity=\"0.55\"/>",
                x0, x1 - x0, svg_color(colour[i]));
        /* the label where it fits (about 6.5 units per character) */
        if ((x1 - x0) > 6.5 * (double)strlen(label[i]) + 6) {
            fprintf(f, "<text x=\"%.1f\" y=\"23\" class=\"ax\" text-anchor=\"middle\">", (x0 + x1) / 2);
            html_escaped(f, label[i]);
            fputs("</text>", f);
        }
        fputs("</g>\n", f);
    }
    fputs("</svg>\n", f);
}

void svg_write_stack(FILE *f, const char *title, const char *ylabel, const double *x, size_t n,
                     const double *const *layer, const char *const *label, size_t nlayers, const double *total,
                     const double *bounds, size_t nphases)
{
    double max = 0;
    for (size_t i = 0; i < n; i++) {
        double sum = 0;
        for (size_t k = 0; k < nlayers; k++)
            sum += isfinite(layer[k][i]) && layer[k][i] > 0 ? layer[k][i] : 0;
        if (sum > max)
            max = sum;
        if (total && isfinite(total[i]) && total[i] > max)
            max = total[i];
    }
    if (!(max > 0))
        max = 1;
    open_svg(f, title, H);
    axes(f, title, ylabel, max, NULL);
    const char *colors[8];
    for (size_t k = 0; k < nlayers; k++) {
        /* the layer between the sum of the layers below and that sum plus its own */
        fprintf(f, "<polygon fill=\"%s\" fill-opacity=\"0.7\" points=\"", svg_color(k));
        for (size_t i = 0; i < n; i++) {
            double top = 0;
            for (size_t j = 0; j <= k; j++)
                top += isfinite(layer[j][i]) && layer[j][i] > 0 ? layer[j][i] : 0;
            fprintf(f, "%.1f,%.1f ", px(x[i]), py(top, max));
        }
        for (size_t i = n; i-- > 0;) {
            double low = 0;
            for (size_t j = 0; j < k; j++)
                low += isfinite(layer[j][i]) && layer[j][i] > 0 ? layer[j][i] : 0;
            fprintf(f, "%.1f,%.1f ", px(x[i]), py(low, max));
        }
        fputs("\"/>\n", f);
        if (k < 8)
            colors[k] = svg_color(k);
    }
    if (total)
        polyline(f, x, total, n, max, "#000000");
    phase_marks(f, bounds, nphases);
    key(f, label, colors, nlayers < 8 ? nlayers : 8);
    fputs("</svg>\n", f);
}

void svg_write_bars(FILE *f, const char *const *row, const double *a, const double *b, size_t n, double max,
                    const char *label_a, const char *label_b)
{
    const double bar = 14, gap = 4, top = 22;
    double height = top + (double)n * (bar + gap) + 4;
    open_svg(f, "time per process", height);
    const char *labels[2] = { label_a, label_b }, *colors[2] = { svg_color(0), svg_color(1) };
    key(f, labels, colors, 2);
    for (size_t i = 0; i < n; i++) {
        double y = top + (double)i * (bar + gap);
        double wa = max > 0 ? PW * a[i] / max : 0, wb = max > 0 ? PW * b[i] / max : 0;
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" class=\"ax\" text-anchor=\"end\">", LEFT - 4, y + bar - 3);
        html_escaped(f, row[i]);
        fprintf(f, "</text><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"><title>%.3f s</title></rect>",
                LEFT, y, wa, bar, svg_color(0), a[i]);
        fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"><title>%.3f s</title></rect>\n",
                LEFT + wa, y, wb, bar, svg_color(1), b[i]);
    }
    fputs("</svg>\n", f);
}
