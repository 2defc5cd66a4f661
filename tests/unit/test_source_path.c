/* test_source_path.c: unit tests of src/hca_source_path.c, the source file
 * paths the tracer records (DWARF's compilation directory joined with the name
 * the compiler wrote, often relative: "examples/app.c", "../src/x.c") and
 * hcafold looks up (--source-dir): joined, "." and ".." resolved by name. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "hca_source_path.h"

static void expect_join(const char *dir, const char *name, const char *want)
{
    char out[256];
    assert_int_equal(hca_source_path_join(dir, name, out, sizeof(out)), 0);
    assert_string_equal(out, want);
}

static void relative_names_join_the_compilation_directory(void **state)
{
    (void)state;
    expect_join("/work/proj", "examples/app.c", "/work/proj/examples/app.c");
    expect_join("/work/proj/", "./app.c", "/work/proj/app.c");
    expect_join("/work/proj/build", "../src/x.c", "/work/proj/src/x.c");
    expect_join("/work/proj/build", "../../../../x.c", "/x.c");
    expect_join("/", "x.c", "/x.c");
}

static void absolute_names_stay(void **state)
{
    (void)state;
    expect_join("/work/proj", "/usr/include/stdio.h", "/usr/include/stdio.h");
    expect_join("/work/proj", "/usr//include/./x/../stdio.h", "/usr/include/stdio.h");
    expect_join(NULL, "/a/b.c", "/a/b.c");
}

static void without_a_directory_the_name_is_normalized(void **state)
{
    (void)state;
    expect_join(NULL, "examples/./app.c", "examples/app.c");
    expect_join("", "a/../b.c", "b.c");
    expect_join(NULL, "../x/../y.c", "../y.c");
    expect_join("..", "../y.c", "../../y.c");
    expect_join(NULL, "", "");
}

static void too_long_is_refused(void **state)
{
    (void)state;
    char out[8];
    assert_int_equal(hca_source_path_join("/work/proj", "app.c", out, sizeof(out)), -1);
    assert_string_equal(out, "");
    assert_int_equal(hca_source_path_join("/ab", "c.c", out, sizeof(out)), 0);
    assert_string_equal(out, "/ab/c.c");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(relative_names_join_the_compilation_directory),
        cmocka_unit_test(absolute_names_stay),
        cmocka_unit_test(without_a_directory_the_name_is_normalized),
        cmocka_unit_test(too_long_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
