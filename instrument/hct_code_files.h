/* hct_code_files.h: this process's executable file mappings (hct_code_files.c):
 * a code address -> the file it was loaded from, named so that every process
 * of the node running the same file names it alike (device, inode, size and
 * modification time), and its offset in that file. Load addresses differ from
 * process to process (ASLR); a file and an offset do not. */
#ifndef HCT_CODE_FILES_H
#define HCT_CODE_FILES_H

#include <stdint.h>

#include "hct.h"

typedef struct {
    uintptr_t start, end; /* the mapping [start, end) */
    uint64_t offset;      /* the file offset at start */
    uint64_t file;        /* the file's identity (never 0) */
} hct_code_map;

typedef struct {
    hct_code_map *maps; /* sorted by start */
    size_t n;
    int reads; /* how often the maps file was read */
} hct_code_files;

/* Reads the executable mappings of a maps file (/proc/self/maps) into f,
 * replacing what it held: mappings of regular files, which must still be
 * the file mapped (same device and inode), and the vDSO (by name: the
 * kernel's, the same in every process of the node). Returns 0, or -1. */
int hct_code_files_read(hct_code_files *f, const char *maps_path) HCT_HIDDEN;
/* address -> *file and *offset; 0 if found, -1 if in no mapping read. */
int hct_code_files_find(const hct_code_files *f, uintptr_t address, uint64_t *file, uint64_t *offset) HCT_HIDDEN;
/* The address of (file, offset) in this process, 0 if not mapped here. */
uintptr_t hct_code_files_address(const hct_code_files *f, uint64_t file, uint64_t offset) HCT_HIDDEN;
void hct_code_files_free(hct_code_files *f) HCT_HIDDEN;

#endif
