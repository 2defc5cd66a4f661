/* hct_scope_index.h: the function DIEs (DW_TAG_subprogram and
 * DW_TAG_inlined_subroutine) a code address lies in, answered per compilation
 * unit from an index of the unit's address ranges built once, instead of
 * libdw's dwarf_getscopes + dwarf_getscopes_die, which walk the unit's DIE tree
 * from its root at every address (hct_scope_index.c). */
#ifndef HCT_SCOPE_INDEX_H
#define HCT_SCOPE_INDEX_H

#include <elfutils/libdw.h>

#include "hct.h"

/* The indexes of the units asked about; one per symbolizer, not thread-safe
 * (used as its Dwfl is: by one thread at a time). */
typedef struct hct_scope_index hct_scope_index;

/* max_bytes: the memory all units' indexes may take; a unit that does not fit
 * any more is answered by libdw's walk (hct_scope_functions_walk). */
hct_scope_index *hct_scope_index_new(size_t max_bytes) HCT_HIDDEN;
void hct_scope_index_free(hct_scope_index *x) HCT_HIDDEN;
/* The function DIEs containing pc (unit-relative: the module's bias taken
 * off) in the unit cu, innermost first, the physical function (a
 * DW_TAG_subprogram) last, into fns[0 .. max-1]: past max, the innermost
 * max - 1 and the physical function. These are the DIEs
 * hct_scope_functions_walk finds (the unit's first scope containing pc at
 * each level, and the concrete instances containing the innermost function).
 * Returns how many (0: no function there). The unit's index is built at its
 * first question (one walk of its DIE tree); a unit that cannot be indexed
 * (imported units, an error reading its ranges, the memory bound) is answered
 * by hct_scope_functions_walk. */
int hct_scope_functions(hct_scope_index *x, Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Die *fns, int max) HCT_HIDDEN;
/* The same from libdw's walks: dwarf_getscopes, then dwarf_getscopes_die of
 * an innermost inlined instance (dwarf_getscopes continues it with the scopes
 * of its abstract origin, where the inlined function was declared). */
int hct_scope_functions_walk(Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Die *fns, int max) HCT_HIDDEN;
/* What the index holds: units indexed, units answered by the walk, bytes. */
void hct_scope_index_stats(const hct_scope_index *x, size_t *indexed, size_t *walked, size_t *bytes) HCT_HIDDEN;

#endif
