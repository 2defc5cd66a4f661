/* hct_cu_units.h: an array of per-compilation-unit records sorted by the unit
 * DIE's address, for the indexes that libdw's lookups build per unit at its
 * first question (hct_scope_index.c, hct_line_tables.c). Each record's first
 * member is that key, a const void *. */
#ifndef HCT_CU_UNITS_H
#define HCT_CU_UNITS_H

#include <stddef.h>

#include "hct.h"

/* The record of key among the *n records of `size` bytes at *units (capacity
 * *cap): found, or inserted at its sorted place, zeroed but for its key, and
 * *added set to 1 (the caller builds it). NULL: no memory (nothing changed). */
void *hct_cu_unit_slot(void **units, size_t *n, size_t *cap, size_t size, const void *key, int *added) HCT_HIDDEN;

#endif
