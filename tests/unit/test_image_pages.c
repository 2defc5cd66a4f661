/* test_image_pages.c: unit tests of instrument/hct_image_pages.c, the release
 * of the resident pages of the files libdw mapped: a private writable mapping
 * of a listed file at offset 0, read whole, is no longer resident afterwards
 * (its Rss in /proc/self/smaps) and still reads as the file; a mapping with a
 * page written keeps its pages and the byte written; a file not listed, a
 * read-only mapping and a mapping at another offset are left alone; the maps
 * file is read once for the same files, again after a file was added or the
 * mappings forgotten. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "hct_image_pages.h"

#define FILE_BYTES (256 * 4096)

static char path_a[64], path_b[64];

static void make_file(char *path, char fill)
{
    snprintf(path, 64, "/tmp/test_image_pages.XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    char *buf = malloc(FILE_BYTES);
    assert_non_null(buf);
    for (size_t i = 0; i < FILE_BYTES; i++)
        buf[i] = (char)(fill + (char)(i % 251));
    assert_int_equal(write(fd, buf, FILE_BYTES), FILE_BYTES);
    free(buf);
    close(fd);
}

static int setup(void **state)
{
    (void)state;
    make_file(path_a, 'a');
    make_file(path_b, 'b');
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    unlink(path_a);
    unlink(path_b);
    return 0;
}

/* the mapping as libelf makes it (ELF_C_READ_MMAP_PRIVATE), or read-only */
static char *map(const char *path, int prot, off_t offset, size_t len)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char *p = mmap(NULL, len, prot, MAP_PRIVATE, fileno(f), offset);
    fclose(f);
    assert_true(p != MAP_FAILED);
    return p;
}

/* reads every page: resident, as a lookup's walk leaves them */
static unsigned touch(const char *p, size_t len)
{
    unsigned sum = 0;
    for (size_t i = 0; i < len; i += 4096)
        sum += (unsigned char)((volatile const char *)p)[i];
    return sum;
}

/* the mapping's Rss in /proc/self/smaps, kB; -1 if not found */
static long rss_kb(const void *start)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    assert_non_null(f);
    char line[4352];
    long rss = -1;
    int in = 0;
    while (fgets(line, sizeof(line), f)) {
        unsigned long a, b;
        char perms[8];
        if (sscanf(line, "%lx-%lx %7s", &a, &b, perms) == 3 && b > a) {
            in = a == (uintptr_t)start;
            continue;
        }
        long kb;
        if (in && sscanf(line, "Rss: %ld kB", &kb) == 1)
            rss = kb;
    }
    fclose(f);
    return rss;
}

static void listed_clean_mapping_dropped(void **state)
{
    (void)state;
    char *p = map(path_a, PROT_READ | PROT_WRITE, 0, FILE_BYTES);
    unsigned sum = touch(p, FILE_BYTES);
    assert_true(rss_kb(p) >= FILE_BYTES / 1024);
    hct_image_files f = { 0 };
    hct_image_files_add(&f, path_a);
    hct_image_files_add(&f, path_a); /* once */
    assert_int_equal(f.n, 1);
    long kb = hct_image_pages_release(&f, "/proc/self/maps");
    assert_true(kb >= FILE_BYTES / 1024);
    assert_int_equal(rss_kb(p), 0);
    /* read again: the file's content */
    assert_int_equal(touch(p, FILE_BYTES), sum);
    assert_int_equal(p[4097], (char)('a' + (char)(4097 % 251)));
    munmap(p, FILE_BYTES);
    hct_image_files_free(&f);
    assert_int_equal(f.n, 0);
}

static void written_or_other_mappings_kept(void **state)
{
    (void)state;
    char *dirty = map(path_a, PROT_READ | PROT_WRITE, 0, FILE_BYTES);
    char *unlisted = map(path_b, PROT_READ | PROT_WRITE, 0, FILE_BYTES);
    char *readonly = map(path_a, PROT_READ, 0, FILE_BYTES);
    char *offset = map(path_a, PROT_READ | PROT_WRITE, 4096, FILE_BYTES - 4096);
    touch(dirty, FILE_BYTES);
    touch(unlisted, FILE_BYTES);
    touch(readonly, FILE_BYTES);
    touch(offset, FILE_BYTES - 4096);
    dirty[8192] = 'Z';
    hct_image_files f = { 0 };
    hct_image_files_add(&f, path_a);
    hct_image_files_add(&f, NULL);
    assert_int_equal(f.n, 1);
    assert_int_equal(hct_image_pages_release(&f, "/proc/self/maps"), 0);
    assert_true(rss_kb(dirty) >= FILE_BYTES / 1024);
    assert_int_equal(dirty[8192], 'Z');
    assert_true(rss_kb(unlisted) >= FILE_BYTES / 1024);
    assert_true(rss_kb(readonly) >= FILE_BYTES / 1024);
    assert_true(rss_kb(offset) >= (FILE_BYTES - 4096) / 1024);
    /* the file not listed is released once listed */
    hct_image_files_add(&f, path_b);
    assert_true(hct_image_pages_release(&f, "/proc/self/maps") >= FILE_BYTES / 1024);
    assert_int_equal(rss_kb(unlisted), 0);
    assert_true(rss_kb(dirty) >= FILE_BYTES / 1024);
    munmap(dirty, FILE_BYTES);
    munmap(unlisted, FILE_BYTES);
    munmap(readonly, FILE_BYTES);
    munmap(offset, FILE_BYTES - 4096);
    hct_image_files_free(&f);
}

static void unreadable_maps(void **state)
{
    (void)state;
    hct_image_files f = { 0 };
    assert_int_equal(hct_image_pages_release(&f, "/nonexistent/maps"), -1);
}

/* A second release uses the ranges found by the first: the maps file named
 * then (here one that does not exist) is not read. A file added, or the
 * mappings forgotten, make the next release read it. */
static void maps_read_once_per_files(void **state)
{
    (void)state;
    char *p = map(path_a, PROT_READ | PROT_WRITE, 0, FILE_BYTES);
    hct_image_files f = { 0 };
    hct_image_files_add(&f, path_a);
    touch(p, FILE_BYTES);
    assert_true(hct_image_pages_release(&f, "/proc/self/maps") >= FILE_BYTES / 1024);
    unsigned sum = touch(p, FILE_BYTES);
    assert_true(rss_kb(p) >= FILE_BYTES / 1024);
    assert_true(hct_image_pages_release(&f, "/nonexistent/maps") >= FILE_BYTES / 1024);
    assert_int_equal(rss_kb(p), 0);
    assert_int_equal(touch(p, FILE_BYTES), sum);
    hct_image_files_forget(&f);
    assert_int_equal(hct_image_pages_release(&f, "/nonexistent/maps"), -1);
    assert_true(hct_image_pages_release(&f, "/proc/self/maps") >= FILE_BYTES / 1024);
    hct_image_files_add(&f, path_a); /* known: the ranges stay */
    assert_true(hct_image_pages_release(&f, "/nonexistent/maps") >= FILE_BYTES / 1024);
    hct_image_files_add(&f, path_b);
    assert_int_equal(hct_image_pages_release(&f, "/nonexistent/maps"), -1);
    munmap(p, FILE_BYTES);
    hct_image_files_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(listed_clean_mapping_dropped),
        cmocka_unit_test(written_or_other_mappings_kept),
        cmocka_unit_test(unreadable_maps),
        cmocka_unit_test(maps_read_once_per_files),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
