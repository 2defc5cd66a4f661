/* hct_line_tables.h: the source line of a code address and the file names of a
 * compilation unit, from a compact copy of the unit's line table
 * (hct_line_tables.c) instead of the one libdw keeps for the life of its
 * session: libdw's Dwarf_Line is about 40 bytes a row and LULESH's two large
 * units held 1.4 MiB of them in the node's owner (docs/benchmarks.md, "The
 * node owner's margin"). The copy is read from a Dwarf handle of our own,
 * one per ELF, ended when the tables are freed (at the end of the run: ended
 * at once, it freed libdw's rows of a large unit, a block glibc had mapped of
 * its own, and that raised glibc's threshold for mapping blocks for the
 * program too, hct_scratch.h), and keeps what dwfl_module_getsrc and
 * dwfl_lineinfo answer: the same row for every address, the same file name. */
#ifndef HCT_LINE_TABLES_H
#define HCT_LINE_TABLES_H

#include <elfutils/libdw.h>

#include "hct.h"

/* The units asked about; one per symbolizer, not thread-safe (used as its
 * Dwfl is: by one thread at a time). */
typedef struct hct_line_tables hct_line_tables;

hct_line_tables *hct_line_tables_new(void) HCT_HIDDEN;
void hct_line_tables_free(hct_line_tables *t) HCT_HIDDEN;
/* The row of pc (unit-relative: the module's bias taken off) in the unit cu,
 * as dwfl_module_getsrc chooses it among the rows libdw sorted: its file name
 * (as dwfl_lineinfo gives it; our copy, valid until hct_line_tables_free) into
 * *file and its line into *line. Returns 1 found, 0 no row holds pc (libdw
 * answers none too), -1 the copy could not be made (no line table, no memory,
 * an address past 4 GiB in the unit): ask libdw. */
int hct_line_find(hct_line_tables *t, Dwarf_Die *cu, Dwarf_Addr pc, const char **file, int *line) HCT_HIDDEN;
/* File idx of the unit cu's line table (dwarf_filesrc's name). Returns 1 found,
 * 0 no such file, -1 the copy could not be made: ask libdw. */
int hct_line_file(hct_line_tables *t, Dwarf_Die *cu, Dwarf_Word idx, const char **file) HCT_HIDDEN;
/* What the copies hold: units, rows kept (of the rows libdw read), bytes. */
void hct_line_tables_stats(const hct_line_tables *t, size_t *units, size_t *rows, size_t *rows_read,
                           size_t *bytes) HCT_HIDDEN;

#endif
