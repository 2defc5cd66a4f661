/* hct_callsite.h: the process's run-time calling contexts, one tree: frames of
 * call paths and nodes of instrumented regions (hct_callsite.c). */
#ifndef HCT_CALLSITE_H
#define HCT_CALLSITE_H

#include <stdint.h>

#include "hca_defs.h"
#include "hct.h"

/* The node of region `region_key` (a small integer naming an instrumented
 * region) under `parent` (HCA_UNDEF: a root). Takes a lock; never call it in a
 * signal handler. HCA_UNDEF when full. */
uint32_t hct_region_cc(uint32_t parent, uint32_t region_key) HCT_HIDDEN;
/* The calling context of a sampled frame: `address` (a leaf's own address, a
 * caller's return address - 1) called from `parent` (HCA_UNDEF: the root).
 * Takes a lock; never call it in a signal handler. HCA_UNDEF when full. */
uint32_t hct_sample_cc(uint32_t parent, uintptr_t address) HCT_HIDDEN;
/* Room for n sampled frames, allocated and touched now (at load). */
void hct_sample_cc_reserve(uint32_t n) HCT_HIDDEN;
/* At finalize: symbolize call sites and add regions and contexts to hct.defs.
 * region_def(key) adds the region definition of an instrumented region. */
int hct_callsite_define(hca_ref (*region_def)(hca_defs *d, uint32_t key)) HCT_HIDDEN;

#endif
