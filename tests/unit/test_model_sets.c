/* test_model_sets.c: packing model events into counter sets
 * (instrument/hct_model_sets.c). Every shipped model (models/NAME.model) is
 * resolved and packed under LIBPFM_FORCE_PMU for each PMU its `match pmu=`
 * line names (portable models under several PMUs), with and without SMT, one
 * child process each: every event lands in exactly one set, no set needs more
 * general counters than the PMU has, groups stay whole with the leader first,
 * the number of sets leaves room for HCATRACE_COUNTERS. Hand-computed set
 * counts and layouts for small models (general, fixed, fixed-only, topdown
 * metric events, Arm's cycle counter, groups, merged events, too many sets);
 * the counter each
 * encoding needs, checked against libpfm4's tables; the PMU caps with SMT.
 * Run from the top of the tree (models/ is read relative to it). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hca_model.h"
#include "model_files.h"
#include "hct_model_sets.h"
#include "pfm_arch.h"

#define MAXN 128
#define MAXG 16

/* ---- the invariants of a packing --------------------------------------------------- */

typedef struct {
    hct_event ev[MAXN];
    int usable[MAXN], optional[MAXN];
    int n, nbase;
    int group_mem[MAXG][MAXN], gsize[MAXG], ngroups;
    hct_pmu_caps caps;
    int same_as[MAXN], where[MAXN];
    hct_packing pk;
} problem;

static int pack(problem *p)
{
    const int *groups[MAXG];
    for (int g = 0; g < p->ngroups; g++)
        groups[g] = p->group_mem[g];
    return hct_model_pack(p->ev, p->usable, p->n, p->nbase, groups, p->gsize, p->ngroups, &p->caps, p->same_as,
                          p->where, &p->pk);
}

static int pos_in_set(const hct_packing *pk, int s, int idx)
{
    for (int k = 0; k < pk->nevents[s]; k++)
        if (pk->ev[s][k] == idx)
            return k;
    return -1;
}

static int group_of(const problem *p, int idx)
{
    for (int g = 0; g < p->ngroups; g++)
        for (int k = 0; k < p->gsize[g]; k++)
            if (p->group_mem[g][k] == idx)
                return g;
    return -1;
}

/* general counters a set needs, counted as the kernel schedules a group */
static int general_needed(const problem *p, int s, int *fixed_conflict)
{
    int general = 0, elig[8] = { 0 }, only[8] = { 0 };
    *fixed_conflict = 0;
    for (int k = 0; k < p->pk.nevents[s]; k++) {
        int f;
        int need = hct_event_need(&p->ev[p->pk.ev[s][k]], &p->caps, &f);
        if (need == HCT_NEED_GENERAL)
            general++;
        else if (need == HCT_NEED_FIXED)
            elig[f]++;
        else if (need == HCT_NEED_FIXED_ONLY)
            only[f]++;
    }
    for (int f = 0; f < 8; f++) {
        if (only[f] > 1)
            *fixed_conflict = 1;
        general += elig[f] - (only[f] == 0 && elig[f] > 0);
    }
    return general;
}

/* 0 when the packing of p holds every promise of hct_model_pack; else 1 with a message */
static int check_packing(const problem *p, const char *what)
{
#define BAD(...)                                                                                                 \
    do {                                                                                                         \
        fprintf(stderr, "# %s: ", what);                                                                         \
        fprintf(stderr, __VA_ARGS__);                                                                            \
        fprintf(stderr, "\n");                                                                                   \
        return 1;                                                                                                \
    } while (0)
    const hct_packing *pk = &p->pk;
    if (pk->nsets < 0 || pk->nsets > HCT_MAX_SETS)
        BAD("%d sets", pk->nsets);
    for (int s = 0; s < pk->nsets; s++) {
        if (pk->nevents[s] < 1 || pk->nevents[s] > HCT_MAX_SET_EVENTS)
            BAD("set %d has %d events", s, pk->nevents[s]);
        for (int b = 0; b < p->nbase; b++)
            if (pos_in_set(pk, s, b) < 0)
                BAD("set %d lacks base event %s", s, p->ev[b].name);
        for (int k = 0; k < pk->nevents[s]; k++) {
            int i = pk->ev[s][k];
            if (i < 0 || i >= p->n || p->same_as[i] != i || !(i < p->nbase || p->usable[i]))
                BAD("set %d holds event %d, not a counted representative", s, i);
            for (int j = 0; j < k; j++)
                if (pk->ev[s][j] == i || hct_event_equivalent(&p->ev[pk->ev[s][j]], &p->ev[i], &p->caps))
                    BAD("set %d holds %s twice", s, p->ev[i].name);
        }
        int conflict;
        int general = general_needed(p, s, &conflict);
        if (conflict || general > p->caps.general)
            BAD("set %d needs %d general counters (the PMU has %d)%s", s, general, p->caps.general,
                conflict ? ", two events for one fixed-only counter" : "");
        /* the first grouped event of a set leads it, and is its group's leader */
        for (int k = 0; k < pk->nevents[s]; k++) {
            int g = group_of(p, pk->ev[s][k]);
            if (g < 0)
                continue;
            if (k != 0)
                BAD("set %d: its first group does not lead the perf group", s);
            break;
        }
    }
    for (int i = p->nbase; i < p->n; i++) {
        int r = p->same_as[i];
        if (r != i && !hct_event_equivalent(&p->ev[i], &p->ev[r], &p->caps))
            BAD("%s merged into %s, another event", p->ev[i].name, p->ev[r].name);
        if (!p->usable[i]) {
            if (!p->optional[i])
                BAD("non-optional %s is not usable", p->ev[i].name);
            if (p->where[i] != HCT_PACK_UNUSABLE)
                BAD("unusable %s placed", p->ev[i].name);
            continue;
        }
        if (p->where[i] < 0)
            BAD("%s not placed (%d)", p->ev[i].name, p->where[i]);
        int sets = 0;
        for (int s = 0; s < pk->nsets; s++)
            if (pos_in_set(pk, s, r) >= 0) {
                sets++;
                if (r >= p->nbase && s != p->where[i])
                    BAD("%s is counted in set %d, where says %d", p->ev[i].name, s, p->where[i]);
            }
        if (r >= p->nbase ? sets != 1 : sets != pk->nsets)
            BAD("%s is in %d sets", p->ev[i].name, sets);
    }
    for (int g = 0; g < p->ngroups; g++) {
        int set = -1, last = -1;
        for (int k = 0; k < p->gsize[g]; k++) {
            int i = p->group_mem[g][k];
            if (!p->usable[i] || p->same_as[i] < p->nbase)
                continue;
            int s = p->where[i], at = s >= 0 ? pos_in_set(pk, s, p->same_as[i]) : -1;
            if (set >= 0 && s != set)
                BAD("group %d is split over sets %d and %d", g, set, s);
            if (at <= last)
                BAD("group %d: %s out of order in set %d", g, p->ev[i].name, s);
            set = s;
            last = at;
        }
    }
    return 0;
#undef BAD
}

/* ---- hand-built events ------------------------------------------------------------- */

static hct_event raw(uint64_t config)
{
    hca_model_event e;
    memset(&e, 0, sizeof(e));
    e.name = "X";
    e.raw = 1;
    e.type = PERF_TYPE_RAW;
    e.config = config;
    hct_event ev;
    char why[64];
    assert_int_equal(hct_model_event_resolve(&e, &ev, why, sizeof(why)), HCT_EV_OK);
    return ev;
}

static hct_event named(const char *generic)
{
    hct_event ev;
    char why[64];
    assert_int_equal(hct_event_resolve(generic, &ev, why, sizeof(why)), HCT_EV_OK);
    return ev;
}

static void start(problem *p, int general, int fixed, int metrics, int base)
{
    memset(p, 0, sizeof(*p));
    p->caps.general = general;
    p->caps.fixed = fixed;
    p->caps.metrics = metrics;
    p->caps.base = base;
    if (base) {
        p->ev[p->n++] = named("instructions");
        p->ev[p->n++] = named("cycles");
        p->nbase = 2;
    }
}

static int add(problem *p, hct_event ev)
{
    p->usable[p->n] = 1;
    p->ev[p->n] = ev;
    return p->n++;
}

static void group(problem *p, const int *members, int n)
{
    for (int k = 0; k < n; k++)
        p->group_mem[p->ngroups][k] = members[k];
    p->gsize[p->ngroups++] = n;
}

static void assert_set(const problem *p, int s, const int *want, int n)
{
    if (p->pk.nevents[s] != n)
        print_error("set %d: %d events, want %d\n", s, p->pk.nevents[s], n);
    assert_int_equal(p->pk.nevents[s], n);
    for (int k = 0; k < n; k++) {
        if (p->pk.ev[s][k] != want[k])
            print_error("set %d position %d: event %d (%s), want %d\n", s, k, p->pk.ev[s][k],
                        p->ev[p->pk.ev[s][k]].name, want[k]);
        assert_int_equal(p->pk.ev[s][k], want[k]);
    }
}

/* ---- hand-computed packings ------------------------------------------------------------ */

/* 10 general events, 4 counters, no fixed, no base: 4 + 4 + 2 */
static void ten_events_four_counters(void **state)
{
    (void)state;
    problem p;
    start(&p, 4, 0, 0, 0);
    for (int i = 0; i < 10; i++)
        add(&p, raw(0x01c2 + ((uint64_t)i << 8)));
    assert_int_equal(pack(&p), 3);
    assert_int_equal(check_packing(&p, "ten events"), 0);
    assert_set(&p, 0, (const int[]){ 0, 1, 2, 3 }, 4);
    assert_set(&p, 1, (const int[]){ 4, 5, 6, 7 }, 4);
    assert_set(&p, 2, (const int[]){ 8, 9 }, 2);
    /* on an AMD-like PMU with 6 counters, instructions and cycles take 2 of them: 4 + 4 + 2 again */
    problem q;
    start(&q, 6, 0, 0, 1);
    for (int i = 0; i < 10; i++)
        add(&q, raw(0x01c2 + ((uint64_t)i << 8)));
    assert_int_equal(pack(&q), 3);
    assert_int_equal(check_packing(&q, "ten events, base"), 0);
    assert_set(&q, 2, (const int[]){ 0, 1, 10, 11 }, 4);
}

/* Sandy Bridge with SMT: 4 general counters, 3 fixed. Model order: CYC (0x3c),
 * INST (0xc0), REF (0x300, fixed 2 only), 5 general events, `cycles`,
 * task-clock (no counter). Where the kernel programs generic cycles and
 * instructions as 0x3c and 0xc0 (Intel), CYC, INST and `cycles` are the base's
 * events: G1..G4 fill set 0 with REF and task-clock, G5 goes to set 1.
 * Compared by encoding only, CYC and INST take general counters (base on fixed
 * 0 and 1): CYC INST G1 G2 | G3 G4 G5. */
static void fixed_counters(void **state)
{
    (void)state;
    problem p;
    start(&p, 4, 3, 0, 1);
    p.caps.vendor = HCT_VENDOR_INTEL;
    int cyc = add(&p, raw(0x3c)), inst = add(&p, raw(0xc0)), ref = add(&p, raw(0x300));
    int g[5];
    for (int i = 0; i < 5; i++)
        g[i] = add(&p, raw(0x01c2 + ((uint64_t)i << 8)));
    int cycles = add(&p, named("cycles")), tclk = add(&p, named("task-clock"));
    assert_int_equal(pack(&p), 2);
    assert_int_equal(check_packing(&p, "fixed, Intel"), 0);
    assert_set(&p, 0, (const int[]){ 0, 1, ref, g[0], g[1], g[2], g[3], tclk }, 8);
    assert_set(&p, 1, (const int[]){ 0, 1, g[4] }, 3);
    assert_int_equal(p.same_as[cyc], 1);
    assert_int_equal(p.same_as[inst], 0);
    assert_int_equal(p.same_as[cycles], 1);
    assert_int_equal(p.where[cycles], 0);
    /* by encoding only */
    p.caps.vendor = HCT_VENDOR_OTHER;
    assert_int_equal(pack(&p), 2);
    assert_int_equal(check_packing(&p, "fixed"), 0);
    assert_set(&p, 0, (const int[]){ 0, 1, cyc, inst, ref, g[0], g[1], tclk }, 8);
    assert_set(&p, 1, (const int[]){ 0, 1, g[2], g[3], g[4] }, 5);
    assert_int_equal(p.same_as[cycles], 1); /* identical to the base's cycles */
    /* without SMT: 8 general counters, one set */
    p.caps.general = 8;
    assert_int_equal(pack(&p), 1);
    assert_int_equal(check_packing(&p, "fixed, 8 counters"), 0);
    /* no fixed counters: 7 general + the 2 of the base = 9 > 6 */
    p.caps.general = 6;
    p.caps.fixed = 0;
    assert_int_equal(pack(&p), 2);
    assert_int_equal(check_packing(&p, "no fixed"), 0);
}

/* Arm: the cycle counter takes cycles; raw 0x11 and 0x08 are the base's events,
 * so a group of CPU_CYCLES and five more fits the six event counters with
 * instructions */
static void arm_cycle_counter(void **state)
{
    (void)state;
    problem p;
    memset(&p, 0, sizeof(p));
    hct_pmu_caps_make("arm_n2", 0, 0, 0, 1, &p.caps);
    assert_int_equal(p.caps.general, 6);
    p.ev[p.n++] = named("instructions");
    p.ev[p.n++] = named("cycles");
    p.nbase = 2;
    int members[6];
    members[0] = add(&p, raw(0x11));
    for (int i = 1; i < 6; i++)
        members[i] = add(&p, raw(0x3a + (uint64_t)i));
    int inst = add(&p, raw(0x08));
    group(&p, members, 6);
    assert_int_equal(pack(&p), 1);
    assert_int_equal(check_packing(&p, "arm"), 0);
    assert_int_equal(p.same_as[members[0]], 1);
    assert_int_equal(p.same_as[inst], 0);
    assert_set(&p, 0, (const int[]){ members[1], members[2], members[3], members[4], members[5], 0, 1 }, 7);
    int f;
    assert_int_equal(hct_event_need(&p.ev[1], &p.caps, &f), HCT_NEED_FIXED);
    assert_int_equal(hct_event_need(&p.ev[0], &p.caps, &f), HCT_NEED_GENERAL);
}

/* two REF_TSC encodings (different modifier bits) need the one fixed counter 2 */
static void fixed_only_conflict(void **state)
{
    (void)state;
    problem p;
    start(&p, 4, 3, 0, 1);
    add(&p, raw(0x0300));
    add(&p, raw(0x530300));
    assert_int_equal(pack(&p), 2);
    assert_int_equal(check_packing(&p, "fixed only"), 0);
    assert_int_equal(p.where[2], 0);
    assert_int_equal(p.where[3], 1);
}

/* Sapphire Rapids style: TOPDOWN.SLOTS (fixed 3) leads 8 metric events that use
 * no counter; the group comes first, then the base, then the rest */
static void topdown_group(void **state)
{
    (void)state;
    problem p;
    start(&p, 8, 4, 1, 1);
    int br = add(&p, raw(0xc5));
    int members[9];
    members[0] = add(&p, raw(0x400));
    for (int i = 0; i < 8; i++)
        members[1 + i] = add(&p, raw(0x8000 + ((uint64_t)i << 8)));
    group(&p, members, 9);
    assert_int_equal(pack(&p), 1);
    assert_int_equal(check_packing(&p, "topdown"), 0);
    int want[12] = { 0 };
    for (int i = 0; i < 9; i++)
        want[i] = members[i];
    want[9] = 0;
    want[10] = 1;
    want[11] = br;
    assert_set(&p, 0, want, 12);
    /* without PERF_METRICS the metric events would need 8 general counters of 8, br one more */
    p.caps.metrics = 0;
    assert_int_equal(pack(&p), 2);
    assert_int_equal(check_packing(&p, "topdown without metrics"), 0);
    assert_int_equal(p.where[members[0]], 1);
}

/* groups stay whole: three singles fill set 0 up to 3 of 4 counters, the group
 * of three goes to a new set (leader first), a later single still fits set 0;
 * a group larger than the PMU is not placed at all */
static void groups_whole(void **state)
{
    (void)state;
    problem p;
    start(&p, 4, 0, 0, 0);
    int s1 = add(&p, raw(0x1c2)), s2 = add(&p, raw(0x2c2)), s3 = add(&p, raw(0x3c2));
    int m2 = add(&p, raw(0x5c2)), lead = add(&p, raw(0x4c2)), m3 = add(&p, raw(0x6c2));
    int s4 = add(&p, raw(0x7c2));
    group(&p, (const int[]){ lead, m2, m3 }, 3);
    assert_int_equal(pack(&p), 2);
    assert_int_equal(check_packing(&p, "groups"), 0);
    assert_set(&p, 0, (const int[]){ s1, s2, s3, s4 }, 4);
    assert_set(&p, 1, (const int[]){ lead, m2, m3 }, 3);

    problem q;
    start(&q, 4, 0, 0, 0);
    int big[5];
    for (int i = 0; i < 5; i++)
        big[i] = add(&q, raw(0x1c2 + ((uint64_t)i << 8)));
    int alone = add(&q, raw(0x10d1));
    group(&q, big, 5);
    assert_int_equal(pack(&q), 1);
    for (int i = 0; i < 5; i++)
        assert_int_equal(q.where[big[i]], HCT_PACK_TOO_BIG);
    assert_int_equal(q.where[alone], 0);
}

/* identical encodings are counted once; a grouped copy is preferred */
static void merged_encodings(void **state)
{
    (void)state;
    problem p;
    start(&p, 4, 3, 0, 1);
    int a = add(&p, raw(0x1c2));
    int lead = add(&p, raw(0x2c2));
    int b = add(&p, raw(0x1c2));
    int again = add(&p, raw(0x2c2));
    group(&p, (const int[]){ lead, b }, 2);
    assert_int_equal(pack(&p), 1);
    assert_int_equal(check_packing(&p, "merged"), 0);
    assert_int_equal(p.same_as[a], b);
    assert_int_equal(p.same_as[again], lead);
    assert_set(&p, 0, (const int[]){ lead, b, 0, 1 }, 4);
    /* an unusable event is left where it is */
    p.usable[a] = 0;
    p.optional[a] = 1;
    assert_int_equal(pack(&p), 1);
    assert_int_equal(p.where[a], HCT_PACK_UNUSABLE);
    assert_int_equal(check_packing(&p, "merged, one unusable"), 0);
    /* only the base's own events: one set with instructions and cycles */
    problem q;
    start(&q, 4, 3, 0, 1);
    int c = add(&q, named("cpu-cycles"));
    assert_int_equal(pack(&q), 1);
    assert_int_equal(q.where[c], 0);
    assert_set(&q, 0, (const int[]){ 0, 1 }, 2);
}

/* more sets than the tracer keeps: the rest is left out, never overflowed */
static void no_room(void **state)
{
    (void)state;
    problem p;
    start(&p, 1, 0, 0, 0);
    for (int i = 0; i < HCT_MAX_SETS + 5; i++)
        add(&p, raw(0x10000 + (uint64_t)i));
    assert_int_equal(pack(&p), HCT_MAX_SETS);
    assert_int_equal(p.where[HCT_MAX_SETS - 1], HCT_MAX_SETS - 1);
    for (int i = HCT_MAX_SETS; i < HCT_MAX_SETS + 5; i++)
        assert_int_equal(p.where[i], HCT_PACK_NO_ROOM);
}

static void set_order(void **state)
{
    (void)state;
    int unit[] = { -1, 3, -1, 5, 3, -1 }, base[] = { 0, 0, 1, 0, 0, 1 }, order[6];
    assert_int_equal(hct_set_order(unit, base, 6, order), 4);
    int want[] = { 1, 4, 2, 5, 0, 3 };
    for (int k = 0; k < 6; k++)
        assert_int_equal(order[k], want[k]);
}

/* ---- encodings, caps, raw names ----------------------------------------------------------- */

static int need_of(hct_event ev, const hct_pmu_caps *caps, int *fixed)
{
    return hct_event_need(&ev, caps, fixed);
}

static void counter_needs(void **state)
{
    (void)state;
    hct_pmu_caps intel, amd, spr;
    hct_pmu_caps_make("skx", 8, 3, 1, 1, &intel);
    hct_pmu_caps_make("amd64_fam19h_zen4", 6, 0, 1, 1, &amd);
    hct_pmu_caps_make("spr", 16, 4, 1, 1, &spr);
    assert_int_equal(intel.general, 4); /* SMT: libpfm4's 8 is the number with HT off */
    assert_int_equal(amd.general, 6);
    assert_int_equal(spr.general, 8);
    assert_int_equal(spr.metrics, 1);
    assert_int_equal(intel.metrics, 0);
    hct_pmu_caps nosmt;
    hct_pmu_caps_make("skx", 8, 3, 0, 1, &nosmt);
    assert_int_equal(nosmt.general, 8);
    hct_pmu_caps_make("x", 0, 0, 0, 1, &nosmt);
    assert_int_equal(nosmt.general, 4);
    assert_int_equal(nosmt.fixed, 0);
    int f;
    assert_int_equal(need_of(named("instructions"), &intel, &f), HCT_NEED_FIXED);
    assert_int_equal(f, 0);
    assert_int_equal(need_of(named("cycles"), &intel, &f), HCT_NEED_FIXED);
    assert_int_equal(f, 1);
    assert_int_equal(need_of(named("ref-cycles"), &intel, &f), HCT_NEED_FIXED_ONLY);
    assert_int_equal(f, 2);
    assert_int_equal(need_of(named("cycles"), &amd, &f), HCT_NEED_GENERAL);
    assert_int_equal(need_of(named("task-clock"), &intel, &f), HCT_NEED_NONE);
    assert_int_equal(need_of(named("branch-misses"), &intel, &f), HCT_NEED_GENERAL);
    assert_int_equal(need_of(raw(0xc0), &intel, &f), HCT_NEED_FIXED);
    assert_int_equal(need_of(raw(0x18001c2), &intel, &f), HCT_NEED_GENERAL);
    assert_int_equal(need_of(raw(0x10000c0), &intel, &f), HCT_NEED_GENERAL); /* cmask: not the fixed one */
    assert_int_equal(need_of(raw(0x400), &intel, &f), HCT_NEED_GENERAL);     /* no fixed counter 3 */
    assert_int_equal(need_of(raw(0x400), &spr, &f), HCT_NEED_FIXED_ONLY);
    assert_int_equal(f, 3);
    assert_int_equal(need_of(raw(0x8300), &spr, &f), HCT_NEED_NONE);
    assert_int_equal(need_of(raw(0x8300), &intel, &f), HCT_NEED_GENERAL);
    assert_int_equal(need_of(raw(0xc0), &amd, &f), HCT_NEED_GENERAL);
}

static void smt_siblings(void **state)
{
    (void)state;
    assert_true(hct_smt_from_siblings("0-1\n"));
    assert_true(hct_smt_from_siblings("0,36\n"));
    assert_false(hct_smt_from_siblings("5\n"));
    assert_false(hct_smt_from_siblings(""));
    assert_false(hct_smt_from_siblings(NULL));
}

static void raw_names(void **state)
{
    (void)state;
    char err[256];
    hca_model *m = hca_model_parse("model r\nmatch any\n"
                                   "event A = raw(4, 0x4c2)\nevent B = raw(4, 0x1, 0x2)\nevent C = raw(1, 1)\n"
                                   "node a = A + B + C\nplot p lines a per 1\n",
                                   "r.model", err, sizeof(err));
    if (!m)
        print_error("%s\n", err);
    assert_non_null(m);
    hct_event ev;
    char why[64];
    assert_int_equal(hct_model_event_resolve(hca_model_event_at(m, 0), &ev, why, sizeof(why)), HCT_EV_OK);
    assert_string_equal(ev.name, "r4c2");
    assert_int_equal(ev.attr.type, PERF_TYPE_RAW);
    assert_int_equal(ev.attr.config, 0x4c2);
    assert_true(ev.hardware);
    assert_true(ev.attr.exclude_kernel);
    assert_non_null(strstr(ev.desc, "A = raw(4, 0x4c2"));
    assert_int_equal(hct_model_event_resolve(hca_model_event_at(m, 1), &ev, why, sizeof(why)), HCT_EV_OK);
    assert_string_equal(ev.name, "raw:4:0x1:0x2");
    assert_int_equal(ev.attr.config1, 2);
    assert_int_equal(hct_model_event_resolve(hca_model_event_at(m, 2), &ev, why, sizeof(why)), HCT_EV_OK);
    assert_string_equal(ev.name, "raw:1:0x1:0x0");
    assert_false(ev.hardware);
    assert_true(ev.unit_ns); /* PERF_COUNT_SW_TASK_CLOCK */
    hct_event tclk = named("task-clock");
    assert_true(hct_event_same(&ev, &tclk));
    hca_model_free(m);
}

/* ---- libpfm4 under a forced PMU, in child processes ------------------------------------------- */

typedef struct {
    const char *spec;
    int need, fixed;
} need_expect;

static int needs_in_child(const char *pmu, const need_expect *e, size_t n)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        setenv("LIBPFM_FORCE_PMU", pmu, 1);
        char name[64];
        int cntrs, fixed, bad = 0;
        if (hct_events_init() != 0 || hct_core_pmu(name, sizeof(name), &cntrs, &fixed) != 0 || strcmp(name, pmu)) {
            fprintf(stderr, "# %s: no such core PMU under LIBPFM_FORCE_PMU\n", pmu);
            _exit(1);
        }
        hct_pmu_caps caps;
        hct_pmu_caps_make(name, cntrs, fixed, 0, 1, &caps);
        for (size_t i = 0; i < n; i++) {
            hct_event ev;
            char why[256];
            int f = -1, need = -1;
            if (hct_event_resolve(e[i].spec, &ev, why, sizeof(why)) == HCT_EV_OK)
                need = hct_event_need(&ev, &caps, &f);
            if (need != e[i].need || (need >= HCT_NEED_FIXED && f != e[i].fixed)) {
                fprintf(stderr, "# %s: %s needs %d (fixed %d), want %d (fixed %d)\n", pmu, e[i].spec, need, f,
                        e[i].need, e[i].fixed);
                bad = 1;
            }
        }
        _exit(bad);
    }
    int st = 0;
    if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
        return -1;
    return WEXITSTATUS(st);
}

/* the fixed-counter encodings are libpfm4's own */
static void fixed_encodings_of_libpfm4(void **state)
{
    (void)state;
    NEEDS_X86_PFM_TABLES();
    static const need_expect spr[] = {
        { "INSTRUCTION_RETIRED", HCT_NEED_FIXED, 0 },
        { "UNHALTED_CORE_CYCLES", HCT_NEED_FIXED, 1 },
        { "UNHALTED_REFERENCE_CYCLES", HCT_NEED_FIXED_ONLY, 2 },
        { "TOPDOWN:SLOTS", HCT_NEED_FIXED_ONLY, 3 },
        { "INST_RETIRED:ANY_P", HCT_NEED_FIXED, 0 },
        { "INT_MISC:UOP_DROPPING", HCT_NEED_GENERAL, -1 },
    };
    static const need_expect snb[] = {
        { "INSTRUCTION_RETIRED", HCT_NEED_FIXED, 0 },
        { "UNHALTED_CORE_CYCLES", HCT_NEED_FIXED, 1 },
        { "UNHALTED_REFERENCE_CYCLES", HCT_NEED_FIXED_ONLY, 2 },
        { "UOPS_RETIRED:STALL_CYCLES", HCT_NEED_GENERAL, -1 },
        { "task-clock", HCT_NEED_NONE, -1 },
    };
    static const need_expect zen4[] = {
        { "RETIRED_INSTRUCTIONS", HCT_NEED_GENERAL, -1 },
        { "CYCLES_NOT_IN_HALT", HCT_NEED_GENERAL, -1 },
        { "instructions", HCT_NEED_GENERAL, -1 },
    };
    assert_int_equal(needs_in_child("spr", spr, sizeof(spr) / sizeof(spr[0])), 0);
    assert_int_equal(needs_in_child("snb", snb, sizeof(snb) / sizeof(snb[0])), 0);
    assert_int_equal(needs_in_child("amd64_fam19h_zen4", zen4, sizeof(zen4) / sizeof(zen4[0])), 0);
}

/* A model (a file, or the text of one when is_text) packed under a forced PMU,
 * in a child: the exit status is the number of sets, or 100 + something when a
 * promise is broken. */
static int pack_model_in_child(const char *source, int is_text, const char *pmu, int smt)
{
    const char *file = is_text ? "text" : source;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        setenv("LIBPFM_FORCE_PMU", pmu, 1);
        char err[512], name[64];
        int cntrs, fixed;
        hca_model *m = is_text ? hca_model_parse(source, "t.model", err, sizeof(err))
                               : hca_model_load(source, err, sizeof(err));
        if (!m) {
            fprintf(stderr, "# %s\n", err);
            _exit(101);
        }
        static problem p;
        memset(&p, 0, sizeof(p));
        hct_events_init();
        if (hct_core_pmu(name, sizeof(name), &cntrs, &fixed) == 0 && strcmp(name, pmu) == 0) {
            hct_pmu_caps_make(name, cntrs, fixed, smt, 1, &p.caps);
        } else if (strncmp(pmu, "arm_", 4) == 0) {
            /* libpfm4's x86 build has no Arm tables: the Arm PMU by its name (raw events only) */
            hct_pmu_caps_make(pmu, 0, 0, smt, 1, &p.caps);
        } else {
            fprintf(stderr, "# %s: no such core PMU under LIBPFM_FORCE_PMU\n", pmu);
            _exit(102);
        }
        p.ev[0] = named("instructions");
        p.ev[1] = named("cycles");
        p.usable[0] = p.usable[1] = 1;
        p.nbase = p.n = 2;
        size_t ne = hca_model_nevents(m);
        if (ne + 2 > MAXN || hca_model_ngroups(m) > MAXG)
            _exit(103);
        for (size_t i = 0; i < ne; i++) {
            const hca_model_event *e = hca_model_event_at(m, i);
            char why[256];
            p.usable[p.n] = hct_model_event_resolve(e, &p.ev[p.n], why, sizeof(why)) == HCT_EV_OK;
            p.optional[p.n] = e->optional;
            if (!p.usable[p.n] && !e->optional)
                fprintf(stderr, "# %s under %s: %s = %s does not resolve (%s)\n", file, pmu, e->name,
                        e->spec ? e->spec : "raw", why);
            p.n++;
        }
        int slots_group = -1;
        for (size_t g = 0; g < hca_model_ngroups(m); g++) {
            size_t gn;
            const size_t *mem = hca_model_group_at(m, g, &gn);
            for (size_t k = 0; k < gn && k < MAXN; k++)
                p.group_mem[g][k] = 2 + (int)mem[k];
            p.gsize[g] = (int)gn;
            const hca_model_event *lead = hca_model_event_at(m, mem[0]);
            if (lead->spec && strcmp(lead->spec, "TOPDOWN:SLOTS") == 0)
                slots_group = (int)g;
        }
        p.ngroups = (int)hca_model_ngroups(m);
        char what[512];
        snprintf(what, sizeof(what), "%s under %s, smt %d", file, pmu, smt);
        int nsets = pack(&p);
        if (check_packing(&p, what) != 0)
            _exit(104);
        if (nsets + HCT_MAX_SPEC_SETS > HCT_MAX_SETS) {
            fprintf(stderr, "# %s: %d sets leave no room for HCATRACE_COUNTERS' %d\n", what, nsets, HCT_MAX_SPEC_SETS);
            _exit(105);
        }
        if (slots_group >= 0) { /* the whole topdown group in one set, led by TOPDOWN.SLOTS */
            int lead = p.group_mem[slots_group][0], s = p.where[lead];
            if (s < 0 || p.pk.ev[s][0] != lead) {
                fprintf(stderr, "# %s: TOPDOWN.SLOTS does not lead a set\n", what);
                _exit(106);
            }
            for (int k = 0; k < p.gsize[slots_group]; k++)
                if (p.where[p.group_mem[slots_group][k]] != s)
                    _exit(107);
        }
        hca_model_free(m);
        _exit(nsets);
    }
    int st = 0;
    if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
        return -1;
    return WEXITSTATUS(st);
}

/* every shipped model under every PMU it names; portable ones under several */
static void shipped_models(void **state)
{
    (void)state;
    NEEDS_X86_PFM_TABLES();
    static const char *const portable[] = { "snb", "skx", "spr", "amd64_fam19h_zen4" };
    char names[64][256];
    size_t n = list_models(names, 64);
    assert_true(n >= 1);
    int checked = 0, spr_checked = 0;
    for (size_t i = 0; i < n; i++) {
        char err[512];
        hca_model *m = hca_model_load(names[i], err, sizeof(err));
        if (!m)
            print_error("%s\n", err);
        assert_non_null(m);
        char pmus[512] = "";
        if (strncmp(hca_model_match(m), "pmu=", 4) == 0)
            snprintf(pmus, sizeof(pmus), "%s", hca_model_match(m) + 4);
        else
            for (size_t k = 0; k < sizeof(portable) / sizeof(portable[0]); k++)
                snprintf(pmus + strlen(pmus), sizeof(pmus) - strlen(pmus), "%s%s", k ? "," : "", portable[k]);
        int has_slots = 0;
        for (size_t g = 0; g < hca_model_ngroups(m); g++) {
            size_t gn;
            const size_t *mem = hca_model_group_at(m, g, &gn);
            const char *spec = hca_model_event_at(m, mem[0])->spec;
            has_slots |= spec && strcmp(spec, "TOPDOWN:SLOTS") == 0;
        }
        hca_model_free(m);
        char *save = NULL;
        for (char *pmu = strtok_r(pmus, ",", &save); pmu; pmu = strtok_r(NULL, ",", &save)) {
            int sets[2];
            for (int smt = 0; smt < 2; smt++) {
                sets[smt] = pack_model_in_child(names[i], 0, pmu, smt);
                if (sets[smt] < 1 || sets[smt] > HCT_MAX_SETS)
                    print_error("%s under %s (smt %d): status %d\n", names[i], pmu, smt, sets[smt]);
                assert_in_range(sets[smt], 1, HCT_MAX_SETS);
            }
            assert_true(sets[1] >= sets[0]); /* fewer counters never need fewer sets */
            printf("# model-sets: %-28s %-18s %2d sets (SMT off) %2d sets (SMT on)\n", names[i], pmu, sets[0], sets[1]);
            checked++;
            spr_checked += has_slots && strcmp(pmu, "spr") == 0;
        }
    }
    assert_true(checked >= 8);
    assert_true(spr_checked >= 1); /* tma-spr's topdown group was packed whole under spr */
}

/* hand-computed: a Sandy Bridge model packed under the forced snb PMU */
static void forced_pmu_counts(void **state)
{
    (void)state;
    NEEDS_X86_PFM_TABLES();
    static const char *const text =
        "model t\nmatch pmu=snb\n"
        "event CYC = UNHALTED_CORE_CYCLES\nevent INST = INSTRUCTION_RETIRED\nevent REF = UNHALTED_REFERENCE_CYCLES\n"
        "event G1 = UOPS_RETIRED:STALL_CYCLES\nevent G2 = BR_MISP_RETIRED:ALL_BRANCHES\nevent G3 = UOPS_ISSUED:ANY\n"
        "event G4 = L2_RQSTS:ALL_DEMAND_DATA_RD\nevent G5 = RESOURCE_STALLS:SB\nevent C = cycles\n"
        "event T = task-clock\n"
        "node c = CYC + INST + REF + G1 + G2 + G3 + G4 + G5 + C + T\nplot p lines c per 1\n";
    /* SMT: 4 general; CYC, INST, C are the base's; G1..G4 | G5 (REF on fixed 2, T free) */
    assert_int_equal(pack_model_in_child(text, 1, "snb", 1), 2);
    /* 8 general: one set */
    assert_int_equal(pack_model_in_child(text, 1, "snb", 0), 1);
    /* Zen 4: 6 counters, no fixed ones; instructions and cycles take 2; E0, E1
     * and E8 are the base's (0xc0 and 0x76 are how the kernel counts them) */
    static const char *const amd =
        "model a\nmatch pmu=amd64_fam19h_zen4\n"
        "event E0 = RETIRED_INSTRUCTIONS\nevent E1 = CYCLES_NOT_IN_HALT\nevent E2 = RETIRED_OPS\n"
        "event E3 = RETIRED_BRANCH_INSTRUCTIONS_MISPREDICTED\nevent E4 = RESYNCS\nevent E5 = RETIRED_UCODE_OPS\n"
        "event E6 = LS_DISPATCH:LD_DISPATCH\nevent E7 = DISPATCH_STALLS_1:FE_NO_OPS\nevent E8 = instructions\n"
        "node n = E0 + E1 + E2 + E3 + E4 + E5 + E6 + E7 + E8\nplot p lines n per 1\n";
    /* 6 general events, 4 per set: 2 sets, SMT or not */
    assert_int_equal(pack_model_in_child(amd, 1, "amd64_fam19h_zen4", 1), 2);
    assert_int_equal(pack_model_in_child(amd, 1, "amd64_fam19h_zen4", 0), 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ten_events_four_counters),
        cmocka_unit_test(fixed_counters),
        cmocka_unit_test(arm_cycle_counter),
        cmocka_unit_test(fixed_only_conflict),
        cmocka_unit_test(topdown_group),
        cmocka_unit_test(groups_whole),
        cmocka_unit_test(merged_encodings),
        cmocka_unit_test(no_room),
        cmocka_unit_test(set_order),
        cmocka_unit_test(counter_needs),
        cmocka_unit_test(smt_siblings),
        cmocka_unit_test(raw_names),
        cmocka_unit_test(fixed_encodings_of_libpfm4),
        cmocka_unit_test(forced_pmu_counts),
        cmocka_unit_test(shipped_models),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
