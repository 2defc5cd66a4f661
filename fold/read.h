/* read.h: reading an hcatrace OTF2 archive into a fold_trace: the global
 * definitions, then the events of every location, in parallel over locations
 * (--jobs threads, one OTF2 reader each), streaming: per location only the
 * instances (boundary times and counter values) and the samples inside them are
 * kept. fold_regions_build (regions.h) then groups the instances by key. */
#ifndef FOLD_READ_H
#define FOLD_READ_H

#include <stddef.h>
#include <stdint.h>

#include "trace.h"

/* Return codes of fold_read. */
enum fold_status {
    FOLD_OK = 0,
    FOLD_ERR_ARGS = 1,     /* bad options */
    FOLD_ERR_OPEN = 2,     /* the path does not exist or cannot be read */
    FOLD_ERR_NOT_OTF2 = 3, /* not an OTF2 archive */
    FOLD_ERR_CORRUPT = 4,  /* truncated or corrupt archive: definitions or events */
    FOLD_ERR_NOMEM = 5
};

typedef struct {
    unsigned jobs;          /* reader threads; 0 or 1: read in the calling thread */
    int mpi_regions;        /* also keep the MPI calls as instances (FOLD_KIND_MPI); default 0 */
    int clock_offsets;      /* apply the archive's clock offsets (OTF2's default); default 1 */
    int keep_tool_time;     /* leave the tracer's own time in durations, positions and
                               task-clock (the run as it ran); default 0: removed */
    /* Optional: called after every chunk of events read, from reader threads but
     * never concurrently; done and total count events (total from the definitions). */
    void (*progress)(void *user, uint64_t done, uint64_t total);
    /* Optional: called after each location's events are read, under the same
     * rules; done and total count locations. Both get progress_user. */
    void (*location_progress)(void *user, uint64_t done, uint64_t total);
    void *progress_user;
} fold_read_options;

void fold_read_defaults(fold_read_options *o);

/* Reads the archive at path: the anchor file (*.otf2) or the directory holding
 * it (traces.otf2, or its only *.otf2). Returns FOLD_OK, or an enum fold_status
 * with a one-line message in err (no program-name prefix; no newline). On
 * error *t is left empty (fold_trace_free is still safe). Registers an OTF2
 * error callback for its duration (OTF2's own messages go into err, not to
 * stderr); do not run two fold_read calls concurrently. */
int fold_read(const char *path, const fold_read_options *o, fold_trace *t, char *err, size_t errlen);

/* Frees everything, the regions built from the trace included. */
void fold_trace_free(fold_trace *t);

/* The value of a trace file property ("HCATRACE::MODEL"; the name compared
 * without case), or NULL. */
const char *fold_trace_property(const fold_trace *t, const char *name);

/* A short name of a status ("not an OTF2 archive", ...). */
const char *fold_status_string(int status);

/* "MPI_Allreduce@cg.c:88": a context's region at the call site of its parent
 * (the file's basename). Without a parent: the region name; parent without a
 * source location: "MPI_Allreduce@caller". Returns the length snprintf would. */
int fold_context_label(const fold_trace *t, uint32_t context, char *buf, size_t len);

#endif
