/* hct_image_pages.c: drops the resident pages of the files libdw mapped to
 * symbolize (see hct_image_pages.h). */
#include "hct_image_pages.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

void hct_image_files_add(hct_image_files *f, const char *path)
{
    if (!path || !path[0])
        return;
    for (size_t i = 0; i < f->n; i++)
        if (strcmp(f->path[i], path) == 0)
            return;
    if (f->n == HCT_IMAGE_FILES)
        return;
    char *copy = strdup(path);
    if (copy)
        f->path[f->n++] = copy;
}

void hct_image_files_free(hct_image_files *f)
{
    for (size_t i = 0; i < f->n; i++)
        free(f->path[i]);
    f->n = 0;
}

typedef struct {
    char *start, *end;
    int candidate; /* private, writable, offset 0, one of the files */
    long rss, dirty, anonymous;
} mapping;

static long drop(const mapping *m)
{
    if (!m->candidate || m->rss <= 0 || m->dirty != 0 || m->anonymous != 0)
        return 0;
    return madvise(m->start, (size_t)(m->end - m->start), MADV_DONTNEED) == 0 ? m->rss : 0;
}

static int is_file(const hct_image_files *f, const char *path)
{
    for (size_t i = 0; i < f->n; i++)
        if (strcmp(f->path[i], path) == 0)
            return 1;
    return 0;
}

long hct_image_pages_release(const hct_image_files *f, const char *smaps_path)
{
    FILE *in = fopen(smaps_path, "r");
    if (!in)
        return -1;
    char line[4352];
    mapping m;
    memset(&m, 0, sizeof(m));
    long released = 0;
    while (fgets(line, sizeof(line), in)) {
        void *start, *end;
        unsigned long offset, inode;
        char perms[8], dev[16];
        int pathpos = 0;
        if (sscanf(line, "%p-%p %7s %lx %15s %lu %n", &start, &end, perms, &offset, dev, &inode, &pathpos) >= 6 &&
            pathpos > 0) {
            released += drop(&m);
            memset(&m, 0, sizeof(m));
            m.start = start;
            m.end = end;
            char *path = line + pathpos;
            path[strcspn(path, "\n")] = '\0';
            m.candidate = f->n > 0 && inode != 0 && offset == 0 && strcmp(perms, "rw-p") == 0 && is_file(f, path);
            continue;
        }
        long kb;
        if (sscanf(line, "Rss: %ld kB", &kb) == 1)
            m.rss = kb;
        else if (sscanf(line, "Private_Dirty: %ld kB", &kb) == 1)
            m.dirty = kb;
        else if (sscanf(line, "Anonymous: %ld kB", &kb) == 1)
            m.anonymous = kb;
    }
    released += drop(&m);
    fclose(in);
    return released;
}
