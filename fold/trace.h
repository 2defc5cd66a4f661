/* trace.h: what hcafold takes from a trace: the definitions it needs, per
 * location the samples that fall inside instances, and per region key its
 * instances (enter/leave times and counter values). Filled by reading an
 * hcatrace OTF2 archive (read.c, in parallel over locations) and grouped into
 * regions (regions.c); folded into point clouds by points.c. */
#ifndef FOLD_TRACE_H
#define FOLD_TRACE_H

#include <stddef.h>
#include <stdint.h>

#define FOLD_NONE UINT32_MAX
/* reasons of lost samples: enum hca_stat's HCA_STAT_LOST_* (1..3), 0 any other */
#define FOLD_LOST_WHY 4

/* Region kinds hcafold folds. */
enum fold_kind {
    FOLD_KIND_USER,   /* user marker regions (paradigm USER) */
    FOLD_KIND_OPENMP, /* OpenMP constructs (paradigm OPENMP) */
    FOLD_KIND_BURST,  /* compute between two MPI calls, keyed by both call sites */
    FOLD_KIND_MPI,    /* MPI calls themselves (kept only with fold_read_options.mpi_regions) */
    FOLD_KIND_FUNCTION /* any other instrumented region; also the kind of sampled code */
};

/* Why an instance is not folded. */
enum fold_exclusion {
    FOLD_USED = 0,
    FOLD_EXCLUDED_OUTLIER = 1 /* duration outside median +- k * MAD of its group */
};

typedef struct {
    const char *name, *file; /* file: "" when unknown */
    uint32_t line;
    int paradigm;            /* OTF2_Paradigm */
    int role;                /* OTF2_RegionRole */
    int kind;                /* enum fold_kind */
} fold_region_def;

typedef struct {
    uint32_t region, parent; /* global IDs; parent FOLD_NONE at the root */
    const char *file;        /* source location of this context (the line running in this frame), or NULL */
    uint32_t line;
    uint32_t depth;          /* 0 at the root */
} fold_context_def;

typedef struct {
    const char *name, *unit;
    const char *description; /* the metric member's: what was counted and how it was read ("" if none) */
    int counts_cpu;          /* counts the thread's CPU time (task-clock): the tracer's CPU time is removed */
} fold_counter_def;

/* A counter set (OTF2 MetricClass): what one Metric event carries. A class
 * whose members are named "sampling:*" holds the tracer's sampling statistics
 * (running counts per location), one with "tool:*" members the tracer's own
 * time (running ns per location), not counters. */
typedef struct {
    size_t n;
    uint32_t *counters; /* per member: index into fold_trace.counters (FOLD_NONE in statistics and tool time) */
    uint8_t *lost;      /* per member: 1 if it counts lost samples ("sampling:lost*") */
    uint8_t *lost_why;  /* per member: why (enum hca_stat: HCA_STAT_LOST_IN_TOOL...; 0: another reason) */
    int statistics;     /* 1: the tracer's sampling statistics */
    int tool;           /* 1: the tracer's own time ("tool:time", "tool:cpu_time") */
    int tool_time, tool_cpu; /* members of those two in a tool class, -1 if absent */
} fold_counter_set;

typedef struct {
    uint64_t t;            /* ns, without the tracer's own time (see fold_instance) */
    uint32_t context;      /* leaf calling context of the sampled stack, or FOLD_NONE */
    const double *values;  /* per trace counter; NAN where not measured (never NULL when ncounters > 0) */
    uint64_t tool_ns;      /* the tracer's time removed before it (as t), ns */
} fold_sample;

/* One instance of a region on one location. Times and CPU-time counters are
 * those of the program as if untraced: where the trace records the tracer's
 * own time ("tool:*" metrics), a location's timestamps are read minus the
 * tracer's time before them, and task-clock values minus its CPU time. */
typedef struct {
    uint64_t t0, t1;       /* enter and leave (bursts: leave of the opening MPI call, enter of the closing one), ns */
    uint64_t tool_ns;      /* the tracer's own time inside the instance, removed from t1 - t0 */
    uint64_t back_ns;      /* removed too much (more than the CPU time left allows): put back */
    uint64_t tool0_ns;     /* the tracer's time removed before t0 */
    const double *c0, *c1; /* counter values at t0/t1, per trace counter; NAN where not measured */
    size_t first_sample, nsamples; /* its samples: locations[location].samples[first_sample ...] */
    uint32_t location;     /* index into fold_trace.locations */
    uint32_t open_context, close_context; /* the key: bursts: the MPI calls' contexts; otherwise both the region's */
    int16_t kind;          /* enum fold_kind */
    int16_t excluded;      /* enum fold_exclusion */
} fold_instance;

/* Where sample s falls in instance in, 0 to 1: the time put back into the
 * instance (back_ns) given back to its samples in proportion to the tracer's
 * time removed before each, as it was removed too much in proportion. */
static inline double fold_instance_x(const fold_instance *in, const fold_sample *s)
{
    if (in->t1 <= in->t0 || s->t <= in->t0)
        return 0.0;
    double t = (double)(s->t - in->t0);
    if (in->back_ns && s->tool_ns > in->tool0_ns)
        t += (double)in->back_ns * (double)(s->tool_ns - in->tool0_ns) / (double)(in->tool_ns + in->back_ns);
    return t / (double)(in->t1 - in->t0);
}

/* Time a location spent in MPI calls made at one call site (outermost calls only). */
typedef struct {
    uint32_t context;      /* the MPI call's calling context */
    uint64_t calls, ns;
} fold_site_time;

typedef struct {
    uint64_t id;           /* OTF2 location ID: hca_location_id(rank, thread) for hcatrace */
    uint32_t rank;         /* location group */
    uint32_t thread;       /* hca_location_thread(id) */
    uint64_t nevents;      /* events read */
    uint64_t samples_read; /* samples seen, kept or not */
    fold_sample *samples;  /* samples inside at least one instance, in time order */
    size_t nsamples;
    fold_instance *instances; /* as read, in leave order; moved into the regions by fold_regions_build */
    size_t ninstances;
    uint64_t samples_lost; /* the tracer's last "sampling:lost*" statistics, summed */
    uint64_t samples_lost_why[FOLD_LOST_WHY]; /* ... by reason (enum hca_stat; [0]: others) */
    uint64_t unbalanced;   /* leave events that matched no open region */
    uint64_t bare_bursts;  /* compute bursts ended by an MPI enter without counter values (short, no sample) */
    uint64_t unclosed;     /* region instances still open when the location ended */
    uint64_t bursts;       /* compute bursts ended by an MPI enter (in a trace with counters) */
    uint64_t t_begin, t_end; /* ns: its first and last event read (ProgramBegin/End on a process's thread) */
    fold_site_time *mpi_sites; /* time in outermost MPI calls, per call context, in first-call order */
    size_t nmpi_sites;
    void *arena;           /* counter values (internal) */
} fold_location;

/* All instances of one key, or of one duration group of a key. */
typedef struct {
    char *name;            /* "iteration", or "MPI_Allreduce@cg.c:88 -> MPI_Allreduce@cg.c:120" for a burst */
    int kind;              /* enum fold_kind */
    uint32_t open_context, close_context; /* the key */
    uint32_t path, npaths;   /* code path of the key (paths.h), most samples first; npaths 1 if one */
    char *path_label;        /* the path's functions, "path_smooth"; NULL when npaths is 1 */
    uint32_t group, ngroups; /* duration group of the path, by ascending duration; ngroups 1 if not split */
    int grouped_on_cpu;      /* the groups were split on CPU time (task-clock), not wall time */
    char *open_site, *close_site; /* labels of the key's call sites, "MPI_Isend@halo3d.c:111|116" */
    uint32_t sites;          /* line-level keys merged into this one (sites.h); 1 if none */
    fold_instance *instances; /* by location, then time */
    size_t ninstances;
    size_t nused, nexcluded;  /* instances */
    size_t nsamples, nsamples_used; /* samples inside the instances, inside the used ones */
    double median_ns, mad_ns;       /* duration statistics of the group (MAD unscaled) */
    double keep_lo_ns, keep_hi_ns;  /* durations kept: median -+ k * scale * MAD */
    double total_ns;       /* summed duration of all instances of the group */
    double tool_ns;        /* the tracer's own time removed from them */
} fold_region;

/* Instances of a region the tracer did not write (HCATRACE_THIN,
 * HCATRACE_FILTER; the locations' HCATRACE::THINNED properties), summed over
 * the locations that thinned it. */
typedef struct fold_thinned {
    const char *name;          /* the region's name */
    uint64_t instances, time_ns;
    size_t locations;
} fold_thinned;

typedef struct {
    char *path;                  /* anchor file read */
    char *creator;               /* the archive's creator ("hcatrace 1.0", "hcasynth", ...) */
    char **strings;              /* definition strings (names point here) */
    size_t nstrings;
    fold_region_def *regions;
    size_t nregions;
    fold_context_def *contexts;
    size_t ncontexts;
    fold_counter_def *counters;  /* every metric member of the trace but the sampling statistics */
    size_t ncounters;
    fold_counter_set *sets;      /* every metric class, by OTF2 ID */
    size_t nsets;
    uint64_t sample_period_ns;   /* of the first interrupt generator, 0 if none */
    uint64_t clock_resolution, global_offset, trace_length;
    fold_location *locations;    /* sorted by ID */
    size_t nlocations;
    uint64_t nevents;            /* events read, all locations */
    uint64_t samples_read, samples_kept;
    uint64_t samples_lost;       /* reported by the tracer, all locations */
    uint64_t samples_lost_why[FOLD_LOST_WHY]; /* ... by reason */
    uint64_t bare_bursts, bursts; /* compute bursts ended without counter values, all (in a trace with counters) */
    int tool_time;               /* the trace records the tracer's own time (a "tool:" class) */
    fold_region *folds;          /* the region keys found (after fold_regions_build) */
    size_t nfolds;
    double *nan_row;             /* ncounters NANs: values of events without counters */
    fold_thinned *thinned;       /* instances the tracer did not write, per region name */
    size_t nthinned;
    char **property_names;       /* the archive's trace file properties (OTF2_Archive_SetProperty), */
    char **property_values;      /* e.g. HCATRACE::MODEL (docs/trace-format.md) */
    size_t nproperties;
} fold_trace;

#endif
