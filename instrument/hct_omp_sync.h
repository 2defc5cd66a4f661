/* hct_omp_sync.h: the tracer's time a thread of an OpenMP team waits for at
 * the team's barriers (hct_omp_sync.c). A thread that takes a sample or drains
 * samples reaches the next barrier later by its own tool time; the threads
 * that wait there for it wait that much longer, and their region instances
 * and task-clock (the runtimes spin before they sleep) hold the other
 * thread's tool time. At each barrier every thread publishes when it arrived
 * and when it would have arrived without its own tool time since the previous
 * barrier; when it leaves, the difference between the latest of each is the
 * tracer's time on the team's critical path, and what of it the thread did not
 * spend itself is added to its tool time (docs/trace-format.md, "Tool time").
 * The same at a parallel region's end: the threads' shares end (arrivals), the
 * master's join reads it. Lock-free: a slot per thread, written only by its
 * thread (hct_omp_arrivals.h); a thread that leaves reads the team's slots
 * only when a thread of the team spent tool time since the fork (`tooled`;
 * else the team's tool time on the critical path is 0). */
#ifndef HCT_OMP_SYNC_H
#define HCT_OMP_SYNC_H

#include <stdatomic.h>
#include <stdint.h>

#include "hct.h"
#include "hct_omp_arrivals.h"

/* One team's barriers, in the master's hct_omp_fork (zeroed at the fork,
 * before any thread of the team starts its share). */
typedef struct {
    hct_omp_arrivals arrivals; /* when each thread arrived, and less its tool time */
    _Atomic uint32_t tooled;   /* a thread of the team spent tool time since the fork (hct_tool_note_team, hct_tooltime.h) */
} hct_omp_sync;

/* At a fork, on its master; level: the new team's nesting level (1:
 * outermost), whose arrival slots the master keeps for its teams of that
 * level. */
void hct_omp_sync_init(hct_omp_sync *s, uint32_t level) HCT_HIDDEN;
/* A share of the team of s begins on t, its thread number `num` (at the end
 * of its begin: the thread's tool time up to here is its own). A team of one thread
 * (team_size 1) reads no clock and publishes nothing at its barriers: there
 * the latest arrival is its own, so is the tool time before it.
 * kept_back: the instance is thinned (HCATRACE_THIN), its shares write no
 * boundary: an arrival reads the thread's CPU time (a system call) only once
 * a thread of the team spent tool time since the fork (s->tooled); a wait
 * for tool time spent after an arrival that did not read it is then counted
 * as on the CPU (its CPU part off by at most the wait added: add_wait). */
void hct_omp_sync_begin(hct_thread *t, hct_omp_sync *s, uint32_t num, uint32_t team_size, int kept_back) HCT_HIDDEN;
/* t arrives at a barrier of its innermost team (when it leaves the tracer
 * for the runtime's barrier); `last`: its share ends here (the region's end),
 * HCT_OMP_SYNC_END on the master (its join reads the barrier),
 * HCT_OMP_SYNC_END_WORKER on another thread (it goes back to the pool). */
enum { HCT_OMP_SYNC_BARRIER = 0, HCT_OMP_SYNC_END, HCT_OMP_SYNC_END_WORKER };
void hct_omp_sync_arrive(hct_thread *t, int last) HCT_HIDDEN;
/* t leaves that barrier (inside the tracer, before its leave's boundary):
 * its wait for the other threads' tool time is added to its tool time. */
void hct_omp_sync_leave(hct_thread *t) HCT_HIDDEN;
/* The master of the team of s at its join, after its share ended there. */
void hct_omp_sync_join(hct_thread *t, const hct_omp_sync *s) HCT_HIDDEN;

#endif
