/* hct_markers.h: user regions of the marker API (include/hcatrace.h). */
#ifndef HCT_MARKERS_H
#define HCT_MARKERS_H

#include <stdint.h>

#include "hct.h"

#define HCT_USER_KEY_BASE 0x10000u /* region keys of user regions start here */

/* The name of user region `key`, or NULL. */
const char *hct_marker_name(uint32_t key) HCT_HIDDEN;
/* Writes the leaves of the calling thread's open user regions (its pending
 * samples written in their place among them). */
void hct_markers_close_open(hct_thread *t) HCT_HIDDEN;

#endif
