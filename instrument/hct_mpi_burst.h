/* hct_mpi_burst.h: which MPI call enters read the counters (Extrae's burst
 * mode, for counter reads). The compute burst between an MPI call's leave and
 * the next call's enter is folded from the values at both ends (hcafold:
 * fold/read_events.c); a burst shorter than HCT_MPI_BURST_NS of the program's
 * own time with no sample in it has nothing to fold, and its end's read (a
 * system call of 0.4-1.1 us for software counters: docs/benchmarks.md) would
 * cost a tenth of it or more. Such an enter writes its time and the tool time
 * but no counter values, unless a sample may land in the call itself (its
 * values would then be those `hcafold --mpi` folds). Every leave reads: it
 * starts the next burst, whose length is not known yet. HCATRACE_THIN=off
 * reads at every enter. Per thread, no allocation, no system call: the
 * burst's length from hct_ticks.h's clock less the tool time added in it. */
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

typedef struct {
    int open;          /* a leave was recorded with its values */
    uint64_t ticks;    /* the leave's end, hct_ticks.h's clock */
    uint64_t tool_ns;  /* the thread's tool time then */
    uint64_t taken;    /* its samples taken then */
} hct_mpi_burst_state;

extern HCT_TLS hct_mpi_burst_state hct_mpi_burst HCT_HIDDEN;

/* At the end of an MPI call's leave, its counter values read (t->in_tool > 0). */
static inline void hct_mpi_burst_begin(const hct_thread *t)
{
    hct_mpi_burst.open = t->ctr != NULL && hct.cfg.thin_full != 0;
    if (!hct_mpi_burst.open)
        return; /* no counters: nothing to leave out */
    hct_mpi_burst.ticks = hct_ticks_now();
    hct_mpi_burst.tool_ns = t->tool_ns;
    hct_mpi_burst.taken = hct_sampling_taken(t);
}

/* At an MPI call's enter, before its boundary (t->in_tool > 0): whether its
 * counter values may be left out (1), as the file's comment says. Closes the
 * burst either way. */
static inline int hct_mpi_burst_short(hct_thread *t)
{
    if (!hct_mpi_burst.open)
        return 0;
    hct_mpi_burst.open = 0;
    uint64_t now = hct_ticks_now();
    if (hct_sampling_taken(t) != hct_mpi_burst.taken || t->sample_deferred)
        return 0; /* a sample in the burst: its fraction needs the end's values */
    uint64_t wall = hct_ticks_ns(now - hct_mpi_burst.ticks), tool = t->tool_ns - hct_mpi_burst.tool_ns;
    if (wall >= HCT_MPI_BURST_NS + tool)
        return 0;
    return !hct_sampling_maybe_due(t, now, HCT_MPI_BURST_SAMPLE_WINDOW_NS);
}

#endif
