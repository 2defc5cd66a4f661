/* hct_config.h: the tracer's configuration, read once from HCATRACE_* variables
 * (documented in docs/configuration.md and hcatrace(1)). */
#ifndef HCT_CONFIG_H
#define HCT_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "hct_filter.h"

typedef struct {
    int enable;        /* HCATRACE_ENABLE: 0 leaves the program untraced */
    int verbose;       /* HCATRACE_VERBOSE: 0 quiet, 1 summary, 2 details */
    int callsites;     /* HCATRACE_CALLSITES: record the caller of each MPI call */
    int node_symbols;  /* HCATRACE_NODE_SYMBOLS: symbolization shared by the ranks of a node */
    const char *dir;   /* HCATRACE_DIR: experiment directory, or NULL */
    unsigned clock_sync_rounds; /* HCATRACE_CLOCK_SYNC_ROUNDS: ping-pongs per peer */
    /* HCATRACE_COUNTERS: "ev,ev;ev,..." (sets separated by ';'), NULL = the
     * defaults; counters_off when "off" (or empty). Checked against the
     * machine's PMU by hct_counters.c, not here. */
    const char *counters;
    int counters_off;
    /* HCATRACE_MODEL: a model name, a model file (has a '/' or ends in
     * ".model") or "auto"; NULL = none. Loaded by hct_counters.c. */
    const char *model;
    /* HCATRACE_COUNTERS_ROTATE: switch sets after N region instances and/or
     * after T ns; 0 = not by that criterion. */
    unsigned rotate_instances;
    uint64_t rotate_ns;
    /* HCATRACE_SAMPLING: off, or PERIOD[,JITTER] */
    int sampling;
    uint64_t sampling_period_ns;
    unsigned sampling_jitter_pct; /* +- percent of the period */
    unsigned sampling_buffer_kib; /* HCATRACE_SAMPLING_BUFFER: per-thread sample buffer */
    unsigned total_memory_mib;    /* HCATRACE_TOTAL_MEMORY: the process's event buffers */
    int total_memory_set;         /* it was set (unset: shared by a node's ranks, hct_buffers_budget) */
    /* HCATRACE_THIN: per thread and region key, the first thin_full instances
     * in full, then only those lasting thin_ns or more (or holding a sample,
     * or something nested); thin_full = 0: everything in full;
     * thin_cost: HCATRACE_THIN unset, the cost rule on too (a key whose
     * instances are short against the tracer's cost of writing one is
     * written in full only until that is certain, at most its first
     * HCT_THIN_PROBE instances: hct_thin_keys.h) */
    unsigned thin_full;
    uint64_t thin_ns;
    int thin_cost;
    /* HCATRACE_FILTER: regions never written (NULL: none); a bad value
     * leaves the program untraced (enable = 0) */
    const hct_filter *filter;
    int sampling_clock;           /* HCATRACE_SAMPLING_CLOCK: HCT_CLOCK_WALL or HCT_CLOCK_CPU */
    int counter_source;           /* HCATRACE_COUNTER_SOURCE: HCT_COUNTER_SOURCE_AUTO or _PERF */
} hct_config;

/* How counter values are read: perf events always, or (auto) software-only
 * sets without them (hct_counter_rusage.h). */
enum { HCT_COUNTER_SOURCE_AUTO, HCT_COUNTER_SOURCE_PERF };

/* What the sampling period counts: wall-clock time (a POSIX timer on
 * CLOCK_MONOTONIC per thread), or the thread's CPU time (perf_event task-clock
 * or a CPU-time timer). Names as in HCATRACE_SAMPLING_CLOCK and the trace
 * property HCA_PROP_SAMPLING_CLOCK. */
enum { HCT_CLOCK_WALL, HCT_CLOCK_CPU };
#define HCT_CLOCK_NAME(c) ((c) == HCT_CLOCK_CPU ? "cpu" : "wall")
#define HCT_DEFAULT_SAMPLING_CLOCK HCT_CLOCK_WALL /* docs/benchmarks.md, "Sampling clock against truth" */

#define HCT_DEFAULT_SAMPLING_PERIOD_NS 20000000ull /* 20 ms, see docs/benchmarks.md */
#define HCT_SAMPLING_BARE_MAX_MS 100ull          /* a bare HCATRACE_SAMPLING number: ms, up to this */
#define HCT_DEFAULT_SAMPLING_JITTER_PCT 10u
#define HCT_DEFAULT_ROTATE_NS 100000000ull /* 100 ms */
#define HCT_DEFAULT_SAMPLING_BUFFER_KIB 1024u
#define HCT_DEFAULT_TOTAL_MEMORY_MIB 8u /* a node's, unset: shared by its ranks */
#define HCT_MIN_TOTAL_MEMORY_MIB 1u /* one event chunk (OTF2's 1 MiB) */
#define HCT_DEFAULT_THIN_FULL 1000u    /* instances of a region key recorded in full, per thread */
#define HCT_DEFAULT_THIN_NS 50000ull   /* then: instances of at least 50 us */ /* event buffers per process, flushed when full */

/* Reads the environment into cfg (defaults first). Each problem is reported
 * through report(line) as one line; the returned value is the number of
 * problems. Unknown values fall back to the default. */
int hct_config_read(hct_config *cfg, char *const *envp, void (*report)(const char *line));

/* Parsers of the values above, exposed for tests: 0 on success, -1 if invalid. */
int hct_config_parse_sampling(const char *v, int *on, uint64_t *period_ns, unsigned *jitter_pct);
int hct_config_parse_rotate(const char *v, unsigned *instances, uint64_t *ns);
/* HCATRACE_THIN: "off" (full = 0), "N" or "N,DURATION" (a bare duration in us). */
int hct_config_parse_thin(const char *v, unsigned *full, uint64_t *ns);
/* A duration "20ms", "0.5s", "500us", "20000ns"; a bare number is in
 * default_unit_ns. */
int hct_config_parse_duration(const char *v, uint64_t default_unit_ns, uint64_t *ns);


#endif
