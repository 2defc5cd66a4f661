/* test_scope_index.c: unit tests of the index of function scopes
 * (instrument/hct_scope_index.c) against libdw's own walk (dwarf_getscopes,
 * then dwarf_getscopes_die of an innermost inlined instance): for every
 * address of every compilation unit of this test (C, with always-inlined
 * helpers two levels deep) and of tests/inline_app (C++ with libstdc++'s
 * inlined templates, beside this test's binary), the same function DIEs in the
 * same order; with a memory bound too small for any unit, the same answers
 * from the walk. HCT_SCOPE_TEST_BINARY=path adds another binary and
 * HCT_SCOPE_TEST_STEP=N checks every Nth address only (for large programs). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <dwarf.h>
#include <elfutils/libdwfl.h>

#include "test_dwfl.h"

#include "hct_scope_index.h"
#include "hct_symbols.h"

/* ---- inlined code of this test itself ---- */
static volatile double sink;

static inline __attribute__((always_inline)) double inner(double x)
{
    for (int i = 0; i < 3; i++)
        x = x * 1.0001 + sink;
    return x;
}

static inline __attribute__((always_inline)) double outer(double x)
{
    double y = inner(x);
    return y + inner(y * 2);
}

static __attribute__((noinline)) double work(double x)
{
    return outer(x) - outer(x + 1);
}

typedef struct {
    long addresses, functions, inlined, deepest, units, mismatches;
} tally;

static const char *die_name(Dwarf_Die *d)
{
    Dwarf_Attribute attr;
    const char *n = dwarf_formstring(dwarf_attr_integrate(d, DW_AT_name, &attr));
    return n ? n : "?";
}

/* Every `step`th address of the unit's ranges, both ways. */
static void compare_unit(hct_scope_index *x, Dwarf_Die *cu, Dwarf_Addr step, tally *t)
{
    Dwarf_Addr base = 0, lo = 0, hi = 0;
    ptrdiff_t off = 0;
    t->units++;
    while ((off = dwarf_ranges(cu, off, &base, &lo, &hi)) > 0) {
        for (Dwarf_Addr pc = lo; pc < hi; pc += step) {
            Dwarf_Die want[HCT_INLINE_MAX], got[HCT_INLINE_MAX];
            int nw = hct_scope_functions_walk(cu, pc, want, HCT_INLINE_MAX);
            int ng = hct_scope_functions(x, cu, pc, got, HCT_INLINE_MAX);
            t->addresses++;
            t->functions += nw > 0;
            t->inlined += nw > 1;
            if (nw > t->deepest)
                t->deepest = nw;
            int same = nw == ng;
            for (int i = 0; same && i < nw; i++)
                same = dwarf_dieoffset(&want[i]) == dwarf_dieoffset(&got[i]);
            if (!same && t->mismatches++ < 10)
                print_error("0x%lx: libdw %d functions (innermost %s), index %d (innermost %s)\n",
                            (unsigned long)pc, nw, nw > 0 ? die_name(&want[0]) : "-", ng,
                            ng > 0 ? die_name(&got[0]) : "-");
        }
    }
}

/* Every unit of the program at path, with an index of max_bytes. */
static tally compare_program(const char *path, size_t max_bytes, Dwarf_Addr step, size_t *indexed, size_t *walked)
{
    tally t;
    memset(&t, 0, sizeof(t));
    Dwfl *dwfl = test_dwfl_open(path, NULL);
    hct_scope_index *x = hct_scope_index_new(max_bytes);
    assert_non_null(x);
    Dwarf_Addr bias = 0;
    for (Dwarf_Die *cu = dwfl_nextcu(dwfl, NULL, &bias); cu; cu = dwfl_nextcu(dwfl, cu, &bias))
        compare_unit(x, cu, step, &t);
    size_t bytes = 0;
    hct_scope_index_stats(x, indexed, walked, &bytes);
    hct_scope_index_free(x);
    dwfl_end(dwfl);
    printf("# %s: %ld units, %ld addresses, %ld in a function, %ld inlined, up to %ld deep; "
           "%zu units indexed (%zu bytes), %zu walked, %ld different\n",
           path, t.units, t.addresses, t.functions, t.inlined, t.deepest, *indexed, bytes, *walked, t.mismatches);
    return t;
}

static void self_program(void **state)
{
    (void)state;
    sink = work(1.0);
    size_t indexed = 0, walked = 0;
    tally t = compare_program("/proc/self/exe", (size_t)64 << 20, 1, &indexed, &walked);
    assert_int_equal(t.mismatches, 0);
    assert_true(t.inlined > 0);  /* outer() inlined into work() */
    assert_true(t.deepest >= 3); /* inner() inlined into outer() inlined into work() */
    assert_true(indexed > 0);
    assert_int_equal(walked, 0);
}

static void no_room(void **state)
{
    (void)state;
    size_t indexed = 0, walked = 0;
    tally t = compare_program("/proc/self/exe", 0, 1, &indexed, &walked);
    assert_int_equal(t.mismatches, 0);
    assert_true(t.inlined > 0);
    assert_int_equal(indexed, 0);
    assert_true(walked > 0);
}

static void inline_app(void **state)
{
    (void)state;
    char path[4096];
    if (!test_beside("inline_app", path, sizeof(path)))
        skip(); /* no C++ compiler: not built */
    size_t indexed = 0, walked = 0;
    tally t = compare_program(path, (size_t)64 << 20, 1, &indexed, &walked);
    assert_int_equal(t.mismatches, 0);
    assert_true(t.inlined > 100); /* the helper in five stages, libstdc++'s templates */
    assert_true(indexed > 0);
}

static void other_program(void **state)
{
    (void)state;
    const char *path = getenv("HCT_SCOPE_TEST_BINARY");
    const char *step = getenv("HCT_SCOPE_TEST_STEP");
    size_t indexed = 0, walked = 0;
    tally t = compare_program(path, (size_t)64 << 20, step ? (Dwarf_Addr)strtoul(step, NULL, 10) | 1 : 1, &indexed,
                              &walked);
    assert_int_equal(t.mismatches, 0);
}

int main(int argc, char **argv)
{
    (void)argc;
    test_dir_set(argv[0]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(self_program),
        cmocka_unit_test(no_room),
        cmocka_unit_test(inline_app),
    };
    /* by hand, on any program: HCT_SCOPE_TEST_BINARY=path [HCT_SCOPE_TEST_STEP=n] */
    const struct CMUnitTest by_hand[] = { cmocka_unit_test(other_program) };
    const char *other = getenv("HCT_SCOPE_TEST_BINARY");
    if (other && *other)
        return cmocka_run_group_tests(by_hand, NULL, NULL);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
