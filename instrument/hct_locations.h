/* hct_locations.h: the traced threads, each an OTF2 location, and the calling
 * thread's own (hct_locations.c). */
#ifndef HCT_LOCATIONS_H
#define HCT_LOCATIONS_H

#include "hct.h"

/* The calling thread's location while recording, created (with its counters
 * and sampling) on its first call; NULL when not recording or out of room. */
hct_thread *hct_thread_get(void) HCT_HIDDEN;
/* Registers the calling thread (at load: the thread that starts tracing, index 0). */
hct_thread *hct_thread_register(void) HCT_HIDDEN;
/* The calling thread's entry, or NULL if it was never registered. */
hct_thread *hct_thread_self(void) HCT_HIDDEN;

#endif
