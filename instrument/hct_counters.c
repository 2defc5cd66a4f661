/* hct_counters.c: hardware and software counters with perf_event_open. At load:
 * find out what this machine counts (CPU PMU or not), load the model of
 * HCATRACE_MODEL and pack its events into counter sets (hct_model_sets.c),
 * resolve HCATRACE_COUNTERS into more sets (one perf group and one OTF2
 * MetricClass each, instructions and cycles in every set when the PMU has
 * them), split what the kernel refuses, say once what is missing, and keep
 * what the model counts for the trace's properties.
 * Per thread: open every set as a disabled group, enable one, read it with one
 * read() (or rdpmc where the kernel allows it) at every region boundary and in
 * the sampling handler, rotate sets at boundaries. Values written are running
 * totals per event and thread that never decrease, also across rotations: an
 * event that is in several sets continues from its last value. */
#include "hct_counters.h"

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

#include "hca_model.h"
#include "hca_model_path.h"
#include "hct_diag.h"
#include "hct_events.h"
#include "hct_model_sets.h"

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
    int lazy; /* open one set at a time per thread (LAZY_FDS) */
} C;

/* When all sets together hold more than LAZY_FDS events (a model may have
 * 30 sets), a thread holds the file descriptors of one set at a time, the
 * enabled one, so that a program with many threads does not run out of
 * descriptors because of us: rotating then opens the next set and closes the
 * previous one (about 9 us on our VM, against 3 us for switching between
 * open sets). */
#define LAZY_FDS 16
struct hct_ctr_thread {
    int cur;                   /* the enabled (and only open) set */
    pid_t tid;
    int fd[HCT_MAX_SETS][HCT_MAX_SET_EVENTS]; /* -1 when the set is not open */
    int usable[HCT_MAX_SETS];  /* 0 once the set could not be opened on this thread */
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

/* Opens events as one group; returns how many joined (the first failing
 * one ends the group), the fds in fds[]. */
static int open_group(const hct_event *ev, int nevents, int *fds, int enable)
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

static void close_fds(int *fds, int n)
{
    for (int k = 0; k < n; k++)
        close(fds[k]);
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
            s->member[s->nvalues] = member(ev->name, ev->desc, ev->unit_ns ? HCA_UNIT_NS : HCA_UNIT_COUNT,
                                           ev->hardware ? OTF2_METRIC_TYPE_PAPI : OTF2_METRIC_TYPE_OTHER);
            refs[s->nvalues] = C.member_ref[s->member[s->nvalues]];
            s->nvalues++;
        }
        if (s->hardware) {
            s->member[s->nvalues] =
                member(HCA_PERF_TIME_ENABLED, "ns the counter set was enabled (with " HCA_PERF_TIME_RUNNING ": multiplexing)",
                       HCA_UNIT_NS, OTF2_METRIC_TYPE_OTHER);
            refs[s->nvalues] = C.member_ref[s->member[s->nvalues]];
            s->nvalues++;
            s->member[s->nvalues] =
                member(HCA_PERF_TIME_RUNNING, "ns the counter set was counting on the PMU; less than " HCA_PERF_TIME_ENABLED
                       " when the kernel multiplexed it",
                       HCA_UNIT_NS, OTF2_METRIC_TYPE_OTHER);
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

/* ---- load time: the sets wanted, in perf group order -------------------------- */

/* A set before the kernel has seen it: what does not fit in one perf group
 * (HCT_MAX_SET_EVENTS) goes on in the next set. */
#define PEND_MAX (HCT_MAX_SET_EVENTS + 2)
typedef struct {
    hct_event ev[PEND_MAX];
    int unit[PEND_MAX]; /* the model group of each event, -1 if none */
    int nevents;
    int from_model;     /* its events are reported in the model's line */
} pending_set;

static int pending_has(const pending_set *p, const char *name)
{
    for (int k = 0; k < p->nevents; k++)
        if (strcmp(p->ev[k].name, name) == 0)
            return 1;
    return 0;
}

static void pending_add(pending_set *p, const hct_event *ev, int unit)
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
static int arrange(pending_set *p, const hct_event *base, int nbase, int *group_len)
{
    static pending_set all; /* load time only */
    int isb[PEND_MAX], order[PEND_MAX];
    all.nevents = 0;
    for (int b = 0; b < nbase; b++)
        pending_add(&all, &base[b], -1);
    for (int k = 0; k < p->nevents; k++)
        pending_add(&all, &p->ev[k], p->unit[k]);
    for (int k = 0; k < all.nevents; k++)
        isb[k] = k < nbase;
    int prefix = hct_set_order(all.unit, isb, all.nevents, order);
    *group_len = 0;
    while (*group_len < all.nevents && all.unit[order[*group_len]] >= 0 &&
           all.unit[order[*group_len]] == all.unit[order[0]])
        (*group_len)++;
    p->nevents = 0;
    for (int j = 0; j < all.nevents; j++)
        pending_add(p, &all.ev[order[j]], all.unit[order[j]]);
    return prefix;
}

static void drop_event(pending_set *p, int k)
{
    memmove(&p->ev[k], &p->ev[k + 1], (size_t)(p->nevents - k - 1) * sizeof(p->ev[0]));
    memmove(&p->unit[k], &p->unit[k + 1], (size_t)(p->nevents - k - 1) * sizeof(p->unit[0]));
    p->nevents--;
}

/* The wanted sets -> C.set: each is opened once as a perf group; the kernel
 * knows the real constraints, so a set it refuses (or one too long) is split
 * where it stopped, before a model group rather than inside it, and an event
 * that does not join even instructions and cycles (or its group's leader) is
 * left out. Returns 1 when HCT_MAX_SETS ran out. */
static int build_sets(const pending_set *want, int nwant, const hct_event *base, int nbase)
{
    static pending_set pend, rest; /* load time only */
    int full = 0;
    for (int i = 0; i < nwant && !full; i++) {
        pend = want[i];
        for (int guard = 0; pend.nevents && guard < 8 * PEND_MAX; guard++) {
            if (C.nsets >= HCT_MAX_SETS) {
                full = 1;
                break;
            }
            int group_len;
            int prefix = arrange(&pend, base, nbase, &group_len);
            int tried = pend.nevents < HCT_MAX_SET_EVENTS ? pend.nevents : HCT_MAX_SET_EVENTS;
            int fds[HCT_MAX_SET_EVENTS];
            int n = open_group(pend.ev, tried, fds, 0);
            close_fds(fds, n);
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
            ctr_set *out = &C.set[C.nsets++];
            memset(out, 0, sizeof(*out));
            for (int k = 0; k < cut; k++) {
                out->ev[out->nevents++] = pend.ev[k];
                out->hardware |= pend.ev[k].hardware;
            }
            rest.nevents = 0;
            rest.from_model = pend.from_model;
            int only_base = 1;
            for (int k = cut; k < pend.nevents; k++) {
                pending_add(&rest, &pend.ev[k], pend.unit[k]);
                only_base &= is_base(&pend.ev[k], base, nbase);
            }
            if (only_base)
                rest.nevents = 0;
            pend = rest;
        }
    }
    return full;
}

/* ---- the model (HCATRACE_MODEL) ------------------------------------------------ */

/* What the trace says about the model: archive properties, set by rank 0. */
static struct {
    int loaded;
    char id[128];
    char file[4096];
    char *text;       /* the model file, verbatim */
    char *events;     /* ALIAS=member;... */
    char *missing;    /* ALIAS=why;... */
    char pmu[64];     /* libpfm4's core PMU, "none", or "" when counters are off */
} P;

/* The model's events after packing: per event, the member counting it or why not. */
typedef struct {
    size_t n;
    char (*member)[HCT_EVENT_NAME_MAX];
    char (*why)[160];
    int no_pmu; /* some were left out for want of a CPU PMU */
} model_result;

static const char *model_fallback(void)
{
    return hct.cfg.counters ? "using HCATRACE_COUNTERS only" : "using the default counters";
}

/* Finds and parses the model HCATRACE_MODEL names; NULL (said in one line) on failure. */
static hca_model *load_model(const char *want, int have_core)
{
    char path[4096], err[1024], note[256] = "";
    const char *name = want;
    int by_pmu = 0;
    if (strcmp(want, "auto") == 0) {
        name = "generic";
        if (!have_core)
            snprintf(note, sizeof(note), "libpfm4 detects no core PMU here");
        else if (hca_model_for_pmu(P.pmu, path, sizeof(path)) == 0)
            by_pmu = 1;
        else
            snprintf(note, sizeof(note), "no model for PMU %s", P.pmu);
    }
    if (!by_pmu && hca_model_find(name, path, sizeof(path), err, sizeof(err)) != 0) {
        hct_config_problem("%s; %s", err, model_fallback());
        return NULL;
    }
    hca_model *m = hca_model_load(path, err, sizeof(err));
    if (!m) {
        hct_config_problem("%s; %s", err, model_fallback());
        return NULL;
    }
    if (by_pmu)
        hct_config_problem("model %s for PMU %s (HCATRACE_MODEL=auto)", hca_model_id(m), P.pmu);
    else if (note[0])
        hct_config_problem("model %s (HCATRACE_MODEL=auto: %s)", hca_model_id(m), note);
    P.loaded = 1;
    snprintf(P.id, sizeof(P.id), "%s", hca_model_id(m));
    char *abs = realpath(path, NULL);
    snprintf(P.file, sizeof(P.file), "%s", abs ? abs : path);
    free(abs);
    P.text = hca_model_read_file(path, err, sizeof(err)); /* recorded verbatim in the trace */
    return m;
}

/* A reason for a property value (cut to fit): no ';' or '='. */
static void set_why(char *dst, size_t n, const char *text)
{
    size_t k = 0;
    for (; text[k] && k + 1 < n; k++)
        dst[k] = text[k] == ';' ? ',' : text[k] == '=' ? ':' : text[k];
    dst[k] = 0;
}

/* The model's events -> pending sets (want[0..]), instructions and cycles
 * (base) in each when the PMU has them. Returns the number of sets. */
static int model_sets(const hca_model *m, const hct_event *base, int nbase, const hct_pmu_caps *caps,
                      pending_set *want, int maxsets, model_result *r)
{
    size_t ne = hca_model_nevents(m), ng = hca_model_ngroups(m);
    int n = nbase + (int)ne;
    hct_event *ev = calloc((size_t)n, sizeof(*ev));
    int *usable = calloc((size_t)n, sizeof(int)), *same_as = calloc((size_t)n, sizeof(int));
    int *where = calloc((size_t)n, sizeof(int)), *gsize = calloc(ng + 1, sizeof(int));
    int **groups = calloc(ng + 1, sizeof(int *));
    hct_packing *pk = calloc(1, sizeof(*pk));
    r->n = ne;
    r->member = calloc(ne + 1, sizeof(*r->member));
    r->why = calloc(ne + 1, sizeof(*r->why));
    int nsets = 0, ok = ev && usable && same_as && where && gsize && groups && pk && r->member && r->why;
    for (size_t g = 0; ok && g < ng; g++) {
        size_t gn = 0;
        const size_t *members = hca_model_group_at(m, g, &gn);
        groups[g] = calloc(gn + 1, sizeof(int));
        ok = groups[g] != NULL;
        for (size_t k = 0; ok && k < gn; k++)
            groups[g][k] = nbase + (int)members[k];
        gsize[g] = (int)gn;
    }
    if (!ok) { /* nothing counted, nothing reported */
        free(r->member);
        free(r->why);
        r->member = NULL;
        r->why = NULL;
        r->n = 0;
        goto out;
    }
    for (int b = 0; b < nbase; b++) {
        ev[b] = base[b];
        usable[b] = 1;
    }
    for (size_t i = 0; i < ne; i++) {
        const hca_model_event *e = hca_model_event_at(m, i);
        hct_event *x = &ev[nbase + (int)i];
        char why[256];
        int rc = hct_model_event_resolve(e, x, why, sizeof(why));
        if ((rc == HCT_EV_OK && x->hardware && !C.has_pmu) || (rc == HCT_EV_OTHER_PMU && !C.has_pmu)) {
            set_why(r->why[i], sizeof(r->why[i]), "no CPU PMU");
            r->no_pmu = 1;
        } else if (rc == HCT_EV_OK) {
            int err = open_alone(x);
            if (err) {
                char text[200];
                snprintf(text, sizeof(text), "refused by the kernel: %s", strerror(err));
                set_why(r->why[i], sizeof(r->why[i]), text);
            }
            usable[nbase + (int)i] = err == 0;
        } else if (rc == HCT_EV_OTHER_PMU || rc == HCT_EV_INVALID) {
            set_why(r->why[i], sizeof(r->why[i]), why);
        } else {
            set_why(r->why[i], sizeof(r->why[i]), "unknown here");
        }
    }
    nsets = hct_model_pack(ev, usable, n, nbase, (const int *const *)groups, gsize, (int)ng, caps, same_as, where, pk);
    if (nsets > maxsets)
        nsets = maxsets;
    for (size_t i = 0; i < ne; i++) {
        int k = nbase + (int)i;
        if (where[k] >= 0)
            snprintf(r->member[i], sizeof(r->member[i]), "%s", ev[same_as[k]].name);
        else if (where[k] == HCT_PACK_TOO_BIG)
            set_why(r->why[i], sizeof(r->why[i]), "its group needs more counters than one set has");
        else if (where[k] == HCT_PACK_NO_ROOM)
            set_why(r->why[i], sizeof(r->why[i]), "more counter sets than the tracer keeps");
    }
    for (int s = 0; s < nsets; s++) {
        pending_set *p = &want[s];
        memset(p, 0, sizeof(*p));
        p->from_model = 1;
        for (int k = 0; k < pk->nevents[s]; k++) {
            int idx = pk->ev[s][k], unit = -1;
            for (int g = 0; g < (int)ng && unit < 0; g++)
                for (int j = 0; j < gsize[g]; j++)
                    if (groups[g][j] == idx)
                        unit = g;
            pending_add(p, &ev[idx], unit);
        }
    }
out:
    for (size_t g = 0; groups && g < ng; g++)
        free(groups[g]);
    free(groups);
    free(gsize);
    free(pk);
    free(where);
    free(same_as);
    free(usable);
    free(ev);
    return nsets;
}

static int counted(const char *name)
{
    for (int s = 0; s < C.nsets; s++)
        for (int k = 0; k < C.set[s].nevents; k++)
            if (strcmp(C.set[s].ev[k].name, name) == 0)
                return 1;
    return 0;
}

static void append(char **buf, size_t *len, size_t *cap, const char *a, const char *b, const char *c)
{
    size_t add = strlen(a) + strlen(b) + strlen(c);
    if (*len + add + 1 > *cap) {
        size_t ncap = (*len + add + 1) * 2;
        char *nb = realloc(*buf, ncap);
        if (!nb)
            return;
        *buf = nb;
        *cap = ncap;
    }
    *len += (size_t)snprintf(*buf + *len, *cap - *len, "%s%s%s", a, b, c);
}

/* After build_sets: what the model counts here, as properties and one line. */
static void model_report(const hca_model *m, model_result *r, int full, int using_defaults)
{
    if (!r->member || !r->why)
        return;
    size_t ne = r->n, nmissing = 0, len[2] = { 0, 0 }, cap[2] = { 0, 0 };
    char *prop[2] = { NULL, NULL }; /* events, missing */
    const char *first_why = NULL;
    int one_why = 1;
    for (size_t i = 0; i < ne; i++) {
        if (r->member[i][0] && !counted(r->member[i])) {
            set_why(r->why[i], sizeof(r->why[i]),
                    full ? "more counter sets than the tracer keeps" : "refused by the kernel in a group");
            r->member[i][0] = 0;
        }
        const char *alias = hca_model_event_at(m, i)->name;
        int c = r->member[i][0] != 0;
        if (!c) {
            nmissing++;
            if (first_why && strcmp(first_why, r->why[i]) != 0)
                one_why = 0;
            if (!first_why)
                first_why = r->why[i];
        }
        append(&prop[!c], &len[!c], &cap[!c], len[!c] ? ";" : "", alias, "=");
        append(&prop[!c], &len[!c], &cap[!c], c ? r->member[i] : r->why[i], "", "");
    }
    P.events = prop[0];
    P.missing = prop[1];
    if (!nmissing)
        return;
    char line[900], list[700] = "", counting[300] = "";
    size_t ll = 0, lc = 0;
    for (size_t i = 0; i < ne; i++) {
        const char *alias = hca_model_event_at(m, i)->name;
        char *dst = r->member[i][0] ? counting : list;
        size_t *used = r->member[i][0] ? &lc : &ll, size = r->member[i][0] ? sizeof(counting) : sizeof(list);
        int w = snprintf(dst + *used, size - *used, "%s%s%s%s%s", *used ? ", " : "", alias,
                         one_why || r->member[i][0] ? "" : " (", one_why || r->member[i][0] ? "" : r->why[i],
                         one_why || r->member[i][0] ? "" : ")");
        if (w > 0 && *used + (size_t)w < size)
            *used += (size_t)w;
        else if (size - *used > 4)
            snprintf(dst + *used, size - *used, "...");
    }
    snprintf(line, sizeof(line), "model %s: %zu of %zu events cannot be counted here%s%s%s: %s; %s%s", hca_model_id(m),
             nmissing, ne, one_why ? " (" : "", one_why ? first_why : "", one_why ? ")" : "", list,
             lc ? "counting " : using_defaults ? "using the default counters" : "counting nothing", counting);
    hct_config_problem("%s", line);
}

void hct_counters_properties(OTF2_Archive *archive)
{
    if (archive && P.pmu[0])
        OTF2_Archive_SetProperty(archive, HCA_PROP_PMU, P.pmu, true);
    if (archive && P.loaded) {
        OTF2_Archive_SetProperty(archive, HCA_PROP_MODEL, P.id[0] ? P.id : "?", true);
        OTF2_Archive_SetProperty(archive, HCA_PROP_MODEL_FILE, P.file, true);
        if (P.text && P.text[0])
            OTF2_Archive_SetProperty(archive, HCA_PROP_MODEL_TEXT, P.text, true);
        if (P.events && P.events[0])
            OTF2_Archive_SetProperty(archive, HCA_PROP_MODEL_EVENTS, P.events, true);
        if (P.missing && P.missing[0])
            OTF2_Archive_SetProperty(archive, HCA_PROP_MODEL_MISSING, P.missing, true);
    }
    free(P.text);
    free(P.events);
    free(P.missing);
    P.text = P.events = P.missing = NULL;
}

/* ---- load time: the whole setup ---------------------------------------------- */

void hct_counters_setup(void)
{
    if (hct.cfg.counters_off) {
        if (hct.cfg.model)
            hct_config_problem("HCATRACE_MODEL=%.200s ignored: HCATRACE_COUNTERS is off", hct.cfg.model);
        return;
    }
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
    int ncntrs = 0, nfixed = 0;
    int have_core = hct_core_pmu(P.pmu, sizeof(P.pmu), &ncntrs, &nfixed) == 0;
    if (!have_core)
        snprintf(P.pmu, sizeof(P.pmu), HCA_PMU_NONE);
    hct_event base[2] = { instructions, cycles };
    int nbase = C.has_pmu ? 2 : 0;

    pending_set *want = calloc(HCT_MAX_SETS + HCT_MAX_SPEC_SETS, sizeof(*want));
    if (!want) {
        hct_config_problem("no counters (out of memory); recording time and call stacks");
        return;
    }
    int nwant = 0;
    model_result mr;
    memset(&mr, 0, sizeof(mr));
    hca_model *model = hct.cfg.model ? load_model(hct.cfg.model, have_core) : NULL;
    if (model) {
        hct_pmu_caps caps;
        if (have_core)
            hct_pmu_caps_make(P.pmu, ncntrs, nfixed, hct_cpu_has_smt(), C.has_pmu, &caps);
        else
            hct_pmu_caps_unknown(C.has_pmu, &caps);
        nwant = model_sets(model, base, nbase, &caps, want, HCT_MAX_SETS, &mr);
    }
    int model_counts = nwant > 0;

    const char *spec = hct.cfg.counters;
    hct_set_spec sets;
    int using_defaults = 0;
    int spec_rc = spec ? hct_set_spec_parse(spec, &sets, why, sizeof(why)) : 0;
    if (spec && (spec_rc != 0 || sets.nsets == 0)) {
        hct_config_problem("invalid value '%.200s' for HCATRACE_COUNTERS (%s); %s", spec,
                           spec_rc != 0 ? why : "no event",
                           model_counts ? "counting the model's events only" : "using the default counters");
        spec = NULL;
    }
    if (!spec) {
        sets.nsets = 0;
        if (!model_counts) {
            using_defaults = 1;
            hct_set_spec_parse(C.has_pmu ? DEFAULT_PMU_SETS : DEFAULT_SW_SETS, &sets, why, sizeof(why));
        }
    }
    int hw_missing = 0;
    for (int i = 0; i < sets.nsets; i++) {
        pending_set *s = &want[nwant];
        memset(s, 0, sizeof(*s));
        for (int k = 0; k < sets.nevents[i]; k++) {
            const char *name = sets.names[i][k];
            hct_event ev;
            int rc = hct_event_resolve(name, &ev, why, sizeof(why));
            if ((rc == HCT_EV_OK && ev.hardware && !C.has_pmu) || (rc == HCT_EV_OTHER_PMU && !C.has_pmu)) {
                hw_missing++; /* said once, in the no-PMU line */
            } else if (rc == HCT_EV_OK) {
                int e = open_alone(&ev);
                if (e == 0) {
                    pending_add(s, &ev, -1);
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
    if (!C.has_pmu && (using_defaults || hw_missing || mr.no_pmu))
        hct_config_problem("no hardware counters (%s); recording time, software events and call stacks", reason);

    int full = build_sets(want, nwant, base, nbase);
    if (full)
        hct_config_problem("more than %d counter sets; the last ones are left out", HCT_MAX_SETS);
    if (model) {
        model_report(model, &mr, full, using_defaults);
        hca_model_free(model);
    }
    free(mr.member);
    free(mr.why);
    free(want);
    define_sets();
    int nfds = 0;
    for (int i = 0; i < C.nsets; i++)
        nfds += C.set[i].nevents;
    C.lazy = nfds > LAZY_FDS;
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
    if (c->fd[set][0] < 0) /* not open on this thread */
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
    if (c->fd[set][0] >= 0)
        ioctl(c->fd[set][0], PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
}

static void enable(hct_ctr_thread *c, int set)
{
    if (c->fd[set][0] >= 0)
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

static void close_set(hct_ctr_thread *c, int set)
{
    long page = sysconf(_SC_PAGESIZE);
    for (int k = 0; k < HCT_MAX_SET_EVENTS; k++) {
        if (c->page[set][k])
            munmap(c->page[set][k], (size_t)page);
        c->page[set][k] = NULL;
        if (c->fd[set][k] >= 0)
            close(c->fd[set][k]);
        c->fd[set][k] = -1;
    }
    c->rdpmc[set] = 0;
}

/* Opens a set as a disabled group on this thread; 0, or -1 (and the set is
 * left out on this thread from then on). */
static int open_set(hct_ctr_thread *c, int set)
{
    int n = open_group(C.set[set].ev, C.set[set].nevents, c->fd[set], 0);
    if (n != C.set[set].nevents) {
        close_fds(c->fd[set], n);
        for (int k = 0; k < n; k++)
            c->fd[set][k] = -1;
        c->usable[set] = 0;
        return -1;
    }
#if defined(__x86_64__)
    try_rdpmc(c, set);
#endif
    return 0;
}

hct_ctr_thread *hct_counters_thread_start(uint32_t start_set)
{
    if (!C.nsets)
        return NULL;
    hct_ctr_thread *c = calloc(1, sizeof(*c));
    if (!c)
        return NULL;
    c->tid = (pid_t)syscall(SYS_gettid);
    for (int i = 0; i < C.nsets; i++) {
        for (int k = 0; k < HCT_MAX_SET_EVENTS; k++)
            c->fd[i][k] = -1;
        c->usable[i] = 1;
    }
    /* the first set that opens, from this thread's starting set on (and, when
     * not lazy, all the others too) */
    int first = (int)(start_set % (uint32_t)C.nsets), cur = -1;
    for (int i = 0; i < C.nsets && (cur < 0 || !C.lazy); i++)
        if (open_set(c, (first + i) % C.nsets) == 0 && cur < 0)
            cur = (first + i) % C.nsets;
    if (cur < 0) {
        free(c);
        return NULL;
    }
    c->cur = cur;
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
    /* the next set that opens on this thread */
    int to = c->cur;
    for (;;) {
        do
            to = (to + 1) % C.nsets;
        while (!c->usable[to] && to != c->cur);
        if (to == c->cur)
            return;
        if (c->fd[to][0] >= 0 || open_set(c, to) == 0)
            break;
    }
    uint64_t raw[MAX_VALUES];
    disable(c, c->cur);
    int n = read_raw(c, to, raw, 1); /* disabled: frozen */
    if (n < 0) {
        enable(c, c->cur);
        if (C.lazy)
            close_set(c, to);
        return;
    }
    const ctr_set *s = &C.set[to];
    for (int k = 0; k < n; k++)
        c->offset[to][k] = c->last[s->member[k]] - raw[k];
    int from = c->cur;
    enable(c, to);
    c->cur = to; /* a sample from now on reads the new set */
    if (C.lazy)
        close_set(c, from);
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
    for (int i = 0; i < C.nsets; i++)
        close_set(c, i);
    free(c);
}
