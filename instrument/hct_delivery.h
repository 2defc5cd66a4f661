/* hct_delivery.h: how long a sampling interrupt took to reach its handler,
 * the part of a sample's cost before the handler measures its own time
 * (hct_sampling.c adds both to the thread's tool time, hct_tooltime.h), and
 * the rule that keeps preemptions out of the tracer's measured sections (a
 * region boundary's own work, hct_boundary.c). Pure functions,
 * async-signal-safe, tested in tests/unit/test_delivery.c. */
#ifndef HCT_DELIVERY_H
#define HCT_DELIVERY_H

#include <stdint.h>

/* A delivery, a handler or a boundary's own work longer than this, ns, held
 * a preemption: time the program would have lost untraced too, and no CPU
 * time of its thread (docs/trace-format.md, "Tool time"). Undisturbed, each
 * takes 10-90 us on the VMs we test on (docs/benchmarks.md, "Tool time"). */
#define HCT_DELIVERY_MAX 250000ull

/* The perf source: when an overflow was due, from the kernel's record of it
 * (its time `when` and the event's `count` then) and the count it was re-armed
 * from with `period` (count_armed 0: unknown). Task-clock beyond the period is
 * time the interrupt took to reach the overflow: a program reading the clock
 * without pause had stopped for it too (docs/benchmarks.md, "Tool time"). */
static inline uint64_t hct_perf_due(uint64_t when, uint64_t count, uint64_t count_armed, uint64_t period)
{
    uint64_t due = count_armed + period, late = count_armed && count > due ? count - due : 0;
    return when > late ? when - late : 0;
}

/* The wall-clock source: when the thread stopped for a timer that expired at
 * `expiry`, given the machine's interrupt latency (how long a running thread
 * runs on after its timer's expiry before the interrupt stops it: 1.5-3 us
 * on the VMs we test on, measured once per process, hct_sampling_wall.c);
 * never after the handler's start t0. Counted from the expiry itself, that
 * program time became the tracer's and every sample was placed that much too
 * early in its instance (docs/benchmarks.md, "Stage boundaries against
 * truth"). */
static inline uint64_t hct_wall_stopped(uint64_t expiry, uint64_t latency, uint64_t t0)
{
    return expiry + latency < t0 ? expiry + latency : t0;
}

/* The wall-clock source: the timestamp of the first sample of a signal that
 * arrived at `now` for its n expiries, the first at `due`. `now` when the
 * signal came promptly (one expiry, within HCT_WALL_PROMPT_NS) to a running
 * thread: it ran on after the expiry until the signal was delivered, and the
 * sample's timestamp and counter values are read back to back (its task-clock
 * read then matches truth_app's own record within 1 us on average; at the
 * expiry it ran 9 us ahead). `due` otherwise: late, the thread did not run
 * (n expiries: one copy at each); woken from a sleep (asleep), the program
 * did not run between the expiry and `now`, so its values are those of the
 * expiry: stamped `now`, each lay the wake-up (tens of microseconds in a VM)
 * too late in its instance, and the folds of truth_app ran behind the
 * program's own record (page faults 0.020 of their total behind for the
 * samples that woke one of phase_faults' sleeps, 0.008 after; docs/
 * benchmarks.md, "Idle folds against truth (issue 17, branch pf17)"). */
#define HCT_WALL_PROMPT_NS 250000u
static inline uint64_t hct_wall_stamp(uint64_t due, uint64_t now, int n, int asleep)
{
    return n == 1 && now - due < HCT_WALL_PROMPT_NS && !asleep ? now : due;
}

/* The wall-clock source: of the expiries stamps[0..n) (ascending) that a
 * late signal stands for, the first whose sample may carry the counter values
 * read now. hct_wall_stamp's rule, that a late thread did not run after its
 * expiry, is checked against the thread's CPU clock: it advanced by `ran` ns
 * of the program's time (the tracer's own taken out) since a reading at wall
 * time `ref`, so the thread ran until ref + ran at the earliest, and an
 * expiry before that (by more than HCT_WALL_RAN_SLACK_NS) fell while it ran:
 * the counters then were lower than those read now. Not a preemption but a
 * signal held up while the thread ran: blocked by the program
 * (sigprocmask), or the virtual CPU stopped by its host, whose time the
 * guest charges to the running thread: on this VM 2-14 instances per run of
 * truth_app (8,000-32,000), one of them sampled as having done 86 % of its
 * CPU time 1.7 ms into a 31.8 ms instance (22 ms of CPU time then, read 20
 * ms later), which moved the folded task-clock by +-7 % around it
 * (docs/benchmarks.md, "Late signals while the thread ran"). Returns n when
 * none may: the sample is then stamped when its values are read. */
#define HCT_WALL_RAN_SLACK_NS 50000u
static inline int hct_wall_first_unrun(const uint64_t *stamps, int n, uint64_t ref, uint64_t ran)
{
    int k = 0;
    while (k < n && stamps[k] + HCT_WALL_RAN_SLACK_NS < ref + ran)
        k++;
    return k;
}

/* The median of n > 0 measured latencies v (sorted in place; n is small). */
static inline uint64_t hct_latency_median(uint64_t *v, int n)
{
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
            uint64_t x = v[j];
            v[j] = v[j - 1];
            v[j - 1] = x;
        }
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The delivery of an interrupt due at `due` (0: the source does not say) to a
 * handler that started at t0, ns; a preempted one (longer than
 * HCT_DELIVERY_MAX, or due after t0) counts as the thread's previous delivery
 * *last, which a plausible one replaces. */
static inline uint64_t hct_delivery(uint64_t *last, uint64_t due, uint64_t t0)
{
    if (!due)
        return 0;
    if (due <= t0 && t0 - due <= HCT_DELIVERY_MAX)
        *last = t0 - due;
    return *last;
}

/* The tracer's own work measured as `spent` ns (a sampling handler, a region
 * boundary without draining samples): one longer than HCT_DELIVERY_MAX held a
 * preemption and counts as the thread's previous one of its kind *last, which
 * a plausible one replaces. */
static inline uint64_t hct_tool_work(uint64_t *last, uint64_t spent)
{
    if (spent <= HCT_DELIVERY_MAX)
        *last = spent;
    return *last;
}

#endif
