/* hca_schema.h: the names and conventions of hcatrace's OTF2 format, in one
 * place (docs/trace-format.md). The tracer and the synthesizer write with them,
 * hcafold and the test tools read with them: every string a reader matches on,
 * every property name, the location-ID packing. Definitions themselves (their
 * sets, merge and writing) are hca_defs.h; reading them back is
 * hca_schema_read.h. Header only, no dependencies. */
#ifndef HCA_SCHEMA_H
#define HCA_SCHEMA_H

#include <stdint.h>
#include <string.h>

/* ---- the archive -------------------------------------------------------- */

#define HCA_ARCHIVE_NAME "traces"   /* <dir>/traces.otf2, traces.def, traces/ */
#define HCA_ANCHOR_SUFFIX ".otf2"

/* ---- trace file properties (anchor file) -------------------------------- */

#define HCA_PROP_PMU "HCATRACE::PMU"                     /* libpfm4's core PMU, or HCA_PMU_NONE */
#define HCA_PROP_MODEL "HCATRACE::MODEL"                 /* the model's id */
#define HCA_PROP_MODEL_FILE "HCATRACE::MODEL_FILE"       /* its absolute path */
#define HCA_PROP_MODEL_TEXT "HCATRACE::MODEL_TEXT"       /* the whole model file */
#define HCA_PROP_MODEL_EVENTS "HCATRACE::MODEL_EVENTS"   /* ALIAS=MEMBER;... */
#define HCA_PROP_MODEL_MISSING "HCATRACE::MODEL_MISSING" /* ALIAS=WHY;... */
#define HCA_PROP_SAMPLING_CLOCK "HCATRACE::SAMPLING_CLOCK" /* "wall" or "cpu": what the sampling period counts */
#define HCA_PMU_NONE "none"

/* ---- location properties (global definitions) ---------------------------- */

/* What the location did not write of regions it thinned (HCATRACE_THIN,
 * HCATRACE_FILTER): "REGION INSTANCES TIME_NS" per region (REGION a global
 * region ID, TIME_NS the instances' total time), separated by ';'. */
#define HCA_PROP_THINNED "HCATRACE::THINNED"

/* ---- system tree, location groups, locations ---------------------------- */

#define HCA_MACHINE_NAME "cluster"       /* system tree root, class HCA_STN_CLASS_MACHINE */
#define HCA_STN_CLASS_MACHINE "machine"
#define HCA_STN_CLASS_NODE "node"        /* one per host name */
#define HCA_MPI_PROCESS_NAME_FMT "MPI rank %d" /* location group of an MPI rank */
#define HCA_MASTER_THREAD_NAME "master thread" /* location of thread index 0 */
#define HCA_THREAD_NAME_FMT "thread %u"          /* location of another thread */

/* Location IDs: (thread index << 32) | rank; thread 0 started tracing. */
static inline uint64_t hca_location_id(uint32_t rank, uint32_t thread)
{
    return ((uint64_t)thread << 32) | (uint64_t)rank;
}
static inline uint32_t hca_location_rank(uint64_t id) { return (uint32_t)id; }
static inline uint32_t hca_location_thread(uint64_t id) { return (uint32_t)(id >> 32); }

/* ---- regions ------------------------------------------------------------ */

/* Region descriptions: the kind of a region, as readers classify it. */
#define HCA_KIND_MPI "MPI call"
#define HCA_KIND_FUNCTION "function"
#define HCA_KIND_USER "user region"
#define HCA_KIND_OPENMP "OpenMP construct"

/* ---- groups and communicators ------------------------------------------- */

#define HCA_COMM_WORLD_NAME "MPI_COMM_WORLD"
#define HCA_COMM_SELF_NAME "MPI_COMM_SELF"
#define HCA_GROUP_WORLD_LOCATIONS "MPI_COMM_WORLD ranks" /* COMM_LOCATIONS, paradigm MPI */
#define HCA_GROUP_SELF HCA_COMM_SELF_NAME                /* COMM_SELF */
#define HCA_GROUP_OPENMP_THREADS "OpenMP threads"         /* COMM_LOCATIONS, paradigm OPENMP */
/* an OpenMP team: rank, master thread index, nesting level, team size */
#define HCA_OPENMP_TEAM_NAME_FMT "OpenMP team %d.%u.%u/%u"

/* ---- metrics ------------------------------------------------------------ */

#define HCA_UNIT_NS "ns"
#define HCA_UNIT_COUNT "#"

/* Members the tracer adds to a set with a PMU event: multiplexing times. */
#define HCA_PERF_PREFIX "perf:"
#define HCA_PERF_TIME_ENABLED HCA_PERF_PREFIX "time_enabled"
#define HCA_PERF_TIME_RUNNING HCA_PERF_PREFIX "time_running"

/* The sampling-statistics class: its members, in class order. A reader tells
 * it from the counter sets by the prefix of its member names. */
#define HCA_STATS_PREFIX "sampling:"
#define HCA_STATS_LOST_PREFIX HCA_STATS_PREFIX "lost"
enum hca_stat {
    HCA_STAT_SAMPLES,
    HCA_STAT_LOST_IN_TOOL,
    HCA_STAT_LOST_BUFFER_FULL,
    HCA_STAT_LOST_NO_CONTEXT,
    HCA_STAT_TRUNCATED,
    HCA_NSTATS
};
#define HCA_STAT_NAMES                                                                             \
    {                                                                                              \
        HCA_STATS_PREFIX "samples", HCA_STATS_PREFIX "lost_in_tool", HCA_STATS_PREFIX "lost_buffer_full", \
            HCA_STATS_PREFIX "lost_no_context", HCA_STATS_PREFIX "truncated"                       \
    }

/* The tracer's own time on a location (docs/trace-format.md, "Tool time"): a
 * class of its own with these two members, running totals in ns, written with
 * every region boundary and every sample at its timestamp. A reader subtracts
 * them to see the program as if untraced. */
#define HCA_TOOL_PREFIX "tool:"
#define HCA_TOOL_TIME HCA_TOOL_PREFIX "time"         /* wall-clock ns spent in the tracer */
#define HCA_TOOL_CPU_TIME HCA_TOOL_PREFIX "cpu_time" /* the thread's CPU ns spent in the tracer */
enum hca_tool_member { HCA_TOOL_MEMBER_TIME, HCA_TOOL_MEMBER_CPU, HCA_NTOOL };
#define HCA_TOOL_NAMES { HCA_TOOL_TIME, HCA_TOOL_CPU_TIME }

/* A member of the tool-time class ("tool:*"). */
static inline int hca_is_tool_member(const char *name)
{
    return strncmp(name, HCA_TOOL_PREFIX, strlen(HCA_TOOL_PREFIX)) == 0;
}
/* A counter that counts the thread's CPU time, so also the tracer's own
 * (hcafold subtracts tool:cpu_time from it). */
static inline int hca_counts_cpu_time(const char *name)
{
    return strcmp(name, "task-clock") == 0 || strcmp(name, "cpu-clock") == 0;
}

/* A member of the sampling statistics ("sampling:*"). */
static inline int hca_is_stats_member(const char *name)
{
    return strncmp(name, HCA_STATS_PREFIX, strlen(HCA_STATS_PREFIX)) == 0;
}
/* A statistics member counting lost samples ("sampling:lost*"). */
static inline int hca_is_lost_member(const char *name)
{
    return strncmp(name, HCA_STATS_LOST_PREFIX, strlen(HCA_STATS_LOST_PREFIX)) == 0;
}
/* Why a statistics member's samples were lost: its enum hca_stat
 * (HCA_STAT_LOST_IN_TOOL ...), or 0 when it does not count lost samples (a
 * "sampling:lost*" name of a later tracer: HCA_STAT_SAMPLES, "other"). */
static inline int hca_lost_reason(const char *name)
{
    static const char *const stat_names[HCA_NSTATS] = HCA_STAT_NAMES;
    for (int i = HCA_STAT_LOST_IN_TOOL; i <= HCA_STAT_LOST_NO_CONTEXT; i++)
        if (strcmp(name, stat_names[i]) == 0)
            return i;
    return 0;
}
/* A member the tracer adds to counter sets ("perf:*"), not a counted event. */
static inline int hca_is_perf_member(const char *name)
{
    return strncmp(name, HCA_PERF_PREFIX, strlen(HCA_PERF_PREFIX)) == 0;
}

#endif
