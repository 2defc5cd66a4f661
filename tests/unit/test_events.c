/* test_events.c: unit tests of counter event names (instrument/hct_events.c):
 * generic perf names and their spellings, PAPI aliases, the set syntax of
 * HCATRACE_COUNTERS, the closest names of a misspelt event, and the libpfm4
 * encodings of hardware events for several CPUs this machine does not have,
 * with LIBPFM_FORCE_PMU (Skylake-SP, Ice Lake, Sapphire Rapids, Zen 3, Zen 4).
 * Reference encodings: Intel SDM vol. 3B event tables and AMD PPRs (event
 * select | unit mask << 8 | edge << 18 | inv << 23 | cmask << 24).
 * libpfm4 initializes once per process, so every forced PMU is tested in a
 * child process. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "hct_events.h"
#include "pfm_arch.h"

static void generic_names_and_spellings(void **state)
{
    (void)state;
    hct_event ev;
    char why[256];
    static const char *const cycles[] = { "cycles", "CPU-CYCLES", "Cycles", "PAPI_TOT_CYC" };
    for (size_t i = 0; i < sizeof(cycles) / sizeof(cycles[0]); i++) {
        assert_int_equal(hct_event_resolve(cycles[i], &ev, why, sizeof(why)), HCT_EV_OK);
        assert_string_equal(ev.name, "cycles");
        assert_int_equal(ev.attr.type, PERF_TYPE_HARDWARE);
        assert_int_equal(ev.attr.config, PERF_COUNT_HW_CPU_CYCLES);
        assert_true(ev.hardware);
        assert_int_equal(ev.attr.exclude_kernel, 1);
    }
    assert_int_equal(hct_event_resolve("PAPI_TOT_INS", &ev, why, sizeof(why)), HCT_EV_OK);
    assert_string_equal(ev.name, "instructions");
    assert_non_null(strstr(ev.desc, "PAPI_TOT_INS"));
    assert_int_equal(hct_event_resolve("PAPI_L1_DCM", &ev, why, sizeof(why)), HCT_EV_OK);
    assert_string_equal(ev.name, "L1-dcache-load-misses");
    assert_int_equal(ev.attr.type, PERF_TYPE_HW_CACHE);
    assert_int_equal(ev.attr.config, 0x10000);
    assert_int_equal(hct_event_resolve("PAPI_BR_MSP", &ev, why, sizeof(why)), HCT_EV_OK);
    assert_string_equal(ev.name, "branch-misses");
    /* software events are first-class */
    assert_int_equal(hct_event_resolve("task-clock", &ev, why, sizeof(why)), HCT_EV_OK);
    assert_false(ev.hardware);
    assert_true(ev.unit_ns);
    assert_int_equal(ev.attr.type, PERF_TYPE_SOFTWARE);
    assert_int_equal(ev.attr.config, PERF_COUNT_SW_TASK_CLOCK);
    assert_int_equal(hct_event_resolve("faults", &ev, why, sizeof(why)), HCT_EV_OK);
    assert_string_equal(ev.name, "page-faults");
    assert_false(ev.unit_ns);
    assert_int_equal(hct_event_resolve("cs", &ev, why, sizeof(why)), HCT_EV_OK);
    assert_string_equal(ev.name, "context-switches");
    assert_int_equal(hct_event_resolve("cpu-migrations", &ev, why, sizeof(why)), HCT_EV_OK);
    assert_int_equal(ev.attr.config, PERF_COUNT_SW_CPU_MIGRATIONS);
    /* an unknown name loads libpfm4 (hct_event_resolve), which initializes once per
     * process: tried in a child (this_machine), not here before the forced PMUs' */
}

static void set_syntax(void **state)
{
    (void)state;
    hct_set_spec s;
    char err[256];
    assert_int_equal(hct_set_spec_parse(" a, b ;c;; ,d,", &s, err, sizeof(err)), 0);
    assert_int_equal(s.nsets, 3);
    assert_int_equal(s.nevents[0], 2);
    assert_string_equal(s.names[0][0], "a");
    assert_string_equal(s.names[0][1], "b");
    assert_int_equal(s.nevents[1], 1);
    assert_string_equal(s.names[1][0], "c");
    assert_int_equal(s.nevents[2], 1);
    assert_string_equal(s.names[2][0], "d");
    assert_int_equal(hct_set_spec_parse(";;", &s, err, sizeof(err)), 0);
    assert_int_equal(s.nsets, 0);
    assert_int_equal(hct_set_spec_parse("a;b;c;d;e;f;g;h;i", &s, err, sizeof(err)), -1);
    assert_string_equal(err, "more than 8 counter sets");
    assert_int_equal(hct_set_spec_parse("a,b,c,d,e,f,g,h,i,j,k,l,m", &s, err, sizeof(err)), -1);
    assert_string_equal(err, "more than 12 events in counter set 1");
}

static void closest_names(void **state)
{
    (void)state;
    char out[300];
    hct_event_closest("page-faultz", out, sizeof(out), 3);
    assert_int_equal(strncmp(out, "page-faults, ", 13), 0);
    hct_event_closest("PAPI_TOT_INZ", out, sizeof(out), 2);
    assert_int_equal(strncmp(out, "PAPI_TOT_INS, ", 14), 0);
    hct_event_closest("instruction", out, sizeof(out), 1);
    assert_string_equal(out, "instructions");
}

/* ---- libpfm4 with a forced PMU, in a child process ------------------------------ */

typedef struct {
    const char *name;
    int rc;
    uint32_t type;
    uint64_t config;
} expect;

static int check_in_child(const char *pmu, const expect *e, size_t n)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        int bad = 0;
        if (pmu)
            setenv("LIBPFM_FORCE_PMU", pmu, 1);
        if (hct_events_init() != 0) {
            fprintf(stderr, "# %s: libpfm4 does not initialize\n", pmu ? pmu : "host");
            _exit(1);
        }
        for (size_t i = 0; i < n; i++) {
            hct_event ev;
            char why[256];
            int rc = hct_event_resolve(e[i].name, &ev, why, sizeof(why));
            if (rc != e[i].rc || (rc == HCT_EV_OK && (ev.attr.type != e[i].type || ev.attr.config != e[i].config))) {
                fprintf(stderr, "# %s: %s -> rc %d type %u config 0x%llx (%s); expected rc %d type %u config 0x%llx\n",
                        pmu ? pmu : "host", e[i].name, rc, (unsigned)ev.attr.type, (unsigned long long)ev.attr.config,
                        why, e[i].rc, (unsigned)e[i].type, (unsigned long long)e[i].config);
                bad = 1;
            }
        }
        _exit(bad);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid)
        return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

#define RAW PERF_TYPE_RAW

static void skylake_sp(void **state)
{
    (void)state;
    NEEDS_X86_PFM_TABLES();
    static const expect e[] = {
        { "INST_RETIRED:ANY_P", HCT_EV_OK, RAW, 0xc0 },
        { "CPU_CLK_UNHALTED:THREAD_P", HCT_EV_OK, RAW, 0x3c },
        { "MEM_LOAD_RETIRED:L3_MISS", HCT_EV_OK, RAW, 0x20d1 },
        { "MEM_LOAD_RETIRED:L3_MISS:u", HCT_EV_OK, RAW, 0x20d1 },
        { "UOPS_RETIRED:RETIRE_SLOTS", HCT_EV_OK, RAW, 0x2c2 },
        { "UOPS_RETIRED:ALL:c=1:i=1", HCT_EV_OK, RAW, 0x18001c2 }, /* stall cycles */
        { "L1D:REPLACEMENT", HCT_EV_OK, RAW, 0x151 },
        { "BR_MISP_RETIRED:ALL_BRANCHES", HCT_EV_OK, RAW, 0xc5 },
        { "INST_RETIRED:NO_SUCH_UMASK", HCT_EV_INVALID, 0, 0 },
        { "RETIRED_INSTRUCTIONS", HCT_EV_OTHER_PMU, 0, 0 }, /* an AMD name */
        { "cycles", HCT_EV_OK, PERF_TYPE_HARDWARE, 0 },    /* generic names still work */
        { "PAPI_TOT_INS", HCT_EV_OK, PERF_TYPE_HARDWARE, 1 },
    };
    assert_int_equal(check_in_child("skx", e, sizeof(e) / sizeof(e[0])), 0);
}

static void ice_lake(void **state)
{
    (void)state;
    NEEDS_X86_PFM_TABLES();
    static const expect e[] = {
        { "INST_RETIRED:ANY_P", HCT_EV_OK, RAW, 0xc0 },
        { "MEM_LOAD_RETIRED:L3_MISS", HCT_EV_OK, RAW, 0x20d1 },
        { "BR_MISP_RETIRED:ALL_BRANCHES", HCT_EV_OK, RAW, 0xc5 },
        { "L1D:REPLACEMENT", HCT_EV_OK, RAW, 0x151 },
    };
    assert_int_equal(check_in_child("icl", e, sizeof(e) / sizeof(e[0])), 0);
}

static void sapphire_rapids(void **state)
{
    (void)state;
    NEEDS_X86_PFM_TABLES();
    static const expect e[] = {
        { "INST_RETIRED:ANY_P", HCT_EV_OK, RAW, 0xc0 },
        { "TOPDOWN:SLOTS", HCT_EV_OK, RAW, 0x400 },
        { "CPU_CLK_UNHALTED:THREAD", HCT_EV_OK, RAW, 0x200 },
        { "BR_MISP_RETIRED:ALL_BRANCHES", HCT_EV_OK, RAW, 0xc5 },
        { "MEM_LOAD_RETIRED:L3_MISS", HCT_EV_OK, RAW, 0x20d1 },
    };
    assert_int_equal(check_in_child("spr", e, sizeof(e) / sizeof(e[0])), 0);
}

static void zen3_and_zen4(void **state)
{
    (void)state;
    NEEDS_X86_PFM_TABLES();
    static const expect e[] = {
        { "RETIRED_INSTRUCTIONS", HCT_EV_OK, RAW, 0xc0 },
        { "CYCLES_NOT_IN_HALT", HCT_EV_OK, RAW, 0x76 },
        { "RETIRED_BRANCH_INSTRUCTIONS_MISPREDICTED", HCT_EV_OK, RAW, 0xc3 },
        { "LS_DISPATCH:LD_DISPATCH", HCT_EV_OK, RAW, 0x129 },
        { "PAPI_TOT_CYC", HCT_EV_OK, PERF_TYPE_HARDWARE, 0 },
    };
    assert_int_equal(check_in_child("amd64_fam19h_zen3", e, sizeof(e) / sizeof(e[0])), 0);
    assert_int_equal(check_in_child("amd64_fam19h_zen4", e, sizeof(e) / sizeof(e[0])), 0);
}

static void this_machine(void **state)
{
    (void)state;
    static const expect e[] = {
        { "r01c2", HCT_EV_OK, RAW, 0x1c2 }, /* raw encodings */
        { "r4c2:u", HCT_EV_OK, RAW, 0x4c2 },
        { "L1-dcache-load-misses", HCT_EV_OK, PERF_TYPE_HW_CACHE, 0x10000 },
        { "LLC-LOAD-MISSES", HCT_EV_OK, PERF_TYPE_HW_CACHE, 0x10002 },
        { "PERF_COUNT_SW_PAGE_FAULTS", HCT_EV_OK, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
        { "no-such-event", HCT_EV_UNKNOWN, 0, 0 },
    };
    assert_int_equal(check_in_child(NULL, e, sizeof(e) / sizeof(e[0])), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(generic_names_and_spellings),
        cmocka_unit_test(set_syntax),
        cmocka_unit_test(closest_names),
        cmocka_unit_test(skylake_sp),
        cmocka_unit_test(ice_lake),
        cmocka_unit_test(sapphire_rapids),
        cmocka_unit_test(zen3_and_zen4),
        cmocka_unit_test(this_machine),
    };
    return cmocka_run_group_tests_name("counter events", tests, NULL, NULL);
}
