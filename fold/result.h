/* result.h: the result of folding a trace, as every output (fold.json, CSV,
 * gnuplot plots, the text summary) consumes it. Filled by analysis.c. */
#ifndef FOLD_RESULT_H
#define FOLD_RESULT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "bands.h"
#include "bootstrap.h"
#include "fit.h"
#include "trace.h"

#define FOLD_JSON_VERSION 1

typedef struct {
    const char *name, *unit;
    const char *description;   /* the trace's (fold_counter_def) */
    size_t instances;          /* instances that measured it from enter to exit */
    double mean_total;         /* events per instance */
    double rate_scale;         /* sum of totals / sum of durations: events per second */
    fold_curve curve;          /* cumulative fraction and its derivative on the grid */
    double *rate;              /* curve.rate * rate_scale: events per second, on the grid */
    double *phase_rate;        /* per phase, events per second */
    double *phase_start, *phase_end; /* per phase, events/s at its start and end: a trend phase
                                        (phases.trend) changes linearly, others = phase_rate */
    /* confidence intervals (bootstrap.h), NULL when there are none (no replicates) */
    double *rate_lo, *rate_hi;   /* band of rate, on the grid */
    double *phase_lo, *phase_hi; /* of phase_rate */
    double band_width;           /* mean half-width of the band over the mean rate */
    size_t points_used;
    size_t points_folded;      /* the counter's points of the used instances, before the cap (--max-points) */
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
    double share_lo, share_hi; /* interval of share (bootstrap.h); = share without replicates */
} fold_band_result;

/* A region's used instances on one location (variability.c). */
typedef struct {
    uint32_t location, rank, thread;
    size_t instances;
    double mean_ms, min_ms, max_ms;
} fold_location_spread;

/* The durations of a region's used instances. */
typedef struct {
    double min_ms, median_ms, max_ms;
    double cv;                 /* standard deviation / mean */
} fold_duration_spread;

typedef struct {
    char *name;                /* display name */
    char *slug;                /* file-name-safe name, unique in the report */
    const char *kind;          /* "user", "openmp", "burst" */
    char *open_site, *close_site; /* "function@file:line" of the contexts opening/closing it */
    size_t instances_found, instances_used, instances_excluded, groups;
    int grouped_on_cpu;        /* the key's duration groups split on CPU time, not wall time */
    size_t path, paths;        /* code path of the key (0-based) and their number (fold/paths.h) */
    const char *path_functions; /* the path's functions, or NULL when the key is one path */
    size_t call_sites;         /* line-level call-site keys merged into this region (fold/sites.h) */
    size_t samples_used;
    double mean_duration_s, total_time_s; /* without the tracer's own time */
    double tool_time_s;        /* the tracer's own time removed from its instances */
    double cpu_share;          /* task-clock / wall time over the used instances (1 = one CPU per
                                   thread all along); NAN without task-clock */
    fold_counter_result *counters;
    size_t ncounters;
    const char **zero_counters; /* measured in the used instances but always 0: not folded (no curve), */
    size_t nzero_counters;      /* their rate is 0 throughout (models use that) */
    fold_segmentation phases;  /* shared boundaries; slopes unused here (see phase_rate) */
    double *bound_lo, *bound_hi; /* interval of each boundary (nphases + 1), or NULL */
    size_t replicates;         /* of the bootstrap; 0: no intervals */
    double level;              /* of the intervals (0.95) */
    fold_band_result *bands;   /* of every stack depth; the first nbands_shown are those of the */
    size_t nbands, nbands_shown; /* depth drawn and summarized (bands.h: fold_bands's best depth) */
    double *line_x;            /* line-number scatter: normalized time and line of the */
    uint32_t *line_no;         /* leaf frame of each used sample */
    const char **line_fn;
    size_t nlines;
    char *warning;             /* e.g. too few samples; NULL if none */
    fold_duration_spread duration; /* of the used instances */
    fold_location_spread *per_location; /* per location with used instances, in location order */
    size_t nper_location;
} fold_region_result;

/* The whole run, per process (the thread of each rank that began the program):
 * its time from first to last event, split into MPI calls (outermost) and the
 * rest (useful computation, in the POP CoE's terms). Filled by runstats.c. */
typedef struct {
    double min, mean, max;
} fold_spread;

typedef struct {
    char *site;                /* "MPI_Allreduce@cg.c:88" */
    uint64_t calls;
    double time_s;             /* summed over the processes */
} fold_run_site;

typedef struct {
    size_t nranks;             /* processes */
    uint32_t *rank;            /* per process: its rank (location group), ascending */
    double *elapsed_s, *mpi_s, *compute_s; /* per process */
    fold_spread elapsed, mpi, compute;     /* over the processes */
    double runtime_s;          /* earliest first event to latest last event of the processes */
    double traced_s;           /* first to last event of every location (threads too), summed */
    double mpi_share;          /* summed MPI time / summed elapsed time */
    double load_balance;       /* mean compute / max compute */
    double comm_efficiency;    /* max compute / runtime */
    double parallel_efficiency; /* mean compute / runtime = load_balance * comm_efficiency */
    fold_run_site *sites;      /* MPI call sites by time, largest first */
    size_t nsites;
} fold_run;

/* A region key that was not folded, and why. */
typedef struct {
    char *name;
    const char *kind;
    size_t instances_found, instances_used, samples_used;
    double total_time_s;
    char *reason;              /* "3 used instances (--min-instances 10)" */
} fold_skipped_region;

typedef struct fold_report {
    const char *trace;         /* path of traces.otf2 */
    uint64_t samples_lost;
    uint64_t samples_lost_why[FOLD_LOST_WHY]; /* by reason (trace.h) */
    int tool_time;             /* the trace records the tracer's own time: it was removed */
    uint64_t bare_bursts, bursts; /* compute bursts ended without counter values (trace.h), all */
    const struct fold_thinned *thinned; /* instances the tracer did not write, per region (in the trace) */
    size_t nthinned;
    size_t nlocations;
    fold_region_result *regions; /* sorted by total time, largest first */
    size_t nregions;
    size_t regions_skipped;    /* keys with too few instances or samples */
    fold_skipped_region *skipped; /* those keys, by total time, largest first (regions_skipped of them) */
    fold_run run;              /* the whole run */
    void *owner;               /* the read trace (fold_trace) the names point into (freed with the report) */
    struct fold_model_report *model; /* the model evaluated on the regions (model.h), or NULL */
    struct fold_sources *sources; /* where the source files are read from (sources.h), set and freed by
                                     hcafold.c; NULL: no source lines shown */
} fold_report;

void fold_report_free(fold_report *r);
/* What to do about a coarse fold of counter k, in buf: raise --max-points when
 * k was fitted from fewer points than were folded, the folded at least 1.25
 * times the fitted (more samples would be capped away too), else `otherwise` (also when k is NULL). Shared by the coarse-band
 * warning (analysis.c) and the resolution's (fold_coarse_counters). */
void fold_coarse_advice(const fold_counter_result *k, const char *otherwise, char *buf, size_t size);

/* The output formats of hcafold -f: a set of these bits. */
enum fold_format {
    FOLD_FORMAT_JSON = 1u << 0, /* fold.json */
    FOLD_FORMAT_CSV = 1u << 1,  /* <slug>.curves/points/bands.csv (and the model's tables) */
    FOLD_FORMAT_PNG = 1u << 2,  /* plots rendered by gnuplot */
    FOLD_FORMAT_SVG = 1u << 3,
    FOLD_FORMAT_HTML = 1u << 4, /* report.html */
    FOLD_FORMAT_PLOTS = FOLD_FORMAT_PNG | FOLD_FORMAT_SVG,
    FOLD_FORMAT_ALL = FOLD_FORMAT_JSON | FOLD_FORMAT_CSV | FOLD_FORMAT_PLOTS | FOLD_FORMAT_HTML
};

/* Outputs; each returns 0 or -1 with a one-line reason in err. */
int fold_write_json(const fold_report *r, const char *dir, char *err, size_t errlen);
int fold_write_csv(const fold_report *r, const char *dir, char *err, size_t errlen);
/* Writes <slug>.gp per region and runs gnuplot for <slug>.png and <slug>.svg
 * (formats: enum fold_format bits, of which FOLD_FORMAT_PNG and FOLD_FORMAT_SVG
 * count; neither only writes the scripts). */
int fold_write_plots(const fold_report *r, const char *dir, unsigned formats, char *err, size_t errlen);
void fold_write_summary(const fold_report *r, FILE *out);
/* The counters among g's first max_counters whose curves are resolved only
 * over more than FOLD_COARSE_RESOLUTION of the region (fit.h: their rates are
 * averages over that span), as "page-faults 0.14, context-switches 0.11 of the
 * region (why; what to do)" in buf (shared by the summary and report.html):
 * what to do is to raise --max-points when one of them was fitted from fewer
 * points than were folded (fold_coarse_advice: more samples would be capped
 * away too), else to
 * sample faster or fold more instances; returns how many (0: buf is empty). */
size_t fold_coarse_counters(const fold_region_result *g, size_t max_counters, char *buf, size_t size);
/* report.html: one self-contained page (inline SVG and CSS, no script, no network) */
int fold_write_html(const fold_report *r, const char *dir, char *err, size_t errlen);
/* The model's outputs (output_model.c), when r->model is set: CSV files, and
 * the plots (which read them). */
int fold_write_model_csv(const fold_report *r, const char *dir, char *err, size_t errlen);
int fold_write_model_plots(const fold_report *r, const char *dir, unsigned formats, char *err, size_t errlen);

#endif
