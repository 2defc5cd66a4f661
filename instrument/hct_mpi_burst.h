/* hct_mpi_burst.h: which MPI call enters and leaves read the counters
 * (Extrae's burst mode, for counter reads). The compute burst between an MPI
 * call's leave and the next call's enter is folded from the values at both
 * ends (hcafold: fold/read_events.c); a burst shorter than HCT_MPI_BURST_NS of
 * the program's own time with no sample in it has nothing to fold, and its
 * end's read (one or two system calls of 0.3-1.1 us for software counters:
 * docs/benchmarks.md) would cost a tenth of it or more. Such an enter writes
 * its time and the tool time but no counter values, unless a sample may land
 * in the call itself (its values would then be those `hcafold --mpi` folds).
 * A leave starts the next burst, whose length is not known yet; it is
 * predicted per calling context of the call (a call site on a call path: in
 * LULESH each is followed by bursts of one kind, 86 % of them short; a call in
 * a loop, by short ones but for the loop's last): a leave writes no counter
 * values either when its context's bursts were short the last
 * HCT_MPI_LEAVE_SHORTS times and none was long, or, once one was, when the run of short ones
 * since the last long one is shorter than the run before it (the loop's last
 * call reads), unless a sample was taken in the call or may fall within
 * HCT_MPI_BURST_SAMPLE_WINDOW_NS.
 * Each burst's length is measured all the same; one predicted short that turns
 * out long has no values at its start (hcafold counts it among the bursts
 * without values) and teaches its context the run's length; a run that goes
 * on past it (the long one was a preemption's) is forgotten. HCATRACE_THIN=off
 * reads at every enter and leave. Per thread, no allocation, no system call: the burst's length from
 * hct_ticks.h's clock less the tool time added in it. */
#ifndef HCT_MPI_BURST_H
#define HCT_MPI_BURST_H

#include <stdint.h>

#include "hct.h"
#include "hct_sampling.h"
#include "hct_ticks.h"

/* A burst this short (program time, ns) with no sample in it is not read at its end. */
#define HCT_MPI_BURST_NS 10000u
/* ... unless the thread's next sample may fall within this much of the enter
 * (the MPI call's own values: hct_thin_counters.h's floor). */
#define HCT_MPI_BURST_SAMPLE_WINDOW_NS 50000u

/* A leave is written without counter values when this many bursts in a row
 * after its calling context were short and none was long yet: enough for a
 * loop of that many calls from one line to end once first, so that its last
 * call's long burst is not left without values while the loop is learned
 * (hcafold groups a key's instances on wall time, not CPU time, when one
 * lacks task-clock: fold_halo.sh's time step split in three under load). */
#define HCT_MPI_LEAVE_SHORTS 32u
/* Calling contexts remembered per thread (direct-mapped by a hash of the
 * context ID: IDs of neighbouring call sites differ by small steps). */
#define HCT_MPI_LEAVE_SLOT_BITS 8u

typedef struct {
    uint32_t cc;     /* the calling context of an MPI call */
    uint32_t shorts; /* short bursts in a row after its leaves since the last long one */
    uint32_t period; /* the run before that long one, plus one (0: none long yet) */
} hct_mpi_leave_slot;

typedef struct {
    int open;          /* a leave was recorded (with or without its values) */
    uint32_t cc;       /* its calling context */
    uint64_t ticks;    /* the leave's end, hct_ticks.h's clock */
    uint64_t tool_ns;  /* the thread's tool time then */
    uint64_t taken;    /* its samples taken then */
    uint64_t call_taken; /* the samples taken at the current call's enter */
    hct_mpi_leave_slot slots[1u << HCT_MPI_LEAVE_SLOT_BITS];
} hct_mpi_burst_state;

extern HCT_TLS hct_mpi_burst_state hct_mpi_burst HCT_HIDDEN;

/* The slot of calling context cc (Fibonacci hashing). */
static inline hct_mpi_leave_slot *hct_mpi_leave_slot_of(uint32_t cc)
{
    return &hct_mpi_burst.slots[(uint32_t)(cc * 2654435769u) >> (32u - HCT_MPI_LEAVE_SLOT_BITS)];
}

/* At an MPI call's enter, after its boundary: the samples taken so far. */
static inline void hct_mpi_call_entered(const hct_thread *t)
{
    hct_mpi_burst.call_taken = hct_sampling_taken(t);
}

/* At an MPI call's leave, before its boundary (t->in_tool > 0, t->extras):
 * whether its counter values may be left out (1), as the file's comment says;
 * not when a sample was taken in the call (its fraction of the call, folded
 * by `hcafold --mpi`, needs the leave's values). */
static inline int hct_mpi_leave_bare(hct_thread *t, uint32_t cc)
{
    if (!t->ctr || hct.cfg.thin_full == 0)
        return 0;
    if (hct_sampling_taken(t) != hct_mpi_burst.call_taken || t->sample_deferred)
        return 0;
    const hct_mpi_leave_slot *s = hct_mpi_leave_slot_of(cc);
    if (s->cc != cc || (s->period ? s->shorts + 1 >= s->period : s->shorts < HCT_MPI_LEAVE_SHORTS))
        return 0;
    return !hct_sampling_maybe_due(t, hct_ticks_now(), HCT_MPI_BURST_SAMPLE_WINDOW_NS);
}

/* At the end of an MPI call's leave of calling context cc (t->in_tool > 0). */
static inline void hct_mpi_burst_begin(const hct_thread *t, uint32_t cc)
{
    hct_mpi_burst.open = t->ctr != NULL && hct.cfg.thin_full != 0;
    if (!hct_mpi_burst.open)
        return; /* no counters: nothing to leave out */
    hct_mpi_burst.cc = cc;
    hct_mpi_burst.ticks = hct_ticks_now();
    hct_mpi_burst.tool_ns = t->tool_ns;
    hct_mpi_burst.taken = hct_sampling_taken(t);
}

/* At an MPI call's enter, before its boundary (t->in_tool > 0): whether its
 * counter values may be left out (1), as the file's comment says; the burst's
 * length noted for the leave that began it. Closes the burst either way. */
static inline int hct_mpi_burst_short(hct_thread *t)
{
    if (!hct_mpi_burst.open)
        return 0;
    hct_mpi_burst.open = 0;
    uint64_t now = hct_ticks_now();
    uint64_t wall = hct_ticks_ns(now - hct_mpi_burst.ticks), tool = t->tool_ns - hct_mpi_burst.tool_ns;
    int is_short = wall < HCT_MPI_BURST_NS + tool;
    hct_mpi_leave_slot *s = hct_mpi_leave_slot_of(hct_mpi_burst.cc);
    if (s->cc != hct_mpi_burst.cc)
        *s = (hct_mpi_leave_slot){ hct_mpi_burst.cc, 0, 0 };
    if (!is_short) {
        s->period = s->shorts < UINT32_MAX ? s->shorts + 1 : s->shorts;
        s->shorts = 0;
    } else {
        if (s->period && s->shorts + 1 >= s->period)
            s->period = 0; /* a long one expected here was short: no such run (a preemption's) */
        if (s->shorts < UINT32_MAX - 1)
            s->shorts++;
    }
    if (hct_sampling_taken(t) != hct_mpi_burst.taken || t->sample_deferred)
        return 0; /* a sample in the burst: its fraction needs the end's values */
    if (!is_short)
        return 0;
    return !hct_sampling_maybe_due(t, now, HCT_MPI_BURST_SAMPLE_WINDOW_NS);
}

#endif
