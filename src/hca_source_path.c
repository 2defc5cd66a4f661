/* hca_source_path.c: joins a source file's name to its compilation directory
 * and normalizes the result by name, without touching the file system
 * (hca_source_path.h). */
#include "hca_source_path.h"

#include <string.h>

/* Appends the component [c, c + n) to out (length *at), resolving "." and "..". */
static int append_component(char *out, size_t len, size_t *at, size_t floor, const char *c, size_t n)
{
    if (n == 0 || (n == 1 && c[0] == '.'))
        return 0;
    if (n == 2 && c[0] == '.' && c[1] == '.') {
        size_t start = *at;
        while (start > floor && out[start - 1] != '/')
            start--;
        int removable = *at > floor && !(*at - start == 2 && out[start] == '.' && out[start + 1] == '.');
        if (removable) { /* drop the last component and the '/' before it */
            *at = start > floor ? start - 1 : floor;
            out[*at] = 0;
            return 0;
        }
        if (floor == 1) /* ".." of the root is the root */
            return 0;
    }
    size_t sep = *at > floor ? 1 : 0;
    if (*at + sep + n + 1 > len)
        return -1;
    if (sep)
        out[(*at)++] = '/';
    memcpy(out + *at, c, n);
    *at += n;
    out[*at] = 0;
    return 0;
}

static int append_path(char *out, size_t len, size_t *at, size_t floor, const char *path)
{
    while (*path) {
        size_t n = strcspn(path, "/");
        if (append_component(out, len, at, floor, path, n) != 0)
            return -1;
        path += n;
        path += strspn(path, "/");
    }
    return 0;
}

int hca_source_path_join(const char *dir, const char *name, char *out, size_t len)
{
    if (!out || len == 0)
        return -1;
    out[0] = 0;
    if (!name)
        name = "";
    const char *first = name[0] == '/' || !dir ? name : dir[0] ? dir : name;
    size_t at = 0, floor = 0;
    if (first[0] == '/') { /* absolute: the root stays */
        if (len < 2)
            return -1;
        out[at++] = '/';
        out[at] = 0;
        floor = 1;
    }
    int bad = append_path(out, len, &at, floor, first);
    if (!bad && first != name)
        bad = append_path(out, len, &at, floor, name);
    if (bad)
        out[0] = 0;
    return bad ? -1 : 0;
}
