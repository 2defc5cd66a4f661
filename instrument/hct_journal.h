/* hct_journal.h: the process's definitions journal (src/hca_journal.h): before one
 * of its event buffers is flushed during the run, the calling contexts, regions and
 * communicators made since the last flush become definitions and are appended to
 * DIR/rank-N.journal, so that the events on disk can be read whatever the end,
 * SIGKILL and a node crash included (the recovery, src/hca_recover.h, reads it). */
#ifndef HCT_JOURNAL_H
#define HCT_JOURNAL_H

#include <stdbool.h>
#include <stdint.h>

#include <otf2/otf2.h>

#include "hct.h"

/* The flush hook (hca_flush_clock.before): appends a record before an event buffer's
 * chunks are written during the run; nothing at a buffer's close (the end writes
 * the definitions) or once recording stopped. Returns 0 (drop the buffer) once a
 * write of the trace failed (a full disk): OTF2's file layer is not written again
 * after an error, and what is on disk stays readable. */
int hct_journal_before_flush(void *user, OTF2_FileType type, bool final) HCT_HIDDEN;
/* Before a flush comes: names the calling contexts, regions and communicators made
 * so far (the definitions the next record appends), while the event chunks are not
 * all full; the flush's record then names only what comes after. */
void hct_journal_prepare(void) HCT_HIDDEN;
/* The clock offset of this process to the job's, measured at MPI_Init. */
void hct_journal_clock_offset(uint64_t time, int64_t offset) HCT_HIDDEN;
/* At an end that wrote the definitions: the journal is not needed; removed. */
void hct_journal_remove(void) HCT_HIDDEN;

#endif
