/* analysis.h: folding a whole trace: read it, group region instances, fold each
 * region's samples per counter, fit, segment into phases, find source bands,
 * and fill a report (result.h) for the outputs. */
#ifndef FOLD_ANALYSIS_H
#define FOLD_ANALYSIS_H

#include <stddef.h>

#include "result.h"

/* Exit codes of hcafold (docs/output.md, hcafold(1)). */
enum {
    FOLD_EXIT_OK = 0,
    FOLD_EXIT_USAGE = 2,
    FOLD_EXIT_BAD_TRACE = 3, /* not an OTF2 archive, corrupt or truncated */
    FOLD_EXIT_NOTHING = 4,   /* no region with enough instances and samples */
    FOLD_EXIT_OUTPUT = 5,    /* the output directory or a file could not be written */
    FOLD_EXIT_MODEL = 6      /* the events of the --model are missing from the trace (outputs written) */
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
    int include_mpi;             /* also fold the MPI calls themselves */
    void (*progress)(const char *stage, size_t done, size_t total); /* or NULL */
} fold_options;

void fold_options_defaults(fold_options *o);

/* Returns FOLD_EXIT_OK, FOLD_EXIT_BAD_TRACE or FOLD_EXIT_NOTHING (with a
 * one-line reason in err). */
int fold_analyze(const char *trace_path, const fold_options *o, fold_report *report, char *err, size_t errlen);

#endif
