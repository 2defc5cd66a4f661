/* hct_image_pages.c: drops the resident pages of the files libdw mapped to
 * symbolize (see hct_image_pages.h). */
#include "hct_image_pages.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "hct_maps_line.h"

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
    if (copy) {
        f->path[f->n++] = copy;
        f->mapped = 0; /* its mapping is not among the ranges */
    }
}

void hct_image_files_forget(hct_image_files *f)
{
    f->mapped = 0;
}

void hct_image_files_free(hct_image_files *f)
{
    for (size_t i = 0; i < f->n; i++)
        free(f->path[i]);
    f->n = 0;
    free(f->ranges);
    f->ranges = NULL;
    f->nranges = 0;
    f->mapped = 0;
}

static int is_file(const hct_image_files *f, const char *path)
{
    for (size_t i = 0; i < f->n; i++)
        if (strcmp(f->path[i], path) == 0)
            return 1;
    return 0;
}

/* Is every page of [start, end) that is present a page of the file (none a
 * private copy written by the process: /proc/self/pagemap's bit 61 set), and
 * none swapped out (bit 62: only a private copy can be)? */
static int only_file_pages(int pagemap, const char *start, const char *end)
{
    uint64_t entry[512];
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), first = 0;
    memcpy(&first, &start, sizeof(first));
    size_t npages = (size_t)(end - start) / page;
    for (size_t done = 0; done < npages;) {
        size_t n = npages - done < 512 ? npages - done : 512;
        off_t at = (off_t)((first / page + done) * sizeof(uint64_t));
        if (pread(pagemap, entry, n * sizeof(uint64_t), at) != (ssize_t)(n * sizeof(uint64_t)))
            return 0;
        for (size_t i = 0; i < n; i++)
            if (((entry[i] >> 63 & 1) && !(entry[i] >> 61 & 1)) || (entry[i] >> 62 & 1))
                return 0;
        done += n;
    }
    return 1;
}

/* The mappings of the listed files in maps_path: f->ranges. -1 if it cannot
 * be read. */
static int find_ranges(hct_image_files *f, const char *maps_path)
{
    FILE *in = fopen(maps_path, "r");
    if (!in)
        return -1;
    char line[4352];
    f->nranges = 0;
    size_t cap = 0;
    int rc = 0;
    while (fgets(line, sizeof(line), in)) {
        hct_maps_line m;
        if (hct_maps_line_parse(line, &m) != 0 || f->n == 0 || m.inode == 0 || m.offset != 0 ||
            strcmp(m.perms, "rw-p") != 0 || !is_file(f, m.path))
            continue;
        if (f->nranges == cap) {
            size_t ncap = cap ? 2 * cap : 16;
            hct_image_range *r = realloc(f->ranges, ncap * sizeof(*r));
            if (!r) {
                rc = -1;
                break;
            }
            f->ranges = r;
            cap = ncap;
        }
        f->ranges[f->nranges++] = (hct_image_range){ m.start, m.end };
    }
    fclose(in);
    f->mapped = rc == 0;
    return rc;
}

long hct_image_pages_release(hct_image_files *f, const char *maps_path)
{
    if (!f->mapped && find_ranges(f, maps_path) != 0)
        return -1;
    int pagemap = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
    if (pagemap < 0)
        return -1;
    long released = 0;
    for (size_t i = 0; i < f->nranges; i++) {
        char *s = f->ranges[i].start, *e = f->ranges[i].end;
        if (only_file_pages(pagemap, s, e) && madvise(s, (size_t)(e - s), MADV_DONTNEED) == 0)
            released += (long)((e - s) / 1024);
    }
    close(pagemap);
    return released;
}
