/* test_config.c: unit tests of HCATRACE_* parsing (instrument/hct_config.c),
 * of launcher recognition and of experiment-directory claiming. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "hct_config.h"
#include "hct_expdir.h"
#include "hct_launcher.h"

static char reported[8][512];
static int nreported;

static void report(const char *line)
{
    if (nreported < 8)
        snprintf(reported[nreported++], sizeof(reported[0]), "%s", line);
}

static int read_env(hct_config *cfg, char **env)
{
    nreported = 0;
    return hct_config_read(cfg, env, report);
}

static void defaults_without_variables(void **state)
{
    (void)state;
    hct_config cfg;
    char *env[] = { "PATH=/bin", "HOME=/root", NULL };
    assert_int_equal(read_env(&cfg, env), 0);
    assert_int_equal(cfg.enable, 1);
    assert_int_equal(cfg.callsites, 1);
    assert_int_equal(cfg.verbose, 0);
    assert_null(cfg.dir);
    assert_int_equal(cfg.clock_sync_rounds, 10);
    assert_int_equal(cfg.total_memory_mib, 8); /* a node's, shared by its ranks */
}

static void valid_values(void **state)
{
    (void)state;
    hct_config cfg;
    char *env[] = { "HCATRACE_ENABLE=off", "HCATRACE_CALLSITES=no", "HCATRACE_VERBOSE=2",
                    "HCATRACE_DIR=/tmp/x", "HCATRACE_CLOCK_SYNC_ROUNDS=3", "HCATRACE_TOTAL_MEMORY=64", NULL };
    assert_int_equal(read_env(&cfg, env), 0);
    assert_int_equal(cfg.total_memory_mib, 64);
    assert_int_equal(cfg.enable, 0);
    assert_int_equal(cfg.callsites, 0);
    assert_int_equal(cfg.verbose, 2);
    assert_string_equal(cfg.dir, "/tmp/x");
    assert_int_equal(cfg.clock_sync_rounds, 3);
}

static void bad_values_fall_back_with_one_line_each(void **state)
{
    (void)state;
    hct_config cfg;
    char *env[] = { "HCATRACE_VERBOSE=7", "HCATRACE_ENABLE=maybe", "HCATRACE_CLOCK_SYNC_ROUNDS=0", "HCATRACE_DIR=",
                    NULL };
    assert_int_equal(read_env(&cfg, env), 4);
    assert_int_equal(nreported, 4);
    assert_string_equal(reported[0], "invalid value '7' for HCATRACE_VERBOSE; using the default");
    assert_string_equal(reported[1], "invalid value 'maybe' for HCATRACE_ENABLE; using the default");
    assert_int_equal(cfg.verbose, 0);
    assert_int_equal(cfg.enable, 1);
    assert_int_equal(cfg.clock_sync_rounds, 10);
    assert_null(cfg.dir);
}

static void unknown_names_suggest_the_closest(void **state)
{
    (void)state;
    hct_config cfg;
    char *env[] = { "HCATRACE_VERBSE=1", "HCATRACE_CALSITES=0", NULL };
    assert_int_equal(read_env(&cfg, env), 2);
    assert_string_equal(reported[0], "unknown variable HCATRACE_VERBSE (did you mean HCATRACE_VERBOSE?); ignored");
    assert_string_equal(reported[1], "unknown variable HCATRACE_CALSITES (did you mean HCATRACE_CALLSITES?); ignored");
    assert_int_equal(cfg.callsites, 1);
}

static void model_variables(void **state)
{
    (void)state;
    hct_config cfg;
    char *env[] = { "HCATRACE_MODEL=auto", "HCATRACE_MODEL_PATH=/a:/b", NULL };
    assert_int_equal(read_env(&cfg, env), 0);
    assert_string_equal(cfg.model, "auto");
    char *none[] = { "HCATRACE_MODEL=", NULL };
    assert_int_equal(read_env(&cfg, none), 0);
    assert_null(cfg.model);
    char *typo[] = { "HCATRACE_MODL=generic", NULL };
    assert_int_equal(read_env(&cfg, typo), 1);
    assert_string_equal(reported[0], "unknown variable HCATRACE_MODL (did you mean HCATRACE_MODEL?); ignored");
    assert_null(cfg.model);
}

/* HCATRACE_TOTAL_MEMORY: 1 MiB (one event chunk) at least, set or shared */
static void total_memory(void **state)
{
    (void)state;
    hct_config cfg;
    char *one[] = { "HCATRACE_TOTAL_MEMORY=1", NULL };
    assert_int_equal(read_env(&cfg, one), 0);
    assert_int_equal(cfg.total_memory_mib, 1);
    assert_int_equal(cfg.total_memory_set, 1);
    char *zero[] = { "HCATRACE_TOTAL_MEMORY=0", NULL };
    assert_int_equal(read_env(&cfg, zero), 1);
    assert_string_equal(reported[0], "invalid value '0' for HCATRACE_TOTAL_MEMORY; using the default");
    assert_int_equal(cfg.total_memory_mib, HCT_DEFAULT_TOTAL_MEMORY_MIB);
    assert_int_equal(cfg.total_memory_set, 0);
}

/* HCATRACE_SAMPLING_CLOCK: wall by default (issue 17), cpu on request, a bad
 * value in one line */
static void sampling_clock(void **state)
{
    (void)state;
    hct_config cfg;
    char *none[] = { NULL };
    assert_int_equal(read_env(&cfg, none), 0);
    assert_int_equal(cfg.sampling_clock, HCT_CLOCK_WALL);
    char *cpu[] = { "HCATRACE_SAMPLING_CLOCK=cpu", NULL };
    assert_int_equal(read_env(&cfg, cpu), 0);
    assert_int_equal(cfg.sampling_clock, HCT_CLOCK_CPU);
    assert_string_equal(HCT_CLOCK_NAME(cfg.sampling_clock), "cpu");
    char *bad[] = { "HCATRACE_SAMPLING_CLOCK=cpu", "HCATRACE_SAMPLING_CLOCK=monotonic", NULL };
    assert_int_equal(read_env(&cfg, bad), 1);
    assert_string_equal(reported[0], "invalid value 'monotonic' for HCATRACE_SAMPLING_CLOCK; using the default");
    char *typo[] = { "HCATRACE_SAMPLING_CLOK=wall", NULL };
    assert_int_equal(read_env(&cfg, typo), 1);
    assert_string_equal(reported[0],
                        "unknown variable HCATRACE_SAMPLING_CLOK (did you mean HCATRACE_SAMPLING_CLOCK?); ignored");
}

/* HCATRACE_COUNTER_SOURCE: auto by default (software counters without perf
 * events where every set allows it), perf on request, a bad value in one line */
static void counter_source(void **state)
{
    (void)state;
    hct_config cfg;
    char *none[] = { NULL };
    assert_int_equal(read_env(&cfg, none), 0);
    assert_int_equal(cfg.counter_source, HCT_COUNTER_SOURCE_AUTO);
    char *perf[] = { "HCATRACE_COUNTER_SOURCE=perf", NULL };
    assert_int_equal(read_env(&cfg, perf), 0);
    assert_int_equal(cfg.counter_source, HCT_COUNTER_SOURCE_PERF);
    char *bad[] = { "HCATRACE_COUNTER_SOURCE=rusage", NULL };
    assert_int_equal(read_env(&cfg, bad), 1);
    assert_string_equal(reported[0], "invalid value 'rusage' for HCATRACE_COUNTER_SOURCE; using the default");
    assert_int_equal(cfg.counter_source, HCT_COUNTER_SOURCE_AUTO);
}

static void launchers_are_recognized(void **state)
{
    (void)state;
    const char *launchers[] = { "mpirun", "mpiexec", "orterun", "orted", "prterun", "prted", "srun",
                                "hydra_pmi_proxy", "mpiexec.hydra" };
    for (size_t i = 0; i < sizeof(launchers) / sizeof(launchers[0]); i++)
        assert_true(hct_is_launcher(launchers[i]));
    assert_false(hct_is_launcher("mpi_phases"));
    assert_false(hct_is_launcher("mpirun_wrapper_app"));
    assert_false(hct_is_launcher(""));
    assert_false(hct_is_launcher(NULL));
}

static void experiment_directories_are_fresh(void **state)
{
    (void)state;
    char base[] = "/tmp/hcaunit.XXXXXX";
    assert_non_null(mkdtemp(base));
    char cwd[4096];
    assert_non_null(getcwd(cwd, sizeof(cwd)));
    assert_int_equal(chdir(base), 0);
    char a[256], b[256], err[512];
    assert_int_equal(hct_expdir_claim(NULL, "app", a, sizeof(a), err, sizeof(err)), 0);
    assert_int_equal(hct_expdir_claim(NULL, "app", b, sizeof(b), err, sizeof(err)), 0);
    assert_string_not_equal(a, b);
    assert_int_equal(strncmp(a, "hcatrace-app-", 13), 0);
    assert_int_equal(strlen(a), strlen("hcatrace-app-YYYYmmdd-HHMMSS"));
    struct stat st;
    assert_int_equal(stat(a, &st), 0);
    assert_true(S_ISDIR(st.st_mode));
    /* requested: parents made; an existing one kept, the trace goes to a fresh name, said */
    assert_int_equal(hct_expdir_claim("deep/er/run", "app", a, sizeof(a), err, sizeof(err)), 0);
    assert_int_equal(stat("deep/er/run", &st), 0);
    assert_int_equal(hct_expdir_claim("deep/er/run/", "app", a, sizeof(a), err, sizeof(err)), 1);
    assert_string_equal(a, "deep/er/run.1");
    assert_string_equal(err, "deep/er/run already exists; writing the trace to deep/er/run.1 instead");
    assert_int_equal(hct_expdir_claim("deep/er/run", "app", a, sizeof(a), err, sizeof(err)), 1);
    assert_string_equal(a, "deep/er/run.2");
    /* private until published, then 0755 whatever the umask */
    mode_t old = umask(0);
    assert_int_equal(hct_expdir_claim("open", "app", a, sizeof(a), err, sizeof(err)), 0);
    umask(old);
    assert_int_equal(stat("open", &st), 0);
    assert_int_equal(st.st_mode & 07777, 0700);
    assert_int_equal(mkdir("open/traces", 0777), 0);
    assert_int_equal(hct_expdir_publish("open"), 0);
    assert_int_equal(stat("open", &st), 0);
    assert_int_equal(st.st_mode & 07777, 0755);
    assert_int_equal(stat("open/traces", &st), 0);
    assert_int_equal(st.st_mode & 07777, 0755);
    assert_int_equal(chdir(cwd), 0);
    char cmd[600];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", base);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(defaults_without_variables),
        cmocka_unit_test(valid_values),
        cmocka_unit_test(bad_values_fall_back_with_one_line_each),
        cmocka_unit_test(total_memory),
        cmocka_unit_test(unknown_names_suggest_the_closest),
        cmocka_unit_test(model_variables),
        cmocka_unit_test(sampling_clock),
        cmocka_unit_test(counter_source),
        cmocka_unit_test(launchers_are_recognized),
        cmocka_unit_test(experiment_directories_are_fresh),
    };
    return cmocka_run_group_tests_name("configuration", tests, NULL, NULL);
}
