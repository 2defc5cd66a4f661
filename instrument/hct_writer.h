/* hct_writer.h: the OTF2 archive of one traced process: opening, one event
 * writer per location, closing, local definitions (mapping tables and clock
 * offsets) and global definitions. Paradigm-neutral: MPI specifics come in
 * through the collective-callback setter and the unification step. */
#ifndef HCT_WRITER_H
#define HCT_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include <otf2/otf2.h>

#include "hca_defs.h"

typedef struct {
    uint64_t time;   /* local timestamp of the measurement */
    int64_t offset;  /* add to local time to get the job's time */
    double stddev;
} hct_clock_offset;

/* Opens hct.expdir/traces. set_collectives(archive) installs the collective
 * callbacks (NULL: serial ones); before_flush (or NULL) is called before a buffer
 * is written, and says whether to write it; near_full (or NULL) when a buffer
 * takes its last chunk within the budget (hct_journal.h). */
int hct_writer_open(OTF2_ErrorCode (*set_collectives)(OTF2_Archive *),
                    int (*before_flush)(void *user, OTF2_FileType type, bool final), void (*near_full)(void),
                    char *err, size_t errlen);
OTF2_EvtWriter *hct_writer_location(uint64_t location_id);
/* Closes every event writer and the event files; *out gets one entry per
 * location (malloc'ed). Returns the count. */
uint32_t hct_writer_close_locations(hca_location_info **out);
/* The same without closing the event files (a collective with MPI): every location's
 * events reach its file; for an end without MPI_Finalize. */
uint32_t hct_writer_flush_locations(hca_location_info **out);
/* Writes each location's mapping tables and clock offsets. */
int hct_writer_local_defs(const hca_defs_map *map, const hct_clock_offset *offsets, uint32_t noffsets);
int hct_writer_global_defs(hca_defs *global, const hca_system_info *sys);
int hct_writer_close(void);
void hct_writer_report(int failed, uint64_t nevents, uint32_t nlocations);

#endif
