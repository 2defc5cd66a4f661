/* hct_boundary.c: what a region boundary and a thread's start and end do
 * besides the region event itself. At a boundary, the thread's timestamp and
 * counter values are read back to back and the region event is written at
 * that time, after the thread's pending samples (they are older, and each
 * location's timestamps must not decrease). An enter writes those samples
 * before it reads its time, a leave after (then written before its values):
 * either way the drain's work lies outside the instance. The boundary's own
 * time (draining, counters) is added to the thread's tool time, whose total
 * at the timestamp, without what follows it, is written with it
 * (hct_tooltime.h). An MPI call's enter after a short burst is written
 * without counter values (hct_boundary_read's with_values = 0,
 * hct_mpi_burst.h): its time and tool time only. A thread
 * starts its counters and its sampling when it gets its location and ends them
 * when it exits or when recording stops. */
#include "hct_boundary.h"

#include <pthread.h>

#include "hct_counter_rotation.h"
#include "hct_counters.h"
#include "hct_delivery.h"
#include "hct_frame_keys.h"
#include "hct_sampling.h"
#include "hct_self.h"
#include "hct_rescue.h"
#include "hct_tooltime.h"

static pthread_key_t exit_key;
static int have_exit_key;

/* A traced thread other than the first exits: write its end now, while its
 * counters still exist. */
static void on_thread_exit(void *arg)
{
    hct_thread *t = arg;
    if (!t || t->finished)
        return;
    t->in_tool++;
    hct_sampling_disarm(t);
    if (atomic_load(&hct.active) && t->writer)
        hct_extras_finish(t, 1);
    hct_extras_close(t);
    hct_tool_exit(t);
}

void hct_extras_setup(void)
{
    hct_self_locate(); /* the tracer's own frames, left out of call paths */
    hct_counters_setup();
    hct_counters_fork_setup();
    hct_sampling_setup();
    /* call paths unwound at region enters are expanded into inline chains
     * too: the libdw worker and its session ready before the first enter */
    if (hct.cfg.callsites)
        hct_frame_keys_start();
    if (hct_extras_wanted())
        hct_tool_setup();
    have_exit_key = pthread_key_create(&exit_key, on_thread_exit) == 0;
}

int hct_extras_wanted(void)
{
    return hct_counters_nsets() > 0 || hct.cfg.sampling;
}

void hct_extras_start(hct_thread *t)
{
    if (t->finished || t->extras || !hct_extras_wanted())
        return;
    /* ranks and threads start on different counter sets */
    t->smp = hct_sampling_thread_start(t); /* its buffer touched before counting starts */
    t->ctr = hct_counters_thread_start(t, (uint32_t)hct.rank + t->index);
    t->extras = t->ctr || t->smp;
    if (t->extras && t->index != 0 && have_exit_key)
        pthread_setspecific(exit_key, t);
}

/* The thread's pending samples into the trace (older than `limit`); returns
 * the drain's wall-clock time and sets *cpu to its CPU time (the drain adds
 * both to the thread's tool time itself). */
static uint64_t drain(hct_thread *t, uint64_t limit, uint64_t *cpu)
{
    uint64_t wall0 = t->tool_ns, cpu0 = t->tool_cpu_ns;
    hct_sampling_drain_before(t, limit);
    *cpu = t->tool_cpu_ns - cpu0;
    return t->tool_ns - wall0;
}

uint64_t hct_boundary_read(hct_thread *t, int enter, uint64_t not_before, int with_values)
{
    uint64_t start = hca_clock_now(), wall0 = t->tool_ns, cpu0 = t->tool_cpu_ns;
    /* the thread's waits for libdw since the last one counted (a call path
     * looked up before this boundary in its section: hct_rec_init), before
     * its time; its own are in its measured time */
    uint64_t waited = hct_frame_keys_waited;
    /* an enter drains first: that work lies before the instance */
    uint64_t drain_cpu = 0, drain_wall = enter ? drain(t, UINT64_MAX, &drain_cpu) : 0;
    /* the boundary's time and its counter values back to back, time first, as
     * in a sample (take_sample): the same clock-to-counter offset everywhere */
    uint64_t now = hca_clock_now();
    hct_ctr_reading values;
    values.n = 0;
    if (with_values)
        hct_counters_boundary_read(t, &values);
    /* the tracer's time in this boundary before its time: an enter's drain,
     * then its own work (CPU time), without a preemption (hct_delivery.h) */
    uint64_t before = hct_tool_work(&t->boundary_before, now - start - drain_wall);
    uint64_t wall = wall0 + waited + drain_wall + before, cpu = cpu0 + drain_cpu + before;
    uint64_t leave_cpu = 0, leave_wall = 0;
    if (!enter) /* a leave drains after its time: the samples taken before it
                 * (older, under the region) go first, the drain's work is not
                 * the region's; one due meanwhile is taken after the leave */
        leave_wall = drain(t, now, &leave_cpu);
    uint64_t ts = hct_timestamp_at(t, now < not_before ? not_before : now);
    hct_counters_boundary_write(t, ts, enter, &values);
    hct_tool_write(t, ts, wall, cpu);
    uint64_t spent = hca_clock_now() - now; /* the drain's part of it counted apart */
    uint64_t after = hct_tool_work(&t->boundary_after, spent > leave_wall ? spent - leave_wall : 0);
    t->tool_ns = wall + leave_wall + after;
    t->tool_cpu_ns = cpu + leave_cpu + after;
    hct_tool_note_team();
    hct_frame_keys_waited = 0;
    return ts;
}

void hct_extras_disarm_all(void)
{
    uint32_t n = atomic_load(&hct.nthreads);
    for (uint32_t i = 0; i < n; i++)
        if (hct.threads[i])
            hct_sampling_disarm(hct.threads[i]);
}

void hct_extras_finish(hct_thread *t, int self)
{
    if (t->finished || !t->writer || !t->extras)
        return;
    hct_sampling_finish(t, hca_clock_now(), self); /* the last samples, then statistics */
}

void hct_extras_close(hct_thread *t)
{
    hct_sampling_thread_close(t);
    hct_counters_thread_close(t);
    t->extras = 0;
    t->finished = 1;
}
