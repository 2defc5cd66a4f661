/* hct_self.h: where the tracer's own code lies in memory, so that its frames
 * (signal handler, wrappers, trampolines) are left out of sampled stacks
 * (hct_self.c). */
#ifndef HCT_SELF_H
#define HCT_SELF_H

#include <stdint.h>

#include "hct.h"

/* Finds the executable segments of libhcatrace.so; call once at load. */
void hct_self_locate(void) HCT_HIDDEN;
/* 1 if address lies in the tracer's own code (0 before hct_self_locate). */
int hct_self_contains(uintptr_t address) HCT_HIDDEN;

#endif
