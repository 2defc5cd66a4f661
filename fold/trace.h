/* trace.h: what hcafold takes from a trace: the definitions it needs, and per
 * region key its instances (enter/leave times and counter values) and the
 * samples that fall inside them. Filled by reading an hcatrace OTF2 archive
 * (read.c, in parallel over locations) and grouped into regions (regions.c). */
#ifndef FOLD_TRACE_H
#define FOLD_TRACE_H

#include <stddef.h>
#include <stdint.h>

#define FOLD_NONE UINT32_MAX

/* Region kinds hcafold folds. */
enum fold_kind {
    FOLD_KIND_USER,   /* user marker regions */
    FOLD_KIND_OPENMP, /* OpenMP parallel regions */
    FOLD_KIND_BURST,  /* compute between two MPI calls, keyed by both call sites */
    FOLD_KIND_MPI,    /* MPI calls themselves (not folded by default) */
    FOLD_KIND_FUNCTION
};

typedef struct {
    char *name, *file;
    uint32_t line;
    int paradigm; /* OTF2_Paradigm */
    int kind;     /* enum fold_kind for instrumented regions, FOLD_KIND_FUNCTION for code */
} fold_region_def;

typedef struct {
    uint32_t region, parent; /* global IDs; FOLD_NONE at the root */
    char *file;              /* source location of this context, or NULL */
    uint32_t line;
} fold_context_def;

typedef struct {
    char *name, *unit;
} fold_counter_def;

/* One instance of a region on one location. */
typedef struct {
    uint64_t t0, t1;       /* enter and leave, ns */
    uint32_t location;     /* index into fold_trace.locations */
    double *c0, *c1;       /* counter values at enter/leave, per trace counter; NAN where not measured */
    size_t first_sample, nsamples; /* its samples in fold_region.samples */
    int excluded;          /* 0 used; 1 duration outlier; 2 another duration cluster */
} fold_instance;

typedef struct {
    uint64_t t;            /* ns */
    uint32_t context;      /* leaf calling context of the sampled stack, or FOLD_NONE */
    double *values;        /* per trace counter; NAN where not measured */
} fold_sample;

/* All instances of one key. */
typedef struct {
    char *name;            /* e.g. "iteration", or "cg.c:88 -> cg.c:120" for a burst */
    int kind;              /* enum fold_kind */
    uint32_t open_context, close_context; /* call sites that open/close it (bursts), or the region's context */
    fold_instance *instances;
    size_t ninstances;
    fold_sample *samples;
    size_t nsamples;
    uint32_t group;        /* duration cluster index when a key splits into groups */
} fold_region;

typedef struct {
    fold_region_def *regions;
    size_t nregions;
    fold_context_def *contexts;
    size_t ncontexts;
    fold_counter_def *counters; /* every metric member of the trace */
    size_t ncounters;
    uint64_t *locations;        /* OTF2 location IDs, in reading order */
    size_t nlocations;
    uint64_t samples_lost;      /* reported by the tracer */
    fold_region *folds;         /* the region keys found */
    size_t nfolds;
} fold_trace;

#endif
