/* hca_model.h: the model language of the models/ files (NAME.model) (docs/models.md).
 *
 * A model names counter events, penalty parameters, helper expressions, a
 * tree of nodes (cycles or slots by cause, with `sum` and `rest` nodes) and
 * plots. hca_model_parse() checks it completely (unknown names, syntax,
 * duplicate and cyclic definitions, division by a literal zero) and reports
 * the first problem as "file:line:column: message". hca_model_eval() then
 * evaluates it point by point on arrays of event values (folded rate curves,
 * or length-1 arrays of totals). Pure C: no OTF2, no GSL, no libpfm. */
#ifndef HCA_MODEL_H
#define HCA_MODEL_H

#include <stddef.h>
#include <stdint.h>

typedef struct hca_model hca_model;

typedef struct {
    const char *name;    /* the model's alias, e.g. "STALL" */
    const char *spec;    /* libpfm4 or generic perf name as written; NULL for raw */
    int raw;             /* raw(type, config[, config1]): libpfm4 lacks the event */
    uint32_t type;       /* raw only */
    uint64_t config, config1;
    int optional;        /* the model still evaluates without it (its uses are NaN) */
    int line;            /* where it is defined */
} hca_model_event;

typedef struct {
    const char *name;
    double value;        /* current value (default, or set by hca_model_set_param) */
    double default_value;
    const char *unit;    /* "" if none */
    const char *doc;     /* "" if none */
} hca_model_param;

enum { HCA_NODE_EXPR = 0, HCA_NODE_SUM = 1, HCA_NODE_REST = 2 };

typedef struct {
    const char *path;    /* dotted path, e.g. "cycles.stalled.load_latency" */
    const char *label;   /* label="..." or the last path component */
    int kind;            /* HCA_NODE_EXPR, HCA_NODE_SUM, HCA_NODE_REST */
    int parent;          /* node index, -1 for a root */
    int est;             /* an estimate: draw it as one */
    int depth;           /* 0 for a root */
} hca_model_node;

enum { HCA_PLOT_STACK = 0, HCA_PLOT_LINES = 1 };

typedef struct {
    const char *label;   /* node label, or the name before '=' of an inline expression */
    int node;            /* node index, or -1 for an inline expression */
} hca_model_plot_item;

typedef struct {
    const char *name;
    int style;           /* HCA_PLOT_STACK or HCA_PLOT_LINES */
    const char *per;     /* the divisor as written ("1" = absolute) */
    size_t nitems;
    const hca_model_plot_item *items;
} hca_model_plot;

/* Parses a model. `filename` is used in messages only. Returns NULL and a
 * "file:line:column: message" in err on any error. */
hca_model *hca_model_parse(const char *text, const char *filename, char *err, size_t errlen);
/* A model file's text (malloc'ed, NUL-terminated), or NULL with "path:
 * cannot read: ..." (or "not a text file") in err. */
char *hca_model_read_file(const char *path, char *err, size_t errlen);
/* Reads and parses a file ("path: cannot read: ..." on I/O errors). */
hca_model *hca_model_load(const char *path, char *err, size_t errlen);
void hca_model_free(hca_model *m);

/* Header directives ("" when absent). `match` is "any" or "pmu=a,b". */
const char *hca_model_id(const hca_model *m);
const char *hca_model_title(const hca_model *m);
const char *hca_model_match(const hca_model *m);
const char *hca_model_unit(const hca_model *m);
size_t hca_model_nsources(const hca_model *m);
const char *hca_model_source(const hca_model *m, size_t i);

size_t hca_model_nevents(const hca_model *m);
const hca_model_event *hca_model_event_at(const hca_model *m, size_t i);
int hca_model_find_event(const hca_model *m, const char *name); /* index or -1 */
size_t hca_model_nparams(const hca_model *m);
const hca_model_param *hca_model_param_at(const hca_model *m, size_t i);
size_t hca_model_nnodes(const hca_model *m);
const hca_model_node *hca_model_node_at(const hca_model *m, size_t i);
int hca_model_find_node(const hca_model *m, const char *path); /* index or -1 */
size_t hca_model_nplots(const hca_model *m);
const hca_model_plot *hca_model_plot_at(const hca_model *m, size_t i);

/* `group A B ...`: events to count in one counter set, the first leading
 * (e.g. Sapphire Rapids' topdown events under TOPDOWN.SLOTS). Returns the
 * event indices and their number in *n. */
size_t hca_model_ngroups(const hca_model *m);
const size_t *hca_model_group_at(const hca_model *m, size_t i, size_t *n);
/* `predict EXPR against EXPR`: 1 if the model predicts a measured quantity. */
int hca_model_has_prediction(const hca_model *m);
/* `instructions NAME`: the event index of retired instructions, or -1. */
int hca_model_instructions(const hca_model *m);

/* Sets a parameter. Returns 0, or -1 if there is no such parameter. */
int hca_model_set_param(hca_model *m, const char *name, double value);
/* "NAME=VALUE" as given on a command line. Returns 0, or -1 with a message. */
int hca_model_set_param_arg(hca_model *m, const char *arg, char *err, size_t errlen);

/* Result flags */
enum {
    HCA_EVAL_OVERLAP = 1,   /* somewhere children exceeded their parent */
    HCA_EVAL_DIVZERO = 2,   /* a '/' by zero at run time gave NaN */
    HCA_EVAL_ABSENT = 4,    /* an event had no values (NULL): its uses are NaN */
    HCA_EVAL_NONFINITE = 8, /* some other NaN or infinity (e.g. in the input) */
};

typedef struct {
    size_t n;          /* points */
    size_t nnodes;
    double **node;     /* [nnodes][n]: the node's value (rest: clamped at 0) */
    double **overlap;  /* [nnodes][n]: max(0, sum of children - node); 0 for leaves and sum nodes */
    size_t nplots;
    size_t *nitems;    /* [nplots] */
    double ***plot;    /* [nplots][nitems][n]: item / per (NaN where per is 0) */
    double **plot_per; /* [nplots][n]: the plot's divisor `per` */
    unsigned flags;    /* HCA_EVAL_* */
    size_t overlap_points; /* points where some node had overlap > 0 */
    size_t divzero_points; /* points where a '/' divided by zero */
    double *predicted;     /* [n] the `predict` expression, NULL if the model has none */
    double *actual;        /* [n] the expression after `against` */
} hca_model_result;

/* Evaluates the model on n points. event_values[i] is the array of event i
 * (model order, hca_model_event_at), n long; NULL = absent (only sensible
 * for optional events). For totals pass n = 1. In `sum` and `rest` nodes a
 * NaN child is skipped (it is absent, not 0); flags say so. Returns 0, or -1
 * when out of memory. Free with hca_model_result_free. */
int hca_model_eval(const hca_model *m, const double *const *event_values, size_t n, hca_model_result *out);
void hca_model_result_free(hca_model_result *r);

/* Lists the model's events whose names are not among `avail` (compared
 * without case and without a "pmu::" prefix), each as
 * "ALIAS (spec), closest present: a, b, c" separated by "; ".
 * Optional events are listed only if include_optional. Returns how many
 * are missing. */
size_t hca_model_missing_events(const hca_model *m, const char *const *avail, size_t navail, int include_optional,
                                char *out, size_t outlen);

#endif
