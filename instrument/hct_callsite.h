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
/* The calling contexts of a frame of a call path (sampled or unwound at a
 * region's enter): `address` (a leaf's own address, a
 * caller's return address - 1) called from `parent` (HCA_UNDEF: the root).
 * The frame is one node per function of its inline chain at that address:
 * their IDs go to nodes[] (room for HCT_INLINE_MAX), outermost first, and
 * their number is returned; 0 when the table is full. Takes a lock; the first
 * time an address is seen, libdw reads its inline chain; never call it in a
 * signal handler. */
uint32_t hct_sample_cc(uint32_t parent, uintptr_t address, uint32_t *nodes) HCT_HIDDEN;
/* Room for n frame nodes, allocated and touched now (at load). */
void hct_sample_cc_reserve(uint32_t n) HCT_HIDDEN;
/* At finalize, and at each flush of an event buffer: symbolize the frames and add
 * the regions and contexts made since the last call to hct.defs.
 * region_def(key) adds the region definition of an instrumented region. */
int hct_callsite_define(hca_ref (*region_def)(hca_defs *d, uint32_t key)) HCT_HIDDEN;

#endif
