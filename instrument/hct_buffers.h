/* hct_buffers.h: the memory of the process's OTF2 event buffers, within
 * HCATRACE_TOTAL_MEMORY: when a buffer needs a new chunk beyond the budget, OTF2
 * flushes it to its event file (a BufferFlush event records the time it took) and
 * reuses its chunks, so memory stays flat for any run length and what was flushed is
 * on disk whatever the end. */
#ifndef HCT_BUFFERS_H
#define HCT_BUFFERS_H

#include <stddef.h>

#include <otf2/otf2.h>

#include "hct.h"

/* The budget in bytes: set_mib when HCATRACE_TOTAL_MEMORY was set (set != 0);
 * unset, default_mib shared by the ranks the launcher started on this node
 * (local_ranks: its count, OMPI_COMM_WORLD_LOCAL_SIZE or MPI_LOCALNRANKS; NULL or
 * not a number: 1), at least HCT_MIN_TOTAL_MEMORY_MIB: 8 ranks on a node keep
 * 1 MiB of events each (one chunk), not 8, the rest on disk (docs/benchmarks.md,
 * "At 8 ranks" and "At 8 ranks, LULESH"). */
size_t hct_buffers_budget(unsigned mib, int set, const char *local_ranks) HCT_HIDDEN;
/* The launcher's count of ranks on this node, as a string (NULL: none said). */
const char *hct_buffers_local_ranks(void) HCT_HIDDEN;

/* Installs the memory callbacks on an archive, before any writer is made.
 * near_full (or NULL) is called when an event buffer takes a chunk after which the
 * budget leaves none: the next full chunk flushes (the journal names the calling
 * contexts then, while fewer chunks are full). */
OTF2_ErrorCode hct_buffers_attach(OTF2_Archive *archive, size_t budget_bytes, void (*near_full)(void)) HCT_HIDDEN;

#endif
