/* analysis.h: folding a whole trace: read it, group region instances, fold each
 * region's samples per counter, fit, segment into phases, find source bands,
 * and fill a report (result.h) for the outputs. */
#ifndef FOLD_ANALYSIS_H
#define FOLD_ANALYSIS_H

#include <stddef.h>

#include "result.h"

/* What fold_analyze returns (hcafold.c maps these to its exit codes). */
enum fold_analysis_status {
    FOLD_ANALYSIS_OK = 0,
    FOLD_ANALYSIS_BAD_TRACE, /* not an OTF2 archive, corrupt or truncated */
    FOLD_ANALYSIS_NOTHING,   /* no region with enough instances and samples */
    FOLD_ANALYSIS_NO_MEMORY, /* memory ran out while reading or folding */
    FOLD_ANALYSIS_BAD_SELECTION /* a --counter the trace does not have */
};

/* The steps fold_analyze reports to fold_options.progress. */
enum fold_progress_step {
    FOLD_PROGRESS_EVENTS,    /* events read: done, total */
    FOLD_PROGRESS_LOCATIONS, /* locations read: done, total */
    FOLD_PROGRESS_FOLDED,    /* a region folded: the done-th of total, its name */
    FOLD_PROGRESS_SKIPPED    /* a region not folded (too few instances or samples): same */
};

typedef struct {
    const char *const *regions;  /* substrings selecting regions by name; NULL/0: all */
    size_t nregions;
    const char *const *counters; /* counter names to fold; 0: all */
    size_t ncounters;
    unsigned jobs;               /* reader threads */
    size_t min_instances;        /* fewer used instances: the region is skipped */
    size_t min_samples;          /* fewer samples: skipped */
    double mad_k;                /* outliers: median +- k * MAD of duration */
    fold_fit_options fit;
    fold_segment_options segment;
    fold_band_options bands;
    fold_bootstrap_options bootstrap;
    int include_mpi;             /* also fold the MPI calls themselves */
    int keep_tool_time;          /* the tracer's own time kept in (the run as it ran) */
    /* or NULL; region: the region's name for FOLD_PROGRESS_FOLDED and _SKIPPED, else NULL */
    void (*progress)(enum fold_progress_step step, size_t done, size_t total, const char *region);
} fold_options;

void fold_options_defaults(fold_options *o);

/* Reads the trace at trace_path (its anchor file, or a directory holding one:
 * read.h) and folds it into report; report->trace is the anchor file read.
 * Returns an enum fold_analysis_status: FOLD_ANALYSIS_OK, or another with a
 * one-line reason in err. */
enum fold_analysis_status fold_analyze(const char *trace_path, const fold_options *o, fold_report *report, char *err, size_t errlen);

#endif
