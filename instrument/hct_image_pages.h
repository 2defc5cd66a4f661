/* hct_image_pages.h: gives back the resident pages of the ELF and DWARF files
 * libdw mapped to symbolize (hct_image_pages.c). libelf maps a module's file
 * (and its separate debug file) whole, private and writable; the pages DWARF
 * lookups touched (LULESH's unit walked once for its scope index: 1.5 MiB) stay
 * in the process's resident memory until the symbolizer ends. They are clean
 * copies of the file: dropped, a later lookup reads them again from the page
 * cache. */
#ifndef HCT_IMAGE_PAGES_H
#define HCT_IMAGE_PAGES_H

#include <stddef.h>

#include "hct.h"

/* One mapping of a listed file found in the maps file. */
typedef struct {
    char *start, *end;
} hct_image_range;

/* The files a symbolizer read (a module's file, its separate debug file), at
 * most HCT_IMAGE_FILES; a name is copied once. Not thread-safe: the owner
 * serializes. The mappings of the files, once read from the maps file, are
 * kept until a file is added or hct_image_files_forget: libelf maps a file
 * once, when it is opened, and unmaps it when it is closed (the symbolizer's
 * end), so the ranges stay those of the files; reading /proc/self/maps (about
 * 0.4 ms in an Open MPI process: the kernel's text, a sscanf per line) at
 * each of a rank's 10-20 releases was 4-8 ms of CPU per LULESH rank
 * (docs/benchmarks.md, "The start and the end of a rank"). Zero-initialized:
 * empty. */
#define HCT_IMAGE_FILES 64
typedef struct {
    char *path[HCT_IMAGE_FILES];
    size_t n;
    hct_image_range *ranges; /* valid while `mapped` */
    size_t nranges;
    int mapped;
} hct_image_files;

/* Adds `path` (NULL: nothing) unless it is there. */
void hct_image_files_add(hct_image_files *f, const char *path) HCT_HIDDEN;
void hct_image_files_free(hct_image_files *f) HCT_HIDDEN;
/* The mappings may have changed (modules reported again): the next release
 * reads the maps file again. */
void hct_image_files_forget(hct_image_files *f) HCT_HIDDEN;

/* Drops this process's resident pages of libelf's mappings of those files:
 * every mapping in maps_path (/proc/self/maps; another file for the tests;
 * read when the ranges are not known: see above) that is private, writable, at
 * offset 0 of one of the files, and whose present pages are all the file's
 * (none a private copy the process wrote or one swapped out:
 * /proc/self/pagemap, read at every release), gets madvise(MADV_DONTNEED):
 * each page is read again from the page cache as it was. The loader's
 * mappings are never at offset 0 with write access. Returns the kB of the
 * mappings dropped, -1 if maps_path (when read) or the pagemap cannot be
 * read. */
long hct_image_pages_release(hct_image_files *f, const char *maps_path) HCT_HIDDEN;

#endif
