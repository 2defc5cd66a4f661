/* hct_sampling_wall.c: the wall-clock sampling source (HCATRACE_SAMPLING_CLOCK=wall,
 * the default). A thread's samples fall at jittered intervals of wall time,
 * whether the thread runs, waits or shares its CPU, so where they fall in a
 * region instance does not depend on the counters folded there (a CPU-time
 * source puts them where the thread ran: docs/benchmarks.md, "Sampling clock
 * against truth"). One POSIX timer per thread on CLOCK_MONOTONIC, delivered
 * to that thread alone (SIGEV_THREAD_ID), re-armed one-shot by the handler
 * after each sample to the next expiry of a fixed schedule of jittered
 * periods (absolute times, hct_sampling.c).
 * A timer that expires while its thread waits for a CPU (preempted, or woken
 * but not yet running) is delivered only when the thread runs again. Stamped
 * then, and re-armed from then, samples crowd where threads resume, which is
 * again where they run: on a loaded machine the truth program's instances had
 * a third more samples at their edges than in the middle, and the folded mean
 * curve was 5-9 % low. So a signal that arrives late (more than
 * HCT_WALL_PROMPT_NS after its expiry) gives a sample stamped with its expiry
 * on the schedule, and one that arrives after several expiries stands for
 * all of them (one sample each, the same values and stack): the thread did
 * not run in between, so the counters read in the handler are those of the
 * expiries. Only time in the kernel on the thread's behalf (a system call, a
 * page fault) between an expiry and the signal counts later, a skew of that
 * length. That it did not run is checked against the thread's CPU clock,
 * read in every handler: the expiries it ran past (a signal it blocked, a
 * virtual CPU stopped by its host and charged to it) give no sample
 * (hct_delivery.h, hct_wall_first_unrun). A prompt signal (a running thread: 50 us in this VM) is stamped
 * when handled, right before its counters are read, as a boundary is
 * (docs/trace-format.md, "Samples").
 * A running thread does not stop at its timer's expiry but when the timer's
 * interrupt arrives, a latency measured once per process (median of a few
 * trials, hct_wall_measure): the delivery counted as the tracer's time starts
 * then (hct_delivery.h, hct_wall_stopped); the same trials measure the
 * handler's return, which the handler cannot time itself. */
#include "hct_sampling_wall.h"

#include <string.h>

#include "hca_clock.h"
#include "hct_delivery.h"

#include <sys/syscall.h>
#include <unistd.h>

int hct_thread_timer_create(clockid_t clock, int signo, void *value, timer_t *timer)
{
    struct sigevent sev;
    memset(&sev, 0, sizeof(sev));
    sev.sigev_notify = SIGEV_THREAD_ID;
    sev.sigev_signo = signo;
    sev.sigev_value.sival_ptr = value;
    sev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
    return timer_create(clock, &sev, timer);
}

void hct_wall_timer_arm_at(timer_t timer, uint64_t due)
{
    struct itimerspec it;
    memset(&it, 0, sizeof(it));
    it.it_value.tv_sec = (time_t)(due / 1000000000ull);
    it.it_value.tv_nsec = (long)(due % 1000000000ull);
    timer_settime(timer, TIMER_ABSTIME, &it, NULL);
}

hct_wall_costs hct_wall_measure(timer_t timer, hct_wall_probe *probe)
{
    uint64_t latency[HCT_WALL_LATENCY_TRIALS], ret[HCT_WALL_LATENCY_TRIALS];
    int n = 0;
    probe->armed = 1;
    for (int trial = 0; trial < HCT_WALL_LATENCY_TRIALS; trial++) {
        probe->hit = 0;
        uint64_t due = hca_clock_now() + 50000, give_up = due + 20000000, last = 0, t = 0;
        hct_wall_timer_arm_at(timer, due);
        /* the last reading before the handler ran: when the thread stopped */
        while (!probe->hit && t < give_up) {
            t = hca_clock_now();
            if (!probe->hit)
                last = t;
        }
        uint64_t resumed = hca_clock_now(); /* the first reading after it returned */
        if (!probe->hit)
            break; /* never fired (the signal blocked?): nothing known */
        latency[n] = last > due ? last - due : 0;
        ret[n++] = resumed > probe->handler_end ? resumed - probe->handler_end : 0;
    }
    probe->armed = 0;
    probe->hit = 0;
    hct_wall_costs c = { 0, 0 };
    if (n) {
        c.latency = hct_latency_median(latency, n);
        c.ret = hct_latency_median(ret, n);
    }
    return c;
}
