/* hct_otf2_direct.h: OTF2's files written straight from the tracer's chunks,
 * without OTF2 3.0's 4 MiB file buffer. Its file layer copies every write under
 * 4 MiB (an event chunk, a definition buffer) into a buffer it allocates at a
 * file's first write and frees when the file is closed; when that allocation
 * fails it writes directly. The copy holds a location's events a second time
 * while its file is closed (the peak of a traced rank at 8 ranks) and holds back
 * up to 4 MiB of a flush during the run from the disk (lost at SIGKILL). The
 * tracer refuses that one allocation to libotf2 alone (its own import of
 * `malloc`, redirected; no other library's calls change): every chunk then goes
 * to its file with one write as OTF2 writes it (docs/benchmarks.md, "At 8 ranks"). */
#ifndef HCT_OTF2_DIRECT_H
#define HCT_OTF2_DIRECT_H

#include <stddef.h>

#include "hct.h"

/* OTF2 3.0's file buffer (OTF2_FILE_BUFFER_SIZE in its OTF2_File.c): the only
 * allocation of libotf2's own of this size in the writing path (chunks come from
 * the memory callbacks, hct_buffers.c). */
#define HCT_OTF2_FILE_BUFFER_SIZE ((size_t)4 << 20)

/* Redirects the import of malloc of libotf2 (the library that defines
 * OTF2_Archive_Open). Returns 0 when redirected (or already), -1 when its
 * imports could not be found or changed: OTF2 then buffers as before. */
int hct_otf2_direct_install(void) HCT_HIDDEN;

/* How many of libotf2's allocations of the file buffer's size were refused. */
unsigned long hct_otf2_direct_refused(void) HCT_HIDDEN;

#endif
