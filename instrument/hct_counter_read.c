/* hct_counter_read.c: a thread's counter sets: opened as disabled groups,
 * enabled one at a time, read with one read() or, where the architecture and
 * the kernel allow it (arch/hct_arch.h), in user space from the perf mmap page
 * after a read() - user read - read() check; sets of software events only,
 * when hct_ctr.no_perf, without perf events (hct_counter_rusage.h: nothing
 * open, enabled or disabled). The read is also used by the sampling handler:
 * no locks, no allocation. */
#include "hct_counter_read.h"

#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "arch/hct_arch.h"

/* ---- reading (also from the signal handler: no locks, no allocation) --------- */

#if HCT_ARCH_USER_READ
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
            int64_t pmc = (int64_t)hct_arch_pmc_read(idx - 1);
            if (width > 0 && width < 64) {
                pmc = (int64_t)((uint64_t)pmc << (64 - width));
                pmc >>= 64 - width;
            }
            cnt += (uint64_t)pmc;
        }
        if (pc->cap_user_time && ena != run) {
            uint64_t cyc = hct_arch_timestamp();
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
    const hct_ctr_set *s = &hct_ctr.set[set];
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

int hct_ctr_read_raw(const hct_ctr_thread *c, int set, uint64_t *raw, int owner)
{
    if (hct_ctr.set[set].no_perf) /* on the calling thread: the owner (or its signal handler) */
        return hct_rusage_read(&hct_ctr.set[set].rusage, raw);
    if (c->fd[set][0] < 0) /* not open on this thread */
        return -1;
#if HCT_ARCH_USER_READ
    if (c->rdpmc[set] && owner) {
        const hct_ctr_set *s = &hct_ctr.set[set];
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

/* ---- per thread --------------------------------------------------------------- */

void hct_ctr_disable(hct_ctr_thread *c, int set)
{
    if (c->fd[set][0] >= 0)
        ioctl(c->fd[set][0], PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
}

void hct_ctr_enable(hct_ctr_thread *c, int set)
{
    if (c->fd[set][0] >= 0)
        ioctl(c->fd[set][0], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
}

#if HCT_ARCH_USER_READ
/* rdpmc only for all-hardware sets whose every page allows it, and only if a
 * read() - rdpmc - read() sequence agrees. */
static void try_rdpmc(hct_ctr_thread *c, int set)
{
    const hct_ctr_set *s = &hct_ctr.set[set];
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
    uint64_t a[MAX_VALUES] = { 0 }, b[MAX_VALUES] = { 0 }, d[MAX_VALUES] = { 0 };
    c->rdpmc[set] = 1;
    int ok = read_group(c, set, a) > 0 && hct_ctr_read_raw(c, set, b, 1) > 0 && read_group(c, set, d) > 0;
    for (int k = 0; ok && k < s->nevents; k++)
        ok = a[k] <= b[k] && b[k] <= d[k];
    c->rdpmc[set] = ok;
}
#endif

void hct_ctr_close_set(hct_ctr_thread *c, int set)
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
int hct_ctr_open_set(hct_ctr_thread *c, int set)
{
    if (hct_ctr.set[set].no_perf) { /* nothing to open: its values continue from the members' last ones */
        const hct_ctr_set *s = &hct_ctr.set[set];
        uint64_t raw[MAX_VALUES];
        if (hct_rusage_read(&s->rusage, raw) != s->nevents) {
            c->usable[set] = 0;
            return -1;
        }
        for (int k = 0; k < s->nevents; k++)
            c->offset[set][k] = c->last[s->member[k]] - raw[k];
        return 0;
    }
    int n = hct_ctr_open_group(hct_ctr.set[set].ev, hct_ctr.set[set].nevents, c->fd[set], 0);
    if (n != hct_ctr.set[set].nevents) {
        hct_ctr_close_fds(c->fd[set], n);
        for (int k = 0; k < n; k++)
            c->fd[set][k] = -1;
        c->usable[set] = 0;
        return -1;
    }
#if HCT_ARCH_USER_READ
    try_rdpmc(c, set);
#endif
    return 0;
}
