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

/* The files a symbolizer read (a module's file, its separate debug file), at
 * most HCT_IMAGE_FILES; a name is copied once. Not thread-safe: the owner
 * serializes. */
#define HCT_IMAGE_FILES 64
typedef struct {
    char *path[HCT_IMAGE_FILES];
    size_t n;
} hct_image_files;

/* Adds `path` (NULL: nothing) unless it is there. */
void hct_image_files_add(hct_image_files *f, const char *path) HCT_HIDDEN;
void hct_image_files_free(hct_image_files *f) HCT_HIDDEN;

/* Drops this process's resident pages of libelf's mappings of those files:
 * every mapping in maps_path (/proc/self/maps; another file for the tests)
 * that is private, writable, at offset 0 of one of the files, and whose
 * present pages are all the file's (none a private copy the process wrote:
 * /proc/self/pagemap), gets madvise(MADV_DONTNEED): each page is read again
 * from the page cache as it was. The loader's mappings are never at offset 0
 * with write access. Returns the kB of the mappings dropped, -1 if maps_path
 * or the pagemap cannot be read. */
long hct_image_pages_release(const hct_image_files *f, const char *maps_path) HCT_HIDDEN;

#endif
