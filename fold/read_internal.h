/* read_internal.h: what the parts of hcafold's trace reading share (not an
 * interface for the rest of fold/): read_archive.c finds the archive and
 * keeps OTF2's messages, read_defs.c reads the global definitions,
 * read_events.c turns one location's events into instances and samples,
 * read_pool.c deals the locations to reader threads, read.c ties them up. */
#ifndef FOLD_READ_INTERNAL_H
#define FOLD_READ_INTERNAL_H

#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <otf2/otf2.h>

#include "read.h"

/* ---- read_archive.c: messages and the archive ---------------------------- */

/* The message of OTF2's last failure in this thread ("" when none). */
extern _Thread_local char fold_otf2_message[256];
/* OTF2's error callback while fold_read runs: the message goes into fold_otf2_message. */
OTF2_ErrorCode fold_otf2_error_cb(void *user, const char *file, uint64_t line, const char *function,
                                  OTF2_ErrorCode code, const char *fmt, va_list va);
/* The OTF2 message of the last failure in this thread, or the code's description. */
const char *fold_otf2_reason(OTF2_ErrorCode code);
/* Writes a one-line message into err and returns status. */
int fold_fail(char *err, size_t errlen, int status, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
int fold_ends_with(const char *s, const char *suffix);
/* The anchor file named by path (a file, or a directory holding one). */
int fold_find_anchor(const char *path, char **anchor, char *err, size_t errlen);
/* An OTF2 anchor file's header is there. */
int fold_has_otf2_magic(const char *anchor);

/* ---- read_defs.c: the global definitions -------------------------------- */

/* Fills t's definitions, properties and locations from the anchor file;
 * *expected: the events of every location (by index), from the definitions. */
int fold_read_global_defs(fold_trace *t, const char *anchor, uint64_t **expected, char *err, size_t errlen);

/* ---- read_pool.c and read_events.c: the locations' events --------------- */

typedef struct {
    pthread_mutex_t lock;
    uint64_t done, total;                         /* events */
    uint64_t locations_done, locations_total;
    void (*cb)(void *, uint64_t, uint64_t);       /* events read; or NULL */
    void (*location_cb)(void *, uint64_t, uint64_t); /* a location read; or NULL */
    void *user;
} fold_progress;

/* One reader thread: its OTF2 reader reads the locations it was dealt. */
typedef struct {
    fold_trace *t;
    const fold_read_options *o;
    const char *anchor;
    const uint64_t *expected; /* events per location from the definitions */
    size_t *locs;             /* location indices of this worker */
    size_t nlocs;
    uint64_t load;
    fold_progress *progress;
    int status;
    char err[256];
    pthread_t thread;
} fold_worker;

/* Reads the events of every location with opts->jobs workers. */
int fold_read_locations(fold_trace *t, const fold_read_options *opts, const uint64_t *expected, char *err,
                        size_t errlen);

/* The event callbacks of read_events.c. */
void fold_event_callbacks_set(OTF2_EvtReaderCallbacks *cbs);
/* Reads location `index` (its local definitions first when have_defs). */
int fold_read_location(fold_worker *w, OTF2_Reader *r, OTF2_EvtReaderCallbacks *cbs, int have_defs, size_t index);
/* Frees a location's counter values. */
void fold_location_arena_free(fold_location *L);

#endif
