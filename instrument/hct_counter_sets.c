/* hct_counter_sets.c: load time, what can be counted and in which sets: events
 * opened alone and as perf groups, the wanted sets put in perf group order and
 * split where the kernel refuses them (before a model group rather than inside
 * it), and the OTF2 metric members and classes of the sets that result. */
#include "hct_counter_sets.h"
#include "hct_diag.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

struct hct_ctr_sets hct_ctr;

static long perf_open(struct perf_event_attr *attr, int group_fd)
{
    return syscall(SYS_perf_event_open, attr, 0, -1, group_fd, PERF_FLAG_FD_CLOEXEC);
}

int hct_ctr_open_alone(const hct_event *ev)
{
    struct perf_event_attr a = ev->attr;
    a.disabled = 1;
    int fd = (int)perf_open(&a, -1);
    if (fd >= 0)
        close(fd);
    return fd >= 0 ? 0 : errno;
}

/* Opens events as one group; returns how many joined (the first failing
 * one ends the group), the fds in fds[]. */
int hct_ctr_open_group(const hct_event *ev, int nevents, int *fds, int enable)
{
    int n = 0;
    for (int k = 0; k < nevents; k++) {
        struct perf_event_attr a = ev[k].attr;
        a.disabled = k == 0 && !enable;
        a.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
        a.inherit = 0;
        int fd = (int)perf_open(&a, k == 0 ? -1 : fds[0]);
        if (fd < 0)
            break;
        fds[n++] = fd;
    }
    return n;
}

void hct_ctr_close_fds(int *fds, int n)
{
    for (int k = 0; k < n; k++)
        close(fds[k]);
}

static uint32_t member(const char *name, const char *desc, const char *unit, OTF2_MetricType type)
{
    for (int m = 0; m < hct_ctr.nmembers; m++)
        if (strcmp(hct_ctr.member_name[m], name) == 0)
            return (uint32_t)m;
    int m = hct_ctr.nmembers++;
    snprintf(hct_ctr.member_name[m], sizeof(hct_ctr.member_name[m]), "%s", name);
    hct_ctr.member_ref[m] = hca_defs_metric_member(&hct.defs, name, desc, unit, type, OTF2_METRIC_ACCUMULATED_START,
                                             OTF2_TYPE_UINT64);
    return (uint32_t)m;
}

void hct_ctr_choose_source(void)
{
    if (hct.cfg.counter_source == HCT_COUNTER_SOURCE_PERF || hct_ctr.nsets == 0)
        return;
    static hct_rusage_set how[HCT_MAX_SETS]; /* load time only */
    for (int i = 0; i < hct_ctr.nsets; i++) {
        const hct_ctr_set *s = &hct_ctr.set[i];
        int sources[HCT_MAX_SET_EVENTS];
        for (int k = 0; k < s->nevents; k++)
            sources[k] = hct_rusage_source_of(&s->ev[k]);
        if (s->hardware || hct_rusage_set_make(sources, s->nevents, &how[i]) != 0)
            return; /* one set needs perf: all stay on perf */
    }
    for (int i = 0; i < hct_ctr.nsets; i++) {
        hct_ctr_set *s = &hct_ctr.set[i];
        s->no_perf = 1;
        s->rusage = how[i];
        for (int k = 0; k < s->nevents; k++) {
            size_t used = strlen(s->ev[k].desc);
            snprintf(s->ev[k].desc + used, sizeof(s->ev[k].desc) - used, "; %s",
                     hct_rusage_source_text(s->rusage.source[k]));
        }
    }
    hct_ctr.no_perf = 1;
}

void hct_ctr_define_sets(void)
{
    for (int i = 0; i < hct_ctr.nsets; i++) {
        hct_ctr_set *s = &hct_ctr.set[i];
        hca_ref refs[MAX_VALUES];
        s->nvalues = 0;
        for (int k = 0; k < s->nevents; k++) {
            const hct_event *ev = &s->ev[k];
            s->member[s->nvalues] = member(ev->name, ev->desc, ev->unit_ns ? HCA_UNIT_NS : HCA_UNIT_COUNT,
                                           ev->hardware ? OTF2_METRIC_TYPE_PAPI : OTF2_METRIC_TYPE_OTHER);
            refs[s->nvalues] = hct_ctr.member_ref[s->member[s->nvalues]];
            s->nvalues++;
        }
        if (s->hardware) {
            s->member[s->nvalues] =
                member(HCA_PERF_TIME_ENABLED, "ns the counter set was enabled (with " HCA_PERF_TIME_RUNNING ": multiplexing)",
                       HCA_UNIT_NS, OTF2_METRIC_TYPE_OTHER);
            refs[s->nvalues] = hct_ctr.member_ref[s->member[s->nvalues]];
            s->nvalues++;
            s->member[s->nvalues] =
                member(HCA_PERF_TIME_RUNNING, "ns the counter set was counting on the PMU; less than " HCA_PERF_TIME_ENABLED
                       " when the kernel multiplexed it",
                       HCA_UNIT_NS, OTF2_METRIC_TYPE_OTHER);
            refs[s->nvalues] = hct_ctr.member_ref[s->member[s->nvalues]];
            s->nvalues++;
        }
        s->class_ref = hca_defs_metric_class(&hct.defs, (uint8_t)s->nvalues, refs, OTF2_METRIC_SYNCHRONOUS);
    }
}

const char *hct_ctr_open_error(int err, char *buf, size_t n)
{
    if (err == EACCES || err == EPERM) {
        char level[16] = "?";
        int fd = open("/proc/sys/kernel/perf_event_paranoid", O_RDONLY);
        if (fd >= 0) {
            ssize_t r = read(fd, level, sizeof(level) - 1);
            level[r > 0 ? r : 0] = 0;
            level[strcspn(level, "\n")] = 0;
            close(fd);
        }
        snprintf(buf, n, "perf_event_open: %s; kernel.perf_event_paranoid is %s", strerror(err), level);
    } else {
        snprintf(buf, n, "perf_event_open: %s", strerror(err));
    }
    return buf;
}

/* ---- load time: the sets wanted, in perf group order -------------------------- */

static int pending_has(const hct_pending_set *p, const char *name)
{
    for (int k = 0; k < p->nevents; k++)
        if (strcmp(p->ev[k].name, name) == 0)
            return 1;
    return 0;
}

void hct_ctr_pending_add(hct_pending_set *p, const hct_event *ev, int unit)
{
    if (!pending_has(p, ev->name) && p->nevents < PEND_MAX) {
        p->unit[p->nevents] = unit;
        p->ev[p->nevents++] = *ev;
    }
}

static int is_base(const hct_event *ev, const hct_event *base, int nbase)
{
    for (int b = 0; b < nbase; b++)
        if (strcmp(ev->name, base[b].name) == 0)
            return 1;
    return 0;
}

/* Puts p in perf group order: its first model group (the leader leads the perf
 * group), instructions and cycles, the others. Returns the length of the
 * first two parts; *group_len that of the first. */
static int arrange(hct_pending_set *p, const hct_event *base, int nbase, int *group_len)
{
    static hct_pending_set all; /* load time only */
    int isb[PEND_MAX], order[PEND_MAX];
    all.nevents = 0;
    for (int b = 0; b < nbase; b++)
        hct_ctr_pending_add(&all, &base[b], -1);
    for (int k = 0; k < p->nevents; k++)
        hct_ctr_pending_add(&all, &p->ev[k], p->unit[k]);
    for (int k = 0; k < all.nevents; k++)
        isb[k] = k < nbase;
    int prefix = hct_set_order(all.unit, isb, all.nevents, order);
    *group_len = 0;
    while (*group_len < all.nevents && all.unit[order[*group_len]] >= 0 &&
           all.unit[order[*group_len]] == all.unit[order[0]])
        (*group_len)++;
    p->nevents = 0;
    for (int j = 0; j < all.nevents; j++)
        hct_ctr_pending_add(p, &all.ev[order[j]], all.unit[order[j]]);
    return prefix;
}

static void drop_event(hct_pending_set *p, int k)
{
    memmove(&p->ev[k], &p->ev[k + 1], (size_t)(p->nevents - k - 1) * sizeof(p->ev[0]));
    memmove(&p->unit[k], &p->unit[k + 1], (size_t)(p->nevents - k - 1) * sizeof(p->unit[0]));
    p->nevents--;
}

/* The wanted sets -> hct_ctr.set: each is opened once as a perf group; the kernel
 * knows the real constraints, so a set it refuses (or one too long) is split
 * where it stopped, before a model group rather than inside it, and an event
 * that does not join even instructions and cycles (or its group's leader) is
 * left out. Returns 1 when HCT_MAX_SETS ran out. */
int hct_ctr_build_sets(const hct_pending_set *want, int nwant, const hct_event *base, int nbase)
{
    static hct_pending_set pend, rest; /* load time only */
    int full = 0;
    for (int i = 0; i < nwant && !full; i++) {
        pend = want[i];
        for (int guard = 0; pend.nevents && guard < 8 * PEND_MAX; guard++) {
            if (hct_ctr.nsets >= HCT_MAX_SETS) {
                full = 1;
                break;
            }
            int group_len;
            int prefix = arrange(&pend, base, nbase, &group_len);
            int tried = pend.nevents < HCT_MAX_SET_EVENTS ? pend.nevents : HCT_MAX_SET_EVENTS;
            int fds[HCT_MAX_SET_EVENTS];
            int n = hct_ctr_open_group(pend.ev, tried, fds, 0);
            hct_ctr_close_fds(fds, n);
            int cut = n;
            if (n < pend.nevents && n >= prefix && pend.unit[n] >= 0) /* never split a group */
                while (cut > prefix && pend.unit[cut - 1] == pend.unit[n])
                    cut--;
            if (n < tried) {
                if (n < group_len || (n >= prefix && cut == prefix && group_len == 0)) {
                    /* it does not join its group's leader, or instructions and cycles */
                    if (!pend.from_model)
                        hct_config_problem("counter '%s' cannot be counted in a group%s; ignored", pend.ev[n].name,
                                           nbase ? " with instructions and cycles" : "");
                    drop_event(&pend, n);
                    continue;
                }
                if (n < prefix) { /* instructions or cycles do not join the group: the group alone */
                    if (group_len == 0) {
                        if (!pend.from_model)
                            hct_config_problem("counter set '%s,...' cannot be counted here; ignored",
                                               pend.ev[pend.nevents - 1].name);
                        break;
                    }
                    cut = group_len;
                }
            }
            if (cut <= 0) /* a group longer than a set: never from the packing */
                cut = tried;
            hct_ctr_set *out = &hct_ctr.set[hct_ctr.nsets++];
            memset(out, 0, sizeof(*out));
            for (int k = 0; k < cut; k++) {
                out->ev[out->nevents++] = pend.ev[k];
                out->hardware |= pend.ev[k].hardware;
            }
            rest.nevents = 0;
            rest.from_model = pend.from_model;
            int only_base = 1;
            for (int k = cut; k < pend.nevents; k++) {
                hct_ctr_pending_add(&rest, &pend.ev[k], pend.unit[k]);
                only_base &= is_base(&pend.ev[k], base, nbase);
            }
            if (only_base)
                rest.nevents = 0;
            pend = rest;
        }
    }
    return full;
}
