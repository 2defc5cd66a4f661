/* hct_sample_defer.h: a sample that interrupted the tracer, taken when the
 * thread leaves it. The sampling handler (hct_sampling.c) cannot take a sample
 * while the thread is inside the tracer (its ring, path and counters are being
 * written), so it marks the thread (t->sample_deferred) and the outermost exit
 * of the section (hct_tool_exit, hct_rescue.h) sends the thread the sampling
 * signal again, queued with SI_QUEUE and the thread's sampling state as its
 * value: the handler then takes the sample there, at the tool's exit, with the
 * application's stack below the wrapper. Before this, such samples were
 * dropped (3.5 % of them at 8 ranks on 2 cores, docs/benchmarks.md). Here only
 * the raise, inline and without links to the sampling files (layering). */
#ifndef HCT_SAMPLE_DEFER_H
#define HCT_SAMPLE_DEFER_H

#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "hca_clock.h"
#include "hct.h"

/* the sampling signal (hct_sampling.c) */
#define HCT_SAMPLE_SIGNAL SIGPROF

/* Sends t's thread the sampling signal for its deferred sample (called by that
 * thread, with in_tool back at 0): the handler runs before this returns. */
static inline void hct_sample_raise_deferred(hct_thread *t)
{
    t->sample_deferred = 0;
    if (!t->smp) /* sampling closed meanwhile: nothing to take it */
        return;
    siginfo_t si;
    memset(&si, 0, sizeof(si));
    si.si_signo = HCT_SAMPLE_SIGNAL;
    si.si_code = SI_QUEUE;
    si.si_pid = getpid();
    si.si_uid = getuid();
    si.si_value.sival_ptr = t->smp;
    t->sample_raised_ns = hca_clock_now();
    syscall(SYS_rt_tgsigqueueinfo, si.si_pid, (pid_t)syscall(SYS_gettid), HCT_SAMPLE_SIGNAL, &si);
}

#endif
