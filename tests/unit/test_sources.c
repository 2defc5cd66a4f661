/* test_sources.c: unit tests of fold/sources.c, where hcafold finds the source
 * files a trace names: the recorded path; an older trace's relative name below
 * the trace's directory or a parent; the tails of a path below each
 * --source-dir, the longest first; each file not found counted once; a line's
 * text, nothing for line 0 or past the end. Files are made in a fresh
 * directory under $TMPDIR. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sources.h"

static char top[1024]; /* short enough for the paths below it to fit in PATH_MAX */

static void make_file(const char *rel, const char *text)
{
    char path[PATH_MAX];
    snprintf(path, sizeof(path), "%s/%s", top, rel);
    for (char *slash = strchr(path + strlen(top) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
        *slash = 0;
        mkdir(path, 0755);
        *slash = '/';
    }
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static int setup(void **state)
{
    (void)state;
    const char *tmp = getenv("TMPDIR");
    if (snprintf(top, sizeof(top), "%s/test_sources.XXXXXX", tmp && *tmp ? tmp : "/tmp") >= (int)sizeof(top))
        return -1;
    if (!mkdtemp(top))
        return -1;
    make_file("run/exp/traces.otf2", "");
    make_file("run/src/app.c", "first\n  second line\nthird");
    make_file("moved/proj/src/x.c", "in proj/src\n");
    make_file("moved/x.c", "the basename alone\n");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
    return system(cmd) == 0 ? 0 : -1;
}

static fold_sources *open_sources(const char *dir)
{
    char trace[PATH_MAX], source_dir[PATH_MAX];
    snprintf(trace, sizeof(trace), "%s/run/exp/traces.otf2", top);
    snprintf(source_dir, sizeof(source_dir), "%s/%s", top, dir ? dir : "");
    const char *dirs[] = { source_dir };
    fold_sources *s = fold_sources_new(trace, dirs, dir ? 1 : 0);
    assert_non_null(s);
    return s;
}

/* name is found as top/rel */
static void expect_found(fold_sources *s, const char *name, const char *rel)
{
    char want[PATH_MAX];
    snprintf(want, sizeof(want), "%s/%s", top, rel);
    const char *found = fold_sources_find(s, name);
    assert_non_null(found);
    assert_string_equal(found, want);
}

static void recorded_absolute_path_is_read(void **state)
{
    (void)state;
    fold_sources *s = open_sources(NULL);
    char file[PATH_MAX], line[64];
    snprintf(file, sizeof(file), "%s/run/src/app.c", top);
    assert_int_equal(fold_sources_line(s, file, 2, line, sizeof(line)), FOLD_SOURCE_LINE_FOUND);
    assert_string_equal(line, "  second line");
    assert_int_equal(fold_sources_line(s, file, 3, line, sizeof(line)), FOLD_SOURCE_LINE_FOUND);
    assert_string_equal(line, "third");
    assert_int_equal(fold_sources_line(s, file, 4, line, sizeof(line)), FOLD_SOURCE_NO_LINE);
    assert_int_equal(fold_sources_line(s, file, 0, line, sizeof(line)), FOLD_SOURCE_NO_LINE);
    assert_int_equal(fold_sources_missing(s, NULL), 0);
    fold_sources_free(s);
}

static void relative_name_below_the_traces_parents(void **state)
{
    (void)state;
    fold_sources *s = open_sources(NULL);
    char line[64];
    expect_found(s, "src/app.c", "run/src/app.c");
    assert_int_equal(fold_sources_line(s, "src/app.c", 1, line, sizeof(line)), FOLD_SOURCE_LINE_FOUND);
    assert_string_equal(line, "first");
    fold_sources_free(s);
}

static void source_dir_longest_tail_first(void **state)
{
    (void)state;
    fold_sources *s = open_sources("moved");
    char line[64];
    expect_found(s, "/home/someone/proj/src/x.c", "moved/proj/src/x.c");
    assert_int_equal(fold_sources_line(s, "/elsewhere/y/x.c", 1, line, sizeof(line)), FOLD_SOURCE_LINE_FOUND);
    assert_string_equal(line, "the basename alone");
    assert_int_equal(fold_sources_missing(s, NULL), 0);
    fold_sources_free(s);
}

static void missing_files_counted_once(void **state)
{
    (void)state;
    fold_sources *s = open_sources("moved");
    char line[64];
    const char *first = NULL;
    assert_null(fold_sources_find(s, "/gone/a.c"));
    assert_int_equal(fold_sources_missing(s, &first), 0); /* found or not, only lines asked for count */
    for (int i = 0; i < 3; i++) {
        assert_int_equal(fold_sources_line(s, "/gone/a.c", 5, line, sizeof(line)), FOLD_SOURCE_NOT_FOUND);
        assert_int_equal(fold_sources_line(s, "/gone/b.c", 5, line, sizeof(line)), FOLD_SOURCE_NOT_FOUND);
    }
    assert_int_equal(fold_sources_missing(s, &first), 2);
    assert_string_equal(first, "/gone/a.c");
    assert_int_equal(fold_sources_line(NULL, "/gone/a.c", 5, line, sizeof(line)), FOLD_SOURCE_NO_LINE);
    fold_sources_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(recorded_absolute_path_is_read),
        cmocka_unit_test(relative_name_below_the_traces_parents),
        cmocka_unit_test(source_dir_longest_tail_first),
        cmocka_unit_test(missing_files_counted_once),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
