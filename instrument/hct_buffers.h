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

/* Installs the memory callbacks on an archive, before any writer is made. */
OTF2_ErrorCode hct_buffers_attach(OTF2_Archive *archive, size_t budget_bytes) HCT_HIDDEN;

#endif
