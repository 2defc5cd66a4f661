/* hca_journal.h: a rank's definitions journal, DIR/rank-N.journal: what a traced
 * process defined, appended each time one of its event buffers is flushed during the
 * run, before the events that use the definitions reach their file, so that whatever
 * was flushed stays readable after an end the process cannot act on (SIGKILL, a node
 * crash, a full disk). Each record holds a header, the process's locations and the
 * definitions added since the previous record (hca_defs_serialize_since), with a
 * checksum: a record cut short by the end is recognized and ignored. The recovery
 * (hca_recover.h) reads a journal where a rank left no rank-N.partial. Same machine,
 * same build: native byte order. */
#ifndef HCA_JOURNAL_H
#define HCA_JOURNAL_H

#include <stddef.h>
#include <stdint.h>

#include "hca_defs.h"
#include "hca_partial.h"

#define HCA_JOURNAL_MAGIC "HCAJRNL1"
#define HCA_JOURNAL_FMT "rank-%d.journal" /* in the experiment directory */
#define HCA_JOURNAL_HOW "no end recorded (SIGKILL or a crash)" /* how a journal's rank ended */

typedef struct {
    char magic[8];       /* HCA_JOURNAL_MAGIC, no NUL */
    uint64_t len;        /* bytes that follow: h.nlocs locations, then h.defs_len of definitions */
    uint64_t checksum;   /* FNV-1a of those bytes */
    hca_defs_marks base; /* the definitions before this record's */
    uint32_t reserved;
    hca_partial_header h; /* end_ts: the time of this flush */
} hca_journal_record;

/* Appends one record to the open journal fd with one write(2): the definitions of d
 * added since *marks, which then become d's. 0, or -1 (errno). */
int hca_journal_append(int fd, const hca_partial_header *h, const hca_location_info *locs, const hca_defs *d,
                       hca_defs_marks *marks);

/* Reads a journal into p as if it were a partial definitions file: the last complete
 * record's header and locations, the definitions of all complete records. *records
 * gets the number of records read, *torn 1 when bytes after the last one were not a
 * complete record. 0, or -1 with a one-line reason in err (no complete record). */
int hca_journal_read(const char *path, hca_partial *p, unsigned *records, int *torn, char *err, size_t errlen);

#endif
