/* hca_defs.h: the trace schema's definition set. A process collects its OTF2
 * definitions here under local IDs; sets from many processes are serialized,
 * merged (deduplicated by content) into one global set with per-process ID maps,
 * and the global set is written as OTF2 global definitions. The tracer, the trace
 * synthesizer and the tests use this one module, so the schema lives in one place
 * (see docs/trace-format.md). No MPI here: the transport is the caller's. */
#ifndef HCA_DEFS_H
#define HCA_DEFS_H

#include <stddef.h>
#include <stdint.h>

#include <otf2/otf2.h>

#include "hca_schema.h"

typedef uint32_t hca_ref;
#define HCA_UNDEF UINT32_MAX

typedef struct {
    hca_ref name, canonical, description, file;
    uint32_t begin_line, end_line;
    uint8_t role, paradigm;
} hca_region_def;

typedef struct {
    hca_ref file;
    uint32_t line;
} hca_scl_def;

typedef struct {
    hca_ref region, scl, parent;
} hca_cc_def;

/* Communicator identity: world and self are fixed; a derived communicator is
 * named by (world rank of its rank 0, that rank's creation counter). */
#define HCA_COMM_KEY_WORLD 1u
#define HCA_COMM_KEY_SELF 2u
#define HCA_COMM_KEY(root_world_rank, seq) ((((uint64_t)(root_world_rank) + 1u) << 32) | (uint64_t)(seq))

/* An MPI communicator (paradigm MPI: members are world ranks, in comm rank
 * order; 0 members for self) or an OpenMP thread team (paradigm OPENMP:
 * members are thread indices of process `rank`). Keys are unique per paradigm
 * across the job; a team's key is HCA_TEAM_KEY(rank, n). */
typedef struct {
    hca_ref name, parent;
    uint64_t key;
    uint32_t nmembers;
    uint32_t *members;
    uint8_t paradigm; /* OTF2_PARADIGM_MPI or OTF2_PARADIGM_OPENMP */
    uint32_t rank;    /* OpenMP: the process of the member threads */
} hca_comm_def;
#define HCA_TEAM_KEY(rank, seq) (((uint64_t)(rank) << 32) | (uint64_t)(seq))

typedef struct {
    hca_ref name, description, unit;
    uint8_t metric_type, mode, value_type;
} hca_metric_member_def;

#define HCA_MAX_CLASS_MEMBERS 32
typedef struct {
    uint8_t nmembers;
    uint8_t occurrence; /* OTF2_MetricOccurrence: where its Metric events are */
    hca_ref members[HCA_MAX_CLASS_MEMBERS];
} hca_metric_class_def;

typedef struct {
    hca_ref name;
    uint8_t mode;
    uint64_t period_ns;
} hca_igen_def;

/* What a location did not write of a region (the tracer's thinning,
 * docs/trace-format.md "Thinned regions"): instances and their total time. */
typedef struct {
    uint64_t location;
    hca_ref region;
    uint64_t instances, time_ns;
} hca_thinned_def;

typedef struct {
    char **items;
    uint32_t n, cap;
    uint32_t *hash_slots; /* index+1, 0 = empty */
    uint32_t hash_cap;
} hca_strtab;

/* A hash index of a definition array (entry index + 1 per slot). */
typedef struct {
    uint32_t *slots;
    uint32_t cap, n;
} hca_index;

typedef struct {
    hca_strtab strings;
    hca_region_def *regions;
    uint32_t nregions, cap_regions;
    hca_scl_def *scls;
    uint32_t nscls, cap_scls;
    hca_cc_def *ccs;
    uint32_t nccs, cap_ccs;
    hca_comm_def *comms;
    uint32_t ncomms, cap_comms;
    hca_metric_member_def *members;
    uint32_t nmembers, cap_members;
    hca_metric_class_def *classes;
    uint32_t nclasses, cap_classes;
    hca_igen_def *igens;
    uint32_t nigens, cap_igens;
    hca_thinned_def *thinned; /* not deduplicated: merged ones are appended */
    uint32_t nthinned, cap_thinned;
    /* content indexes, used when the set is a merge target */
    hca_index ix_region, ix_scl, ix_cc, ix_member, ix_class, ix_igen;
} hca_defs;

/* ID maps from one local set into a global one (local index -> global ID). */
typedef struct {
    uint64_t *strings, *regions, *scls, *ccs, *comms, *metrics, *igens;
    uint32_t nstrings, nregions, nscls, nccs, ncomms, nmetrics, nigens;
} hca_defs_map;

void hca_defs_init(hca_defs *d);
void hca_defs_free(hca_defs *d);

/* Adders return the new local ID, or HCA_UNDEF when memory ran out. Strings are
 * deduplicated; the other kinds are appended as given (merging deduplicates). */
hca_ref hca_defs_string(hca_defs *d, const char *s);
hca_ref hca_defs_region(hca_defs *d, const char *name, const char *kind, const char *file,
                        uint32_t begin_line, uint32_t end_line, OTF2_RegionRole role,
                        OTF2_Paradigm paradigm);
/* A region whose canonical name (OTF2's canonicalName: a function's full
 * signature) differs from the name shown; hca_defs_region uses the name for both. */
hca_ref hca_defs_region_canonical(hca_defs *d, const char *name, const char *canonical, const char *kind,
                                  const char *file, uint32_t begin_line, uint32_t end_line, OTF2_RegionRole role,
                                  OTF2_Paradigm paradigm);
hca_ref hca_defs_scl(hca_defs *d, const char *file, uint32_t line);
hca_ref hca_defs_cc(hca_defs *d, hca_ref region, hca_ref scl, hca_ref parent);
hca_ref hca_defs_comm(hca_defs *d, const char *name, hca_ref parent, uint64_t key,
                      uint32_t nmembers, const uint32_t *world_ranks);
/* An OpenMP thread team of process `rank`: its member threads (indices). */
hca_ref hca_defs_team(hca_defs *d, const char *name, uint32_t rank, uint64_t key, uint32_t nmembers,
                      const uint32_t *thread_indices);
hca_ref hca_defs_metric_member(hca_defs *d, const char *name, const char *description,
                               const char *unit, OTF2_MetricType type, OTF2_MetricMode mode,
                               OTF2_Type value_type);
/* occurrence: OTF2_METRIC_SYNCHRONOUS for values written only right before
 * calling-context events (not at every one), OTF2_METRIC_ASYNCHRONOUS for
 * values written anywhere (docs/trace-format.md, "Metric classes"). */
hca_ref hca_defs_metric_class(hca_defs *d, uint8_t nmembers, const hca_ref *members,
                              OTF2_MetricOccurrence occurrence);
/* Instances of `region` that `location` did not write, and their time. */
hca_ref hca_defs_thinned(hca_defs *d, uint64_t location, hca_ref region, uint64_t instances, uint64_t time_ns);
hca_ref hca_defs_interrupt_generator(hca_defs *d, const char *name,
                                     OTF2_InterruptGeneratorMode mode, uint64_t period_ns);

/* Serialization into one malloc'ed buffer (same-architecture peers only). */
int hca_defs_serialize(const hca_defs *d, unsigned char **buf, size_t *len);
int hca_defs_deserialize(hca_defs *d, const unsigned char *buf, size_t len);

/* How many definitions of each kind a set held at some moment: the definitions
 * added since are a delta (hca_journal.h: one per flush of a running process). */
typedef struct {
    uint32_t strings, regions, scls, ccs, members, classes, igens;
} hca_defs_marks;
void hca_defs_marks_of(const hca_defs *d, hca_defs_marks *m);
/* Serializes the definitions added since `since` (every kind but communicators) and
 * all communicators (an OpenMP team's members grow while it runs), in the format of
 * hca_defs_serialize. */
int hca_defs_serialize_since(const hca_defs *d, const hca_defs_marks *since, unsigned char **buf, size_t *len);
/* Appends a delta (deserialized) to the set it was taken from, whose marks it was
 * taken since; the delta's communicators replace the set's. 0, or -1 when the set
 * does not hold exactly what the delta follows, or out of memory. */
int hca_defs_append(hca_defs *d, const hca_defs_marks *since, const hca_defs *delta);

/* Merge a local set into a global one, deduplicating by content; fills map. */
int hca_defs_merge(hca_defs *global, const hca_defs *local, hca_defs_map *map);
void hca_defs_map_free(hca_defs_map *m);

/* Write a mapping table of each kind to a local definition writer. */
int hca_defs_write_mappings(const hca_defs_map *m, OTF2_DefWriter *w);

/* The part of the system tree that the global set does not hold. */
typedef struct {
    uint64_t id;       /* (thread index << 32) | rank */
    uint32_t rank;     /* location group = process */
    uint32_t thread;   /* thread index within the process, 0 = master */
    uint64_t nevents;
} hca_location_info;

typedef struct {
    uint32_t nranks;
    const char *const *hostnames;   /* per rank */
    const char *const *proc_names;  /* per rank, e.g. "rank 3" */
    const hca_location_info *locs;
    uint32_t nlocs;
    uint64_t clock_resolution, global_offset, trace_length, realtime_ns;
    int is_mpi;                     /* write MPI communicators (OpenMP teams always) */
} hca_system_info;

/* Write the global definitions: clock, strings, system tree, regions, calling
 * contexts, groups, communicators, metrics, interrupt generators. */
int hca_defs_write_global(hca_defs *g, const hca_system_info *sys, OTF2_GlobalDefWriter *w);

#endif
