/* hca_recover.h: rebuilds the global view of a trace whose processes ended without
 * unifying their definitions (no MPI_Finalize: a signal, MPI_Abort, an exit), from the
 * ranks' partial definitions files (hca_partial.h) and their event files, without MPI:
 * the same merge as the tracer's unification at finalize, then the local definition
 * files (mapping tables, clock offsets), the global definitions and the anchor file. */
#ifndef HCA_RECOVER_H
#define HCA_RECOVER_H

#include <stddef.h>

#define HCA_PROP_RECOVERED "HCATRACE::RECOVERED" /* what the rebuilt trace lacks, per rank */

/* 1 when DIR holds partial definitions files and no anchor file yet. */
int hca_recover_needed(const char *dir);

/* Rebuilds DIR/traces.otf2. On success returns 0 and writes to summary one line
 * saying per rank how it ended and up to when the trace holds, and which ranks left
 * nothing; on failure -1 with a one-line reason in err. */
int hca_recover(const char *dir, char *summary, size_t summarylen, char *err, size_t errlen);

#endif
