/* hcatrace_list_events.c: `hcatrace --list-events` (installed as LIBDIR/hcatrace/list-events):
 * the counter events this machine can record for -e / HCATRACE_COUNTERS: the kernel's
 * software events, the generic hardware events, the PAPI presets taken as generic events, and
 * every event (with each unit mask) that libpfm4 knows for the detected core PMU, or for the
 * PMU named by LIBPFM_FORCE_PMU. Each event is encoded as the tracer encodes it
 * (hct_events.c) and tried alone with perf_event_open on this process, user space, counting:
 * the listing says what the kernel accepts here, not what the PMU's manual promises. */
#include <errno.h>
#include <linux/perf_event.h>
#include <perfmon/pfmlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "hct_events.h"

typedef struct {
    unsigned opened, refused;
} tally;

/* Tries the event alone, disabled, on this process; "opens" or "refused: EXXX (message)". */
static const char *try_open(const struct perf_event_attr *attr, tally *t, char *buf, size_t n)
{
    struct perf_event_attr a = *attr;
    a.disabled = 1;
    int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd >= 0) {
        close(fd);
        t->opened++;
        return "opens";
    }
    int e = errno;
    t->refused++;
    const char *code = strerrorname_np(e);
    snprintf(buf, n, "refused: %s (%s)", code ? code : "?", strerror(e));
    return buf;
}

static void encoding(const hct_event *ev, char *buf, size_t n)
{
    if (ev->attr.config1)
        snprintf(buf, n, "type %u config 0x%llx config1 0x%llx", (unsigned)ev->attr.type,
                 (unsigned long long)ev->attr.config, (unsigned long long)ev->attr.config1);
    else
        snprintf(buf, n, "type %u config 0x%llx", (unsigned)ev->attr.type, (unsigned long long)ev->attr.config);
}

/* One line: the name, its perf_event encoding, what perf_event_open said. */
static void list_one(const char *name, tally *t)
{
    hct_event ev;
    char why[256], enc[96], verdict[160];
    if (hct_event_resolve(name, &ev, why, sizeof(why)) != HCT_EV_OK) {
        printf("  %-44s not encodable: %s\n", name, why[0] ? why : "unknown");
        return;
    }
    encoding(&ev, enc, sizeof(enc));
    printf("  %-44s %-34s %s\n", name, enc, try_open(&ev.attr, t, verdict, sizeof(verdict)));
}

static void list_generic(int software, tally *t)
{
    int sw = 0;
    for (size_t i = 0; hct_event_generic_name(i, &sw); i++)
        if (sw == software)
            list_one(hct_event_generic_name(i, &sw), t);
}

/* Every event of one PMU, one line per unit mask (the event alone when it has none). */
static void list_pmu_events(const pfm_pmu_info_t *pi, tally *t)
{
    for (int idx = pi->first_event; idx != -1; idx = pfm_get_event_next(idx)) {
        pfm_event_info_t ei;
        memset(&ei, 0, sizeof(ei));
        ei.size = sizeof(ei);
        if (pfm_get_event_info(idx, PFM_OS_NONE, &ei) != PFM_SUCCESS)
            break;
        char name[HCT_EVENT_NAME_MAX * 2];
        int umasks = 0;
        for (int a = 0; a < ei.nattrs; a++) {
            pfm_event_attr_info_t ai;
            memset(&ai, 0, sizeof(ai));
            ai.size = sizeof(ai);
            if (pfm_get_event_attr_info(idx, a, PFM_OS_NONE, &ai) != PFM_SUCCESS || ai.type != PFM_ATTR_UMASK)
                continue;
            umasks++;
            snprintf(name, sizeof(name), "%s::%s:%s", pi->name, ei.name, ai.name);
            list_one(name, t);
        }
        if (!umasks) {
            snprintf(name, sizeof(name), "%s::%s", pi->name, ei.name);
            list_one(name, t);
        }
    }
}

/* The core PMU the tracer would count on (the forced one under LIBPFM_FORCE_PMU), its
 * events listed; 1, or 0 when there is none. */
static int list_pmu(tally *t)
{
    pfm_pmu_info_t pi;
    if (hct_events_core_pmu(&pi) != 0)
        return 0;
    printf("\nPMU events of %s (%s), from libpfm4%s; %d counters, %d fixed:\n", pi.name, pi.desc,
           getenv("LIBPFM_FORCE_PMU") ? ", forced by LIBPFM_FORCE_PMU" : "", pi.num_cntrs, pi.num_fixed_cntrs);
    list_pmu_events(&pi, t);
    return 1;
}

int main(void)
{
    int libpfm = hct_events_init() == 0;
    FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
    int paranoid = 99;
    if (f) {
        if (fscanf(f, "%d", &paranoid) != 1)
            paranoid = 99;
        fclose(f);
    }
    printf("Counter events for hcatrace -e / HCATRACE_COUNTERS. Each is tried alone with perf_event_open\n"
           "on this process (user space, counting): 'opens' means this kernel accepts it here.\n");
    if (paranoid != 99)
        printf("kernel.perf_event_paranoid = %d\n", paranoid);
    tally sw = { 0, 0 }, hw = { 0, 0 }, pmu = { 0, 0 };
    printf("\nsoftware events (counted by the kernel, no PMU needed):\n");
    list_generic(1, &sw);
    printf("\ngeneric hardware events (the kernel maps them to this CPU's PMU):\n");
    list_generic(0, &hw);
    printf("\nPAPI presets, taken as the generic event named:\n");
    const char *generic = NULL;
    size_t column = 0;
    for (size_t i = 0; hct_event_papi_name(i, &generic); i++) {
        const char *preset = hct_event_papi_name(i, &generic);
        if (column && column + strlen(preset) + strlen(generic) + 2 > 96) {
            printf("\n");
            column = 0;
        }
        column += (size_t)printf("  %s=%s", preset, generic);
    }
    printf("\n");
    int pmus = libpfm ? list_pmu(&pmu) : 0;
    if (!libpfm)
        printf("\nPMU events: libpfm4 does not initialize here; only the names above resolve.\n");
    else if (!pmus)
        printf("\nPMU events: libpfm4 detects no core PMU on this machine (a virtual machine or container\n"
               "without a virtual PMU?); LIBPFM_FORCE_PMU=NAME lists the encodings of one (on x86_64 e.g.\n"
               "skl, icl, spr, amd64_fam19h_zen3; on aarch64 e.g. arm_n1).\n");
    printf("\nopened here: %u of %u software events, %u of %u generic hardware events", sw.opened,
           sw.opened + sw.refused, hw.opened, hw.opened + hw.refused);
    if (pmus)
        printf(", %u of %u PMU events", pmu.opened, pmu.opened + pmu.refused);
    printf(".\n");
    if (hw.opened == 0 && pmu.opened == 0)
        printf("No hardware event opens here: hcatrace records time, the software events and call stacks.\n");
    return 0;
}
