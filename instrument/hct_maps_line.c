/* hct_maps_line.c: one line of a maps file parsed (see hct_maps_line.h), by
 * hand: sscanf took 5,000 instructions a line, 2.8 million per read of an
 * Open MPI process's 490 mappings (the node owner read them 9 times in
 * LULESH `-s 8 -i 2`, docs/benchmarks.md "The fixed cost of a rank"). */
#include "hct_maps_line.h"

#include <string.h>

static const char *skip_blanks(const char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

static int digit_value(char c, unsigned base)
{
    int v = -1;
    if (c >= '0' && c <= '9')
        v = c - '0';
    else if (c >= 'a' && c <= 'f')
        v = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F')
        v = c - 'A' + 10;
    return v >= 0 && (unsigned)v < base ? v : -1;
}

/* A number in base at p (at least one digit) into *v: past it, or NULL. */
static const char *number(const char *p, unsigned base, uint64_t *v)
{
    const char *first = p;
    *v = 0;
    for (int d; (d = digit_value(*p, base)) >= 0; p++)
        *v = *v * base + (uint64_t)d;
    return p > first ? p : NULL;
}

/* Past the character c at p, or NULL. */
static const char *expect(const char *p, char c)
{
    return p && *p == c ? p + 1 : NULL;
}

int hct_maps_line_parse(char *line, hct_maps_line *out)
{
    uint64_t start = 0, end = 0, major = 0, minor = 0;
    out->perms[0] = '\0';
    const char *p = expect(number(line, 16, &start), '-');
    p = p ? number(p, 16, &end) : NULL;
    if (!p || (*p != ' ' && *p != '\t'))
        return -1;
    p = skip_blanks(p);
    size_t n = strcspn(p, " \t\n");
    if (n == 0 || n >= sizeof(out->perms))
        return -1;
    memcpy(out->perms, p, n);
    out->perms[n] = '\0';
    p = number(skip_blanks(p + n), 16, &out->offset);
    p = p ? expect(number(skip_blanks(p), 16, &major), ':') : NULL;
    p = p ? number(p, 16, &minor) : NULL;
    p = p ? number(skip_blanks(p), 10, &out->inode) : NULL;
    if (!p)
        return -1;
    uintptr_t bounds[2] = { (uintptr_t)start, (uintptr_t)end };
    memcpy(&out->start, &bounds[0], sizeof(out->start)); /* addresses of the maps file, not derived pointers */
    memcpy(&out->end, &bounds[1], sizeof(out->end));
    out->dev_major = (unsigned)major;
    out->dev_minor = (unsigned)minor;
    out->path = line + (skip_blanks(p) - line);
    out->path[strcspn(out->path, "\n")] = '\0';
    return 0;
}
