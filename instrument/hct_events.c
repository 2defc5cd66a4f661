/* hct_events.c: counter event names -> perf_event_attr (see hct_events.h).
 * Generic perf events come from a table of their own, so they keep one
 * canonical name whatever the spelling (cycles, CPU-CYCLES, PAPI_TOT_CYC) and
 * work when libpfm4 is forced to one PMU; everything else goes through
 * hct_pfm.get_os_event_encoding(PFM_OS_PERF_EVENT_EXT). */
#include "hct_events.h"

#include "hca_names.h"

#include <perfmon/pfmlib_perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "hct_config.h"
#include "hct_pfm.h"

#define CACHE(id, op, result) ((uint64_t)(id) | ((uint64_t)(op) << 8) | ((uint64_t)(result) << 16))

/* Generic events, first name canonical. */
static const struct generic {
    const char *name, *alias1, *alias2;
    uint64_t config;
    uint32_t type;
    int unit_ns;
} generic[] = {
    { "cycles", "cpu-cycles", NULL, PERF_COUNT_HW_CPU_CYCLES, PERF_TYPE_HARDWARE, 0 },
    { "instructions", NULL, NULL, PERF_COUNT_HW_INSTRUCTIONS, PERF_TYPE_HARDWARE, 0 },
    { "cache-references", NULL, NULL, PERF_COUNT_HW_CACHE_REFERENCES, PERF_TYPE_HARDWARE, 0 },
    { "cache-misses", NULL, NULL, PERF_COUNT_HW_CACHE_MISSES, PERF_TYPE_HARDWARE, 0 },
    { "branch-instructions", "branches", NULL, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, PERF_TYPE_HARDWARE, 0 },
    { "branch-misses", NULL, NULL, PERF_COUNT_HW_BRANCH_MISSES, PERF_TYPE_HARDWARE, 0 },
    { "bus-cycles", NULL, NULL, PERF_COUNT_HW_BUS_CYCLES, PERF_TYPE_HARDWARE, 0 },
    { "stalled-cycles-frontend", "idle-cycles-frontend", NULL,
      PERF_COUNT_HW_STALLED_CYCLES_FRONTEND, PERF_TYPE_HARDWARE, 0 },
    { "stalled-cycles-backend", "idle-cycles-backend", NULL,
      PERF_COUNT_HW_STALLED_CYCLES_BACKEND, PERF_TYPE_HARDWARE, 0 },
    { "ref-cycles", NULL, NULL, PERF_COUNT_HW_REF_CPU_CYCLES, PERF_TYPE_HARDWARE, 0 },
    { "L1-dcache-loads", NULL, NULL,
      CACHE(PERF_COUNT_HW_CACHE_L1D, PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_ACCESS),
      PERF_TYPE_HW_CACHE, 0 },
    { "L1-dcache-load-misses", NULL, NULL,
      CACHE(PERF_COUNT_HW_CACHE_L1D, PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_MISS),
      PERF_TYPE_HW_CACHE, 0 },
    { "L1-icache-load-misses", NULL, NULL,
      CACHE(PERF_COUNT_HW_CACHE_L1I, PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_MISS),
      PERF_TYPE_HW_CACHE, 0 },
    { "LLC-loads", NULL, NULL,
      CACHE(PERF_COUNT_HW_CACHE_LL, PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_ACCESS),
      PERF_TYPE_HW_CACHE, 0 },
    { "LLC-load-misses", NULL, NULL,
      CACHE(PERF_COUNT_HW_CACHE_LL, PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_MISS),
      PERF_TYPE_HW_CACHE, 0 },
    { "dTLB-load-misses", NULL, NULL,
      CACHE(PERF_COUNT_HW_CACHE_DTLB, PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_MISS),
      PERF_TYPE_HW_CACHE, 0 },
    { "iTLB-load-misses", NULL, NULL,
      CACHE(PERF_COUNT_HW_CACHE_ITLB, PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_MISS),
      PERF_TYPE_HW_CACHE, 0 },
    { "cpu-clock", NULL, NULL, PERF_COUNT_SW_CPU_CLOCK, PERF_TYPE_SOFTWARE, 1 },
    { "task-clock", NULL, NULL, PERF_COUNT_SW_TASK_CLOCK, PERF_TYPE_SOFTWARE, 1 },
    { "page-faults", "faults", NULL, PERF_COUNT_SW_PAGE_FAULTS, PERF_TYPE_SOFTWARE, 0 },
    { "minor-faults", NULL, NULL, PERF_COUNT_SW_PAGE_FAULTS_MIN, PERF_TYPE_SOFTWARE, 0 },
    { "major-faults", NULL, NULL, PERF_COUNT_SW_PAGE_FAULTS_MAJ, PERF_TYPE_SOFTWARE, 0 },
    { "context-switches", "cs", NULL, PERF_COUNT_SW_CONTEXT_SWITCHES, PERF_TYPE_SOFTWARE, 0 },
    { "cpu-migrations", "migrations", NULL, PERF_COUNT_SW_CPU_MIGRATIONS, PERF_TYPE_SOFTWARE, 0 },
    { "alignment-faults", NULL, NULL, PERF_COUNT_SW_ALIGNMENT_FAULTS, PERF_TYPE_SOFTWARE, 0 },
    { "emulation-faults", NULL, NULL, PERF_COUNT_SW_EMULATION_FAULTS, PERF_TYPE_SOFTWARE, 0 },
};

/* PAPI presets with an equivalent generic event (docs/configuration.md says
 * where the equivalence is approximate). */
static const struct {
    const char *papi, *generic;
} papi[] = {
    { "PAPI_TOT_INS", "instructions" },       { "PAPI_TOT_CYC", "cycles" },
    { "PAPI_REF_CYC", "ref-cycles" },          { "PAPI_BR_INS", "branch-instructions" },
    { "PAPI_BR_MSP", "branch-misses" },        { "PAPI_L1_DCM", "L1-dcache-load-misses" },
    { "PAPI_L1_LDM", "L1-dcache-load-misses" }, { "PAPI_L1_ICM", "L1-icache-load-misses" },
    { "PAPI_L3_LDM", "LLC-load-misses" },      { "PAPI_TLB_DM", "dTLB-load-misses" },
    { "PAPI_TLB_IM", "iTLB-load-misses" },
};

static int pfm_state; /* 0 not tried, 1 usable, -1 unusable */

int hct_events_init(void)
{
    if (pfm_state == 0)
        pfm_state = hct_pfm_load() == 0 ? 1 : -1;
    return pfm_state > 0 ? 0 : -1;
}

void hct_events_release(void)
{
    hct_pfm_unload();
    pfm_state = 0;
}

static void copy(char *dst, size_t n, const char *src)
{
    snprintf(dst, n, "%s", src);
}

int hct_events_core_pmu(pfm_pmu_info_t *pi)
{
    if (hct_events_init() != 0)
        return -1;
    for (int p = 0; p < PFM_PMU_MAX; p++) {
        memset(pi, 0, sizeof(*pi));
        pi->size = sizeof(*pi);
        if (hct_pfm.get_pmu_info((pfm_pmu_t)p, pi) == PFM_SUCCESS && pi->is_present && pi->type == PFM_PMU_TYPE_CORE)
            return 0;
    }
    return -1;
}

static int from_generic(const char *name, const char *asked, hct_event *ev)
{
    for (size_t i = 0; i < sizeof(generic) / sizeof(generic[0]); i++) {
        const struct generic *g = &generic[i];
        if (strcasecmp(name, g->name) != 0 && !(g->alias1 && strcasecmp(name, g->alias1) == 0) &&
            !(g->alias2 && strcasecmp(name, g->alias2) == 0))
            continue;
        memset(ev, 0, sizeof(*ev));
        copy(ev->name, sizeof(ev->name), g->name);
        ev->attr.size = sizeof(ev->attr);
        ev->attr.type = g->type;
        ev->attr.config = g->config;
        /* context switches and migrations happen in the kernel: counted in
         * user space only, they always read 0 */
        int in_kernel = g->type == PERF_TYPE_SOFTWARE &&
                        (g->config == PERF_COUNT_SW_CONTEXT_SWITCHES || g->config == PERF_COUNT_SW_CPU_MIGRATIONS);
        ev->attr.exclude_kernel = !in_kernel;
        ev->attr.exclude_hv = 1;
        ev->hardware = g->type != PERF_TYPE_SOFTWARE;
        ev->unit_ns = g->unit_ns;
        snprintf(ev->desc, sizeof(ev->desc), "generic perf event%s%s%s (perf type %u config 0x%llx, %s)",
                 strcasecmp(asked, g->name) ? ", asked as '" : "", strcasecmp(asked, g->name) ? asked : "",
                 strcasecmp(asked, g->name) ? "'" : "", (unsigned)g->type, (unsigned long long)g->config,
                 in_kernel ? "in the kernel" : "user space");
        return 1;
    }
    return 0;
}

const char *hct_event_generic_name(size_t i, int *software)
{
    if (i >= sizeof(generic) / sizeof(generic[0]))
        return NULL;
    *software = generic[i].type == PERF_TYPE_SOFTWARE;
    return generic[i].name;
}

const char *hct_event_papi_name(size_t i, const char **generic_name)
{
    if (i >= sizeof(papi) / sizeof(papi[0]))
        return NULL;
    *generic_name = papi[i].generic;
    return papi[i].papi;
}

/* Is the event (name up to the first ':') known on a PMU that is not active
 * here? Fills pmu_desc with that PMU's description. */
static int on_other_pmu(const char *spec, char *pmu_desc, size_t n)
{
    if (pfm_state <= 0)
        return 0;
    char base[HCT_EVENT_NAME_MAX];
    const char *colon = strstr(spec, "::");
    copy(base, sizeof(base), colon ? colon + 2 : spec);
    base[strcspn(base, ":.")] = 0;
    for (int p = 0; p < PFM_PMU_MAX; p++) {
        pfm_pmu_info_t pi;
        memset(&pi, 0, sizeof(pi));
        pi.size = sizeof(pi);
        if (hct_pfm.get_pmu_info((pfm_pmu_t)p, &pi) != PFM_SUCCESS || pi.is_present || pi.type != PFM_PMU_TYPE_CORE)
            continue;
        for (int idx = pi.first_event; idx != -1; idx = hct_pfm.get_event_next(idx)) {
            pfm_event_info_t ei;
            memset(&ei, 0, sizeof(ei));
            ei.size = sizeof(ei);
            if (hct_pfm.get_event_info(idx, PFM_OS_NONE, &ei) != PFM_SUCCESS)
                break;
            if (strcasecmp(ei.name, base) == 0) {
                copy(pmu_desc, n, pi.desc ? pi.desc : pi.name);
                return 1;
            }
        }
    }
    return 0;
}

int hct_event_resolve(const char *spec, hct_event *ev, char *why, size_t whylen)
{
    if (why && whylen)
        why[0] = 0;
    for (size_t i = 0; i < sizeof(papi) / sizeof(papi[0]); i++)
        if (strcasecmp(spec, papi[i].papi) == 0)
            return from_generic(papi[i].generic, spec, ev) ? HCT_EV_OK : HCT_EV_UNKNOWN;
    if (from_generic(spec, spec, ev))
        return HCT_EV_OK;
    if (hct_events_init() != 0) /* libpfm4 loaded for the first name that needs it */
        return HCT_EV_UNKNOWN;
    memset(ev, 0, sizeof(*ev));
    ev->attr.size = sizeof(ev->attr);
    pfm_perf_encode_arg_t arg;
    memset(&arg, 0, sizeof(arg));
    arg.attr = &ev->attr;
    arg.size = sizeof(arg);
    char *fstr = NULL;
    arg.fstr = &fstr;
    int rc = hct_pfm.get_os_event_encoding(spec, PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg);
    if (rc != PFM_SUCCESS) {
        free(fstr);
        if (rc == PFM_ERR_NOTFOUND) {
            char pmu[128];
            if (!on_other_pmu(spec, pmu, sizeof(pmu)))
                return HCT_EV_UNKNOWN;
            if (why)
                snprintf(why, whylen, "an event of %s, not of this machine", pmu);
            return HCT_EV_OTHER_PMU;
        }
        if (why)
            snprintf(why, whylen, "%s", hct_pfm.strerror(rc));
        return HCT_EV_INVALID;
    }
    if (ev->attr.type == PERF_TYPE_TRACEPOINT || ev->attr.type == PERF_TYPE_BREAKPOINT) {
        free(fstr);
        if (why)
            snprintf(why, whylen, "not a counter");
        return HCT_EV_INVALID;
    }
    /* counting only: drop the sampling parts a ':period=' may have set */
    ev->attr.sample_period = 0;
    ev->attr.freq = 0;
    ev->attr.sample_type = 0;
    ev->attr.precise_ip = 0;
    ev->attr.size = sizeof(ev->attr);
    copy(ev->name, sizeof(ev->name), spec);
    ev->hardware = ev->attr.type != PERF_TYPE_SOFTWARE;
    ev->unit_ns = ev->attr.type == PERF_TYPE_SOFTWARE &&
                  (ev->attr.config == PERF_COUNT_SW_TASK_CLOCK || ev->attr.config == PERF_COUNT_SW_CPU_CLOCK);
    snprintf(ev->desc, sizeof(ev->desc), "%s (perf type %u config 0x%llx config1 0x%llx)", fstr ? fstr : spec,
             (unsigned)ev->attr.type, (unsigned long long)ev->attr.config, (unsigned long long)ev->attr.config1);
    free(fstr);
    return HCT_EV_OK;
}

/* ---- closest names ---------------------------------------------------------- */

typedef struct {
    char name[HCT_EVENT_NAME_MAX];
    size_t d;
} candidate;

static void consider(candidate *best, int n, const char *target, const char *name)
{
    size_t d = hca_edit_distance(target, name);
    for (int i = 0; i < n; i++)
        if (best[i].name[0] && strcasecmp(best[i].name, name) == 0)
            return;
    for (int i = 0; i < n; i++) {
        if (!best[i].name[0] || d < best[i].d) {
            memmove(&best[i + 1], &best[i], (size_t)(n - 1 - i) * sizeof(*best));
            copy(best[i].name, sizeof(best[i].name), name);
            best[i].d = d;
            return;
        }
    }
}

void hct_event_closest(const char *name, char *out, size_t outlen, int n)
{
    candidate best[8];
    if (n > 8)
        n = 8;
    memset(best, 0, sizeof(best));
    char base[HCT_EVENT_NAME_MAX];
    copy(base, sizeof(base), name);
    for (size_t i = 0; i < sizeof(generic) / sizeof(generic[0]); i++)
        consider(best, n, base, generic[i].name);
    for (size_t i = 0; i < sizeof(papi) / sizeof(papi[0]); i++)
        consider(best, n, base, papi[i].papi);
    if (pfm_state > 0) { /* loaded by the hct_event_resolve that did not know the name */
        /* PMU events are compared without their unit masks */
        char ebase[HCT_EVENT_NAME_MAX];
        copy(ebase, sizeof(ebase), base);
        ebase[strcspn(ebase, ":")] = 0;
        for (int p = 0; p < PFM_PMU_MAX; p++) {
            pfm_pmu_info_t pi;
            memset(&pi, 0, sizeof(pi));
            pi.size = sizeof(pi);
            if (hct_pfm.get_pmu_info((pfm_pmu_t)p, &pi) != PFM_SUCCESS || !pi.is_present ||
                pi.type == PFM_PMU_TYPE_OS_GENERIC)
                continue;
            for (int idx = pi.first_event; idx != -1; idx = hct_pfm.get_event_next(idx)) {
                pfm_event_info_t ei;
                memset(&ei, 0, sizeof(ei));
                ei.size = sizeof(ei);
                if (hct_pfm.get_event_info(idx, PFM_OS_NONE, &ei) != PFM_SUCCESS)
                    break;
                consider(best, n, ebase, ei.name);
            }
        }
    }
    size_t len = 0;
    out[0] = 0;
    for (int i = 0; i < n && best[i].name[0]; i++) {
        int w = snprintf(out + len, outlen - len, "%s%s", i ? ", " : "", best[i].name);
        if (w < 0 || (size_t)w >= outlen - len)
            break;
        len += (size_t)w;
    }
}

/* ---- set syntax --------------------------------------------------------------- */

int hct_set_spec_parse(const char *spec, hct_set_spec *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof(*out));
    const char *p = spec;
    int set = 0, any = 0;
    while (1) {
        size_t len = strcspn(p, ",;");
        const char *b = p, *e = p + len;
        while (b < e && (*b == ' ' || *b == '\t'))
            b++;
        while (e > b && (e[-1] == ' ' || e[-1] == '\t'))
            e--;
        if (e > b) {
            if (set >= HCT_MAX_SPEC_SETS) {
                snprintf(err, errlen, "more than %d counter sets", HCT_MAX_SPEC_SETS);
                return -1;
            }
            if (out->nevents[set] >= HCT_MAX_SET_EVENTS) {
                snprintf(err, errlen, "more than %d events in counter set %d", HCT_MAX_SET_EVENTS, set + 1);
                return -1;
            }
            if ((size_t)(e - b) >= HCT_EVENT_NAME_MAX) {
                snprintf(err, errlen, "event name too long: '%.*s...'", 40, b);
                return -1;
            }
            memcpy(out->names[set][out->nevents[set]], b, (size_t)(e - b));
            out->names[set][out->nevents[set]][e - b] = 0;
            out->nevents[set]++;
            any = 1;
        }
        char sep = p[len];
        if (!sep)
            break;
        if (sep == ';' && any) {
            set++;
            any = 0;
        }
        p += len + 1;
    }
    out->nsets = any ? set + 1 : set;
    return 0;
}
