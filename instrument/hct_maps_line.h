/* hct_maps_line.h: one line of a process's maps file (/proc/PID/maps, proc(5))
 * parsed (hct_maps_line.c), for the readers of this process's mappings:
 * hct_code_files (its executable mappings) and hct_image_pages (the files
 * libelf mapped). */
#ifndef HCT_MAPS_LINE_H
#define HCT_MAPS_LINE_H

#include <stdint.h>

#include "hct.h"

typedef struct {
    char *start, *end;    /* the mapping [start, end) */
    uint64_t offset;      /* the file offset at start */
    uint64_t inode;       /* 0: no file (anonymous, [vdso], [heap], ...) */
    unsigned dev_major, dev_minor;
    char perms[8]; /* "r-xp", ... */
    char *path;    /* in the line, its newline cut; "" when the line names none */
} hct_maps_line;

/* Parses line (modified: the path's newline cut) into *out. 0, or -1 for a
 * line that is not a mapping's. */
int hct_maps_line_parse(char *line, hct_maps_line *out) HCT_HIDDEN;

#endif
