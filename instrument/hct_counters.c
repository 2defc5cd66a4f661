/* hct_counters.c: hardware and software counters with perf_event_open. At load:
 * find out what this machine counts (CPU PMU or not), resolve HCATRACE_COUNTERS
 * into counter sets (one perf group and one OTF2 MetricClass each, instructions
 * and cycles in every set when the PMU has them), say once what is missing.
 * Per thread: open every set as a disabled group, enable one, read it with one
 * read() (or rdpmc where the kernel allows it) at every region boundary and in
 * the sampling handler, rotate sets at boundaries. Values written are running
 * totals per event and thread that never decrease, also across rotations: an
 * event that is in several sets continues from its last value. */
#include "hct.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "hct_events.h"

#define MAX_VALUES (HCT_MAX_SET_EVENTS + 2)
#define MAX_MEMBERS (HCT_MAX_SETS * MAX_VALUES)
#define DEFAULT_PMU_SETS "instructions,cycles,branch-misses,cache-misses"
#define DEFAULT_SW_SETS "task-clock,page-faults,context-switches"

typedef struct {
    hct_event ev[HCT_MAX_SET_EVENTS];
    int nevents, nvalues; /* nvalues = nevents (+ time enabled, time running) */
    int hardware;         /* has a PMU event: multiplexing is possible */
    hca_ref class_ref;
    uint32_t member[MAX_VALUES]; /* index into members[] */
} ctr_set;

static struct {
    int nsets;
    ctr_set set[HCT_MAX_SETS];
    int nmembers;
    char member_name[MAX_MEMBERS][HCT_EVENT_NAME_MAX];
    hca_ref member_ref[MAX_MEMBERS];
    int has_pmu;
} C;

struct hct_ctr_thread {
    int cur;                   /* the enabled set */
    pid_t tid;
    int fd[HCT_MAX_SETS][HCT_MAX_SET_EVENTS];
    int usable[HCT_MAX_SETS];
    // cppcheck-suppress unusedStructMember ; used on x86_64 only
    int rdpmc[HCT_MAX_SETS]; /* read with rdpmc from the mmap'ed pages */
    struct perf_event_mmap_page *page[HCT_MAX_SETS][HCT_MAX_SET_EVENTS];
    uint64_t offset[HCT_MAX_SETS][MAX_VALUES]; /* added to raw values: continuity */
    uint64_t last[MAX_MEMBERS];                 /* last value of each member */
    uint32_t instances;                         /* region entries since the last switch */
    uint64_t switch_ts;
};

static long perf_open(struct perf_event_attr *attr, int group_fd)
{
    return syscall(SYS_perf_event_open, attr, 0, -1, group_fd, PERF_FLAG_FD_CLOEXEC);
}

/* ---- load time: what can be counted, which sets ------------------------------ */

static int open_alone(const hct_event *ev)
{
    struct perf_event_attr a = ev->attr;
    a.disabled = 1;
    int fd = (int)perf_open(&a, -1);
    if (fd >= 0)
        close(fd);
    return fd >= 0 ? 0 : errno;
}

/* Opens a set's events as one group; returns how many joined (the first
 * failing one ends the group), the fds in fds[]. */
static int open_group(const ctr_set *s, int *fds, int enable)
{
    int n = 0;
    for (int k = 0; k < s->nevents; k++) {
        struct perf_event_attr a = s->ev[k].attr;
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

static void close_fds(int *fds, int n)
{
    for (int k = 0; k < n; k++)
        close(fds[k]);
}

static int set_has(const ctr_set *s, const char *name)
{
    for (int k = 0; k < s->nevents; k++)
        if (strcmp(s->ev[k].name, name) == 0)
            return 1;
    return 0;
}

static void set_add(ctr_set *s, const hct_event *ev)
{
    if (!set_has(s, ev->name) && s->nevents < HCT_MAX_SET_EVENTS)
        s->ev[s->nevents++] = *ev;
}

/* instructions and cycles first, when the PMU has them */
static void add_base(ctr_set *s, const hct_event *base, int nbase)
{
    ctr_set tmp;
    memset(&tmp, 0, sizeof(tmp));
    for (int b = 0; b < nbase; b++)
        set_add(&tmp, &base[b]);
    for (int k = 0; k < s->nevents; k++)
        set_add(&tmp, &s->ev[k]);
    *s = tmp;
}

static uint32_t member(const char *name, const char *desc, const char *unit, OTF2_MetricType type)
{
    for (int m = 0; m < C.nmembers; m++)
        if (strcmp(C.member_name[m], name) == 0)
            return (uint32_t)m;
    int m = C.nmembers++;
    snprintf(C.member_name[m], sizeof(C.member_name[m]), "%s", name);
    C.member_ref[m] = hca_defs_metric_member(&hct.defs, name, desc, unit, type, OTF2_METRIC_ACCUMULATED_START,
                                             OTF2_TYPE_UINT64);
    return (uint32_t)m;
}

static void define_sets(void)
{
    for (int i = 0; i < C.nsets; i++) {
        ctr_set *s = &C.set[i];
        hca_ref refs[MAX_VALUES];
        s->nvalues = 0;
        for (int k = 0; k < s->nevents; k++) {
            const hct_event *ev = &s->ev[k];
            s->member[s->nvalues] = member(ev->name, ev->desc, ev->unit_ns ? "ns" : "#",
                                           ev->hardware ? OTF2_METRIC_TYPE_PAPI : OTF2_METRIC_TYPE_OTHER);
            refs[s->nvalues] = C.member_ref[s->member[s->nvalues]];
            s->nvalues++;
        }
        if (s->hardware) {
            s->member[s->nvalues] =
                member("perf:time_enabled", "ns the counter set was enabled (with perf:time_running: multiplexing)",
                       "ns", OTF2_METRIC_TYPE_OTHER);
            refs[s->nvalues] = C.member_ref[s->member[s->nvalues]];
            s->nvalues++;
            s->member[s->nvalues] =
                member("perf:time_running", "ns the counter set was counting on the PMU; less than "
                       "perf:time_enabled when the kernel multiplexed it",
                       "ns", OTF2_METRIC_TYPE_OTHER);
            refs[s->nvalues] = C.member_ref[s->member[s->nvalues]];
            s->nvalues++;
        }
        s->class_ref = hca_defs_metric_class(&hct.defs, (uint8_t)s->nvalues, refs);
    }
}

static const char *open_error(int err, char *buf, size_t n)
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

void hct_counters_setup(void)
{
    if (hct.cfg.counters_off)
        return;
    hct_events_init();
    hct_event instructions, cycles, task_clock;
    char why[256], reason[256] = "";
    hct_event_resolve("instructions", &instructions, why, sizeof(why));
    hct_event_resolve("cycles", &cycles, why, sizeof(why));
    hct_event_resolve("task-clock", &task_clock, why, sizeof(why));
    int err = open_alone(&instructions);
    C.has_pmu = err == 0;
    if (err == ENOENT || err == ENODEV || err == EOPNOTSUPP)
        snprintf(reason, sizeof(reason), "no CPU PMU: perf_event_open of instructions: %s", strerror(err));
    else if (err)
        open_error(err, reason, sizeof(reason));
    int sw_err = open_alone(&task_clock);
    if (sw_err) {
        char buf[256];
        hct_config_problem("no counters (%s); recording time and call stacks", open_error(sw_err, buf, sizeof(buf)));
        return;
    }

    const char *spec = hct.cfg.counters;
    hct_set_spec sets;
    if (!spec || hct_set_spec_parse(spec, &sets, why, sizeof(why)) != 0 || sets.nsets == 0) {
        if (spec)
            hct_config_problem("invalid value '%.200s' for HCATRACE_COUNTERS (%s); using the default counters", spec,
                               sets.nsets == 0 ? "no event" : why);
        spec = NULL;
        hct_set_spec_parse(C.has_pmu ? DEFAULT_PMU_SETS : DEFAULT_SW_SETS, &sets, why, sizeof(why));
    }
    hct_event base[2] = { instructions, cycles };
    int hw_missing = 0;
    ctr_set want[HCT_MAX_SETS];
    int nwant = 0;
    memset(want, 0, sizeof(want));
    for (int i = 0; i < sets.nsets; i++) {
        ctr_set *s = &want[nwant];
        for (int k = 0; k < sets.nevents[i]; k++) {
            const char *name = sets.names[i][k];
            hct_event ev;
            int rc = hct_event_resolve(name, &ev, why, sizeof(why));
            if ((rc == HCT_EV_OK && ev.hardware && !C.has_pmu) || (rc == HCT_EV_OTHER_PMU && !C.has_pmu)) {
                hw_missing++; /* said once, in the no-PMU line */
            } else if (rc == HCT_EV_OK) {
                int e = open_alone(&ev);
                if (e == 0) {
                    set_add(s, &ev);
                } else {
                    char buf[256];
                    hct_config_problem("counter '%s' cannot be counted here (%s); ignored", name,
                                       open_error(e, buf, sizeof(buf)));
                }
            } else if (rc == HCT_EV_OTHER_PMU || rc == HCT_EV_INVALID) {
                hct_config_problem("counter '%s' is not usable (%s); ignored", name, why);
            } else {
                char closest[300];
                hct_event_closest(name, closest, sizeof(closest), 3);
                hct_config_problem("unknown counter '%s' (closest known: %s); ignored", name, closest);
            }
        }
        if (s->nevents)
            nwant++;
    }
    if (!C.has_pmu && (!spec || hw_missing))
        hct_config_problem("no hardware counters (%s); recording time, software events and call stacks", reason);

    /* pack into groups the PMU can count at once: a set that does not fit
     * continues in a new set (with instructions and cycles again) */
    for (int i = 0; i < nwant && C.nsets < HCT_MAX_SETS; i++) {
        ctr_set pending = want[i];
        while (pending.nevents && C.nsets < HCT_MAX_SETS) {
            if (C.has_pmu)
                add_base(&pending, base, 2);
            int fds[HCT_MAX_SET_EVENTS];
            int n = open_group(&pending, fds, 0);
            close_fds(fds, n);
            if (n < pending.nevents && n <= (C.has_pmu ? 2 : 0)) {
                /* this event does not join even a small group: leave it out */
                hct_config_problem("counter '%s' cannot be counted in a group%s; ignored", pending.ev[n].name,
                                   C.has_pmu ? " with instructions and cycles" : "");
                memmove(&pending.ev[n], &pending.ev[n + 1], (size_t)(pending.nevents - n - 1) * sizeof(hct_event));
                pending.nevents--;
                continue;
            }
            ctr_set *out = &C.set[C.nsets++];
            memset(out, 0, sizeof(*out));
            for (int k = 0; k < n; k++) {
                out->ev[out->nevents++] = pending.ev[k];
                out->hardware |= pending.ev[k].hardware;
            }
            ctr_set rest;
            memset(&rest, 0, sizeof(rest));
            for (int k = n; k < pending.nevents; k++)
                rest.ev[rest.nevents++] = pending.ev[k];
            pending = rest;
        }
    }
    define_sets();
}

int hct_counters_nsets(void)
{
    return C.nsets;
}

/* ---- reading (also from the signal handler: no locks, no allocation) --------- */

#if defined(__x86_64__)
static inline uint64_t rdpmc_(uint32_t counter)
{
    uint32_t lo, hi;
    __asm__ volatile("rdpmc" : "=a"(lo), "=d"(hi) : "c"(counter));
    return lo | ((uint64_t)hi << 32);
}
static inline uint64_t rdtsc_(void)
{
    uint32_t lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return lo | ((uint64_t)hi << 32);
}

/* The user-space read protocol of the kernel's perf_event_mmap_page
 * (include/uapi/linux/perf_event.h). */
static int mmap_read(volatile struct perf_event_mmap_page *pc, uint64_t *count, uint64_t *enabled,
                     uint64_t *running)
{
    uint32_t seq;
    uint64_t cnt, ena, run;
    int loops = 0;
    do {
        seq = pc->lock;
        __atomic_signal_fence(__ATOMIC_SEQ_CST);
        ena = pc->time_enabled;
        run = pc->time_running;
        uint32_t idx = pc->index;
        cnt = (uint64_t)pc->offset;
        if (pc->cap_user_rdpmc && idx) {
            uint16_t width = pc->pmc_width;
            int64_t pmc = (int64_t)rdpmc_(idx - 1);
            if (width > 0 && width < 64) {
                pmc = (int64_t)((uint64_t)pmc << (64 - width));
                pmc >>= 64 - width;
            }
            cnt += (uint64_t)pmc;
        }
        if (pc->cap_user_time && ena != run) {
            uint64_t cyc = rdtsc_();
            uint16_t shift = pc->time_shift;
            uint32_t mult = pc->time_mult;
            uint64_t quot = cyc >> shift, rem = cyc & (((uint64_t)1 << shift) - 1);
            uint64_t delta = pc->time_offset + quot * mult + ((rem * mult) >> shift);
            ena += delta;
            if (idx)
                run += delta;
        }
        __atomic_signal_fence(__ATOMIC_SEQ_CST);
        if (++loops > 100)
            return -1;
    } while (pc->lock != seq);
    *count = cnt;
    if (enabled)
        *enabled = ena;
    if (running)
        *running = run;
    return 0;
}
#endif

static int read_group(const hct_ctr_thread *c, int set, uint64_t *raw)
{
    const ctr_set *s = &C.set[set];
    uint64_t buf[3 + HCT_MAX_SET_EVENTS];
    size_t want = (3 + (size_t)s->nevents) * sizeof(uint64_t);
    if (read(c->fd[set][0], buf, want) != (ssize_t)want || buf[0] != (uint64_t)s->nevents)
        return -1;
    int n = s->nevents;
    for (int k = 0; k < n; k++)
        raw[k] = buf[3 + k];
    if (s->hardware) { /* multiplexing: the times of the group */
        raw[n++] = buf[1];
        raw[n++] = buf[2];
    }
    return n;
}

static int read_raw(const hct_ctr_thread *c, int set, uint64_t *raw, int owner)
{
    if (!c->usable[set])
        return -1;
#if defined(__x86_64__)
    if (c->rdpmc[set] && owner) {
        const ctr_set *s = &C.set[set];
        uint64_t ena = 0, run = 0;
        for (int k = 0; k < s->nevents; k++)
            if (mmap_read(c->page[set][k], &raw[k], k == 0 ? &ena : NULL, k == 0 ? &run : NULL) != 0)
                return read_group(c, set, raw);
        raw[s->nevents] = ena;
        raw[s->nevents + 1] = run;
        return s->nevents + 2; /* rdpmc: hardware sets only, which carry both times */
    }
#else
    (void)owner;
#endif
    return read_group(c, set, raw);
}

int hct_counters_read_signal(const hct_ctr_thread *c, int *set, uint64_t *raw)
{
    *set = c->cur;
    return read_raw(c, c->cur, raw, 1);
}

/* ---- per thread --------------------------------------------------------------- */

static void disable(hct_ctr_thread *c, int set)
{
    if (c->usable[set])
        ioctl(c->fd[set][0], PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
}

static void enable(hct_ctr_thread *c, int set)
{
    if (c->usable[set])
        ioctl(c->fd[set][0], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
}

#if defined(__x86_64__)
/* rdpmc only for all-hardware sets whose every page allows it, and only if a
 * read() - rdpmc - read() sequence agrees. */
static void try_rdpmc(hct_ctr_thread *c, int set)
{
    const ctr_set *s = &C.set[set];
    for (int k = 0; k < s->nevents; k++)
        if (!s->ev[k].hardware)
            return;
    long page = sysconf(_SC_PAGESIZE);
    for (int k = 0; k < s->nevents; k++) {
        void *p = mmap(NULL, (size_t)page, PROT_READ, MAP_SHARED, c->fd[set][k], 0);
        if (p == MAP_FAILED)
            return;
        c->page[set][k] = p;
        if (!c->page[set][k]->cap_user_rdpmc)
            return;
    }
    uint64_t a[MAX_VALUES], b[MAX_VALUES], d[MAX_VALUES];
    c->rdpmc[set] = 1;
    int ok = read_group(c, set, a) > 0 && read_raw(c, set, b, 1) > 0 && read_group(c, set, d) > 0;
    for (int k = 0; ok && k < s->nevents; k++)
        ok = a[k] <= b[k] && b[k] <= d[k];
    c->rdpmc[set] = ok;
}
#endif

hct_ctr_thread *hct_counters_thread_start(uint32_t start_set)
{
    if (!C.nsets)
        return NULL;
    hct_ctr_thread *c = calloc(1, sizeof(*c));
    if (!c)
        return NULL;
    c->tid = (pid_t)syscall(SYS_gettid);
    int any = 0;
    for (int i = 0; i < C.nsets; i++) {
        for (int k = 0; k < HCT_MAX_SET_EVENTS; k++)
            c->fd[i][k] = -1;
        int n = open_group(&C.set[i], c->fd[i], 0);
        if (n == C.set[i].nevents) {
            c->usable[i] = 1;
            any = 1;
#if defined(__x86_64__)
            try_rdpmc(c, i);
#endif
        } else {
            close_fds(c->fd[i], n);
            for (int k = 0; k < n; k++)
                c->fd[i][k] = -1;
        }
    }
    if (!any) {
        free(c);
        return NULL;
    }
    c->cur = (int)(start_set % (uint32_t)C.nsets);
    while (!c->usable[c->cur])
        c->cur = (c->cur + 1) % C.nsets;
    c->switch_ts = hca_clock_now();
    enable(c, c->cur);
    return c;
}

/* Writes the values of `set` (raw + offsets) as one Metric event. */
static void write_values(hct_thread *t, uint64_t ts, int set, const uint64_t *raw, int n)
{
    hct_ctr_thread *c = t->ctr;
    const ctr_set *s = &C.set[set];
    OTF2_Type types[MAX_VALUES];
    OTF2_MetricValue values[MAX_VALUES];
    for (int k = 0; k < n; k++) {
        uint64_t v = raw[k] + c->offset[set][k];
        uint32_t m = s->member[k];
        if (v < c->last[m])
            v = c->last[m]; /* never backwards (a read racing a rotation) */
        c->last[m] = v;
        types[k] = OTF2_TYPE_UINT64;
        values[k].unsigned_int = v;
    }
    hct_otf2_check(t, OTF2_EvtWriter_Metric(t->writer, NULL, ts, s->class_ref, (uint8_t)n, types, values));
}

void hct_counters_write_sample(hct_thread *t, uint64_t ts, int set, const uint64_t *raw, int n)
{
    if (t->ctr && set >= 0 && set < C.nsets && n == C.set[set].nvalues)
        write_values(t, ts, set, raw, n);
}

static void rotate(hct_thread *t, uint64_t ts)
{
    hct_ctr_thread *c = t->ctr;
    int to = c->cur;
    do
        to = (to + 1) % C.nsets;
    while (!c->usable[to]);
    if (to == c->cur)
        return;
    disable(c, c->cur);
    uint64_t raw[MAX_VALUES];
    int n = read_raw(c, to, raw, 1); /* disabled: frozen */
    if (n < 0) {
        enable(c, c->cur);
        return;
    }
    const ctr_set *s = &C.set[to];
    for (int k = 0; k < n; k++)
        c->offset[to][k] = c->last[s->member[k]] - raw[k];
    enable(c, to);
    c->cur = to;
    write_values(t, ts, to, raw, n);
}

void hct_counters_boundary(hct_thread *t, uint64_t ts, int enter)
{
    hct_ctr_thread *c = t->ctr;
    if (!c)
        return;
    uint64_t raw[MAX_VALUES];
    int n = read_raw(c, c->cur, raw, 1);
    if (n > 0)
        write_values(t, ts, c->cur, raw, n);
    if (enter)
        c->instances++;
    if (C.nsets > 1 && ((hct.cfg.rotate_instances && c->instances >= hct.cfg.rotate_instances) ||
                        (hct.cfg.rotate_ns && ts - c->switch_ts >= hct.cfg.rotate_ns))) {
        rotate(t, ts);
        c->instances = 0;
        c->switch_ts = ts;
    }
}

void hct_counters_final(hct_thread *t, uint64_t ts, int owner)
{
    hct_ctr_thread *c = t->ctr;
    if (!c)
        return;
    uint64_t raw[MAX_VALUES];
    int n = read_raw(c, c->cur, raw, owner);
    if (n > 0)
        write_values(t, ts, c->cur, raw, n);
}

void hct_counters_thread_close(hct_thread *t)
{
    hct_ctr_thread *c = t->ctr;
    if (!c)
        return;
    t->ctr = NULL;
    long page = sysconf(_SC_PAGESIZE);
    for (int i = 0; i < C.nsets; i++)
        for (int k = 0; k < HCT_MAX_SET_EVENTS; k++) {
            if (c->page[i][k])
                munmap(c->page[i][k], (size_t)page);
            if (c->fd[i][k] >= 0)
                close(c->fd[i][k]);
        }
    free(c);
}
