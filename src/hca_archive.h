/* hca_archive.h: the writing side of the trace schema's archives: OTF2 flush
 * callbacks that always flush (OTF2 drops a buffer when told not to) and stamp
 * a mid-run buffer flush with the writer's own clock; a writer may act before
 * each flush (the tracer's definitions journal). */
#ifndef HCA_ARCHIVE_H
#define HCA_ARCHIVE_H

#include <stdint.h>

#include <otf2/otf2.h>

typedef struct {
    uint64_t (*now)(void *user); /* the time of a BufferFlush event */
    void *user;
    /* optional: called before a buffer's chunks are written (final: at its close);
     * returns 0 to drop them instead (a file that failed to write) */
    int (*before)(void *user, OTF2_FileType type, bool final);
} hca_flush_clock;

/* clock must outlive the archive. */
OTF2_ErrorCode hca_archive_set_flush(OTF2_Archive *archive, hca_flush_clock *clock);

#endif
