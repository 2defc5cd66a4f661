/* hct_regions.h: the region definition of each instrumented region key
 * (hct_regions.c). */
#ifndef HCT_REGIONS_H
#define HCT_REGIONS_H

#include <stdint.h>

#include "hca_defs.h"
#include "hct.h"

/* Region definition of an instrumented region key. */
hca_ref hct_region_def(hca_defs *d, uint32_t key) HCT_HIDDEN;

#endif
