/* runstats.h: the whole run from a read trace (fold_run, result.h): per
 * process its elapsed, MPI and compute time, their spread over the processes,
 * the POP CoE efficiency metrics, and the time per MPI call site. */
#ifndef FOLD_RUNSTATS_H
#define FOLD_RUNSTATS_H

#include "result.h"
#include "trace.h"

/* Fills run from t (read by fold_read). Returns 0, or -1 when memory ran out. */
int fold_run_build(const fold_trace *t, fold_run *run);
void fold_run_free(fold_run *run);

#endif
