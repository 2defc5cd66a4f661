/* hct_regions.h: the region definition of each instrumented region key, and
 * what was thinned of each (hct_regions.c). */
#ifndef HCT_REGIONS_H
#define HCT_REGIONS_H

#include <stdint.h>

#include "hca_defs.h"
#include "hct.h"

/* Region definition of an instrumented region key. */
hca_ref hct_region_def(hca_defs *d, uint32_t key) HCT_HIDDEN;
/* What every location did not write of each region key (hct_thin.h), into
 * the process's definitions (hct.defs); 0, or -1 when memory ran out. */
int hct_regions_define_thinned(void) HCT_HIDDEN;

#endif
