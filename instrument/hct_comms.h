/* hct_comms.h: the process's communicators and OpenMP thread teams, one local
 * ID space (hct_comms.c). */
#ifndef HCT_COMMS_H
#define HCT_COMMS_H

#include <stdatomic.h>
#include <stdint.h>

#include "hct.h"

/* A communicator: the next local ID (takes ownership of members, malloc'ed). */
uint32_t hct_comms_add(const char *name, uint32_t parent, uint64_t key, uint32_t nmembers, uint32_t *members) HCT_HIDDEN;
/* An OpenMP thread team: *id gets its local ID; the returned bitmap (one bit
 * per thread index) collects its members. NULL when memory ran out. */
_Atomic uint64_t *hct_comms_add_team(const char *name, uint64_t key, uint32_t *id) HCT_HIDDEN;
/* At the end, and at each flush of an event buffer: the communicators and teams made
 * since the last call become definitions of hct.defs (teams: their members now). */
int hct_comms_define(void) HCT_HIDDEN;

#endif
