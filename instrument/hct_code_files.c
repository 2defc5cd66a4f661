/* hct_code_files.c: the executable file mappings of this process, read from
 * its maps file (see hct_code_files.h). Outside signal handlers only (it
 * allocates); read once, and again when an address is in none of them. */
#include "hct_code_files.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "hct_maps_line.h"
#include "hct_sorted.h"

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    return h * 0xff51afd7ed558ccdull;
}

/* The identity of a mapped file: its device, inode, size and modification
 * time (a file rewritten in place is another file), 0 if it is not the one
 * the mapping names any more. The vDSO: a constant. */
static uint64_t file_identity(const char *path, unsigned dev_major, unsigned dev_minor, uint64_t inode)
{
    if (inode == 0)
        return strcmp(path, "[vdso]") == 0 ? mix(mix(7, 0x76647330), 1) | 1 : 0;
    struct stat st;
    if (path[0] != '/' || stat(path, &st) != 0 || st.st_ino != inode || major(st.st_dev) != dev_major ||
        minor(st.st_dev) != dev_minor)
        return 0;
    uint64_t h = mix(mix(mix(11, (uint64_t)st.st_dev), (uint64_t)st.st_ino), (uint64_t)st.st_size);
    return mix(mix(h, (uint64_t)st.st_mtim.tv_sec), (uint64_t)st.st_mtim.tv_nsec) | 1;
}

static int by_start(const void *a, const void *b)
{
    const hct_code_map *x = a, *y = b;
    return (x->start > y->start) - (x->start < y->start);
}

int hct_code_files_read(hct_code_files *f, const char *maps_path)
{
    FILE *in = fopen(maps_path, "re");
    if (!in)
        return -1;
    f->reads++;
    f->n = 0;
    size_t cap = 0;
    char line[4096 + 128];
    while (fgets(line, sizeof(line), in)) {
        hct_maps_line m;
        if (hct_maps_line_parse(line, &m) != 0 || m.perms[2] != 'x')
            continue;
        uint64_t file = file_identity(m.path, m.dev_major, m.dev_minor, m.inode);
        if (!file)
            continue;
        if (f->n == cap) {
            size_t ncap = cap ? 2 * cap : 64;
            hct_code_map *p = realloc(f->maps, ncap * sizeof(*p));
            if (!p)
                break;
            f->maps = p;
            cap = ncap;
        }
        f->maps[f->n++] = (hct_code_map){ (uintptr_t)m.start, (uintptr_t)m.end, m.offset, file };
    }
    fclose(in);
    qsort(f->maps, f->n, sizeof(*f->maps), by_start);
    return 0;
}

static uint64_t mapping_start(const void *m)
{
    return ((const hct_code_map *)m)->start;
}

int hct_code_files_find(const hct_code_files *f, uintptr_t address, uint64_t *file, uint64_t *offset)
{
    /* the first mapping starting after address */
    size_t lo = hct_sorted_count_at_most(f->maps, f->n, sizeof(*f->maps), mapping_start, address);
    if (lo == 0 || address >= f->maps[lo - 1].end)
        return -1;
    const hct_code_map *m = &f->maps[lo - 1];
    *file = m->file;
    *offset = m->offset + (address - m->start);
    return 0;
}

uintptr_t hct_code_files_address(const hct_code_files *f, uint64_t file, uint64_t offset)
{
    for (size_t i = 0; i < f->n; i++) {
        const hct_code_map *m = &f->maps[i];
        if (m->file == file && offset >= m->offset && offset - m->offset < m->end - m->start)
            return m->start + (uintptr_t)(offset - m->offset);
    }
    return 0;
}

void hct_code_files_free(hct_code_files *f)
{
    free(f->maps);
    f->maps = NULL;
    f->n = 0;
}
