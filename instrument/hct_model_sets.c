/* hct_model_sets.c: packing a model's events into counter sets (see
 * hct_model_sets.h). A set's cost is counted the way the kernel schedules a
 * perf group on x86: general events take a general counter each; an event
 * with an Intel fixed counter takes it when no fixed-only event claims it and
 * no other event has it, else a general counter; fixed-only events need their
 * own fixed counter; software and topdown metric events take none. */
#include "hct_model_sets.h"

#include <perfmon/pfmlib.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define MAX_FIXED 8

void hct_pmu_caps_unknown(int base, hct_pmu_caps *caps)
{
    memset(caps, 0, sizeof(*caps));
    caps->general = 4;
    caps->base = base;
}

void hct_pmu_caps_make(const char *pmu, int num_cntrs, int num_fixed, int smt, int base, hct_pmu_caps *caps)
{
    const char *name = pmu ? pmu : "";
    if (strncmp(name, "arm_", 4) == 0) {
        memset(caps, 0, sizeof(*caps));
        caps->vendor = HCT_VENDOR_ARM;
        caps->general = num_cntrs > 0 ? num_cntrs : 6; /* Neoverse: 6 event counters */
        caps->fixed = 2;                                /* index 1: the cycle counter */
        caps->base = base;
        return;
    }
    if (num_cntrs <= 0) {
        hct_pmu_caps_unknown(base, caps);
        return;
    }
    memset(caps, 0, sizeof(*caps));
    int intel = num_fixed > 0 && strncmp(name, "amd64", 5) != 0;
    caps->vendor = intel ? HCT_VENDOR_INTEL : strncmp(name, "amd64", 5) == 0 ? HCT_VENDOR_AMD : HCT_VENDOR_OTHER;
    caps->general = num_cntrs;
    if (intel && smt && num_cntrs >= 8)
        caps->general = num_cntrs / 2; /* libpfm4 reports the number with Hyper-Threading off */
    caps->fixed = num_fixed < 0 ? 0 : num_fixed > MAX_FIXED ? MAX_FIXED : num_fixed;
    caps->metrics = intel && num_fixed >= 4; /* TOPDOWN.SLOTS in fixed counter 3: PERF_METRICS */
    caps->base = base;
}

int hct_core_pmu(char *name, size_t namelen, int *num_cntrs, int *num_fixed)
{
    pfm_pmu_info_t pi;
    if (hct_events_core_pmu(&pi) != 0)
        return -1;
    snprintf(name, namelen, "%s", pi.name ? pi.name : "?");
    *num_cntrs = pi.num_cntrs;
    *num_fixed = pi.num_fixed_cntrs;
    return 0;
}

int hct_smt_from_siblings(const char *list)
{
    return list && strpbrk(list, ",-") != NULL;
}

int hct_cpu_has_smt(void)
{
    FILE *f = fopen("/sys/devices/system/cpu/cpu0/topology/thread_siblings_list", "r");
    if (!f)
        return 0;
    char line[256] = "";
    if (!fgets(line, sizeof(line), f))
        line[0] = 0;
    fclose(f);
    return hct_smt_from_siblings(line);
}

int hct_event_need(const hct_event *ev, const hct_pmu_caps *caps, int *fixed)
{
    const struct perf_event_attr *a = &ev->attr;
    int k = -1, only = 0;
    *fixed = -1;
    if (a->type == PERF_TYPE_SOFTWARE)
        return HCT_NEED_NONE;
    if (caps->vendor == HCT_VENDOR_ARM) {
        int cyc = (a->type == PERF_TYPE_HARDWARE && a->config == PERF_COUNT_HW_CPU_CYCLES) ||
                  (a->type == PERF_TYPE_RAW && a->config == 0x11); /* CPU_CYCLES */
        if (cyc && caps->fixed > 1) {
            *fixed = 1;
            return HCT_NEED_FIXED;
        }
        return HCT_NEED_GENERAL;
    }
    if (a->type == PERF_TYPE_HARDWARE) {
        if (a->config == PERF_COUNT_HW_INSTRUCTIONS)
            k = 0;
        else if (a->config == PERF_COUNT_HW_CPU_CYCLES)
            k = 1;
        else if (a->config == PERF_COUNT_HW_REF_CPU_CYCLES)
            k = 2, only = 1;
    } else if (a->type == PERF_TYPE_RAW) {
        /* event select and unit mask only: USR, OS, INT, EN (bits 16, 17, 20,
         * 22) allowed; edge, any, inv, cmask and the rest make a general event */
        const uint64_t plain = 0xffffULL | (0x53ULL << 16);
        uint64_t c = a->config;
        if ((c & ~plain) == 0) {
            uint64_t code = c & 0xffff;
            if (caps->metrics && (code & 0xff) == 0 && code >= 0x8000 && code <= 0x8700)
                return HCT_NEED_NONE; /* topdown-retiring ... topdown-mem-bound */
            switch (code) {
            case 0x00c0: k = 0; break;           /* INST_RETIRED.ANY */
            case 0x003c: k = 1; break;           /* CPU_CLK_UNHALTED.THREAD */
            case 0x0100: k = 0, only = 1; break; /* INST_RETIRED.ANY, fixed-counter pseudo encoding */
            case 0x0300: k = 2, only = 1; break; /* CPU_CLK_UNHALTED.REF_TSC */
            case 0x0400: k = 3, only = 1; break; /* TOPDOWN.SLOTS */
            default: break;
            }
        }
    }
    if (k >= 0 && k < caps->fixed) {
        *fixed = k;
        return only ? HCT_NEED_FIXED_ONLY : HCT_NEED_FIXED;
    }
    return HCT_NEED_GENERAL;
}

int hct_event_same(const hct_event *a, const hct_event *b)
{
    const struct perf_event_attr *x = &a->attr, *y = &b->attr;
    return x->type == y->type && x->config == y->config && x->config1 == y->config1 && x->config2 == y->config2 &&
           x->exclude_user == y->exclude_user && x->exclude_kernel == y->exclude_kernel &&
           x->exclude_hv == y->exclude_hv;
}

/* the raw config the kernel programs for generic cycles or instructions */
static int generic_as_raw(const hct_event *hw, const hct_pmu_caps *caps, uint64_t *config)
{
    static const uint64_t codes[][2] = {
        [HCT_VENDOR_INTEL] = { 0x3c, 0xc0 }, [HCT_VENDOR_AMD] = { 0x76, 0xc0 }, [HCT_VENDOR_ARM] = { 0x11, 0x08 },
    };
    const struct perf_event_attr *a = &hw->attr;
    if (a->type != PERF_TYPE_HARDWARE || caps->vendor <= HCT_VENDOR_OTHER || caps->vendor > HCT_VENDOR_ARM)
        return 0;
    if (a->config == PERF_COUNT_HW_CPU_CYCLES)
        *config = codes[caps->vendor][0];
    else if (a->config == PERF_COUNT_HW_INSTRUCTIONS)
        *config = codes[caps->vendor][1];
    else
        return 0;
    return 1;
}

int hct_event_equivalent(const hct_event *a, const hct_event *b, const hct_pmu_caps *caps)
{
    if (hct_event_same(a, b))
        return 1;
    const struct perf_event_attr *x = &a->attr, *y = &b->attr;
    if (x->exclude_user != y->exclude_user || x->exclude_kernel != y->exclude_kernel || x->exclude_hv != y->exclude_hv)
        return 0;
    uint64_t config;
    if (x->type == PERF_TYPE_RAW)
        return generic_as_raw(b, caps, &config) && x->config == config && !x->config1 && !x->config2;
    if (y->type == PERF_TYPE_RAW)
        return generic_as_raw(a, caps, &config) && y->config == config && !y->config1 && !y->config2;
    return 0;
}

int hct_model_event_resolve(const hca_model_event *e, hct_event *ev, char *why, size_t whylen)
{
    if (!e->raw)
        return hct_event_resolve(e->spec ? e->spec : "", ev, why, whylen);
    if (why && whylen)
        why[0] = 0;
    memset(ev, 0, sizeof(*ev));
    if (e->type == PERF_TYPE_RAW && e->config1 == 0)
        snprintf(ev->name, sizeof(ev->name), "r%llx", (unsigned long long)e->config);
    else
        snprintf(ev->name, sizeof(ev->name), "raw:%u:0x%llx:0x%llx", (unsigned)e->type,
                 (unsigned long long)e->config, (unsigned long long)e->config1);
    ev->attr.size = sizeof(ev->attr);
    ev->attr.type = e->type;
    ev->attr.config = e->config;
    ev->attr.config1 = e->config1;
    ev->attr.exclude_kernel = 1;
    ev->attr.exclude_hv = 1;
    ev->hardware = e->type != PERF_TYPE_SOFTWARE;
    ev->unit_ns = e->type == PERF_TYPE_SOFTWARE &&
                  (e->config == PERF_COUNT_SW_TASK_CLOCK || e->config == PERF_COUNT_SW_CPU_CLOCK);
    snprintf(ev->desc, sizeof(ev->desc), "model event %s = raw(%u, 0x%llx, 0x%llx) (perf type %u config 0x%llx "
             "config1 0x%llx, user space)", e->name ? e->name : "?", (unsigned)e->type,
             (unsigned long long)e->config, (unsigned long long)e->config1, (unsigned)e->type,
             (unsigned long long)e->config, (unsigned long long)e->config1);
    return HCT_EV_OK;
}

/* ---- packing -------------------------------------------------------------------- */

typedef struct {
    int nev;                  /* events in the set, base included */
    int general;              /* events that need a general counter */
    int elig[MAX_FIXED];      /* events that may use fixed counter k */
    int only[MAX_FIXED];      /* events that must use fixed counter k */
    int n;                    /* placed events (base excluded) */
    int idx[HCT_MAX_SET_EVENTS];
} set_state;

static void add_event(set_state *s, const hct_event *ev, const hct_pmu_caps *caps)
{
    int k;
    int need = hct_event_need(ev, caps, &k);
    s->nev++;
    if (need == HCT_NEED_GENERAL)
        s->general++;
    else if (need == HCT_NEED_FIXED)
        s->elig[k]++;
    else if (need == HCT_NEED_FIXED_ONLY)
        s->only[k]++;
}

static int feasible(const set_state *s, const hct_pmu_caps *caps)
{
    if (s->nev > HCT_MAX_SET_EVENTS)
        return 0;
    int general = s->general;
    for (int k = 0; k < caps->fixed && k < MAX_FIXED; k++) {
        if (s->only[k] > 1)
            return 0;
        int on_fixed = s->only[k] ? 0 : (s->elig[k] > 0);
        general += s->elig[k] - on_fixed;
    }
    return general <= caps->general;
}

static int group_of(int i, const int *const *groups, const int *gsize, int ngroups)
{
    for (int g = 0; g < ngroups; g++)
        for (int k = 0; k < gsize[g]; k++)
            if (groups[g][k] == i)
                return g;
    return -1;
}

/* adds the unit to s when it fits; returns 1 if it did */
static int try_place(set_state *s, const int *unit, int nunit, const hct_event *ev, const hct_pmu_caps *caps)
{
    set_state t = *s;
    for (int k = 0; k < nunit; k++) {
        if (t.n >= HCT_MAX_SET_EVENTS)
            return 0;
        add_event(&t, &ev[unit[k]], caps);
        t.idx[t.n++] = unit[k];
    }
    if (!feasible(&t, caps))
        return 0;
    *s = t;
    return 1;
}

static void fresh_set(set_state *s, const hct_event *ev, int nbase, const hct_pmu_caps *caps)
{
    memset(s, 0, sizeof(*s));
    for (int b = 0; b < nbase; b++)
        add_event(s, &ev[b], caps);
}

int hct_set_order(const int *unit, const int *base, int n, int *order)
{
    int first = -1, m = 0;
    for (int k = 0; k < n && first < 0; k++)
        if (unit[k] >= 0)
            first = unit[k];
    for (int k = 0; k < n; k++)
        if (first >= 0 && unit[k] == first)
            order[m++] = k;
    for (int k = 0; k < n; k++)
        if (base[k] && !(first >= 0 && unit[k] == first))
            order[m++] = k;
    int prefix = m;
    for (int k = 0; k < n; k++)
        if (!base[k] && !(first >= 0 && unit[k] == first))
            order[m++] = k;
    return prefix;
}

int hct_model_pack(const hct_event *ev, const int *usable, int n, int nbase, const int *const *groups,
                   const int *gsize, int ngroups, const hct_pmu_caps *caps, int *same_as, int *where,
                   hct_packing *out)
{
    enum { PENDING = -100 };
    set_state st[HCT_MAX_SETS];
    memset(out, 0, sizeof(*out));
    int nsets = 0;
    /* the same event twice: the first one counts for all */
    for (int i = 0; i < n; i++) {
        same_as[i] = i;
        where[i] = (i < nbase || usable[i]) ? PENDING : HCT_PACK_UNUSABLE;
        for (int j = 0; j < i && where[i] == PENDING; j++)
            if (where[j] != HCT_PACK_UNUSABLE && same_as[j] == j && hct_event_equivalent(&ev[i], &ev[j], caps)) {
                same_as[i] = j;
                break;
            }
    }
    /* ... unless a later one is in a group and the first is not: the group stays whole */
    for (int g = 0; g < ngroups; g++)
        for (int k = 0; k < gsize[g]; k++) {
            int i = groups[g][k];
            if (i < 0 || i >= n || where[i] == HCT_PACK_UNUSABLE)
                continue;
            int r = same_as[i];
            if (r == i || r < nbase || group_of(r, groups, gsize, ngroups) >= 0)
                continue;
            for (int j = 0; j < n; j++)
                if (same_as[j] == r)
                    same_as[j] = i;
        }
    /* units in model order: a group (its counted members, leader first) or one event */
    int merged_into_base = 0;
    for (int i = nbase; i < n; i++) {
        if (where[i] != PENDING)
            continue;
        if (same_as[i] != i) {
            merged_into_base |= same_as[i] < nbase;
            continue;
        }
        int unit[HCT_MAX_SET_EVENTS + 1], nunit = 0, too_big = 0;
        int g = group_of(i, groups, gsize, ngroups);
        if (g < 0) {
            unit[nunit++] = i;
        } else {
            for (int k = 0; k < gsize[g]; k++) {
                int j = groups[g][k];
                if (j < 0 || j >= n || where[j] != PENDING || same_as[j] != j)
                    continue;
                if (nunit < HCT_MAX_SET_EVENTS)
                    unit[nunit++] = j;
                else
                    too_big = 1;
            }
        }
        int placed = -1;
        for (int s = 0; s < nsets && placed < 0 && !too_big; s++)
            if (try_place(&st[s], unit, nunit, ev, caps))
                placed = s;
        if (placed < 0 && !too_big) {
            set_state fresh;
            fresh_set(&fresh, ev, nbase, caps);
            if (!try_place(&fresh, unit, nunit, ev, caps)) {
                too_big = 1;
            } else if (nsets < HCT_MAX_SETS) {
                st[nsets] = fresh;
                placed = nsets++;
            }
        }
        int result = placed >= 0 ? placed : too_big ? HCT_PACK_TOO_BIG : HCT_PACK_NO_ROOM;
        for (int k = 0; k < nunit; k++)
            where[unit[k]] = result;
        if (g >= 0 && too_big) /* members beyond the set size too */
            for (int k = 0; k < gsize[g]; k++) {
                int j = groups[g][k];
                if (j >= 0 && j < n && where[j] == PENDING && same_as[j] == j)
                    where[j] = HCT_PACK_TOO_BIG;
            }
    }
    if (nsets == 0 && merged_into_base && nbase > 0) /* only instructions or cycles: counted by the base */
        fresh_set(&st[nsets++], ev, nbase, caps);
    for (int b = 0; b < nbase; b++)
        where[b] = nsets > 0 ? 0 : HCT_PACK_UNUSABLE;
    for (int i = nbase; i < n; i++)
        if (where[i] == PENDING)
            where[i] = where[same_as[i]];
    /* each set in perf group order */
    for (int s = 0; s < nsets; s++) {
        int idx[HCT_MAX_SET_EVENTS], unit[HCT_MAX_SET_EVENTS], base[HCT_MAX_SET_EVENTS], order[HCT_MAX_SET_EVENTS];
        int m = 0;
        for (int b = 0; b < nbase && m < HCT_MAX_SET_EVENTS; b++, m++) {
            idx[m] = b;
            unit[m] = -1;
            base[m] = 1;
        }
        for (int k = 0; k < st[s].n && m < HCT_MAX_SET_EVENTS; k++, m++) {
            idx[m] = st[s].idx[k];
            unit[m] = group_of(idx[m], groups, gsize, ngroups);
            base[m] = 0;
        }
        hct_set_order(unit, base, m, order);
        for (int k = 0; k < m; k++)
            out->ev[s][k] = idx[order[k]];
        out->nevents[s] = m;
    }
    out->nsets = nsets;
    return nsets;
}
