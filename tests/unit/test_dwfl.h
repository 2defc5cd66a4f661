/* test_dwfl.h: what the unit tests that compare an index of ours with libdw's
 * own answers share (test_scope_index.c, test_line_tables.c): a program's
 * debug information opened offline with libdw, and the path of a program
 * built beside the test (tests/inline_app). Include after cmocka.h. */
#ifndef TEST_DWFL_H
#define TEST_DWFL_H

#include <elfutils/libdwfl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The program at path, reported offline (its module into *mod if mod). */
static inline Dwfl *test_dwfl_open(const char *path, Dwfl_Module **mod)
{
    static char *debuginfo_path;
    static const Dwfl_Callbacks callbacks = {
        .find_elf = dwfl_build_id_find_elf,
        .find_debuginfo = dwfl_standard_find_debuginfo,
        .section_address = dwfl_offline_section_address,
        .debuginfo_path = &debuginfo_path,
    };
    Dwfl *dwfl = dwfl_begin(&callbacks);
    assert_non_null(dwfl);
    Dwfl_Module *m = dwfl_report_offline(dwfl, path, path, -1);
    assert_non_null(m);
    assert_int_equal(dwfl_report_end(dwfl, NULL, NULL), 0);
    if (mod)
        *mod = m;
    return dwfl;
}

/* The test program's directory, from its argv[0] (main sets it). */
static const char *test_dir = ".";

static inline void test_dir_set(const char *argv0)
{
    static char dir[4096];
    snprintf(dir, sizeof(dir), "%s", argv0);
    char *slash = strrchr(dir, '/');
    if (slash) {
        *slash = '\0';
        test_dir = dir;
    }
}

/* The path of `name` built beside the test; 0 if not built (no C++ compiler
 * for tests/inline_app): the caller skips. */
static inline int test_beside(const char *name, char *path, size_t size)
{
    snprintf(path, size, "%s/%s", test_dir, name);
    return access(path, R_OK) == 0;
}

#endif
