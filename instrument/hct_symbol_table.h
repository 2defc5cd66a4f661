/* hct_symbol_table.h: a module's symbol table sorted by address, built once:
 * the symbol holding an address as dwfl_module_addrinfo names it, and the
 * function symbols starting at an address, by binary search instead of
 * libdw's pass over the whole table per address. */
#ifndef HCT_SYMBOL_TABLE_H
#define HCT_SYMBOL_TABLE_H

#include <elfutils/libdwfl.h>
#include <stddef.h>

#include "hct_symbol_names.h"

typedef struct hct_symbol_table hct_symbol_table;

/* mod's table; NULL when it has no symbols, its values lie 4 GiB apart or
 * more, or its symbol values are not plain (function descriptors): then
 * the callers ask libdw. Freed with hct_symbol_table_free. */
hct_symbol_table *hct_symbol_table_build(Dwfl_Module *mod);
void hct_symbol_table_free(hct_symbol_table *t);

/* What dwfl_module_addrinfo(mod, address, offset, ...) returns: the name of
 * the symbol holding address, and *offset from its value; NULL if none. t
 * may be NULL (libdw answers); libdw answers too whenever its rules for
 * sizeless symbols would decide. */
const char *hct_symbol_table_addrinfo(const hct_symbol_table *t, Dwfl_Module *mod, GElf_Addr address,
                                      GElf_Off *offset);

/* The named function symbols (STT_FUNC, STT_GNU_IFUNC) whose value is start,
 * in the order of their index in mod's table, at most max: their number.
 * t may be NULL (a pass over the table). */
size_t hct_symbol_table_aliases(const hct_symbol_table *t, Dwfl_Module *mod, GElf_Addr start, hct_alias *out,
                                size_t max);

#endif
