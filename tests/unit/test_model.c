/* test_model.c: the model language (src/hca_model*.c), model lookup
 * (src/hca_model_path.c) and the shipped models.
 * Every shipped model (models/NAME.model) parses and its events encode with libpfm4 for the
 * PMUs it matches (LIBPFM_FORCE_PMU, one child process per PMU); stacks on
 * hand-computed inputs; residual, overlap, run-time division by zero,
 * absent events; the group, predict and instructions directives; the ARM
 * Neoverse top-down models against perf's formulas; malformed models give
 * "file:line:column: message"; models found by name, by path and by PMU.
 * Run from the top of the tree (models/ is read relative to it). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <perfmon/pfmlib_perf_event.h>

#include "hca_model.h"
#include "model_files.h"
#include "hca_model_path.h"
#include "pfm_arch.h"


static void assert_close(double got, double want, const char *what)
{
    double tol = 1e-9 * (fabs(want) > 1 ? fabs(want) : 1);
    if (!(fabs(got - want) <= tol)) {
        print_error("%s: got %.17g, want %.17g\n", what, got, want);
        fail();
    }
}

static hca_model *parse_ok(const char *text)
{
    char err[512];
    hca_model *m = hca_model_parse(text, "t.model", err, sizeof(err));
    if (!m) {
        print_error("parse failed: %s\n", err);
        fail();
    }
    return m;
}

static void expect_error(const char *text, const char *want)
{
    char err[512];
    hca_model *m = hca_model_parse(text, "bad.model", err, sizeof(err));
    if (m) {
        hca_model_free(m);
        print_error("parsed, expected: %s\n", want);
        fail();
    }
    if (strncmp(err, want, strlen(want)) != 0) {
        print_error("got  '%s'\nwant '%s...'\n", err, want);
        fail();
    }
}

static double node_val(const hca_model *m, const hca_model_result *r, const char *path, size_t k)
{
    int i = hca_model_find_node(m, path);
    if (i < 0) {
        print_error("no node %s\n", path);
        fail();
    }
    return r->node[i][k];
}

static double node_ovl(const hca_model *m, const hca_model_result *r, const char *path, size_t k)
{
    int i = hca_model_find_node(m, path);
    assert_true(i >= 0);
    return r->overlap[i][k];
}

static void test_shipped_models_parse(void **state)
{
    (void)state;
    char names[64][256];
    size_t n = list_models(names, 64);
    assert_true(n >= 11);
    size_t predicting = 0;
    for (size_t i = 0; i < n; i++) {
        char err[512];
        hca_model *m = hca_model_load(names[i], err, sizeof(err));
        if (!m) {
            print_error("%s\n", err);
            fail();
        }
        assert_true(hca_model_nevents(m) > 0);
        assert_true(hca_model_nnodes(m) > 0);
        assert_true(hca_model_nplots(m) > 0);
        assert_true(hca_model_nsources(m) > 0);
        assert_true(*hca_model_title(m));
        assert_true(*hca_model_match(m));
        size_t ne = hca_model_nevents(m);
        /* `instructions` names an event that counts retired instructions: a generic or
         * libpfm4 name with "inst" in it, or the Arm common event INST_RETIRED (0x08) */
        int ii = hca_model_instructions(m);
        if (ii < 0) {
            print_error("%s: no 'instructions' directive\n", names[i]);
            fail();
        }
        assert_true((size_t)ii < ne);
        const hca_model_event *ie = hca_model_event_at(m, (size_t)ii);
        if (ie->raw) {
            assert_int_equal(ie->type, 4);
            assert_int_equal(ie->config, 0x08);
        } else if (!strcasestr(ie->spec, "inst")) {
            print_error("%s: instructions %s = %s\n", names[i], ie->name, ie->spec);
            fail();
        }
        /* groups: at least two events each, valid and distinct indices */
        for (size_t g = 0; g < hca_model_ngroups(m); g++) {
            size_t k = 0;
            const size_t *ev = hca_model_group_at(m, g, &k);
            assert_non_null(ev);
            assert_true(k >= 2);
            for (size_t q = 0; q < k; q++) {
                assert_true(ev[q] < ne);
                for (size_t r = 0; r < q; r++)
                    assert_true(ev[r] != ev[q]);
            }
        }
        /* the cost models (Nethercote's, Gooda's HCA) predict the measured cycles */
        const char *base = strrchr(names[i], '/') + 1;
        if (strncmp(base, "hca-", 4) == 0 || strcmp(base, "nethercote.model") == 0) {
            if (!hca_model_has_prediction(m)) {
                print_error("%s: no 'predict ... against ...'\n", names[i]);
                fail();
            }
            predicting++;
        }
        /* every event is used somewhere (evaluating with NaN for one event must change something) */
        const double **ev = calloc(ne, sizeof(*ev));
        double one = 1.0;
        assert_non_null(ev);
        for (size_t j = 0; j < ne; j++)
            ev[j] = &one;
        hca_model_result r;
        assert_int_equal(hca_model_eval(m, ev, 1, &r), 0);
        assert_int_equal(r.predicted != NULL, hca_model_has_prediction(m));
        assert_int_equal(r.actual != NULL, hca_model_has_prediction(m));
        hca_model_result_free(&r);
        free(ev);
        hca_model_free(m);
    }
    assert_int_equal(predicting, 4);
}

/* the kernel's generic event names, as instrument/hct_events.c resolves them
 * without libpfm4 (libpfm4's perf:: table is off under LIBPFM_FORCE_PMU) */
static const char *const generic_names[] = {
    "cycles", "cpu-cycles", "instructions", "cache-references", "cache-misses", "branch-instructions",
    "branches", "branch-misses", "bus-cycles", "stalled-cycles-frontend", "stalled-cycles-backend",
    "ref-cycles", "L1-dcache-loads", "L1-dcache-load-misses", "L1-icache-load-misses", "LLC-loads",
    "LLC-load-misses", "dTLB-load-misses", "iTLB-load-misses", "cpu-clock", "task-clock", "page-faults",
    "minor-faults", "major-faults", "context-switches", "cpu-migrations",
};

static int is_generic(const char *s)
{
    for (size_t i = 0; i < sizeof(generic_names) / sizeof(generic_names[0]); i++)
        if (strcmp(s, generic_names[i]) == 0)
            return 1;
    return 0;
}

/* In a child: force `pmu` (NULL = none), encode every non-raw, non-generic
 * event. Exit status = number of failures. */
static int encode_in_child(const hca_model *m, const char *pmu, const char *file)
{
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        if (pmu)
            setenv("LIBPFM_FORCE_PMU", pmu, 1);
        int bad = 0;
        if (pfm_initialize() != PFM_SUCCESS) {
            fprintf(stderr, "%s: pfm_initialize failed for %s\n", file, pmu ? pmu : "(host)");
            _exit(100);
        }
        for (size_t i = 0; i < hca_model_nevents(m); i++) {
            const hca_model_event *e = hca_model_event_at(m, i);
            if (e->raw) {
                if (e->type > 5) /* raw(): PERF_TYPE_RAW (4) or another fixed kernel type (0-5) */
                    bad++;
                continue;
            }
            if (is_generic(e->spec))
                continue;
            struct perf_event_attr attr;
            memset(&attr, 0, sizeof(attr));
            attr.size = sizeof(attr);
            pfm_perf_encode_arg_t arg;
            memset(&arg, 0, sizeof(arg));
            arg.attr = &attr;
            arg.size = sizeof(arg);
            int rc = pfm_get_os_event_encoding(e->spec, PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg);
            if (rc != PFM_SUCCESS) {
                fprintf(stderr, "%s:%d: %s = %s: %s under LIBPFM_FORCE_PMU=%s\n", file, e->line, e->name, e->spec,
                        pfm_strerror(rc), pmu ? pmu : "(none)");
                bad++;
            } else if (pmu && attr.type != PERF_TYPE_RAW) {
                fprintf(stderr, "%s: %s encodes as type %u, not a %s event\n", file, e->spec, attr.type, pmu);
                bad++;
            }
        }
        _exit(bad > 99 ? 99 : bad);
    }
    int st = 0;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st));
    return WEXITSTATUS(st);
}

/* Does this libpfm4 build have a PMU of that name? (In a child: libpfm4
 * initializes once per process, and later children must still be able to
 * force their PMU.) */
static int libpfm_has_pmu(const char *name)
{
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        if (pfm_initialize() != PFM_SUCCESS)
            _exit(2);
        pfm_pmu_t p;
        pfm_for_all_pmus(p)
        {
            pfm_pmu_info_t info;
            memset(&info, 0, sizeof(info));
            info.size = sizeof(info);
            if (pfm_get_pmu_info(p, &info) == PFM_SUCCESS && info.name && strcmp(info.name, name) == 0)
                _exit(0);
        }
        _exit(1);
    }
    int st = 0;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st));
    assert_true(WEXITSTATUS(st) <= 1);
    return WEXITSTATUS(st) == 0;
}

/* libpfm4's Arm Neoverse PMU names, from its sources (lib/pfmlib_arm_armv8.c:
 * arm_n1, arm_n2, arm_v1; lib/pfmlib_arm_armv9.c: arm_n2, arm_v2). Builds for
 * x86 do not compile the ARM tables, so a model for these PMUs cannot be
 * encoded here: it must use raw() events only. The ids tie the names to the
 * installed pfmlib.h. */
static const struct {
    const char *name;
    pfm_pmu_t id;
} arm_pmus[] = {
    { "arm_n1", PFM_PMU_ARM_N1 }, { "arm_n2", PFM_PMU_ARM_N2 },
    { "arm_v1", PFM_PMU_ARM_V1 }, { "arm_v2", PFM_PMU_ARM_V2 },
};

static int is_arm_pmu(const char *name)
{
    for (size_t i = 0; i < sizeof(arm_pmus) / sizeof(arm_pmus[0]); i++)
        if (strcmp(arm_pmus[i].name, name) == 0 && arm_pmus[i].id > PFM_PMU_NONE)
            return 1;
    return 0;
}

static void test_shipped_models_encode(void **state)
{
    (void)state;
    char names[64][256];
    size_t n = list_models(names, 64);
    size_t checked_pmus = 0;
    for (size_t i = 0; i < n; i++) {
        char err[512];
        hca_model *m = hca_model_load(names[i], err, sizeof(err));
        assert_non_null(m);
        const char *match = hca_model_match(m);
        if (strcmp(match, "any") == 0) {
            /* portable models: generic names only */
            for (size_t j = 0; j < hca_model_nevents(m); j++) {
                const hca_model_event *e = hca_model_event_at(m, j);
                if (e->raw || !is_generic(e->spec)) {
                    print_error("%s: %s = %s is not a generic perf event\n", names[i], e->name,
                                e->raw ? "raw()" : e->spec);
                    fail();
                }
            }
            assert_int_equal(encode_in_child(m, NULL, names[i]), 0);
        } else {
            char pmus[256];
            snprintf(pmus, sizeof(pmus), "%s", match + 4);
            char *save = NULL;
            for (char *pmu = strtok_r(pmus, ",", &save); pmu; pmu = strtok_r(NULL, ",", &save)) {
                if (!libpfm_has_pmu(pmu)) {
                    if (!PFM_X86_TABLES && !is_arm_pmu(pmu))
                        continue; /* Intel's and AMD's tables: checked by x86 builds */
                    /* a PMU this build lacks: a known ARM name, and raw events only */
                    if (!is_arm_pmu(pmu)) {
                        print_error("%s: match names '%s', not a libpfm4 PMU\n", names[i], pmu);
                        fail();
                    }
                    for (size_t j = 0; j < hca_model_nevents(m); j++) {
                        const hca_model_event *e = hca_model_event_at(m, j);
                        if (!e->raw || e->type != PERF_TYPE_RAW) {
                            print_error("%s: %s: only raw(4, N) can be checked for %s here\n", names[i], e->name, pmu);
                            fail();
                        }
                    }
                }
                int bad = encode_in_child(m, pmu, names[i]);
                if (bad)
                    print_error("%s: %d event(s) fail under LIBPFM_FORCE_PMU=%s\n", names[i], bad, pmu);
                assert_int_equal(bad, 0);
                checked_pmus++;
            }
        }
        hca_model_free(m);
    }
    assert_true(checked_pmus >= (PFM_X86_TABLES ? 9 : 1));
}

/* key encodings against Intel's and AMD's tables (notes section 2) */
static void test_key_encodings(void **state)
{
    (void)state;
    NEEDS_X86_PFM_TABLES();
    static const struct {
        const char *pmu, *ev;
        unsigned long long config;
    } k[] = {
        { "snb", "UOPS_RETIRED:STALL_CYCLES", 0x18001c2ULL },
        { "snb", "OFFCORE_REQUESTS_OUTSTANDING:ALL_DATA_RD:c=6", 0x6000860ULL },
        { "skx", "IDQ_UOPS_NOT_DELIVERED:CYCLES_0_UOPS_DELIV_CORE", 0x400019cULL },
        { "skx", "CYCLE_ACTIVITY:STALLS_MEM_ANY", 0x140014a3ULL },
        { "spr", "TOPDOWN:SLOTS", 0x400ULL },
        { "amd64_fam19h_zen4", "DISPATCH_STALLS_1:FE_NO_OPS:c=6", 0x1060001a0ULL },
    };
    for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++) {
        fflush(NULL);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            setenv("LIBPFM_FORCE_PMU", k[i].pmu, 1);
            if (pfm_initialize() != PFM_SUCCESS)
                _exit(2);
            struct perf_event_attr attr;
            memset(&attr, 0, sizeof(attr));
            attr.size = sizeof(attr);
            pfm_perf_encode_arg_t arg;
            memset(&arg, 0, sizeof(arg));
            arg.attr = &attr;
            arg.size = sizeof(arg);
            if (pfm_get_os_event_encoding(k[i].ev, PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg) != PFM_SUCCESS)
                _exit(3);
            _exit(attr.config == k[i].config ? 0 : 4);
        }
        int st = 0;
        assert_int_equal(waitpid(pid, &st, 0), pid);
        assert_true(WIFEXITED(st));
        if (WEXITSTATUS(st))
            print_error("%s %s: status %d\n", k[i].pmu, k[i].ev, WEXITSTATUS(st));
        assert_int_equal(WEXITSTATUS(st), 0);
    }
}

/* a small tree by hand: expressions, sum, rest with residual and with overlap */
static const char *tree_model =
    "model t\n"
    "match any\n"
    "event A = cycles\n"
    "event B = instructions\n"
    "event C = branch-misses\n"
    "param P = 2 cycles \"a penalty\"\n"
    "let   H = (A - B) / 2\n"
    "node root = A\n"
    "node root.x = P * C\n"
    "node root.y = min(H, 30) + max(C, 1) - ratio(C, B - B)\n"
    "node root.z = sum\n"
    "node root.z.u = clamp(C, 0, 5)\n"
    "node root.z.v = if(C - 4, 10, 20) est\n"
    "node root.r = rest label=\"Residual\"\n"
    "plot p stack root.* per B\n"
    "plot q lines cpi=ratio(A, B) hb=H per 1\n";

static void test_tree_by_hand(void **state)
{
    (void)state;
    hca_model *m = parse_ok(tree_model);
    /* point 0: A=100 B=40 C=3; point 1: A=50 B=10 C=10 (overlap) */
    double a[] = { 100, 50 }, b[] = { 40, 10 }, c[] = { 3, 10 };
    const double *ev[] = { a, b, c };
    hca_model_result r;
    assert_int_equal(hca_model_eval(m, ev, 2, &r), 0);
    /* point 0: H = 30; x = 6; y = min(30,30)+max(3,1)-0 = 33; u = 3; v = 20; z = 23; r = 100-6-33-23 = 38 */
    assert_close(node_val(m, &r, "root", 0), 100, "root[0]");
    assert_close(node_val(m, &r, "root.x", 0), 6, "x[0]");
    assert_close(node_val(m, &r, "root.y", 0), 33, "y[0]");
    assert_close(node_val(m, &r, "root.z.u", 0), 3, "u[0]");
    assert_close(node_val(m, &r, "root.z.v", 0), 20, "v[0]");
    assert_close(node_val(m, &r, "root.z", 0), 23, "z[0]");
    assert_close(node_val(m, &r, "root.r", 0), 38, "r[0]");
    assert_close(node_ovl(m, &r, "root", 0), 0, "overlap[0]");
    /* point 1: H = 20; x = 20; y = 20+10-0 = 30; u = 5; v = 10; z = 15; others = 65 > 50:
     * rest clamps to 0, overlap 15 */
    assert_close(node_val(m, &r, "root.y", 1), 30, "y[1]");
    assert_close(node_val(m, &r, "root.z", 1), 15, "z[1]");
    assert_close(node_val(m, &r, "root.r", 1), 0, "r[1]");
    assert_close(node_ovl(m, &r, "root", 1), 15, "overlap[1]");
    assert_close(node_ovl(m, &r, "root.z", 1), 0, "sum has no overlap");
    assert_int_equal(r.flags, HCA_EVAL_OVERLAP);
    assert_int_equal(r.overlap_points, 1);
    assert_int_equal(r.divzero_points, 0);
    /* plots: p = root.x root.y root.z root.r per B */
    const hca_model_plot *p = hca_model_plot_at(m, 0);
    assert_int_equal(p->style, HCA_PLOT_STACK);
    assert_int_equal(p->nitems, 4);
    assert_string_equal(p->items[3].label, "Residual");
    assert_string_equal(p->per, "B");
    assert_close(r.plot[0][1][0], 33.0 / 40, "p.y[0]");
    assert_close(r.plot[0][3][0], 38.0 / 40, "p.r[0]");
    const hca_model_plot *q = hca_model_plot_at(m, 1);
    assert_int_equal(q->style, HCA_PLOT_LINES);
    assert_int_equal(q->items[0].node, -1);
    assert_string_equal(q->items[1].label, "hb");
    assert_close(r.plot[1][0][1], 5, "q.cpi[1]");
    assert_close(r.plot[1][1][1], 20, "q.hb[1]");
    const hca_model_node *v = hca_model_node_at(m, (size_t)hca_model_find_node(m, "root.z.v"));
    assert_int_equal(v->est, 1);
    assert_int_equal(v->depth, 2);
    assert_int_equal(v->parent, hca_model_find_node(m, "root.z"));
    hca_model_result_free(&r);

    /* totals (n = 1) and a parameter override */
    assert_int_equal(hca_model_set_param(m, "P", 3), 0);
    assert_int_equal(hca_model_set_param(m, "NOPE", 3), -1);
    double ta = 100, tb = 40, tc = 3;
    const double *tot[] = { &ta, &tb, &tc };
    assert_int_equal(hca_model_eval(m, tot, 1, &r), 0);
    assert_close(node_val(m, &r, "root.x", 0), 9, "x with P=3");
    assert_close(node_val(m, &r, "root.r", 0), 35, "r with P=3");
    hca_model_result_free(&r);
    char err[256];
    assert_int_equal(hca_model_set_param_arg(m, "P=2.5", err, sizeof(err)), 0);
    assert_close(hca_model_param_at(m, 0)->value, 2.5, "P=2.5");
    assert_close(hca_model_param_at(m, 0)->default_value, 2, "default kept");
    assert_int_equal(hca_model_set_param_arg(m, "Q=1", err, sizeof(err)), -1);
    assert_non_null(strstr(err, "no parameter 'Q'"));
    assert_int_equal(hca_model_set_param_arg(m, "P=abc", err, sizeof(err)), -1);
    hca_model_free(m);
}

static void test_runtime_division_by_zero(void **state)
{
    (void)state;
    hca_model *m = parse_ok("model d\nmatch any\nevent A = cycles\nevent B = instructions\n"
                            "node n = A / B\nnode s = ratio(A, B)\nplot p lines n s per B\n");
    double a[] = { 6, 6, 6 }, b[] = { 3, 0, 2 };
    const double *ev[] = { a, b };
    hca_model_result r;
    assert_int_equal(hca_model_eval(m, ev, 3, &r), 0);
    assert_close(r.node[0][0], 2, "6/3");
    assert_true(isnan(r.node[0][1]));
    assert_close(r.node[1][1], 0, "ratio(6,0)");
    assert_close(r.node[0][2], 3, "6/2");
    assert_true(r.flags & HCA_EVAL_DIVZERO);
    assert_int_equal(r.divzero_points, 1);
    assert_true(isnan(r.plot[0][1][1]));
    assert_close(r.plot[0][0][2], 1.5, "plot per B");
    hca_model_result_free(&r);
    hca_model_free(m);
}

static hca_model *load_shipped(const char *name)
{
    char path[256], err[512];
    snprintf(path, sizeof(path), "%s/%s", MODELS_DIR, name);
    hca_model *m = hca_model_load(path, err, sizeof(err));
    if (!m) {
        print_error("%s\n", err);
        fail();
    }
    return m;
}

/* values per event, in the model's order, from NAME=value pairs */
static void set_ev(const hca_model *m, double *vals, const char *name, double v)
{
    int i = hca_model_find_event(m, name);
    if (i < 0) {
        print_error("no event %s\n", name);
        fail();
    }
    vals[i] = v;
}

/* Evaluates m on one point: v[i] is the value of event i. */
static void eval_one_point(const hca_model *m, const double *v, hca_model_result *r)
{
    const double *ev[64];
    assert_true(hca_model_nevents(m) <= 64);
    for (size_t i = 0; i < hca_model_nevents(m); i++)
        ev[i] = &v[i];
    assert_int_equal(hca_model_eval(m, ev, 1, r), 0);
}

static void test_nethercote(void **state)
{
    (void)state;
    hca_model *m = load_shipped("nethercote.model");
    double v[8] = { 0 };
    set_ev(m, v, "CYC", 1200);
    set_ev(m, v, "I", 1000);
    set_ev(m, v, "C1", 10);
    set_ev(m, v, "C2", 1);
    set_ev(m, v, "B", 5);
    hca_model_result r;
    eval_one_point(m, v, &r);
    /* 0.8*1000 + 12*10 + 206*1 + 10*5 = 1176 */
    assert_close(node_val(m, &r, "predicted", 0), 1176, "Sum");
    assert_close(node_val(m, &r, "predicted.l2_miss", 0), 206, "206 C2");
    size_t sva = 0;
    while (strcmp(hca_model_plot_at(m, sva)->name, "sum_vs_actual") != 0)
        sva++;
    assert_close(r.plot[sva][0][0], 1.176, "Sum per instruction");
    assert_close(r.plot[sva][1][0], 1.2, "Actual per instruction");
    assert_close(r.plot[3][0][0], (1176.0 - 1200) / 1200, "relative error");
    /* predict predicted against CYC: the paper's "Sum" against "Actual" */
    assert_true(hca_model_has_prediction(m));
    assert_non_null(r.predicted);
    assert_non_null(r.actual);
    assert_close(r.predicted[0], 1176, "predicted");
    assert_close(r.actual[0], 1200, "actual");
    assert_int_equal(hca_model_instructions(m), hca_model_find_event(m, "I"));
    assert_int_equal(hca_model_ngroups(m), 0);
    assert_int_equal(r.flags, 0);
    hca_model_result_free(&r);
    hca_model_free(m);
}

static void test_hca_snb_overlap(void **state)
{
    (void)state;
    hca_model *m = load_shipped("hca-snb.model");
    size_t ne = hca_model_nevents(m);
    double v[64] = { 0 };
    assert_true(ne <= 64);
    set_ev(m, v, "CYC", 10000);
    set_ev(m, v, "INST", 8000);
    set_ev(m, v, "STALL", 5000);
    set_ev(m, v, "LLC_MISS", 10);     /* 2500 */
    set_ev(m, v, "XSNP_NONE", 20);    /* 600 */
    set_ev(m, v, "L2_HIT", 100);      /* 600 */
    set_ev(m, v, "DTLB_STLB", 10);    /* 30 */
    set_ev(m, v, "DTLB_WALK", 2);     /* 14 */
    set_ev(m, v, "DTLB_WCYC", 40);    /* 40: load latency 3784 */
    set_ev(m, v, "RS_EMPTY", 500);    /* starvation 500 */
    set_ev(m, v, "BW6", 300);
    set_ev(m, v, "BR_MISP", 50);      /* 300 */
    set_ev(m, v, "BACLEAR", 10);      /* 60 */
    set_ev(m, v, "UISS", 12000);
    set_ev(m, v, "UISS_C1", 4000);    /* issue width 3 */
    set_ev(m, v, "URET_SL", 11400);   /* wrong path = 600/3 = 200: branch 560 */
    set_ev(m, v, "SB_FULL", 100);
    set_ev(m, v, "DIV", 50);          /* stalled children: 3784+500+300+560+100+50 = 5294 > 5000 */
    set_ev(m, v, "MS_CYC", 200);
    set_ev(m, v, "CALLS", 100);       /* 300, estimate */
    set_ev(m, v, "P0", 9000);         /* > 0.8 * 10000: port saturation 9000 */
    set_ev(m, v, "P1", 100);
    hca_model_result r;
    eval_one_point(m, v, &r);
    assert_close(node_val(m, &r, "cycles.stalled.load_latency", 0), 3784, "load latency");
    assert_close(node_val(m, &r, "cycles.stalled.branch_misprediction.wrong_path", 0), 200, "wrong path");
    assert_close(node_val(m, &r, "cycles.stalled.branch_misprediction", 0), 560, "branch");
    assert_close(node_val(m, &r, "cycles.stalled.other", 0), 0, "stall rest clamped");
    assert_close(node_ovl(m, &r, "cycles.stalled", 0), 294, "stall overlap");
    assert_close(node_val(m, &r, "cycles.unstalled", 0), 5000, "unstalled");
    assert_close(node_val(m, &r, "cycles.unstalled.port_saturation", 0), 9000, "port saturation");
    /* unstalled children 9000 + 300 + 200 > 5000: overlap 4500 */
    assert_close(node_ovl(m, &r, "cycles.unstalled", 0), 4500, "unstalled overlap");
    assert_close(node_ovl(m, &r, "cycles", 0), 0, "stalled + unstalled = cycles");
    assert_true(r.flags & HCA_EVAL_OVERLAP);
    /* predicted: unstalled 5000 + load 3784 + starvation 500 + bandwidth 300 + branch 560
     * + store 100 + divider 50 (port saturation, calls and microcode are not in it) */
    assert_non_null(r.predicted);
    assert_close(r.predicted[0], 10294, "HCA predicted cycles");
    assert_close(r.actual[0], 10000, "HCA measured cycles");
    hca_model_result_free(&r);
    /* below the threshold, no port saturation and a residual */
    set_ev(m, v, "P0", 7000);
    set_ev(m, v, "LLC_MISS", 0);
    eval_one_point(m, v, &r);
    assert_close(node_val(m, &r, "cycles.unstalled.port_saturation", 0), 0, "no saturation");
    assert_close(node_val(m, &r, "cycles.unstalled.other", 0), 4500, "unstalled rest");
    assert_close(node_val(m, &r, "cycles.stalled.other", 0), 5000 - 2794, "stall rest");
    assert_close(node_ovl(m, &r, "cycles.stalled", 0), 0, "no overlap");
    hca_model_result_free(&r);
    /* a penalty from the command line */
    char err[256];
    assert_int_equal(hca_model_set_param_arg(m, "P_L2_HIT=10", err, sizeof(err)), 0);
    eval_one_point(m, v, &r);
    assert_close(node_val(m, &r, "cycles.stalled.load_latency.l2_hit", 0), 1000, "P_L2_HIT=10");
    hca_model_result_free(&r);
    hca_model_free(m);
}

static void test_tma_skx(void **state)
{
    (void)state;
    hca_model *m = load_shipped("tma-skx.model");
    double v[32] = { 0 };
    set_ev(m, v, "CLK", 1000);
    set_ev(m, v, "INST", 1500);
    set_ev(m, v, "FE_BUB", 600);
    set_ev(m, v, "FE_LAT_C", 100);
    set_ev(m, v, "ISSUED", 2000);
    set_ev(m, v, "RETSL", 1600);
    set_ev(m, v, "RECOV", 40);
    set_ev(m, v, "BR_MISP", 30);
    set_ev(m, v, "MCLEAR", 10);
    set_ev(m, v, "ST_TOTAL", 400);
    set_ev(m, v, "ST_MEM", 300);
    set_ev(m, v, "B_STORES", 20);
    set_ev(m, v, "EXE1", 100);
    set_ev(m, v, "EXE2", 80);
    set_ev(m, v, "MFUSED", 100);
    hca_model_result r;
    eval_one_point(m, v, &r);
    /* perf's formulas with SLOTS = 4000 */
    double fe = 600.0 / 4000, bad = (2000 - 1600 + 4 * 40) / 4000.0, ret = 1600.0 / 4000;
    double be = 1 - fe - (2000 + 4 * 40) / 4000.0;
    double mem = (300.0 + 20) / (400 + (100 + ret * 80) + 20) * be;
    size_t l1 = 0, l2 = 1;
    assert_close(r.plot[l1][0][0], fe, "frontend");
    assert_close(r.plot[l1][1][0], bad, "bad speculation");
    assert_close(r.plot[l1][2][0], be, "backend");
    assert_close(r.plot[l1][3][0], ret, "retiring");
    assert_close(r.plot[l1][0][0] + r.plot[l1][1][0] + r.plot[l1][2][0] + r.plot[l1][3][0], 1, "L1 sums to 1");
    assert_close(node_val(m, &r, "slots.frontend_bound.fetch_latency", 0) / 4000, 4 * 100 / 4000.0, "fetch latency");
    assert_close(node_val(m, &r, "slots.bad_speculation.branch_mispredicts", 0) / 4000, 30.0 / 40 * bad, "mispredicts");
    assert_close(node_val(m, &r, "slots.retiring.heavy_operations", 0) / 4000, (1600 + 100 - 1500) / 4000.0, "heavy");
    assert_close(node_val(m, &r, "slots.backend_bound.memory_bound", 0) / 4000, mem, "memory bound");
    assert_close(node_val(m, &r, "slots.backend_bound.core_bound", 0) / 4000, be - mem, "core bound");
    assert_int_equal(hca_model_plot_at(m, l2)->nitems, 8);
    assert_int_equal(r.flags, 0);
    hca_model_result_free(&r);
    hca_model_free(m);
}

static void test_generic_absent(void **state)
{
    (void)state;
    hca_model *m = load_shipped("generic.model");
    double cyc = 2000, inst = 1000, tclk = 1000, brm = 10;
    const double *ev[7] = { 0 };
    ev[hca_model_find_event(m, "CYC")] = &cyc;
    ev[hca_model_find_event(m, "INST")] = &inst;
    ev[hca_model_find_event(m, "TCLK")] = &tclk;
    ev[hca_model_find_event(m, "BRM")] = &brm;
    hca_model_result r;
    assert_int_equal(hca_model_eval(m, ev, 1, &r), 0);
    assert_true(r.flags & HCA_EVAL_ABSENT);
    assert_close(node_val(m, &r, "cycles.branch_mispredict_est", 0), 150, "15 x 10");
    assert_true(isnan(node_val(m, &r, "cycles.cache_miss_est", 0))); /* CM absent: NaN, not 0 */
    assert_close(node_val(m, &r, "cycles.unattributed", 0), 1850, "rest skips absent");
    hca_model_result_free(&r);

    const char *avail[] = { "cycles", "instructions", "task-clock", "branch-miss" };
    char out[1024];
    assert_int_equal(hca_model_missing_events(m, avail, 4, 0, out, sizeof(out)), 0);
    assert_int_equal(hca_model_missing_events(m, avail, 4, 1, out, sizeof(out)), 4);
    assert_non_null(strstr(out, "BRM (branch-misses), closest present: branch-miss"));
    hca_model_free(m);

    hca_model *h = load_shipped("hca-snb.model");
    const char *trace[] = { "UNHALTED_CORE_CYCLES", "snb::INSTRUCTION_RETIRED", "uops_retired:stall_cycles" };
    size_t miss = hca_model_missing_events(h, trace, 3, 1, out, sizeof(out));
    assert_int_equal(miss, hca_model_nevents(h) - 3);
    assert_null(strstr(out, "STALL ("));
    assert_non_null(strstr(out, "LLC_MISS (MEM_LOAD_UOPS_MISC_RETIRED:LLC_MISS), closest present: "));
    hca_model_free(h);
}

static void test_errors(void **state)
{
    (void)state;
    const char *hdr = "model e\nmatch any\nevent A = cycles\n";
    char buf[1024];
#define BAD(body, want)                                  \
    do {                                                 \
        snprintf(buf, sizeof(buf), "%s%s", hdr, body);   \
        expect_error(buf, want);                         \
    } while (0)
    /* unknown name, with its line and column */
    BAD("node n = A + CYCLES\n", "bad.model:4:14: unknown name 'CYCLES'");
    BAD("node n = A + AA\n", "bad.model:4:14: unknown name 'AA' (did you mean 'A'?)");
    BAD("node n = A\nnode m.x = A\n", "bad.model:5:6: 'm.x': no parent node 'm'");
    BAD("node n = A\nnode n.a = A\nplot p stack n.* q per A\n", "bad.model:6:18: unknown node 'q'");
    BAD("node n = A\nplot p stack n.* per A\n", "bad.model:5:14: 'n.*' matches no node");
    /* syntax */
    BAD("node n = A +\n", "bad.model:4:13: expected an expression, found end of line");
    BAD("node n = (A\n", "bad.model:4:12: expected ')' to close '('");
    BAD("node n = A B\n", "bad.model:4:12: unknown node option 'B'");
    BAD("node n = foo(A)\n", "bad.model:4:10: unknown function 'foo'");
    BAD("node n = min(A)\n", "bad.model:4:10: min() takes at least 2 arguments");
    BAD("node n = A $\n", "bad.model:4:12: unexpected character '$'");
    BAD("nod n = A\n", "bad.model:4:1: unknown directive 'nod'");
    BAD("param P = x\nnode n = A\n", "bad.model:4:11: a parameter's default is a number");
    BAD("event B = raw(4)\nnode n = A\n", "bad.model:4:11: raw() takes raw(type, config[, config1])");
    BAD("event B\nnode n = A\n", "bad.model:4:8: expected '=' after the event name");
    BAD("node n = 1.5e\n", "bad.model:4:10: malformed number");
    BAD("title \"x\nnode n = A\n", "bad.model:4:7: unterminated string");
    /* duplicates */
    BAD("node n = A\nlet n = 2\n", "bad.model:5:5: duplicate definition of 'n' (first defined at line 4)");
    BAD("event A = instructions\nnode n = A\n", "bad.model:4:7: duplicate definition of 'A'");
    BAD("node n = A\nplot p lines n\nplot p lines n\n", "bad.model:6:6: duplicate plot 'p'");
    BAD("let min = 2\nnode n = A\n", "bad.model:4:5: 'min' is a reserved word");
    /* cycles */
    BAD("let x = y + 1\nlet y = 2 * x\nnode n = x\n", "bad.model:4:5: cyclic definition: x -> y -> x");
    BAD("let x = x\nnode n = x\n", "bad.model:4:5: cyclic definition: x -> x");
    BAD("node n = n.a\nnode n.a = n\n", "bad.model:4:6: cyclic definition: n -> n.a -> n");
    BAD("node n = sum\nnode n.r = rest\n", "bad.model:5:6: 'n.r': the parent of a rest node cannot be a sum");
    /* division by a literal zero, at the '/' */
    BAD("node n = A / 0\n", "bad.model:4:12: division by zero");
    BAD("node n = A / (2 - 2.0)\n", "bad.model:4:12: division by zero");
    BAD("node n = A / -0\n", "bad.model:4:12: division by zero");
    /* structure */
    BAD("node n = rest\n", "bad.model:4:6: 'n': a rest node needs a parent");
    BAD("node n = sum\n", "bad.model:4:6: 'n': a sum node without children");
    BAD("node n = A\nnode n.a = rest\nnode n.b = rest\n", "bad.model:6:6: 'n.b': a second rest node under 'n'");
    BAD("node n = A\nnode x = n.*\n", "bad.model:5:10: a glob ('n.*') is allowed in plot items only");
    /* group: events only, each in one group, at least two */
    BAD("event B = instructions\nnode n = A\ngroup A n\n", "bad.model:6:9: group: 'n' is not an event");
    BAD("node n = A\ngroup A Q\n", "bad.model:5:9: group: 'Q' is not an event");
    BAD("event B = instructions\nevent C = branch-misses\nnode n = A\ngroup A B\ngroup C B\n",
        "bad.model:8:9: group: event 'B' is already in the group of line 7");
    BAD("event B = instructions\nnode n = A\ngroup A B A\n",
        "bad.model:6:11: group: event 'A' is already in the group of line 6");
    BAD("node n = A\ngroup A\n", "bad.model:5:8: a group names at least two events (the first leads)");
    BAD("node n = A\ngroup\n", "bad.model:5:6: a group names at least two events (the first leads)");
    /* predict EXPR against EXPR, once */
    BAD("node n = A\npredict n\n", "bad.model:5:10: expected 'against' and the measured expression");
    BAD("node n = A\npredict n A\n", "bad.model:5:11: expected 'against' and the measured expression");
    BAD("node n = A\npredict n against\n", "bad.model:5:18: expected an expression, found end of line");
    BAD("node n = A\npredict n against A\npredict A against n\n", "bad.model:6:1: 'predict' given twice (first at line 5)");
    BAD("node n = A\npredict n against AA\n", "bad.model:5:19: unknown name 'AA' (did you mean 'A'?)");
    BAD("node n = A\npredict n / 0 against A\n", "bad.model:5:11: division by zero");
    BAD("node n = A\npredict n against A A\n", "bad.model:5:21: unexpected 'A'");
    /* instructions NAME: one event, once */
    BAD("node n = A\ninstructions n\n", "bad.model:5:14: instructions: 'n' is not an event");
    BAD("node n = A\ninstructions Q\n", "bad.model:5:14: instructions: 'Q' is not an event");
    BAD("node n = A\ninstructions A\ninstructions A\n", "bad.model:6:1: 'instructions' given twice (first at line 5)");
    BAD("node n = A\ninstructions\n", "bad.model:5:13: 'instructions' takes the name of an event");
    BAD("node n = A\ninstructions n.x\n", "bad.model:5:14: 'instructions' takes the name of an event");
    BAD("node n = A\ninstructions A n\n", "bad.model:5:16: unexpected 'n'");
#undef BAD
    expect_error("match any\nevent A = cycles\nnode n = A\n", "bad.model:1:1: the model has no 'model <id>' line");
    expect_error("model m\nnode n = A\n", "bad.model:2:10: unknown name 'A'");
    /* continuation lines keep positions right */
    expect_error("model m\nevent A = cycles\nnode n = A + \\\n    B\n", "bad.model:4:5: unknown name 'B'");
    char err[256];
    assert_null(hca_model_load("models/does-not-exist.model", err, sizeof(err)));
    assert_non_null(strstr(err, "models/does-not-exist.model: cannot read"));
}

/* group, predict ... against ..., instructions: accessors and evaluation */
static const char *directive_model =
    "model d\n"
    "match any\n"
    "event CYC = cycles\n"
    "event INS = instructions\n"
    "event BRM = branch-misses\n"
    "event L1M = L1-dcache-load-misses\n"
    "event LLC = LLC-load-misses optional\n"
    "instructions INS\n"
    "group CYC BRM L1M            # CYC leads\n"
    "group LLC INS\n"
    "param P = 10 cycles\n"
    "node est = sum\n"
    "node est.base = 0.5 * INS\n"
    "node est.br = P * BRM\n"
    "predict est + L1M / (CYC - 100) against CYC\n"
    "plot p lines e=est per 1\n";

static void test_directives(void **state)
{
    (void)state;
    hca_model *m = parse_ok(directive_model);
    /* instructions: the index of INS */
    assert_int_equal(hca_model_instructions(m), 1);
    assert_int_equal(hca_model_instructions(m), hca_model_find_event(m, "INS"));
    /* groups in file order, members as written, the leader first */
    assert_int_equal(hca_model_ngroups(m), 2);
    size_t k = 99;
    const size_t *g0 = hca_model_group_at(m, 0, &k);
    assert_non_null(g0);
    assert_int_equal(k, 3);
    assert_int_equal(g0[0], 0);
    assert_int_equal(g0[1], 2);
    assert_int_equal(g0[2], 3);
    const size_t *g1 = hca_model_group_at(m, 1, &k);
    assert_non_null(g1);
    assert_int_equal(k, 2);
    assert_int_equal(g1[0], 4);
    assert_int_equal(g1[1], 1);
    k = 99;
    assert_null(hca_model_group_at(m, 2, &k));
    assert_int_equal(k, 0);
    assert_true(hca_model_has_prediction(m));

    /* point 0: INS 1000 BRM 20 L1M 300 CYC 1100: est 500 + 200 = 700, predicted 700 + 300/1000
     * point 1: CYC 100: the '/' divides by zero: NaN, flagged; actual is still CYC
     * point 2: the parameter changes the prediction */
    double cyc[] = { 1100, 100, 2000 }, ins[] = { 1000, 1000, 2000 }, brm[] = { 20, 20, 30 },
           l1m[] = { 300, 300, 0 }, llc[] = { 1, 1, 1 };
    const double *ev[] = { cyc, ins, brm, l1m, llc };
    hca_model_result r;
    assert_int_equal(hca_model_eval(m, ev, 3, &r), 0);
    assert_non_null(r.predicted);
    assert_non_null(r.actual);
    assert_close(r.predicted[0], 700.3, "predicted[0]");
    assert_close(r.actual[0], 1100, "actual[0]");
    assert_true(isnan(r.predicted[1]));
    assert_close(r.actual[1], 100, "actual[1]");
    assert_close(r.predicted[2], 1000 + 300, "predicted[2]");
    assert_close(r.actual[2], 2000, "actual[2]");
    assert_true(r.flags & HCA_EVAL_DIVZERO);
    assert_int_equal(r.divzero_points, 1);
    hca_model_result_free(&r);
    assert_null(r.predicted);

    /* an absent (optional) event the prediction does not use: flagged, the prediction stands */
    assert_int_equal(hca_model_set_param(m, "P", 0), 0);
    const double *ev2[] = { cyc, ins, brm, l1m, NULL };
    assert_int_equal(hca_model_eval(m, ev2, 1, &r), 0);
    assert_true(r.flags & HCA_EVAL_ABSENT);
    assert_close(r.predicted[0], 500.3, "predicted with P=0");
    hca_model_result_free(&r);
    /* a prediction from an absent event is NaN, not 0 */
    hca_model_free(m);
    m = parse_ok("model t\nmatch any\nevent A = cycles\nevent B = instructions optional\n"
                 "node n = A\npredict 2 * B against n\n");
    double a = 5;
    const double *ev3[] = { &a, NULL };
    assert_int_equal(hca_model_eval(m, ev3, 1, &r), 0);
    assert_true(isnan(r.predicted[0]));
    assert_close(r.actual[0], 5, "actual of a node");
    hca_model_result_free(&r);
    hca_model_free(m);

    /* none of the three: no groups, no prediction, no instructions event */
    m = parse_ok("model t\nmatch any\nevent A = cycles\nnode n = A\n");
    assert_int_equal(hca_model_ngroups(m), 0);
    k = 99;
    assert_null(hca_model_group_at(m, 0, &k));
    assert_int_equal(k, 0);
    assert_false(hca_model_has_prediction(m));
    assert_int_equal(hca_model_instructions(m), -1);
    const double *ev4[] = { &a };
    assert_int_equal(hca_model_eval(m, ev4, 1, &r), 0);
    assert_null(r.predicted);
    assert_null(r.actual);
    hca_model_result_free(&r);
    hca_model_free(m);

    /* the directives may come before the events they name, and span lines */
    m = parse_ok("model t\nmatch any\ninstructions B\ngroup B \\\n  A\npredict A \\\n  against B\n"
                 "event A = cycles\nevent B = instructions\nnode n = A\n");
    assert_int_equal(hca_model_instructions(m), 1);
    const size_t *g = hca_model_group_at(m, 0, &k);
    assert_int_equal(k, 2);
    assert_int_equal(g[0], 1);
    assert_int_equal(g[1], 0);
    assert_true(hca_model_has_prediction(m));
    hca_model_free(m);

    /* Sapphire Rapids: TOPDOWN.SLOTS leads the PERF_METRICS events (raw 0x8000-0x8700) */
    m = load_shipped("tma-spr.model");
    assert_int_equal(hca_model_ngroups(m), 1);
    g = hca_model_group_at(m, 0, &k);
    assert_int_equal(k, 9);
    assert_int_equal(g[0], hca_model_find_event(m, "SLOTS"));
    for (size_t q = 1; q < k; q++) {
        const hca_model_event *e = hca_model_event_at(m, g[q]);
        assert_int_equal(e->raw, 1);
        assert_int_equal(e->config, 0x8000 + 0x100 * (q - 1));
    }
    hca_model_free(m);
}

/* The Arm Neoverse top-down models: Arm common event numbers (Linux
 * include/linux/perf/arm_pmuv3.h), by the aliases the three files share */
static const struct {
    const char *alias;
    unsigned long long config;
    int required;
} neoverse_events[] = {
    { "CYC", 0x11, 1 },  /* CPU_CYCLES */
    { "INST", 0x08, 1 }, /* INST_RETIRED */
    { "OPR", 0x3a, 1 },  /* OP_RETIRED */
    { "OPS", 0x3b, 1 },  /* OP_SPEC */
    { "SSB", 0x3d, 1 },  /* STALL_SLOT_BACKEND */
    { "SSF", 0x3e, 1 },  /* STALL_SLOT_FRONTEND */
    { "SS", 0x3f, 1 },   /* STALL_SLOT */
    { "BRM", 0x10, 0 },  /* BR_MIS_PRED (V1) */
};

static int neoverse_event(const char *alias)
{
    for (size_t j = 0; j < sizeof(neoverse_events) / sizeof(neoverse_events[0]); j++)
        if (strcmp(neoverse_events[j].alias, alias) == 0)
            return (int)j;
    return -1;
}

/* the encodings, the instructions event and the group of a Neoverse model */
static void check_neoverse_events(const hca_model *m, const char *pmu)
{
    char want[64];
    snprintf(want, sizeof(want), "pmu=%s", pmu);
    assert_string_equal(hca_model_match(m), want);
    assert_string_equal(hca_model_unit(m), "slots");
    size_t ne = hca_model_nevents(m);
    for (size_t i = 0; i < ne; i++) {
        const hca_model_event *e = hca_model_event_at(m, i);
        int j = neoverse_event(e->name);
        if (j < 0)
            print_error("%s: unexpected event %s\n", hca_model_id(m), e->name);
        assert_true(j >= 0);
        assert_int_equal(e->raw, 1);
        assert_int_equal(e->type, 4);
        if (e->config != neoverse_events[j].config) {
            print_error("%s: %s = raw(4, %#llx), want %#llx\n", hca_model_id(m), e->name,
                        (unsigned long long)e->config, neoverse_events[j].config);
            fail();
        }
        assert_int_equal(e->config1, 0);
        assert_int_equal(e->optional, 0);
    }
    for (size_t j = 0; j < sizeof(neoverse_events) / sizeof(neoverse_events[0]); j++)
        if (neoverse_events[j].required)
            assert_true(hca_model_find_event(m, neoverse_events[j].alias) >= 0);
    assert_int_equal(hca_model_instructions(m), hca_model_find_event(m, "INST"));
    assert_false(hca_model_has_prediction(m));
    /* one group: the cycle counter and the five events of the ratios */
    assert_int_equal(hca_model_ngroups(m), 1);
    size_t k = 0;
    const size_t *g = hca_model_group_at(m, 0, &k);
    assert_int_equal(k, 6);
    static const char *const members[] = { "CYC", "SSF", "SSB", "SS", "OPR", "OPS" };
    for (size_t q = 0; q < 6; q++)
        assert_int_equal(g[q], hca_model_find_event(m, members[q]));
}

/* perf's four fractions, from the first plot (frontend, bad speculation, backend, retiring, per SLOTS) */
static void check_l1(const hca_model *m, const hca_model_result *r, size_t k, double fe, double bs, double be,
                     double ret)
{
    const hca_model_plot *p = hca_model_plot_at(m, 0);
    assert_string_equal(p->name, "topdown_l1");
    assert_int_equal(p->nitems, 4);
    assert_string_equal(p->per, "SLOTS");
    assert_close(r->plot[0][0][k], fe, "frontend_bound");
    assert_close(r->plot[0][1][k], bs, "bad_speculation");
    assert_close(r->plot[0][2][k], be, "backend_bound");
    assert_close(r->plot[0][3][k], ret, "retiring");
}

static void test_neoverse_n2(void **state)
{
    (void)state;
    hca_model *m = load_shipped("neoverse-n2-topdown.model");
    check_neoverse_events(m, "arm_n2");
    /* point 0: consistent counts; point 1: stall slots short of what the ops fill (overlap);
     * point 2: no op at all (OP_SPEC 0: ratio() gives 0, not a division by zero) */
    double cyc[] = { 1000, 1000, 1000 }, inst[] = { 1500, 900, 0 }, ssf[] = { 1800, 1100, 4000 },
           ssb[] = { 1200, 1000, 2000 }, ss[] = { 3000, 1600, 6000 }, ops[] = { 2500, 3000, 0 },
           opr[] = { 2000, 1500, 0 };
    const char *aliases[7] = { "CYC", "INST", "SSF", "SSB", "SS", "OPS", "OPR" };
    const double *const arrays[7] = { cyc, inst, ssf, ssb, ss, ops, opr };
    const double *ev[8] = { 0 };
    for (size_t i = 0; i < 7; i++) {
        int e = hca_model_find_event(m, aliases[i]);
        assert_true(e >= 0 && e < 8);
        ev[e] = arrays[i];
    }
    hca_model_result r;
    assert_int_equal(hca_model_eval(m, ev, 3, &r), 0);
    for (size_t k = 0; k < 3; k++) {
        /* perf's neoverse-n2-v2/metrics.json with #slots = 5: stall_slot and
         * stall_slot_frontend minus cpu_cycles */
        double slots = 5 * cyc[k];
        double ret_f = ops[k] != 0 ? opr[k] / ops[k] : 0;
        double fe = (ssf[k] - cyc[k]) / slots;
        double bs = (1 - ret_f) * (1 - (ss[k] - cyc[k]) / slots);
        double ret = ret_f * (1 - (ss[k] - cyc[k]) / slots);
        double be = ssb[k] / slots;
        check_l1(m, &r, k, fe, bs, be, ret);
    }
    assert_close(r.plot[0][0][0], 0.16, "N2 frontend 0.16");
    assert_close(r.plot[0][3][0], 0.48, "N2 retiring 0.48");
    assert_close(node_val(m, &r, "slots", 0), 5000, "slots");
    assert_close(node_val(m, &r, "slots.unaccounted", 0), 0, "nothing unaccounted");
    assert_close(node_ovl(m, &r, "slots", 0), 0, "no overlap at 0");
    /* point 1: 100 + 1000 + 2200 + 2200 = 5500 slots of 5000 */
    assert_close(node_ovl(m, &r, "slots", 1), 500, "overlap at 1");
    assert_close(node_val(m, &r, "slots.unaccounted", 1), 0, "rest clamped");
    assert_close(node_val(m, &r, "slots.retiring", 2), 0, "no op: no retiring");
    assert_int_equal(r.flags, HCA_EVAL_OVERLAP);
    assert_int_equal(r.overlap_points, 1);
    hca_model_result_free(&r);

    /* N2 silicon without the erratum: FE_EXTRA=0 gives sbsa.json's plain formulas */
    char err[256];
    assert_int_equal(hca_model_set_param_arg(m, "FE_EXTRA=0", err, sizeof(err)), 0);
    assert_int_equal(hca_model_eval(m, ev, 1, &r), 0);
    check_l1(m, &r, 0, 1800.0 / 5000, 0.2 * (1 - 3000.0 / 5000), 1200.0 / 5000, 0.8 * (1 - 3000.0 / 5000));
    hca_model_result_free(&r);
    hca_model_free(m);
}

static void test_neoverse_v1(void **state)
{
    (void)state;
    hca_model *m = load_shipped("neoverse-v1-topdown.model");
    check_neoverse_events(m, "arm_v1");
    assert_true(hca_model_find_event(m, "BRM") >= 0);
    double v[8] = { 0 };
    set_ev(m, v, "CYC", 1000);
    set_ev(m, v, "INST", 3000);
    set_ev(m, v, "SSF", 2000);
    set_ev(m, v, "SSB", 3000);
    set_ev(m, v, "SS", 5000);
    set_ev(m, v, "OPS", 2500);
    set_ev(m, v, "OPR", 2000);
    set_ev(m, v, "BRM", 10);
    hca_model_result r;
    eval_one_point(m, v, &r);
    /* perf's neoverse-v1/metrics.json (without its x100):
     * frontend_bound  = STALL_SLOT_FRONTEND / (CPU_CYCLES * 8) - BR_MIS_PRED * 4 / CPU_CYCLES
     * bad_speculation = (1 - OP_RETIRED / OP_SPEC) * (1 - STALL_SLOT / (CPU_CYCLES * 8)) + BR_MIS_PRED * 4 / CPU_CYCLES
     * backend_bound, retiring: sbsa.json with #slots = 8 */
    double fe = 2000.0 / 8000 - 10 * 4 / 1000.0, bs = (1 - 2000.0 / 2500) * (1 - 5000.0 / 8000) + 10 * 4 / 1000.0;
    double be = 3000.0 / 8000, ret = 2000.0 / 2500 * (1 - 5000.0 / 8000);
    check_l1(m, &r, 0, fe, bs, be, ret);
    assert_close(fe, 0.21, "V1 frontend 0.21");
    assert_close(bs, 0.115, "V1 bad speculation 0.115");
    assert_close(node_val(m, &r, "slots.unaccounted", 0), 0, "the four fill the slots");
    assert_int_equal(r.flags, 0);
    /* CPI and IPC lines */
    assert_close(r.plot[2][0][0], 1000.0 / 3000, "CPI");
    assert_close(r.plot[2][1][0], 3.0, "IPC");
    hca_model_result_free(&r);
    /* P_MISP=0: sbsa.json */
    assert_int_equal(hca_model_set_param(m, "P_MISP", 0), 0);
    eval_one_point(m, v, &r);
    check_l1(m, &r, 0, 0.25, 0.075, be, ret);
    hca_model_result_free(&r);
    hca_model_free(m);
}

static void test_neoverse_v2(void **state)
{
    (void)state;
    hca_model *m = load_shipped("neoverse-v2-topdown.model");
    check_neoverse_events(m, "arm_v2");
    assert_int_equal(hca_model_find_event(m, "BRM"), -1);
    double v[8] = { 0 };
    set_ev(m, v, "CYC", 2000);
    set_ev(m, v, "INST", 6000);
    set_ev(m, v, "SSF", 4000);
    set_ev(m, v, "SSB", 6000);
    set_ev(m, v, "SS", 11000);  /* 1000 stall slots counted by neither: unaccounted */
    set_ev(m, v, "OPS", 5000);
    set_ev(m, v, "OPR", 4500);
    hca_model_result r;
    eval_one_point(m, v, &r);
    /* sbsa.json with #slots = 8 (neoverse-n2-v2/metrics.json's "if (#slots - 5)" branch) */
    double slots = 16000;
    check_l1(m, &r, 0, 4000 / slots, 0.1 * (1 - 11000 / slots), 6000 / slots, 0.9 * (1 - 11000 / slots));
    assert_close(node_val(m, &r, "slots.unaccounted", 0), 1000, "STALL_SLOT beyond FE + BE");
    const hca_model_plot *all = hca_model_plot_at(m, 1);
    assert_int_equal(all->nitems, 5);
    assert_string_equal(all->items[4].label, "Unaccounted");
    assert_close(r.plot[1][4][0], 1000 / slots, "unaccounted fraction");
    assert_int_equal(r.flags, 0);
    hca_model_result_free(&r);
    /* a cycle-less point: the fractions are NaN and flagged, nothing crashes */
    double zero[8] = { 0 };
    const double *ez[8];
    for (size_t i = 0; i < hca_model_nevents(m); i++)
        ez[i] = &zero[i];
    assert_int_equal(hca_model_eval(m, ez, 1, &r), 0);
    assert_true(isnan(r.plot[0][0][0]));
    assert_true(r.flags & HCA_EVAL_DIVZERO);
    hca_model_result_free(&r);
    hca_model_free(m);
}

/* ---- model lookup (src/hca_model_path.c) ---- */

static void write_file(const char *dir, const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    assert_true(fputs(text, f) >= 0);
    assert_int_equal(fclose(f), 0);
}

static void remove_file(const char *dir, const char *name)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    assert_int_equal(unlink(path), 0);
}

static int ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

static const char *const path_test_files[] = { "mine.model", "zz-b.model", "zz-a.model", "aa-any.model",
                                               "cc.model", "generic.model", "notes.txt" };

struct model_listing {
    size_t n;
    char name[64][64], path[64][600];
};

static void collect_model(const char *name, const char *path, void *user)
{
    struct model_listing *l = user;
    if (l->n < 64) {
        snprintf(l->name[l->n], sizeof(l->name[l->n]), "%s", name);
        snprintf(l->path[l->n], sizeof(l->path[l->n]), "%s", path);
    }
    l->n++;
}

static void test_model_path(void **state)
{
    (void)state;
    char tmp[] = "/tmp/hca_model_test.XXXXXX";
    assert_non_null(mkdtemp(tmp));
    write_file(tmp, "mine.model", "model mine\nmatch pmu=hcatest_mine\nevent A = cycles\nnode n = A\n");
    /* two models for the same PMU: the first by file name wins, whatever the directory order */
    write_file(tmp, "zz-b.model", "# match pmu=hcatest_none (a comment)\nmodel b\nmatch pmu=hcatest_dup\n");
    write_file(tmp, "zz-a.model", "model a\nmatch\tpmu=hcatest_x,hcatest_dup,snb   # comment\n");
    write_file(tmp, "aa-any.model", "model any\nmatch any\n");
    write_file(tmp, "cc.model", "model c\n  match pmu=hcatest_c\n");
    write_file(tmp, "notes.txt", "match pmu=hcatest_txt\n");
    char env[600];
    snprintf(env, sizeof(env), "/nonexistent-hca-dir::%s", tmp);
    assert_int_equal(setenv("HCATRACE_MODEL_PATH", env, 1), 0);

    char path[4096], err[2048];
    /* the search path: HCATRACE_MODEL_PATH (empty entries dropped), installed, source tree */
    char dirs[4096];
    hca_model_dirs(dirs, sizeof(dirs));
    char want[1024];
    snprintf(want, sizeof(want), "/nonexistent-hca-dir:%s:", tmp);
    assert_int_equal(strncmp(dirs, want, strlen(want)), 0);
#ifdef HCA_MODELS_SOURCE_DIR
    assert_true(ends_with(dirs, ":" HCA_MODELS_SOURCE_DIR));
#endif

    /* by name, through HCATRACE_MODEL_PATH */
    assert_int_equal(hca_model_find("mine", path, sizeof(path), err, sizeof(err)), 0);
    snprintf(want, sizeof(want), "%s/mine.model", tmp);
    assert_string_equal(path, want);
    assert_string_equal(err, "");
    char lerr[512];
    hca_model *m = hca_model_load(path, lerr, sizeof(lerr));
    assert_non_null(m);
    assert_string_equal(hca_model_id(m), "mine");
    hca_model_free(m);
    /* a model there shadows the shipped one of the same name */
    assert_int_equal(hca_model_find("generic", path, sizeof(path), err, sizeof(err)), 0);
    assert_true(ends_with(path, "/generic.model"));
    assert_true(strncmp(path, tmp, strlen(tmp)) != 0);
    write_file(tmp, "generic.model", "model shadow\nmatch any\nevent A = cycles\nnode n = A\n");
    assert_int_equal(hca_model_find("generic", path, sizeof(path), err, sizeof(err)), 0);
    snprintf(want, sizeof(want), "%s/generic.model", tmp);
    assert_string_equal(path, want);
    /* a shipped model is found by name too */
    assert_int_equal(hca_model_find("neoverse-v1-topdown", path, sizeof(path), err, sizeof(err)), 0);
    assert_true(ends_with(path, "/neoverse-v1-topdown.model"));

    /* by path: a '/' or the .model suffix; taken as it is */
    snprintf(want, sizeof(want), "%s/zz-a.model", tmp);
    assert_int_equal(hca_model_find(want, path, sizeof(path), err, sizeof(err)), 0);
    assert_string_equal(path, want);
    assert_int_equal(hca_model_find("models/nethercote.model", path, sizeof(path), err, sizeof(err)), 0);
    assert_string_equal(path, "models/nethercote.model");
    assert_int_equal(hca_model_find("mine.model", path, sizeof(path), err, sizeof(err)), -1); /* not in ./ */
    assert_string_equal(err, "model file mine.model cannot be read");
    assert_int_equal(hca_model_find("./nope/x", path, sizeof(path), err, sizeof(err)), -1);
    assert_non_null(strstr(err, "./nope/x cannot be read"));

    /* unknown name: the closest model name and the directories searched */
    assert_int_equal(hca_model_find("mnie", path, sizeof(path), err, sizeof(err)), -1);
    assert_non_null(strstr(err, "no model 'mnie' (closest: mine) in "));
    assert_non_null(strstr(err, tmp));
    assert_non_null(strstr(err, "/nonexistent-hca-dir"));
#ifdef HCA_MODELS_SOURCE_DIR
    assert_non_null(strstr(err, HCA_MODELS_SOURCE_DIR));
#endif
    assert_int_equal(hca_model_find("nethercot", path, sizeof(path), err, sizeof(err)), -1);
    assert_non_null(strstr(err, "(closest: nethercote)"));
    assert_int_equal(hca_model_find("", path, sizeof(path), err, sizeof(err)), -1);
    assert_string_equal(err, "no model name");

    /* by PMU: the first file by name whose match line lists it, the search path in order */
    assert_int_equal(hca_model_for_pmu("hcatest_dup", path, sizeof(path)), 0);
    snprintf(want, sizeof(want), "%s/zz-a.model", tmp);
    assert_string_equal(path, want);
    assert_int_equal(hca_model_for_pmu("snb", path, sizeof(path)), 0); /* before models/hca-snb.model */
    assert_string_equal(path, want);
    assert_int_equal(hca_model_for_pmu("hcatest_x", path, sizeof(path)), 0);
    assert_string_equal(path, want);
    assert_int_equal(hca_model_for_pmu("hcatest_mine", path, sizeof(path)), 0);
    snprintf(want, sizeof(want), "%s/mine.model", tmp);
    assert_string_equal(path, want);
    assert_int_equal(hca_model_for_pmu("hcatest_c", path, sizeof(path)), 0); /* indented match line */
    /* no match: -1 (a name's prefix, a commented-out line, 'match any', a non-model file) */
    strcpy(path, "unchanged");
    assert_int_equal(hca_model_for_pmu("hcatest", path, sizeof(path)), -1);
    assert_int_equal(hca_model_for_pmu("hcatest_none", path, sizeof(path)), -1);
    assert_int_equal(hca_model_for_pmu("any", path, sizeof(path)), -1);
    assert_int_equal(hca_model_for_pmu("hcatest_txt", path, sizeof(path)), -1);
    assert_int_equal(hca_model_for_pmu("", path, sizeof(path)), -1);
    assert_int_equal(hca_model_for_pmu(NULL, path, sizeof(path)), -1);
    assert_string_equal(path, "unchanged");

    /* the list (hcafold --list-models): every name once, the first directory's file
     * for a shadowed name, the shipped ones after */
    struct model_listing seen = { 0, { { 0 } }, { { 0 } } };
    int listed = hca_model_list(collect_model, &seen);
    assert_int_equal(listed, (int)seen.n);
    assert_true(seen.n >= 6 + 10); /* 11 shipped, generic shadowed */
    assert_string_equal(seen.name[0], "aa-any"); /* HCATRACE_MODEL_PATH's dir first, by name */
    assert_string_equal(seen.name[5], "zz-b");
    size_t generics = 0, nethercote = 0;
    for (size_t i = 0; i < seen.n; i++) {
        if (strcmp(seen.name[i], "generic") == 0) {
            generics++;
            snprintf(want, sizeof(want), "%s/generic.model", tmp);
            assert_string_equal(seen.path[i], want);
        }
        nethercote += strcmp(seen.name[i], "nethercote") == 0;
    }
    assert_int_equal(generics, 1);
    assert_int_equal(nethercote, 1);

    for (size_t i = 0; i < sizeof(path_test_files) / sizeof(path_test_files[0]); i++)
        remove_file(tmp, path_test_files[i]);
    assert_int_equal(rmdir(tmp), 0);
    assert_int_equal(unsetenv("HCATRACE_MODEL_PATH"), 0);

    /* the shipped models for their PMUs (HCATRACE_MODEL=auto) */
    static const struct {
        const char *pmu, *file;
    } shipped[] = {
        { "snb", "/hca-snb.model" }, { "ivb_ep", "/hca-ivb-ep.model" }, { "hsw_ep", "/hca-hsw-ep.model" },
        { "skx", "/tma-skx.model" }, { "spr", "/tma-spr.model" }, { "amd64_fam19h_zen4", "/zen4-pipeline.model" },
        { "arm_n2", "/neoverse-n2-topdown.model" }, { "arm_v1", "/neoverse-v1-topdown.model" },
        { "arm_v2", "/neoverse-v2-topdown.model" },
    };
    for (size_t i = 0; i < sizeof(shipped) / sizeof(shipped[0]); i++) {
        assert_int_equal(hca_model_for_pmu(shipped[i].pmu, path, sizeof(path)), 0);
        if (!ends_with(path, shipped[i].file)) {
            print_error("%s: %s, want ...%s\n", shipped[i].pmu, path, shipped[i].file);
            fail();
        }
    }
    /* no shipped model for Neoverse N1 (no STALL_SLOT events) */
    assert_int_equal(hca_model_for_pmu("arm_n1", path, sizeof(path)), -1);
}

/* text of n copies of unit between head and tail */
static char *repeated(const char *head, const char *unit, size_t n, const char *mid, const char *tail)
{
    size_t len = strlen(head) + n * strlen(unit) + strlen(mid) + n * strlen(tail) + 1;
    char *s = malloc(len), *w = s;
    assert_non_null(s);
    w = stpcpy(w, head);
    for (size_t i = 0; i < n; i++)
        w = stpcpy(w, unit);
    w = stpcpy(w, mid);
    for (size_t i = 0; i < n; i++)
        w = stpcpy(w, tail);
    return s;
}

/* Deep nesting is an error, never a stack overflow (the model is parsed inside the
 * traced application): parentheses, signs, function arguments, long chains, lets. */
static void test_nesting_limit(void **state)
{
    (void)state;
    static const char head[] = "model m\nevent A = cycles\nnode n = ";
    char *ok = repeated(head, "(", 150, "A", ")");
    hca_model_free(parse_ok(ok));
    free(ok);
    const struct {
        const char *unit, *mid, *tail;
        size_t n;
    } deep[] = { { "(", "A", ")", 20000 }, { "-", "A", "", 20000 }, { "max(A, ", "A", ")", 5000 },
                 { "A + ", "A", "", 20000 }, { "A * ", "A", "", 20000 } };
    for (size_t i = 0; i < sizeof(deep) / sizeof(deep[0]); i++) {
        char *text = repeated(head, deep[i].unit, deep[i].n, deep[i].mid, deep[i].tail);
        char err[512];
        hca_model *m = hca_model_parse(text, "deep.model", err, sizeof(err));
        if (m || !strstr(err, "nested too deeply"))
            print_error("case %zu: %s\n", i, m ? "parsed" : err);
        assert_null(m);
        assert_non_null(strstr(err, "nested too deeply"));
        free(text);
    }
    /* a chain of 5000 lets, each using the one after it */
    size_t cap = 5000 * 40 + 64, len = 0;
    char *lets = malloc(cap);
    assert_non_null(lets);
    len += (size_t)snprintf(lets, cap, "model m\nevent A = cycles\nnode n = l0\n");
    for (int i = 0; i < 4999; i++)
        len += (size_t)snprintf(lets + len, cap - len, "let l%d = l%d\n", i, i + 1);
    snprintf(lets + len, cap - len, "let l4999 = A\n");
    expect_error(lets, "bad.model:");
    char err[512];
    assert_null(hca_model_parse(lets, "bad.model", err, sizeof(err)));
    assert_non_null(strstr(err, "nested too deeply"));
    free(lets);
}

/* A model whose text ends right after "event X = r" is read up to its end only:
 * the text is put against a page the process may not read. */
static void test_event_spec_at_the_end(void **state)
{
    (void)state;
    long page = sysconf(_SC_PAGESIZE);
    char *two = mmap(NULL, (size_t)page * 2, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(two != MAP_FAILED);
    assert_int_equal(mprotect(two + page, (size_t)page, PROT_NONE), 0);
    static const char text[] = "model m\nnode n = A\nevent A = r";
    char *s = two + page - sizeof(text); /* its final NUL is the page's last byte */
    memcpy(s, text, sizeof(text));
    char err[512];
    hca_model *m = hca_model_parse(s, "end.model", err, sizeof(err));
    assert_non_null(m); /* "r" is an event spec like any other word */
    assert_string_equal(hca_model_event_at(m, 0)->spec, "r");
    hca_model_free(m);
    munmap(two, (size_t)page * 2);
}

static void test_syntax_details(void **state)
{
    (void)state;
    hca_model *m = parse_ok("# comment\nmodel x-1   # trailing comment\ntitle \"T\"\nmatch pmu=snb,ivb\nunit cycles\n"
                            "source \"s1\"\nsource \"s2\"\n"
                            "event R = raw(4, 0x4c2, 7) optional\nevent L = MEM_LOAD_UOPS_RETIRED:L2_HIT:precise=2\n"
                            "param Q = -1.5e1 ns \"doc\"\n"
                            "node a = R * 2 + \\\n   L * Q\n  node a.b = -R + +L  est label=\"B!\"\nnode a.c = rest\n"
                            "plot s stack a.* per 1\n");
    assert_string_equal(hca_model_id(m), "x-1");
    assert_string_equal(hca_model_title(m), "T");
    assert_string_equal(hca_model_match(m), "pmu=snb,ivb");
    assert_string_equal(hca_model_unit(m), "cycles");
    assert_int_equal(hca_model_nsources(m), 2);
    assert_string_equal(hca_model_source(m, 1), "s2");
    const hca_model_event *r = hca_model_event_at(m, 0);
    assert_int_equal(r->raw, 1);
    assert_int_equal(r->type, 4);
    assert_int_equal(r->config, 0x4c2);
    assert_int_equal(r->config1, 7);
    assert_int_equal(r->optional, 1);
    assert_null(r->spec);
    assert_string_equal(hca_model_event_at(m, 1)->spec, "MEM_LOAD_UOPS_RETIRED:L2_HIT:precise=2");
    const hca_model_param *q = hca_model_param_at(m, 0);
    assert_close(q->value, -15, "Q");
    assert_string_equal(q->unit, "ns");
    assert_string_equal(q->doc, "doc");
    const hca_model_node *b = hca_model_node_at(m, 1);
    assert_string_equal(b->label, "B!");
    assert_int_equal(b->est, 1);
    assert_int_equal(hca_model_node_at(m, 2)->kind, HCA_NODE_REST);
    assert_string_equal(hca_model_plot_at(m, 0)->per, "1");
    double rv = 3, lv = 2;
    const double *ev[] = { &rv, &lv };
    hca_model_result res;
    assert_int_equal(hca_model_eval(m, ev, 1, &res), 0);
    assert_close(res.node[0][0], 6 - 30, "a");
    assert_close(res.node[1][0], -1, "a.b");
    assert_close(res.node[2][0], 0, "a.c clamped");
    hca_model_result_free(&res);
    hca_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shipped_models_parse),
        cmocka_unit_test(test_shipped_models_encode),
        cmocka_unit_test(test_key_encodings),
        cmocka_unit_test(test_tree_by_hand),
        cmocka_unit_test(test_runtime_division_by_zero),
        cmocka_unit_test(test_nethercote),
        cmocka_unit_test(test_hca_snb_overlap),
        cmocka_unit_test(test_tma_skx),
        cmocka_unit_test(test_generic_absent),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_syntax_details),
        cmocka_unit_test(test_nesting_limit),
        cmocka_unit_test(test_event_spec_at_the_end),
        cmocka_unit_test(test_directives),
        cmocka_unit_test(test_neoverse_n2),
        cmocka_unit_test(test_neoverse_v1),
        cmocka_unit_test(test_neoverse_v2),
        cmocka_unit_test(test_model_path),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
