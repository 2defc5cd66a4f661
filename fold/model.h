/* model.h: a performance model (models/NAME.model, src/hca_model.h) applied
 * to a folded report: which model (the one recorded in the trace, or
 * --model), its events matched to the trace's counters (what is missing, and
 * the closest names present), its evaluation per region on the folded rate
 * curves, on the phases and on the totals per instance, and the model's
 * predicted against the measured quantity across regions and phases (mean
 * absolute percentage error, Kendall's tau). */
#ifndef FOLD_MODEL_H
#define FOLD_MODEL_H

#include <stddef.h>

#include "hca_model.h"

struct fold_report;

typedef struct {
    const char *alias;  /* the model's name for it, e.g. "STALL" */
    char *spec;         /* as written in the model; raw events as "r<config>" */
    const char *counter; /* the trace counter it was matched to, or NULL */
    int optional;
    char *closest;      /* when not matched: the closest counter names present ("" if none) */
} fold_model_event;

typedef struct {
    int evaluated;            /* 0: required events not measured in this region (see absent) */
    char *absent;             /* events the region did not measure ("A, B"), or NULL */
    hca_model_result curve;   /* on the region's grid: nodes in events/s, plot items divided by `per` */
    hca_model_result phases;  /* n = phases: on the phase rates */
    hca_model_result total;   /* n = 1: on the mean events per instance */
    const double *inst_rate;  /* instructions per second on the grid, or NULL */
    const double *inst_phase_rate; /* instructions per second in each phase, or NULL */
    double inst_total;        /* instructions per instance, NaN if unknown */
    double predicted, measured; /* per instance (`predict ... against ...`); NaN without one */
} fold_model_region;

typedef struct {
    size_t n;         /* pairs with a finite prediction and a measured value > 0 */
    double mape;      /* mean |predicted - measured| / measured, in %; NaN if n = 0 */
    double tau;       /* Kendall's tau-b of the pairs (per instruction when known); NaN if n < 2 or all tied */
} fold_model_agreement;

typedef struct fold_model_report {
    hca_model *model;
    char *path;       /* the model file, or "trace" when read from the trace */
    const char *from; /* "trace" or "--model" */
    fold_model_event *events;
    size_t nevents;
    size_t missing_required, missing_optional;
    fold_model_region *regions; /* one per report region, in report order */
    size_t nregions;
    fold_model_agreement across_regions, across_phases;
} fold_model_report;

/* Options of fold_model_apply. */
typedef struct {
    const char *name;        /* --model NAME|FILE|auto; NULL: the trace's model, if any */
    const char *const *set;  /* --set NAME=VALUE */
    size_t nset;
} fold_model_options;

/* Return codes of fold_model_apply. */
enum {
    FOLD_MODEL_OK = 0,
    FOLD_MODEL_NONE = 1,     /* no model asked for and none in the trace: nothing done */
    FOLD_MODEL_BAD = 2,      /* unknown model, syntax error, bad --set: message in err */
    FOLD_MODEL_MISSING = 3,  /* required events missing from the trace: evaluated where it can be; message in err */
    FOLD_MODEL_NOMEM = 4
};

/* Chooses, loads and evaluates the model for every region of the report
 * (report->model is set on FOLD_MODEL_OK and FOLD_MODEL_MISSING). */
int fold_model_apply(struct fold_report *report, const fold_model_options *o, char *err, size_t errlen);

void fold_model_report_free(fold_model_report *m);

/* Agreement of predicted and measured values (x[i], y[i]); `norm` (or NULL)
 * divides both before ranking (instructions: compare CPIs). */
fold_model_agreement fold_model_agreement_of(const double *predicted, const double *measured, const double *norm,
                                             size_t n);

/* Kendall's tau-b of n pairs; NaN if n < 2 or one side is constant. */
double fold_kendall_tau_b(const double *x, const double *y, size_t n);

#endif
