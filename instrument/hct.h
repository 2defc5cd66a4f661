/* hct.h: what every file of libhcatrace.so shares: the process state (`hct`,
 * defined in hct.c), one thread's OTF2 location (hct_thread) and its clock.
 * Each file's functions are declared in its own header (hct_X.h for hct_X.c). */
#ifndef HCT_H
#define HCT_H

#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>

#include <otf2/otf2.h>

#include "hca_clock.h"
#include "hca_defs.h"
#include "hct_config.h"
#include "hct_path_memo.h"
#include "hct_path.h"
#include "hct_path_cache.h"
#include "hct_thin_keys.h"

#define HCT_TLS __thread __attribute__((tls_model("initial-exec")))
#define HCT_HIDDEN __attribute__((visibility("hidden")))
#define HCT_MAX_THREADS 4096

typedef struct hct_ctr_thread hct_ctr_thread; /* hct_counter_read.h */
typedef struct hct_smp_thread hct_smp_thread; /* hct_sampling.c */

/* One OTF2 location: a thread of the traced process. */
typedef struct hct_thread {
    OTF2_EvtWriter *writer;
    uint64_t location_id;
    uint64_t last_ts;
    uint32_t index;           /* 0 = the thread that started tracing */
    volatile sig_atomic_t in_tool; /* >0 while inside a wrapper (samples deferred to its end) */
    /* a sample interrupted the tracer: taken when in_tool returns to 0 (hct_sample_defer.h) */
    volatile sig_atomic_t sample_deferred;
    uint64_t sample_raised_ns; /* when it was queued again: the delivery counts as the tracer's */
    int mpi_depth;            /* nesting of MPI wrappers on this thread */
    int has_location;         /* an OTF2 location was created for it */
    uint64_t dropped_events;  /* events OTF2 refused (e.g. disk full) */
    void *scratch;            /* per-thread work space of the MPI wrappers */
    size_t scratch_size;
    hct_ctr_thread *ctr;      /* its counters, or NULL */
    hct_smp_thread *smp;      /* its sampling, or NULL */
    int extras;               /* counters or sampling: boundaries do more */
    int finished;             /* its counters and sampling were closed */
    hct_path path;            /* its current calling context, open regions */
    hct_path_cache fork_paths; /* its forks' call paths (hct_path_cache.c) */
    hct_path_cache late_paths; /* call paths of enters unwound late (hct_thin.c, unwind_late) */
    hct_path_memo fork_ctx;   /* its forks' contexts (hct_path_memo.c) */
    struct hct_mpi_paths *mpi_paths; /* its MPI calls' call paths and nodes, from its first (hct_mpi_path.c) */
    int mpi_paths_failed;      /* that cache could not be allocated */
    /* the thread's time in the tracer so far, ns (hct_tooltime.h): added to by
     * the sampling handler only outside the tracer (in_tool == 0), by region
     * boundaries and sample drains only inside it, so never by both at once */
    volatile uint64_t tool_ns, tool_cpu_ns;
    /* the last region boundary's own work before and after its timestamp, ns,
     * counted in place of one that held a preemption (hct_tool_work) */
    uint64_t boundary_before, boundary_after;
    hct_thin_thread thin;     /* what it records of each region key (hct_thin.h) */
    /* an OpenMP worker between two of its shares, waiting in the runtime for
     * the next parallel region: not sampled (hct_sampling_park) */
    volatile sig_atomic_t omp_parked;
    /* an OpenMP thread waiting at a barrier of its team (hct_omp_sync.h): a
     * sample's cost then holds up nothing, so the handler adds it to no tool
     * time (the team's tool time it waited for is added at the leave); never
     * set in a team of one, where nobody's wait covers that cost */
    volatile sig_atomic_t omp_waiting;
} hct_thread;

enum hct_mode { HCT_OFF = 0, HCT_SERIAL, HCT_MPI_PENDING, HCT_MPI };

typedef struct {
    _Atomic int active;       /* events are being recorded */
    enum hct_mode mode;
    int rank, size;
    int env_rank; /* the job rank the launcher's environment gives at load (0 without one) */
    hct_config cfg;
    char expdir[4096];
    char exe[256];
    OTF2_Archive *archive;
    uint64_t program_begin_ts;
    uint64_t first_ts;        /* timestamp when recording began */
    hct_thread *threads[HCT_MAX_THREADS];
    _Atomic uint32_t nthreads;
    hca_ref program_name_string;
    hca_defs defs;            /* local definitions, filled at finalize */
    char write_error[256];    /* first OTF2 error while writing, if any */
} hct_state;

extern hct_state hct HCT_HIDDEN;

/* Thread t's timestamp of an event at ts (a record written late, at the time
 * it happened): never earlier than its previous one. */
static inline uint64_t hct_timestamp_at(hct_thread *t, uint64_t ts)
{
    if (ts < t->last_ts)
        ts = t->last_ts;
    t->last_ts = ts;
    return ts;
}

/* A timestamp of thread t: never earlier than its previous one. */
static inline uint64_t hct_timestamp(hct_thread *t)
{
    return hct_timestamp_at(t, hca_clock_now());
}

#endif
