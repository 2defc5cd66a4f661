/* hct_maps_line.c: one line of a maps file parsed (see hct_maps_line.h). */
#include "hct_maps_line.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

int hct_maps_line_parse(char *line, hct_maps_line *out)
{
    int path_at = 0;
    out->perms[0] = '\0';
    void *start = NULL, *end = NULL;
    if (sscanf(line, "%p-%p %7s %" SCNx64 " %x:%x %" SCNu64 " %n", &start, &end, out->perms, &out->offset,
               &out->dev_major, &out->dev_minor, &out->inode, &path_at) < 7 ||
        path_at <= 0)
        return -1;
    out->start = start;
    out->end = end;
    out->path = line + path_at;
    out->path[strcspn(out->path, "\n")] = '\0';
    return 0;
}
