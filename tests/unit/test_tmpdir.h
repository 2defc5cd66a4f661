/* test_tmpdir.h: a cmocka group's temporary directory, for unit tests that write
 * files: `dir` is made fresh by setup (/tmp/TEST_TMPDIR_NAME.XXXXXX) and removed with
 * all it holds by teardown (cmocka_run_group_tests(tests, setup, teardown)). */
#ifndef TEST_TMPDIR_H
#define TEST_TMPDIR_H

#include <stdio.h>
#include <stdlib.h>

#ifndef TEST_TMPDIR_NAME
#define TEST_TMPDIR_NAME "hcatrace_test"
#endif

static char dir[64];

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof(dir), "/tmp/%s.XXXXXX", TEST_TMPDIR_NAME);
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : -1;
}

#endif
