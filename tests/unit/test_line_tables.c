/* test_line_tables.c: unit tests of the compact copies of line tables
 * (instrument/hct_line_tables.c) against libdw's own: for every address of
 * every compilation unit of this test and of tests/inline_app (C++, many
 * files and inlined templates), the row dwfl_module_getsrc finds (or none)
 * and the copy's have the same file name and line; every file of a unit has
 * the name dwarf_filesrc gives; the copy keeps fewer rows than libdw read and
 * fewer bytes than libdw's rows take. HCT_LINE_TEST_BINARY=path checks
 * another program (HCT_LINE_TEST_STEP=N: every Nth address). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <elfutils/libdwfl.h>

#include "test_dwfl.h"

#include "hct_line_tables.h"
#include "../malloc_probe.h"

typedef struct {
    long addresses, with_line, files, units, mismatches;
    size_t rows, rows_read, bytes;
} tally;

static int same_name(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* Every `step`th address of the unit's ranges, and its files. */
static void compare_unit(hct_line_tables *t, Dwfl_Module *mod, Dwarf_Die *cu, Dwarf_Addr bias, Dwarf_Addr step,
                         tally *y)
{
    Dwarf_Addr base = 0, lo = 0, hi = 0;
    ptrdiff_t off = 0;
    y->units++;
    while ((off = dwarf_ranges(cu, off, &base, &lo, &hi)) > 0) {
        for (Dwarf_Addr pc = lo; pc < hi; pc += step) {
            Dwfl_Line *line = dwfl_module_getsrc(mod, pc + bias);
            int want_line = 0, got_line = 0;
            const char *want = line ? dwfl_lineinfo(line, NULL, &want_line, NULL, NULL, NULL) : NULL;
            const char *got = NULL;
            int found = hct_line_find(t, cu, pc, &got, &got_line);
            y->addresses++;
            y->with_line += want != NULL;
            if ((found == 1) != (line != NULL) || !same_name(want, got) || want_line != got_line) {
                if (y->mismatches++ < 10)
                    print_error("0x%lx: libdw %s:%d, copy (%d) %s:%d\n", (unsigned long)pc, want ? want : "-",
                                want_line, found, got ? got : "-", got_line);
            }
        }
    }
    Dwarf_Files *files = NULL;
    size_t nfiles = 0;
    if (dwarf_getsrcfiles(cu, &files, &nfiles) != 0)
        return;
    for (size_t i = 0; i <= nfiles; i++) {
        const char *got = NULL;
        int found = hct_line_file(t, cu, i, &got);
        const char *want = i < nfiles ? dwarf_filesrc(files, i, NULL, NULL) : NULL;
        y->files += found == 1;
        if ((found == 1) != (i < nfiles) || !same_name(want, got)) {
            if (y->mismatches++ < 10)
                print_error("file %zu: libdw %s, copy (%d) %s\n", i, want ? want : "-", found, got ? got : "-");
        }
    }
}

static tally compare_program(const char *path, Dwarf_Addr step)
{
    tally y;
    memset(&y, 0, sizeof(y));
    Dwfl_Module *mod = NULL;
    Dwfl *dwfl = test_dwfl_open(path, &mod);
    hct_line_tables *t = hct_line_tables_new();
    assert_non_null(t);
    Dwarf_Addr bias = 0;
    for (Dwarf_Die *cu = dwfl_nextcu(dwfl, NULL, &bias); cu; cu = dwfl_nextcu(dwfl, cu, &bias))
        compare_unit(t, mod, cu, bias, step, &y);
    size_t units = 0;
    hct_line_tables_stats(t, &units, &y.rows, &y.rows_read, &y.bytes);
    hct_line_tables_free(t);
    dwfl_end(dwfl);
    printf("# %s: %ld units, %ld addresses, %ld with a line, %ld files; %zu rows kept of %zu, %zu bytes; "
           "%ld different\n",
           path, y.units, y.addresses, y.with_line, y.files, y.rows, y.rows_read, y.bytes, y.mismatches);
    return y;
}

/* The copy against libdw, smaller than libdw's rows (Dwarf_Line: 40 bytes on
 * elfutils 0.188; 16 is above what a row of the copy takes with its files). */
static void check(const tally *y)
{
    assert_int_equal(y->mismatches, 0);
    assert_true(y->with_line > 0);
    assert_true(y->files > 0);
    assert_true(y->rows < y->rows_read);
    assert_true(y->bytes < 16 * y->rows_read);
}

static void self_program(void **state)
{
    (void)state;
    tally y = compare_program("/proc/self/exe", 1);
    check(&y);
}

static void inline_app(void **state)
{
    (void)state;
    char path[4096];
    if (!test_beside("inline_app", path, sizeof(path)))
        skip(); /* no C++ compiler: not built */
    tally y = compare_program(path, 1);
    check(&y);
}

static void other_program(void **state)
{
    (void)state;
    const char *step = getenv("HCT_LINE_TEST_STEP");
    tally y = compare_program(getenv("HCT_LINE_TEST_BINARY"), step ? (Dwarf_Addr)strtoul(step, NULL, 10) | 1 : 1);
    assert_int_equal(y.mismatches, 0);
}

/* Under ASan its allocator replaces glibc's, which has no such threshold:
 * the case below is not built there. */
#if !defined(__SANITIZE_ADDRESS__)
/* Reading the tables of a program's units frees no block glibc mapped of its
 * own (libdw's rows of a large unit): freeing one raises glibc's threshold
 * for mapping blocks, and the traced program's own temporaries below it then
 * come from the heap (LULESH's page faults 8,474 traced, 221,307 untraced:
 * hct_scratch.h). libdw's memory goes when the tables are freed. */
static void reading_keeps_the_mapping_threshold(void **state)
{
    (void)state;
    char path[4096];
    if (!test_beside("../bin/hcafold", path, sizeof(path)))
        skip(); /* not built beside the tests */
    Dwfl_Module *mod = NULL;
    Dwfl *dwfl = test_dwfl_open(path, &mod);
    hct_line_tables *t = hct_line_tables_new();
    assert_non_null(t);
    void *before[MALLOC_PROBES], *after[MALLOC_PROBES];
    unsigned mapped_before = malloc_probe(before);
    for (int i = 0; i < MALLOC_PROBES; i++)
        assert_non_null(before[i]);
    Dwarf_Addr bias = 0;
    size_t units = 0, rows = 0, rows_read = 0, bytes = 0;
    for (Dwarf_Die *cu = dwfl_nextcu(dwfl, NULL, &bias); cu; cu = dwfl_nextcu(dwfl, cu, &bias)) {
        const char *file = NULL;
        int line = 0;
        Dwarf_Addr lo = 0;
        if (dwarf_lowpc(cu, &lo) == 0)
            hct_line_find(t, cu, lo, &file, &line);
    }
    hct_line_tables_stats(t, &units, &rows, &rows_read, &bytes);
    unsigned mapped_after = malloc_probe(after);
    for (int i = 0; i < MALLOC_PROBES; i++)
        assert_non_null(after[i]);
    printf("# %s: %zu units, %zu rows read; mapped sizes before 0x%x, after 0x%x\n", path, units, rows_read,
           mapped_before, mapped_after);
    assert_true(mapped_before & 1); /* 160 KiB mapped before: a raised threshold would show */
    assert_int_equal(mapped_after, mapped_before);
    hct_line_tables_free(t);
    dwfl_end(dwfl);
    for (int i = 0; i < MALLOC_PROBES; i++) {
        free(before[i]);
        free(after[i]);
    }
}
#endif

int main(int argc, char **argv)
{
    (void)argc;
    test_dir_set(argv[0]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(self_program),
        cmocka_unit_test(inline_app),
#if !defined(__SANITIZE_ADDRESS__)
        cmocka_unit_test(reading_keeps_the_mapping_threshold),
#endif
    };
    /* by hand, on any program: HCT_LINE_TEST_BINARY=path [HCT_LINE_TEST_STEP=n] */
    const struct CMUnitTest by_hand[] = { cmocka_unit_test(other_program) };
    const char *other = getenv("HCT_LINE_TEST_BINARY");
    if (other && *other)
        return cmocka_run_group_tests(by_hand, NULL, NULL);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
