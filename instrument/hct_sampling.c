/* hct_sampling.c: coarse per-thread sampling. Each traced thread gets its own
 * interrupt source: a perf_event task-clock counter that overflows after a
 * jittered period of the thread's CPU time (precise: an hrtimer), or, where
 * perf_event_open is forbidden, a POSIX CPU-time timer (tick-quantized). Both
 * raise SIGPROF on that thread. The handler only takes a timestamp, reads the
 * thread's counter set right after it, unwinds with unw_backtrace into a
 * preallocated per-thread ring and re-arms the interrupt; a sample that lands
 * inside the tracer is taken when the thread leaves it (hct_sample_defer.h),
 * one that finds the ring full is counted as lost. Each sample's
 * cost is measured and added to the thread's tool time (hct_tooltime.h): the
 * handler's own time (from its first clock reading to the re-armed interrupt)
 * and, where the source says when its interrupt was due (the perf source: each
 * overflow's kernel timestamp and count, in a small perf ring buffer), the
 * delivery from then to the handler (hct_delivery.h). Each sample
 * carries the total as it was before it (docs/trace-format.md, "Tool time").
 * Rings are drained into OTF2 CallingContextSample events
 * (with their counter values as a Metric just before) at region boundaries and
 * at the end, on the owning thread, or by the finishing thread after the
 * owners stopped. */
#include "hct_sampling.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include "arch/hct_arch.h"
#include "hct_callsite.h"
#include "hct_path.h"
#include "hct_prefault.h"
#include "hct_counter_rotation.h"
#include "hct_delivery.h"
#include "hct_diag.h"
#include "hct_frame_keys.h"
#include "hct_sampling_wall.h"
#include "hct_self.h"
#include "hct_sleep.h"
#include "hct_rescue.h"
#include "hct_ring.h"
#include "hct_tooltime.h"

#define MAX_FRAMES 64
#define MAX_VALUES 16
#define SKIP_MAX 8 /* frames of the handler and the signal trampoline */
/* sampled calling contexts the tables are sized and touched for when sampling
 * starts (they grow past it): a LULESH job at 8 ranks makes 812 in all, a
 * rank's fewer; 8,192 held 0.7 MiB of every rank resident (docs/benchmarks.md,
 * "At 8 ranks, LULESH") */
#define HCT_SAMPLE_CC_RESERVE 2048u
#define MAX_CATCHUP 128 /* SRC_WALL: expiries one signal stands for, at most (docs/trace-format.md, "Samples") */
#define HCT_CPU_DUE_MARGIN_NS 250000u /* the CPU-time sources' interrupts against their due time */

enum { SRC_NONE, SRC_PERF, SRC_TIMER, SRC_WALL /* hct_sampling_wall.c */ };
#define NSTATS HCA_NSTATS /* members of the sampling-statistics class (hca_schema.h) */

typedef struct {
    uint32_t size;
    uint8_t set, nvalues, depth, flags;
    uint64_t ts;
    uint64_t tool_ns, tool_cpu_ns; /* the thread's tool time before this sample */
    uint64_t data[]; /* nvalues counter values, then depth addresses, leaf first */
} sample_rec;
#define REC_TRUNCATED 1

struct hct_smp_thread {
    hct_smp_head head; /* first: hct_sampling_taken reads it */
    hct_thread *t;
    hct_ring ring;
    hct_prefault pages; /* the ring's pages resident ahead of the handler */
    void *mem;
    size_t memsize;
    volatile sig_atomic_t armed, warming;
    hct_wall_probe probe; /* SRC_WALL: hct_wall_measure's signals */
    volatile sig_atomic_t lapsed; /* an interrupt landed while parked: not re-armed (hct_sampling_park) */
    int fd;          /* SRC_PERF */
    struct perf_event_mmap_page *ovf; /* SRC_PERF: its ring of overflow times, or NULL */
    size_t ovf_size;                  /* mapped bytes: the header page and the data page */
    uint64_t armed_period;            /* SRC_PERF: the period armed last, ns of task-clock */
    uint64_t last_count;              /* SRC_PERF: the event's count when last re-armed (0: unknown) */
    uint64_t delivery, handler_last;  /* the last delivery and handler's time counted, ns */
    timer_t timer;   /* SRC_TIMER */
    int has_timer;
    uint64_t rng, cpu_target; /* SRC_TIMER: the thread CPU time of the next interrupt */
    uint64_t wall_due;  /* SRC_WALL: when the timer expires next */
    /* SRC_PERF, SRC_TIMER: the next interrupt at the thread's CPU time
     * cpu_due at the earliest, set with a known point (cpu_ref at cpu_wall
     * or later) when armed, cpu_seq odd meanwhile (the handler's; read by
     * hct_sampling_due_within); own_*: that function's own last reading */
    volatile uint32_t cpu_seq;
    uint64_t cpu_due, cpu_ref, cpu_wall, own_cpu, own_wall;
    uint64_t wall_stamps[MAX_CATCHUP]; /* SRC_WALL: the expiries the current signal stands for */
    int wall_nstamps;
    /* SRC_WALL: the thread's CPU time ran_cpu read at wall time ran_wall or
     * earlier in the last sample's handler (ran_known), and its tool CPU time
     * when that handler ended: what a late signal's expiries are checked
     * against (wall_drop_ran) */
    uint64_t ran_cpu, ran_wall, ran_tool;
    int ran_known;
    volatile uint64_t lost_in_tool, lost_full; /* written by the handler only */
    volatile int deferred_n;                    /* expiries of a sample deferred to the tracer's exit */
    volatile uint64_t deferred;                 /* samples taken at the tracer's exit (the handler only) */
    volatile uint64_t handler_ns;               /* time in the handler, samples taken */
    volatile uint64_t delivery_ns;              /* ... and delivering their interrupts, where known */
    uint64_t drain_ns;                          /* time writing samples into the trace */
    uint64_t stats_written[NSTATS];
    uint64_t samples, lost_no_context, truncated;
    _Atomic int draining;
};

static struct {
    int source;
    int user_only; /* the perf source cannot see kernel time (perf_event_paranoid) */
    uint64_t period, jitter; /* ns */
    hca_ref igen, stats_class;
    struct sigaction old;
    int installed;
    _Atomic int latency_claimed; /* SRC_WALL: the first thread measures the interrupt latency... */
    _Atomic uint64_t wall_latency; /* ... in ns (hct_delivery.h, hct_wall_stopped) */
    _Atomic uint64_t return_ns;    /* ... and the handler's return, counted with its time */
} S;

static HCT_TLS hct_smp_thread *tls_smp;

/* totals of the threads already closed, for HCATRACE_VERBOSE=2 */
static struct {
    _Atomic uint64_t samples, lost_in_tool, lost_full, lost_no_context, handler_ns, delivery_ns, drain_ns, deferred;
} totals;

/* ---- periods: jittered, deterministic per thread ------------------------------ */

static inline uint64_t next_period(hct_smp_thread *s)
{
    uint64_t x = s->rng; /* xorshift64 */
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    s->rng = x;
    if (!S.jitter)
        return S.period;
    return S.period - S.jitter + x % (2 * S.jitter + 1);
}

static inline uint64_t thread_cpu_ns(void)
{
    return hct_thread_cpu_ns();
}

/* The CPU-time sources: the next interrupt due at the thread's CPU time
 * `due` at the earliest, the CPU time `cpu` read at `wall` or later. */
static void cpu_due_set(hct_smp_thread *s, uint64_t wall, uint64_t cpu, uint64_t due)
{
    s->cpu_seq++;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    s->cpu_wall = wall;
    s->cpu_ref = cpu;
    s->cpu_due = due;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    s->cpu_seq++;
}

static void arm_timer(hct_smp_thread *s)
{
    uint64_t wall = hca_clock_now(), now = thread_cpu_ns();
    s->cpu_target += next_period(s);
    if (s->cpu_target <= now) /* behind (signal blocked a while): no burst */
        s->cpu_target = now + next_period(s);
    cpu_due_set(s, wall, now, s->cpu_target);
    struct itimerspec it;
    memset(&it, 0, sizeof(it));
    it.it_value.tv_sec = (time_t)(s->cpu_target / 1000000000ull);
    it.it_value.tv_nsec = (long)(s->cpu_target % 1000000000ull);
    timer_settime(s->timer, TIMER_ABSTIME, &it, NULL);
}

HCT_TLS uint64_t hct_sampling_quiet_until_ticks;

/* The wall-clock source's next expiry `due` (monotonic), in hct_ticks.h's
 * clock: kept-back enters compare with it without reading a clock. */
static void quiet_until(uint64_t due)
{
    uint64_t mono = hca_clock_now(), ticks = hct_ticks_now();
    hct_sampling_quiet_until_ticks = due > mono ? ticks + hct_ticks_of_ns(due - mono) : ticks;
}

static void rearm(hct_smp_thread *s)
{
    if (S.source == SRC_WALL) {
        quiet_until(s->wall_due); /* on the thread itself: the handler, or resumed */
        hct_wall_timer_arm_at(s->timer, s->wall_due);
    } else if (S.source == SRC_PERF) {
        /* the count it resumes from: disabled since shortly after the overflow */
        uint64_t count = 0;
        s->last_count = s->ovf && read(s->fd, &count, sizeof(count)) == (ssize_t)sizeof(count) ? count : 0;
        uint64_t p = next_period(s), wall = hca_clock_now(), cpu = thread_cpu_ns();
        cpu_due_set(s, wall, cpu, cpu + p); /* counted from the refresh below: later */
        ioctl(s->fd, PERF_EVENT_IOC_PERIOD, &p);
        ioctl(s->fd, PERF_EVENT_IOC_REFRESH, 1);
        s->armed_period = p;
    } else {
        arm_timer(s);
    }
}

/* ---- the handler: async-signal-safe only ------------------------------------- */

/* SRC_PERF: when the last overflow was due (CLOCK_MONOTONIC ns, hct_perf_due),
 * 0 when unknown; the ring emptied. Async-signal-safe: memory reads only. */
static uint64_t perf_overflow_due(hct_smp_thread *s)
{
    struct perf_event_mmap_page *pg = s->ovf;
    if (!pg)
        return 0;
    uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE), tail = pg->data_tail;
    const unsigned char *data = (const unsigned char *)pg + pg->data_offset;
    uint64_t size = pg->data_size, body[2] = { 0, 0 }; /* PERF_SAMPLE_TIME, PERF_SAMPLE_READ */
    while (tail + sizeof(struct perf_event_header) <= head) {
        struct perf_event_header h;
        for (size_t i = 0; i < sizeof(h); i++) /* a record may wrap around the end */
            ((unsigned char *)&h)[i] = data[(tail + i) % size];
        if (h.size < sizeof(h))
            break;
        if (h.type == PERF_RECORD_SAMPLE && h.size >= sizeof(h) + sizeof(body))
            for (size_t i = 0; i < sizeof(body); i++)
                ((unsigned char *)body)[i] = data[(tail + sizeof(h) + i) % size];
        tail += h.size;
    }
    __atomic_store_n(&pg->data_tail, head, __ATOMIC_RELEASE);
    return body[0] ? hct_perf_due(body[0], body[1], s->last_count, s->armed_period) : 0;
}

/* Takes a sample at time ts (the handler's first reading of the clock) into a
 * reserved record, returned uncommitted (NULL when lost). The timestamp and the
 * counter values are read back to back, in the order of a region boundary
 * (hct_boundary: time, then counters), so that both carry the same small
 * offset between the clock and the counters, which folding cancels
 * (docs/trace-format.md, "Metric events"). */
/* Space for a record in the ring, its pages resident beforehand. */
static void *reserve(hct_smp_thread *s, uint64_t size)
{
    uint64_t head = atomic_load_explicit(&s->ring.head, memory_order_relaxed);
    hct_prefault_ahead(&s->pages, (size_t)(head % s->ring.cap + hct_ring_round(size)));
    return hct_ring_reserve(&s->ring, size);
}

static sample_rec *take_sample(hct_smp_thread *s, const ucontext_t *uc, uint64_t ts, int asleep)
{
    uint64_t values[MAX_VALUES];
    int set = 0, nvalues = 0;
    if (s->t->ctr) {
        nvalues = hct_counters_read_signal(s->t->ctr, &set, values);
        if (nvalues < 0 || nvalues > MAX_VALUES)
            nvalues = 0;
    }
    void *ips[MAX_FRAMES + SKIP_MAX];
    int n = unw_backtrace(ips, MAX_FRAMES + SKIP_MAX);
    uintptr_t pc = hct_arch_pc(uc);
    int first = HCT_ARCH_HAS_PC || n <= 0 ? -1 : 0; /* without the pc: the stack as unwound */
    for (int i = 0; HCT_ARCH_HAS_PC && i < n && i < SKIP_MAX + 1; i++)
        if ((uintptr_t)ips[i] == pc) {
            first = i;
            break;
        }
    int depth;
    const uintptr_t *frames;
    if (first >= 0) {
        depth = n - first;
        frames = (const uintptr_t *)&ips[first];
    } else { /* the unwinder lost its way: the interrupted address alone */
        depth = 1;
        frames = &pc;
    }
    int truncated = n == MAX_FRAMES + SKIP_MAX || depth > MAX_FRAMES;
    if (depth > MAX_FRAMES)
        depth = MAX_FRAMES;
    uint64_t size = sizeof(sample_rec) + ((uint64_t)nvalues + (uint64_t)depth) * sizeof(uint64_t);
    sample_rec *r = reserve(s, size);
    if (!r) {
        s->lost_full++;
        return NULL;
    }
    r->size = (uint32_t)hct_ring_round(size);
    r->set = (uint8_t)set;
    r->nvalues = (uint8_t)nvalues;
    r->depth = (uint8_t)depth;
    r->flags = truncated ? REC_TRUNCATED : 0;
    r->ts = S.source == SRC_WALL ? hct_wall_stamp(s->wall_stamps[0], ts, s->wall_nstamps, asleep) : ts;
    memcpy(r->data, values, (size_t)nvalues * sizeof(uint64_t));
    memcpy(r->data + nvalues, frames, (size_t)depth * sizeof(uint64_t));
    return r;
}

/* SRC_WALL: the expiries up to now, on a schedule of jittered periods that
 * does not depend on when the signals arrive (hct_sampling_wall.c) */
static void wall_catch_up(hct_smp_thread *s, uint64_t now)
{
    int n = 0;
    while (s->wall_due <= now && n < MAX_CATCHUP) {
        s->wall_stamps[n++] = s->wall_due;
        s->wall_due += next_period(s);
    }
    if (n == 0) /* not ours to be early, but then: now */
        s->wall_stamps[n++] = now;
    s->wall_nstamps = n;
    while (s->wall_due <= now) /* more than MAX_CATCHUP behind: the schedule starts again */
        s->wall_due = now + next_period(s);
}

/* SRC_WALL: the expiries of the signal being handled at which the thread's
 * CPU clock shows that it still ran (hct_wall_first_unrun) are dropped from
 * wall_stamps, their sample restamped: with none left, when its values were
 * read (t0). Then the thread's CPU time read for the next signal. */
static void wall_drop_ran(hct_smp_thread *s, sample_rec *r, uint64_t t0, int asleep)
{
    uint64_t cpu = thread_cpu_ns(), wall = hca_clock_now();
    if (s->ran_known && s->wall_nstamps > 0) {
        uint64_t ran = cpu > s->ran_cpu ? cpu - s->ran_cpu : 0;
        uint64_t tool = s->t->tool_cpu_ns > s->ran_tool ? s->t->tool_cpu_ns - s->ran_tool : 0;
        int n = s->wall_nstamps, first = hct_wall_first_unrun(s->wall_stamps, n, s->ran_wall, ran > tool ? ran - tool : 0);
        if (first >= n) {
            s->wall_stamps[0] = t0;
            s->wall_nstamps = 1;
        } else if (first > 0) {
            memmove(s->wall_stamps, s->wall_stamps + first, (size_t)(n - first) * sizeof(uint64_t));
            s->wall_nstamps = n - first;
        }
        if (r && first > 0)
            r->ts = hct_wall_stamp(s->wall_stamps[0], t0, s->wall_nstamps, asleep);
    }
    s->ran_cpu = cpu;
    s->ran_wall = wall;
    s->ran_known = 1;
}

/* A sample into the ring, and one copy more per further expiry it stands for
 * (ncopies: on SRC_WALL, expiries while the thread did not run), each at its
 * expiry in wall_stamps. */
static void commit_copies(hct_smp_thread *s, sample_rec *r, int ncopies)
{
    uint32_t size = r->size;
    hct_ring_commit(&s->ring, size);
    s->head.taken++;
    for (int k = 1; k < ncopies; k++) {
        sample_rec *copy = reserve(s, size);
        if (!copy) {
            s->lost_full++;
            break;
        }
        memcpy(copy, r, size);
        copy->ts = s->wall_stamps[k];
        hct_ring_commit(&s->ring, size);
        s->head.taken++;
    }
}

static void commit_sample(hct_smp_thread *s, sample_rec *r)
{
    commit_copies(s, r, S.source == SRC_WALL ? s->wall_nstamps : 1);
}

/* When the interrupt being handled was due (CLOCK_MONOTONIC ns), 0 when
 * unknown: the perf ring's overflow time, or the wall timer's last expiry it
 * stands for (hct_delivery.h counts the time from then to the handler) --
 * unless the signal woke the thread from a sleep: that wait was the program's,
 * neither its CPU time nor the tracer's (counted as the tracer's, it lowered
 * truth_app's folded CPU share by 2 points); the handler's own time still is. */
static uint64_t interrupt_due(hct_smp_thread *s, int asleep, uint64_t t0)
{
    if (S.source == SRC_PERF)
        return perf_overflow_due(s);
    if (S.source == SRC_WALL && s->wall_nstamps > 0 && !asleep) /* when the thread stopped for it */
        return hct_wall_stopped(s->wall_stamps[s->wall_nstamps - 1],
                                atomic_load_explicit(&S.wall_latency, memory_order_relaxed), t0);
    return 0;
}

/* A sample that interrupted the tracer, now that the thread left it (queued
 * by hct_sample_raise_deferred): stamped and read here, at the tracer's exit,
 * standing for every expiry the interrupted signal stood for; the timer was
 * re-armed then. */
static void take_deferred(hct_smp_thread *s, const ucontext_t *uc)
{
    int n = s->deferred_n;
    s->deferred_n = 0;
    if (n <= 0)
        return;
    if (!s->armed) { /* sampling stopped meanwhile */
        s->lost_in_tool += (uint64_t)n;
        return;
    }
    uint64_t t0 = hca_clock_now();
    /* from the queueing (a system call, the signal's delivery) to here: the tracer's */
    uint64_t start = s->t->sample_raised_ns && s->t->sample_raised_ns < t0 ? s->t->sample_raised_ns : t0;
    s->t->sample_raised_ns = 0;
    /* one sample: the expiries fell in the tracer's own time, which a reader
     * removes from the timeline (as a parked OpenMP worker's interrupt, they
     * are no sample of the program); as n copies at this one instant they
     * weighed the program's point after a boundary n times (flat_app's folded
     * edge rates 4-9 % off with the slower sanitized tracer) */
    n = 1;
    s->wall_nstamps = n;
    for (int k = 0; k < n; k++)
        s->wall_stamps[k] = t0;
    sample_rec *r = take_sample(s, uc, t0, 0); /* out of the tracer: not asleep */
    uint64_t spent = hct_tool_work(&s->handler_last, hca_clock_now() - start);
    if (r) {
        /* the queueing's part, no more than the thread's total gets: a thread
         * preempted between reading the clock and queueing the signal (its
         * timer samples meanwhile the program's) once carried 2.2 ms here that
         * the next record's total did not (docs/benchmarks.md) */
        uint64_t lead = t0 - start < spent ? t0 - start : spent;
        r->tool_ns = s->t->tool_ns + lead;
        r->tool_cpu_ns = s->t->tool_cpu_ns + lead;
        uint64_t lost = s->lost_full;
        commit_copies(s, r, n);
        s->deferred += (uint64_t)n - (s->lost_full - lost);
    }
    s->handler_ns += spent;
    s->t->tool_ns += spent;
    s->t->tool_cpu_ns += spent;
    hct_tool_note_team();
}

static void on_signal(int sig, siginfo_t *si, void *ucv)
{
    int saved_errno = errno;
    hct_smp_thread *s = tls_smp;
    int ours = 0;
    if (s && si->si_code == SI_QUEUE && si->si_value.sival_ptr == s && si->si_pid == getpid()) {
        if (s->t->in_tool) /* back inside already: at the next exit */
            s->t->sample_deferred = 1;
        else
            take_deferred(s, ucv);
        errno = saved_errno;
        return;
    }
    if (s) {
        if (s->warming && si->si_code == SI_TKILL) {
            void *ips[MAX_FRAMES + SKIP_MAX];
            unw_backtrace(ips, MAX_FRAMES + SKIP_MAX); /* first walk through a signal frame: warm */
            errno = saved_errno;
            return;
        }
        ours = S.source == SRC_PERF ? si->si_fd == s->fd && si->si_code > 0
                                    : si->si_code == SI_TIMER && si->si_value.sival_ptr == s;
    }
    if (!ours) {
        /* not our interrupt: give it to the handler that was there before */
        if ((S.old.sa_flags & SA_SIGINFO) && S.old.sa_sigaction)
            S.old.sa_sigaction(sig, si, ucv);
        else if (S.old.sa_handler != SIG_DFL && S.old.sa_handler != SIG_IGN && S.old.sa_handler)
            S.old.sa_handler(sig);
        errno = saved_errno;
        return;
    }
    if (s->probe.armed) { /* hct_wall_measure: it only needs to know when */
        s->probe.handler_end = hca_clock_now();
        s->probe.hit = 1;
        errno = saved_errno;
        return;
    }
    hct_sleep_interrupted(); /* a sleep it ends is resumed (hct_sleep.c) */
    if (s->armed && s->t->omp_parked) {
        s->lapsed = 1; /* idle in the OpenMP runtime: re-armed at its next share */
    } else if (s->armed) {
        uint64_t t0 = hca_clock_now();
        if (S.source == SRC_WALL)
            wall_catch_up(s, t0);
        int inside = s->t->in_tool;
        sample_rec *r = NULL;
        if (inside) { /* taken when the thread leaves the tracer (hct_sample_defer.h) */
            int n = s->deferred_n + (S.source == SRC_WALL ? s->wall_nstamps : 1);
            if (n > MAX_CATCHUP) {
                s->lost_in_tool += (uint64_t)(n - MAX_CATCHUP);
                n = MAX_CATCHUP;
            }
            s->deferred_n = n;
            s->t->sample_deferred = 1;
        } else {
            r = take_sample(s, ucv, t0, hct_sleep_asleep());
        }
        /* read after the sample, not between its time and counters */
        uint64_t before = hct_delivery(&s->delivery, interrupt_due(s, hct_sleep_asleep(), t0), t0);
        if (!inside && S.source == SRC_WALL)
            wall_drop_ran(s, r, t0, hct_sleep_asleep());
        int waiting = s->t->omp_waiting; /* at an OpenMP barrier: its cost holds up nothing */
        if (waiting)
            before = 0;
        if (r) {
            r->tool_ns = s->t->tool_ns + before;
            r->tool_cpu_ns = s->t->tool_cpu_ns + before;
            commit_sample(s, r);
        }
        /* re-armed after the sample: this system call (microseconds in a VM)
         * must not sit between the sample's timestamp and its counter values */
        rearm(s);
        if (!inside) { /* inside, the tracer's own measurement covers this */
            /* and its return, which it cannot time: measured once (hct_wall_measure) */
            uint64_t ret = atomic_load_explicit(&S.return_ns, memory_order_relaxed);
            uint64_t spent = hct_tool_work(&s->handler_last, hca_clock_now() - t0 + ret);
            s->handler_ns += spent;
            s->delivery_ns += before;
            if (!waiting) {
                s->t->tool_ns += before + spent;
                s->t->tool_cpu_ns += before + spent;
                hct_tool_note_team();
            }
            s->ran_tool = s->t->tool_cpu_ns; /* this handler's own time counted: not the program's */
        }
    }
    errno = saved_errno;
}

/* ---- setup ---------------------------------------------------------------------- */

static int open_source(hct_smp_thread *s)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof(a));
    a.size = sizeof(a);
    a.type = PERF_TYPE_SOFTWARE;
    a.config = PERF_COUNT_SW_TASK_CLOCK;
    a.sample_period = s->armed_period = next_period(s);
    a.disabled = 1;
    /* CPU time in the kernel counts too where allowed: an overflow there is
     * delivered on the way back to user space and lands at the system call's
     * site; user-only sampling would skip those periods silently */
    a.exclude_kernel = (unsigned)S.user_only;
    a.exclude_hv = 1;
    a.wakeup_events = 1;
    /* each overflow's time on the trace clock, into a ring read by the handler */
    a.sample_type = PERF_SAMPLE_TIME | PERF_SAMPLE_READ; /* read_format 0: the count alone */
    a.use_clockid = 1;
    a.clockid = CLOCK_MONOTONIC;
    int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0 && errno == EINVAL) { /* a kernel without clockid: overflows without their time */
        a.sample_type = 0;
        a.use_clockid = 0;
        fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
    }
    if (fd < 0 && !S.user_only && (errno == EACCES || errno == EPERM)) {
        S.user_only = 1;
        a.exclude_kernel = 1;
        fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
    }
    if (fd < 0)
        return -1;
    struct f_owner_ex owner = { F_OWNER_TID, (pid_t)syscall(SYS_gettid) };
    if (fcntl(fd, F_SETFL, O_ASYNC | O_NONBLOCK) != 0 || fcntl(fd, F_SETOWN_EX, &owner) != 0 ||
        fcntl(fd, F_SETSIG, SIGPROF) != 0) {
        close(fd);
        return -1;
    }
    s->fd = fd;
    /* the header page and one page of records (16 bytes each, emptied by
     * every handler); without it the handler's own time is still measured */
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    void *m = a.sample_type ? mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) : MAP_FAILED;
    if (m != MAP_FAILED) {
        s->ovf = m;
        s->ovf_size = 2 * page;
    }
    return 0;
}

void hct_sampling_setup(void)
{
    if (!hct.cfg.sampling)
        return;
    S.period = hct.cfg.sampling_period_ns;
    S.jitter = S.period * hct.cfg.sampling_jitter_pct / 100;
    /* which source works here: a throw-away probe on this thread */
    hct_smp_thread probe;
    memset(&probe, 0, sizeof(probe));
    probe.rng = 1;
    S.source = hct.cfg.sampling_clock == HCT_CLOCK_WALL ? SRC_WALL : SRC_TIMER;
    if (S.source == SRC_TIMER && open_source(&probe) == 0) {
        if (probe.ovf)
            munmap(probe.ovf, probe.ovf_size);
        close(probe.fd);
        S.source = SRC_PERF;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = on_signal;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGPROF, &sa, &S.old) != 0) {
        S.source = SRC_NONE;
        return;
    }
    S.installed = 1;
    hct_sample_cc_reserve(HCT_SAMPLE_CC_RESERVE);
    char name[160];
    snprintf(name, sizeof(name), "%s, every %.3g ms +- %u %% of the thread's %s time%s",
             S.source == SRC_PERF   ? "perf_event task-clock overflow"
             : S.source == SRC_WALL ? "POSIX wall-clock timer"
                                    : "POSIX CPU-time timer",
             (double)S.period / 1e6, hct.cfg.sampling_jitter_pct, S.source == SRC_WALL ? "wall-clock" : "CPU",
             S.source == SRC_PERF && S.user_only ? " in user space" : "");
    S.igen = hca_defs_interrupt_generator(&hct.defs, name, OTF2_INTERRUPT_GENERATOR_MODE_TIME, S.period);
    static const char *const stat_names[NSTATS] = HCA_STAT_NAMES;
    static const char *const stat_descriptions[NSTATS] = {
        [HCA_STAT_SAMPLES] = "samples written as CallingContextSample events",
        [HCA_STAT_LOST_IN_TOOL] =
            "samples dropped because they interrupted the tracer itself and sampling stopped before it was left",
        [HCA_STAT_LOST_BUFFER_FULL] =
            "samples dropped because the thread's sample buffer was full (HCATRACE_SAMPLING_BUFFER)",
        [HCA_STAT_LOST_NO_CONTEXT] = "samples dropped because the calling-context table was full",
        [HCA_STAT_TRUNCATED] = "samples whose stack was cut to its innermost frames (kept)",
    };
    hca_ref refs[NSTATS];
    for (int i = 0; i < NSTATS; i++)
        refs[i] = hca_defs_metric_member(&hct.defs, stat_names[i], stat_descriptions[i], HCA_UNIT_COUNT,
                                         OTF2_METRIC_TYPE_OTHER, OTF2_METRIC_ACCUMULATED_START, OTF2_TYPE_UINT64);
    S.stats_class = hca_defs_metric_class(&hct.defs, NSTATS, refs, OTF2_METRIC_ASYNCHRONOUS);
}

hct_smp_thread *hct_sampling_thread_start(hct_thread *t)
{
    if (!S.installed || S.source == SRC_NONE)
        return NULL;
    hct_smp_thread *s = calloc(1, sizeof(*s));
    if (!s)
        return NULL;
    s->t = t;
    s->fd = -1;
    s->memsize = (size_t)hct.cfg.sampling_buffer_kib * 1024;
    s->mem = mmap(NULL, s->memsize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (s->mem == MAP_FAILED) {
        free(s);
        return NULL;
    }
    hct_prefault_init(&s->pages, s->mem, s->memsize); /* no page faults in the handler */
    hct_ring_init(&s->ring, s->mem, s->memsize);
    /* xorshift needs a non-zero state: the odd multiplier keeps distinct
     * (rank, thread) pairs distinct, the | 1 keeps it non-zero */
    s->rng = (((uint64_t)(uint32_t)hct.rank << 32 | t->index) * 0x9e3779b97f4a7c15ull) | 1;
    tls_smp = s;
    /* warm libunwind through a signal frame before the first real sample */
    s->warming = 1;
    syscall(SYS_tgkill, getpid(), syscall(SYS_gettid), SIGPROF);
    s->warming = 0;
    if (S.source == SRC_PERF && open_source(s) == 0) {
        s->armed = 1;
        uint64_t wall = hca_clock_now(), cpu = thread_cpu_ns();
        cpu_due_set(s, wall, cpu, cpu + s->armed_period);
        ioctl(s->fd, PERF_EVENT_IOC_REFRESH, 1);
    } else {
        int wall = S.source == SRC_WALL;
        if (hct_thread_timer_create(wall ? CLOCK_MONOTONIC : CLOCK_THREAD_CPUTIME_ID, SIGPROF, s, &s->timer) != 0) {
            tls_smp = NULL;
            munmap(s->mem, s->memsize);
            free(s);
            return NULL;
        }
        s->has_timer = 1;
        if (wall && !atomic_exchange(&S.latency_claimed, 1)) { /* once per process */
            hct_wall_costs c = hct_wall_measure(s->timer, &s->probe);
            atomic_store(&S.wall_latency, c.latency);
            atomic_store(&S.return_ns, c.ret);
        }
        s->armed = 1;
        if (wall) {
            s->wall_due = hca_clock_now() + next_period(s);
            quiet_until(s->wall_due);
            hct_wall_timer_arm_at(s->timer, s->wall_due);
        } else {
            s->cpu_target = thread_cpu_ns();
            arm_timer(s);
        }
    }
    return s;
}

void hct_sampling_disarm(hct_thread *t)
{
    hct_smp_thread *s = t->smp;
    if (!s || !s->armed)
        return;
    s->armed = 0;
    if (s->fd >= 0)
        ioctl(s->fd, PERF_EVENT_IOC_DISABLE, 0);
    if (s->has_timer) {
        struct itimerspec off;
        memset(&off, 0, sizeof(off));
        timer_settime(s->timer, 0, &off, NULL);
    }
}

void hct_sampling_park(hct_thread *t)
{
    t->omp_parked = 1;
}

void hct_sampling_resume(hct_thread *t)
{
    t->omp_parked = 0; /* first: an interrupt from now on is a sample again */
    hct_smp_thread *s = t->smp;
    if (!s || !s->lapsed)
        return;
    s->lapsed = 0; /* no interrupt can come in between: none is armed */
    if (!s->armed)
        return;
    if (S.source == SRC_WALL) { /* the expiries while parked skipped, the schedule kept */
        uint64_t now = hca_clock_now();
        while (s->wall_due <= now)
            s->wall_due += next_period(s);
    }
    rearm(s);
}

/* ---- draining: outside the handler, inside the tracer (t->in_tool > 0) --------- */

/* Whether a loss was counted since the statistics were written last. */
static inline int losses_changed(const hct_smp_thread *s)
{
    return s->lost_in_tool != s->stats_written[HCA_STAT_LOST_IN_TOOL] ||
           s->lost_full != s->stats_written[HCA_STAT_LOST_BUFFER_FULL] ||
           s->lost_no_context != s->stats_written[HCA_STAT_LOST_NO_CONTEXT];
}

static void write_stats(hct_thread *t, uint64_t ts, int always)
{
    hct_smp_thread *s = t->smp;
    /* during the run only when something was lost: the analysis sees where */
    if (!always && !losses_changed(s))
        return;
    const uint64_t now[NSTATS] = { [HCA_STAT_SAMPLES] = s->samples, [HCA_STAT_LOST_IN_TOOL] = s->lost_in_tool,
                                   [HCA_STAT_LOST_BUFFER_FULL] = s->lost_full,
                                   [HCA_STAT_LOST_NO_CONTEXT] = s->lost_no_context,
                                   [HCA_STAT_TRUNCATED] = s->truncated };
    OTF2_Type types[NSTATS];
    OTF2_MetricValue values[NSTATS];
    for (int i = 0; i < NSTATS; i++) {
        types[i] = OTF2_TYPE_UINT64;
        values[i].unsigned_int = now[i];
        s->stats_written[i] = now[i];
    }
    hct_otf2_check(t, OTF2_EvtWriter_Metric(t->writer, NULL, ts, S.stats_class, NSTATS, types, values));
}

/* The calling context of a stack (leaf first in `frames`) in the thread's
 * path: under the innermost open region, sharing the previous context's root
 * part; a frame in inlined code is as many nodes as its inline chain has
 * functions (hct_path.c), and the unwind distance counts nodes. Returns
 * HCA_UNDEF when the table is full. */
static uint32_t stack_cc(hct_thread *t, const uint64_t *frames, int nframes, uint32_t *unwind)
{
    /* root first; the tracer's own frames (handler, wrappers, trampolines)
     * are left out: a sample inside a wrapper belongs to the application's
     * call of the wrapped function */
    uintptr_t addr[MAX_FRAMES];
    int depth = 0;
    for (int i = nframes - 1; i >= 0; i--) {
        uintptr_t a = (uintptr_t)frames[i];
        if (hct_self_contains(a))
            continue;
        /* callers: the call instruction is just before the return address */
        addr[depth++] = i == 0 ? a : a - 1;
    }
    if (depth == 0)
        return HCA_UNDEF; /* only the tracer's frames */
    return hct_path_sample(&t->path, addr, depth, unwind);
}

/* The samples taken before `limit`, into the trace. On the owning thread the
 * drain is a section of the tracer whoever calls it (t->in_tool): a sample due
 * while it writes (tens of ms when a buffer goes to disk on a loaded machine)
 * is taken when the thread leaves the tracer, with a total that holds the
 * drain. A caller that forgot to enter the tracer once left such samples with
 * totals that missed the drain, and the total jumped by up to 250 ms after
 * them (docs/trace-format.md, "Tool time"). */
__attribute__((noinline)) static void drain_ring(hct_thread *t, hct_smp_thread *s, uint64_t limit)
{
    int own = tls_smp == s; /* the owner: its tool time grows by the drain */
    uint64_t waited = hct_frame_keys_waited; /* the drain's own waits for libdw: in its time */
    if (own)
        t->in_tool++;
    if (!hct_ring_empty(&s->ring) && !atomic_exchange(&s->draining, 1)) {
        uint64_t t0 = hca_clock_now(), cpu0 = own ? hct_thread_cpu_ns() : 0;
        const sample_rec *r;
        while ((r = hct_ring_peek(&s->ring)) != NULL && r->ts < limit) {
            uint32_t ud = 1;
            uint32_t cc = r->depth ? stack_cc(t, r->data + r->nvalues, r->depth, &ud) : HCA_UNDEF;
            if (cc == HCA_UNDEF) {
                s->lost_no_context++;
            } else {
                uint64_t ts = hct_timestamp_at(t, r->ts);
                hct_tool_write(t, ts, r->tool_ns, r->tool_cpu_ns);
                if (r->nvalues)
                    hct_counters_write_sample(t, ts, r->set, r->data, r->nvalues);
                hct_otf2_check(t, OTF2_EvtWriter_CallingContextSample(t->writer, NULL, ts, cc, ud, S.igen));
                s->samples++;
                s->truncated += (r->flags & REC_TRUNCATED) != 0;
            }
            hct_ring_pop(&s->ring);
        }
        uint64_t wall = hca_clock_now() - t0;
        s->drain_ns += wall;
        if (own) { /* writing may wait for the disk: its CPU time apart */
            uint64_t cpu = hct_thread_cpu_ns() - cpu0;
            t->tool_ns += wall;
            t->tool_cpu_ns += cpu < wall ? cpu : wall;
            hct_tool_note_team();
        }
        atomic_store(&s->draining, 0);
    }
    write_stats(t, t->last_ts, 0);
    if (own) {
        hct_frame_keys_waited = waited;
        hct_tool_exit(t);
    }
}

/* The drain, called at most region boundaries: with nothing to write (no
 * sample since the last, no loss) it returns before the work's set-up. */
static inline void drain_until(hct_thread *t, uint64_t limit)
{
    hct_smp_thread *s = t->smp;
    if (s && (!hct_ring_empty(&s->ring) || losses_changed(s)))
        drain_ring(t, s, limit);
}

void hct_sampling_drain(hct_thread *t)
{
    drain_until(t, UINT64_MAX);
}

void hct_sampling_drain_before(hct_thread *t, uint64_t ts)
{
    drain_until(t, ts);
}

void hct_sampling_tool_floor(hct_thread *t, uint64_t since, uint64_t at, uint64_t wall, uint64_t cpu)
{
    hct_smp_thread *s = t->smp;
    if (!s || tls_smp != s || !t->in_tool)
        return;
    /* inside the tracer the handler writes no record: the ring holds still */
    hct_ring *ring = &s->ring;
    uint64_t pos = atomic_load(&ring->tail), head = atomic_load(&ring->head);
    while (pos < head) {
        uint64_t off = pos % ring->cap;
        uint32_t size;
        memcpy(&size, ring->buf + off, sizeof(size));
        if (size == 0) { /* the skip to the start */
            pos += ring->cap - off;
            continue;
        }
        sample_rec *r = (sample_rec *)(void *)(ring->buf + off);
        if (r->ts >= since && r->ts <= at) {
            uint64_t back = at - r->ts;
            if (wall > back && r->tool_ns < wall - back)
                r->tool_ns = wall - back;
            if (cpu > back && r->tool_cpu_ns < cpu - back)
                r->tool_cpu_ns = cpu - back;
        }
        pos += hct_ring_round(size);
    }
}

int hct_sampling_due_within(hct_thread *t, uint64_t now, uint64_t window)
{
    hct_smp_thread *s = t->smp;
    if (!s || tls_smp != s || !s->armed || s->lapsed)
        return 0;
    if (t->sample_deferred) /* an interrupt in this section of the tracer: taken at its exit */
        return 1;
    if (S.source == SRC_WALL)
        return s->wall_due <= now + window;
    /* the CPU time at an interrupt is the due time give or take a margin
     * (measured: mostly 20-130 us after it, the overflow's timer and
     * delivery; docs/benchmarks.md, "Counter values of thinned instances") */
    window += HCT_CPU_DUE_MARGIN_NS;
    /* the thread's CPU time now is at most a known reading plus the wall
     * time since: no system call while that stays short of the due time */
    uint64_t due, cpu, wall;
    uint32_t seq;
    do {
        seq = s->cpu_seq;
        __atomic_signal_fence(__ATOMIC_SEQ_CST);
        due = s->cpu_due;
        cpu = s->cpu_ref;
        wall = s->cpu_wall;
        __atomic_signal_fence(__ATOMIC_SEQ_CST);
    } while ((seq & 1) || seq != s->cpu_seq);
    uint64_t bound = cpu + (now > wall ? now - wall : 0);
    if (s->own_wall && s->own_wall <= now && s->own_cpu + (now - s->own_wall) < bound)
        bound = s->own_cpu + (now - s->own_wall); /* or the last one read here */
    if (due > bound + window)
        return 0;
    s->own_wall = now; /* close: the CPU time itself (a system call) */
    s->own_cpu = thread_cpu_ns();
    return due <= s->own_cpu + window;
}

/* The end of a thread's samples: everything drained, final statistics.
 * `self`: called by the owning thread. */
void hct_sampling_finish(hct_thread *t, uint64_t ts, int self)
{
    hct_smp_thread *s = t->smp;
    if (!s)
        return;
    if (!self) /* the owner may be inside a drain of its own: wait for it */
        for (int spin = 0; spin < 1000 && atomic_load(&s->draining); spin++) {
            struct timespec w = { 0, 100000 };
            nanosleep(&w, NULL);
        }
    hct_sampling_drain(t);
    if (s->deferred_n > 0) { /* interrupted the tracer's end: never taken */
        s->lost_in_tool += (uint64_t)s->deferred_n;
        s->deferred_n = 0;
    }
    write_stats(t, ts < t->last_ts ? t->last_ts : ts, 1);
}

void hct_sampling_thread_close(hct_thread *t)
{
    hct_smp_thread *s = t->smp;
    if (!s)
        return;
    hct_sampling_disarm(t);
    t->smp = NULL;
    atomic_fetch_add(&totals.samples, s->samples);
    atomic_fetch_add(&totals.lost_in_tool, s->lost_in_tool);
    atomic_fetch_add(&totals.deferred, s->deferred);
    atomic_fetch_add(&totals.lost_full, s->lost_full);
    atomic_fetch_add(&totals.lost_no_context, s->lost_no_context);
    atomic_fetch_add(&totals.handler_ns, s->handler_ns);
    atomic_fetch_add(&totals.delivery_ns, s->delivery_ns);
    atomic_fetch_add(&totals.drain_ns, s->drain_ns);
    if (tls_smp == s)
        tls_smp = NULL;
    if (s->ovf)
        munmap(s->ovf, s->ovf_size);
    if (s->fd >= 0)
        close(s->fd);
    if (s->has_timer)
        timer_delete(s->timer);
    munmap(s->mem, s->memsize);
    free(s);
}

/* HCATRACE_VERBOSE=2: what sampling cost and lost in this process (after every
 * thread was closed). */
void hct_sampling_report(void)
{
    if (hct.cfg.verbose < 2 || !S.installed)
        return;
    unsigned long long n = atomic_load(&totals.samples), in_tool = atomic_load(&totals.lost_in_tool),
                       full = atomic_load(&totals.lost_full), no_cc = atomic_load(&totals.lost_no_context);
    unsigned long long taken = n + full + no_cc; /* the handler ran to the end for these */
    hct_message("rank %d: %llu samples (%.0f ns delivering the interrupt, %.0f ns in the handler, %.0f ns to write "
                "each; %llu taken when the thread left the tracer), lost %llu in the tracer, %llu to a full buffer, "
                "%llu to a full context table; timer interrupt latency %llu ns, handler's return %llu ns",
                hct.rank, n, taken ? (double)atomic_load(&totals.delivery_ns) / (double)taken : 0.0,
                taken ? (double)atomic_load(&totals.handler_ns) / (double)taken : 0.0,
                n ? (double)atomic_load(&totals.drain_ns) / (double)n : 0.0,
                (unsigned long long)atomic_load(&totals.deferred), in_tool, full, no_cc,
                (unsigned long long)atomic_load(&S.wall_latency), (unsigned long long)atomic_load(&S.return_ns));
}
