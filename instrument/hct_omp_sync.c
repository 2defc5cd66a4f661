/* hct_omp_sync.c: the other threads' tool time an OpenMP thread waits for at
 * its team's barriers, added to its own (hct_omp_sync.h). Per thread, a stack
 * of the teams it is in (nested parallel regions), each with the barriers
 * passed so far (their parity picks the team's slot) and the thread's tool
 * time when it left the last one. With t->extras only: without counters and
 * samples there is no tool time to add. A master keeps the arrival slots of
 * its teams of the outermost levels (hct_omp_arrivals.h). */
#include "hct_omp_sync.h"

#include "hct_frame_keys.h"
#include "hct_sampling.h"
#include "hct_tooltime.h"

#define MAX_LEVELS 16
#define SLOTTED_LEVELS 2 /* a master's teams of these levels: a slot per thread; deeper: one shared slot */
#define NO_CPU UINT64_MAX /* an arrival's CPU time not read */

typedef struct {
    hct_omp_sync *sync;
    _Atomic uint32_t *outer_flag; /* hct_tool_team_flag before this level */
    uint32_t barriers; /* arrivals so far: the current barrier's number */
    int waiting;       /* arrived at it, not yet left */
    int solo;          /* a team of one thread: nobody else's tool time to wait for */
    int kept_back;     /* a thinned instance: CPU time read only after tool time in the team */
    uint32_t num, team_size; /* its thread number in the team, the team's size */
    uint64_t left_tool; /* t->tool_ns when it left the last barrier (or began) */
    uint64_t arrived, arrived_tool, arrived_cpu, own; /* at the last arrival; own: its tool time before it */
} level;

static HCT_TLS level levels[MAX_LEVELS];
static HCT_TLS int nlevels; /* may exceed MAX_LEVELS: those are not followed */
static HCT_TLS level ended; /* the share that ended last, for its master's join */

/* The arrival slots of this thread's teams (as their master), by level:
 * written by the team's threads, each its own slot (hct_omp_arrivals.h). */
static HCT_TLS hct_omp_arrival team_slots[SLOTTED_LEVELS][HCT_OMP_ARRIVAL_SLOTS];

void hct_omp_sync_init(hct_omp_sync *s, uint32_t depth)
{
    hct_omp_arrivals_init(&s->arrivals, depth >= 1 && depth <= SLOTTED_LEVELS ? team_slots[depth - 1] : NULL);
    atomic_init(&s->tooled, 0);
}

void hct_omp_sync_begin(hct_thread *t, hct_omp_sync *s, uint32_t num, uint32_t team_size, int kept_back)
{
    t->omp_waiting = 0; /* a worker back from its last region's end */
    if (nlevels++ >= MAX_LEVELS)
        return;
    level *l = &levels[nlevels - 1];
    if (team_size <= 1) { /* alone: only what its barriers and its end read (solo) */
        l->sync = t->extras ? s : NULL;
        l->outer_flag = hct_tool_team_flag;
        l->solo = 1;
        l->waiting = 0;
        l->barriers = 0;
        return;
    }
    *l = (level){ t->extras ? s : NULL, hct_tool_team_flag, 0, 0, 0, kept_back, num, team_size, t->tool_ns, 0, 0, 0,
                  0 };
    if (l->sync)
        hct_tool_team_flag = &s->tooled;
}

static void arrive_in_team(hct_thread *t, level *l, int last);

void hct_omp_sync_arrive(hct_thread *t, int last)
{
    if (nlevels <= 0)
        return;
    level *l = nlevels <= MAX_LEVELS ? &levels[nlevels - 1] : NULL;
    if (last)
        nlevels--;
    if (!l || !l->sync)
        return;
    if (last) /* the team's struct may end with the region: never written to again from here */
        hct_tool_team_flag = l->outer_flag;
    if (l->solo) { /* the only thread: the critical path's tool time is its own (add_wait adds nothing) */
        l->barriers++;
        l->waiting = 1;
        if (last == HCT_OMP_SYNC_END) { /* what its join reads (add_wait of a solo level) */
            ended.sync = l->sync;
            ended.solo = 1;
            ended.waiting = 1;
        }
        /* t->omp_waiting stays 0: alone, no other thread's wait covers a
         * sample's cost here (add_wait adds nothing for a solo level), so a
         * sample taken from its arrival to its join or barrier's leave counts
         * its cost as the tracer's, as anywhere else */
        return;
    }
    arrive_in_team(t, l, last);
}

/* The arrival of a thread of a team of more than one (hct_omp_sync_arrive):
 * apart, so that a team of one's arrival pays no prologue for it. */
__attribute__((noinline)) static void arrive_in_team(hct_thread *t, level *l, int last)
{
    uint64_t now = hca_clock_now();
    /* with the waits for libdw of this section, which its exit adds (hct_tool_exit) */
    uint64_t tool = t->tool_ns + hct_frame_keys_waited;
    l->barriers++;
    l->waiting = 1;
    l->own = tool - l->left_tool;
    l->arrived = now;
    l->arrived_tool = tool;
    /* the team's flag says so before the arrival: a leave reads the team's
     * arrivals only after tool time in the team (add_wait). The flag's line
     * is the master's: a worker reads it only when it must (a load that
     * misses the cache, most of the arrival's time on a worker before) */
    if (l->own > 0 && !atomic_load_explicit(&l->sync->tooled, memory_order_relaxed))
        atomic_store_explicit(&l->sync->tooled, 1, memory_order_relaxed);
    /* a worker's end: never read; in a thinned instance only after tool time in the team */
    int cpu = last != HCT_OMP_SYNC_END_WORKER &&
              (!l->kept_back || l->own > 0 || atomic_load_explicit(&l->sync->tooled, memory_order_relaxed));
    l->arrived_cpu = cpu ? hct_thread_cpu_ns() : NO_CPU;
    hct_omp_arrivals_put(&l->sync->arrivals, l->num, (int)(l->barriers & 1u), now, now > l->own ? now - l->own : 0);
    if (last == HCT_OMP_SYNC_END)
        ended = *l;
    t->omp_waiting = 1; /* its samples from now on cost the program nothing */
}

/* The tracer's time on the team's critical path at l's current barrier that
 * t did not spend itself since its last one, added to its tool time as it
 * leaves, within its wait (from its arrival to now, less the tool time it
 * spent meanwhile: a sample deferred to the tracer's exit). The samples it
 * took in that last part of its wait get the leave's program time (they fell
 * in time the program would not have waited). Its CPU part: the wait's CPU
 * time beyond the part before it (the runtimes spin, then sleep: the end of
 * a wait is on the CPU only when the whole wait was). */
static void add_wait(hct_thread *t, level *l)
{
    t->omp_waiting = 0;
    /* its arrival alone: the latest arrival less its own tool time, nothing
     * to add; no tool time in the team since the fork: every arrival is its
     * untraced one, none on the critical path */
    if (!atomic_load_explicit(&l->sync->tooled, memory_order_relaxed)) {
        l->left_tool = t->tool_ns;
        l->waiting = 0;
        return;
    }
    uint64_t now = hca_clock_now(), a, u;
    hct_omp_arrivals_latest(&l->sync->arrivals, l->team_size, (int)(l->barriers & 1u), &a, &u);
    uint64_t during = t->tool_ns - l->arrived_tool, spent = l->own + during;
    uint64_t critical = a > u ? a - u : 0, x = critical > spent ? critical - spent : 0;
    uint64_t wait = now > l->arrived ? now - l->arrived : 0;
    wait = wait > during ? wait - during : 0;
    if (x > wait)
        x = wait;
    if (x > 0) {
        /* not read at the arrival (no tool time in the team then): counted as
         * on the CPU, as the runtimes spin first (off by at most x) */
        uint64_t xcpu = x;
        if (l->arrived_cpu != NO_CPU) {
            uint64_t cpu = hct_thread_cpu_ns() - l->arrived_cpu, before = wait - x;
            xcpu = cpu > before ? cpu - before : 0;
        }
        t->tool_ns += x;
        t->tool_cpu_ns += xcpu < x ? xcpu : x;
        hct_sampling_tool_floor(t, l->arrived, now, t->tool_ns, t->tool_cpu_ns);
    }
    l->left_tool = t->tool_ns;
    l->waiting = 0;
}

void hct_omp_sync_leave(hct_thread *t)
{
    if (nlevels <= 0 || nlevels > MAX_LEVELS)
        return;
    level *l = &levels[nlevels - 1];
    if (l->sync && l->waiting && l->solo) { /* alone: nothing to add (a solo level's barriers never read left_tool) */
        t->omp_waiting = 0;
        l->waiting = 0;
    } else if (l->sync && l->waiting) {
        add_wait(t, l);
    }
}

void hct_omp_sync_join(hct_thread *t, const hct_omp_sync *s)
{
    if (s && ended.sync == s && ended.waiting && !ended.solo)
        add_wait(t, &ended); /* a solo level's: nothing to add */
    ended.sync = NULL;
    t->omp_waiting = 0;
}
