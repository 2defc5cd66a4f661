/* html_svg.h: the pieces report.html is drawn with, written as text by C (no
 * script): HTML escaping, and inline SVG charts over normalized region time
 * (lines with phase boundaries, source bands, stacked layers) and horizontal
 * bars (time per process). */
#ifndef FOLD_HTML_SVG_H
#define FOLD_HTML_SVG_H

#include <stddef.h>
#include <stdio.h>

/* The style sheet of the pages (report.html, compare.html). */
extern const char html_style[];

/* Opens dir/name for writing (path gets its name), or NULL with a one-line
 * reason in err. */
FILE *html_open(const char *dir, const char *name, char *path, size_t pathlen, char *err, size_t errlen);
/* Ends the page (</body></html>) and closes it: 0, or -1 with a reason in err. */
int html_close(FILE *f, const char *path, char *err, size_t errlen);

/* s with & < > " ' escaped, for text and attribute values. */
void html_escaped(FILE *f, const char *s);

/* The i-th colour of a fixed palette ("#1f77b4", ...). */
const char *svg_color(size_t i);

/* One line of a chart: y on the grid x; right: on the right axis (0 .. 1). */
typedef struct {
    const double *x, *y;
    size_t n;
    const char *label, *color;
    int right;
} svg_line;

/* A chart over normalized region time (0 .. 1): lines on a left axis from 0 to
 * left_max rounded up to a round tick (svg_axis_top; left_label) and a right axis from 0 to 1 (right_label, or NULL:
 * none); dots (x, y on the right axis), at most ndots; dashed lines at the
 * inner phase bounds (bounds[0..nphases]) with the phases named P1, P2, ...
 * A key names the lines. */
typedef struct {
    const char *title, *left_label, *right_label;
    double left_max;
    const svg_line *lines;
    size_t nlines;
    const double *dot_x, *dot_y;
    size_t ndots;
    const double *bounds;
    size_t nphases;
} svg_chart;

void svg_write_chart(FILE *f, const svg_chart *c);

/* The left axis' top for values up to max: max rounded up to the axis' round tick
 * step (1, 2, 2.5 or 5 times a power of ten, about four ticks); 1 when max is not positive. */
double svg_axis_top(double max);

/* Source bands as a strip over normalized time: [start, end) boxes labelled
 * with label[i], each with a tooltip title[i]; colour by colour[i]. */
void svg_write_bands(FILE *f, const double *start, const double *end, const char *const *label,
                     const char *const *title, const size_t *colour, size_t n);

/* Stacked layers over normalized time: layer k's values on x (negative drawn
 * as 0), bottom to top, named label[k]; and, when total is not NULL, a line. */
void svg_write_stack(FILE *f, const char *title, const char *ylabel, const double *x, size_t n,
                     const double *const *layer, const char *const *label, size_t nlayers, const double *total,
                     const double *bounds, size_t nphases);

/* Horizontal bars, one per row: segments a[i] (colour 0, label_a) and b[i]
 * (colour 1, label_b) end to end, scaled so that max spans the width. */
void svg_write_bars(FILE *f, const char *const *row, const double *a, const double *b, size_t n, double max,
                    const char *label_a, const char *label_b);

#endif
