/* result.h: the result of folding a trace, as every output (fold.json, CSV,
 * gnuplot plots, the text summary) consumes it. Filled by analysis.c. */
#ifndef FOLD_RESULT_H
#define FOLD_RESULT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "bands.h"
#include "fit.h"

#define FOLD_JSON_VERSION 1

typedef struct {
    const char *name, *unit;
    size_t instances;          /* instances that measured it from enter to exit */
    double mean_total;         /* events per instance */
    double rate_scale;         /* sum of totals / sum of durations: events per second */
    fold_curve curve;          /* cumulative fraction and its derivative on the grid */
    double *rate;              /* curve.rate * rate_scale: events per second, on the grid */
    double *phase_rate;        /* per phase, events per second */
    size_t points_used;
    double *px, *py;           /* folded points of used instances (after the cap), for plots */
    size_t npoints;
    double *ex, *ey;           /* folded points of excluded instances, for plots */
    size_t nexcluded;
} fold_counter_result;

typedef struct {
    const char *function, *file;
    const char *caller;        /* dominant function one frame up over the band, or NULL */
    uint32_t line;
    double start, end, share, purity;
    uint32_t depth;
} fold_band_result;

typedef struct {
    char *name;                /* display name */
    char *slug;                /* file-name-safe name, unique in the report */
    const char *kind;          /* "user", "openmp", "burst" */
    char *open_site, *close_site; /* "function@file:line" of the contexts opening/closing it */
    size_t instances_found, instances_used, instances_excluded, groups;
    size_t samples_used;
    double mean_duration_s, total_time_s;
    double cpu_share;          /* task-clock / wall time over the used instances (1 = one CPU per
                                  thread all along); NAN without task-clock */
    fold_counter_result *counters;
    size_t ncounters;
    const char **zero_counters; /* measured in the used instances but always 0: not folded (no curve), */
    size_t nzero_counters;      /* their rate is 0 throughout (models use that) */
    fold_segmentation phases;  /* shared boundaries; slopes unused here (see phase_rate) */
    fold_band_result *bands;   /* of every stack depth; the first nbands_shown are those of the */
    size_t nbands, nbands_shown; /* depth drawn and summarized (bands.h: fold_bands's best depth) */
    double *line_x;            /* line-number scatter: normalized time and line of the */
    uint32_t *line_no;         /* leaf frame of each used sample */
    const char **line_fn;
    size_t nlines;
    char *warning;             /* e.g. too few samples; NULL if none */
} fold_region_result;

typedef struct fold_report {
    const char *trace;         /* path of traces.otf2 */
    uint64_t samples_lost;
    size_t nlocations;
    fold_region_result *regions; /* sorted by total time, largest first */
    size_t nregions;
    size_t regions_skipped;    /* keys with too few instances or samples */
    void *owner;               /* the read trace (fold_trace) the names point into (freed with the report) */
    struct fold_model_report *model; /* the model evaluated on the regions (model.h), or NULL */
} fold_report;

void fold_report_free(fold_report *r);

/* The output formats of hcafold -f: a set of these bits. */
enum fold_format {
    FOLD_FORMAT_JSON = 1u << 0, /* fold.json */
    FOLD_FORMAT_CSV = 1u << 1,  /* <slug>.curves/points/bands.csv (and the model's tables) */
    FOLD_FORMAT_PNG = 1u << 2,  /* plots rendered by gnuplot */
    FOLD_FORMAT_SVG = 1u << 3,
    FOLD_FORMAT_PLOTS = FOLD_FORMAT_PNG | FOLD_FORMAT_SVG,
    FOLD_FORMAT_ALL = FOLD_FORMAT_JSON | FOLD_FORMAT_CSV | FOLD_FORMAT_PLOTS
};

/* Outputs; each returns 0 or -1 with a one-line reason in err. */
int fold_write_json(const fold_report *r, const char *dir, char *err, size_t errlen);
int fold_write_csv(const fold_report *r, const char *dir, char *err, size_t errlen);
/* Writes <slug>.gp per region and runs gnuplot for <slug>.png and <slug>.svg
 * (formats: enum fold_format bits, of which FOLD_FORMAT_PNG and FOLD_FORMAT_SVG
 * count; neither only writes the scripts). */
int fold_write_plots(const fold_report *r, const char *dir, unsigned formats, char *err, size_t errlen);
void fold_write_summary(const fold_report *r, FILE *out);
/* The model's outputs (output_model.c), when r->model is set: CSV files, and
 * the plots (which read them). */
int fold_write_model_csv(const fold_report *r, const char *dir, char *err, size_t errlen);
int fold_write_model_plots(const fold_report *r, const char *dir, unsigned formats, char *err, size_t errlen);

#endif
