/* hcasynth.c: the trace synthesizer. Writes an OTF2 archive in hcatrace's schema
 * (docs/trace-format.md) through src/hca_defs and the OTF2 writer, from a ground
 * truth given on the command line: a repeating region (a compute burst between
 * two MPI_Allreduce call sites, or a user region "iteration") whose counters
 * follow piecewise constant rates over normalized time, sampled by a timer with
 * jitter, with duration jitter, outlier instances, rotating counter sets, rate
 * noise, several ranks and threads, a tracer's cost per sample (its own time,
 * recorded as the tracer does: "tool:" metrics). It also writes DIR/truth.txt (key=value) for
 * the tests. Same arguments, same bytes: every random number comes from our own
 * seeded streams, and the instances do not depend on the sampling period, so
 * --fine-factor K samples the very same run K times more often.
 *
 * Each rank defines its definitions under local IDs in a rank-dependent order;
 * they are merged (hca_defs_merge) and every location's .def file holds the
 * mapping tables and a constant clock offset, as the tracer writes them. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <otf2/otf2.h>

#include "hca_archive.h"
#include "hca_defs.h"
#include "prng.h"
#include "synth_spec.h"

#define PROG "hcasynth"
#define FILE_NAME "app.c"
#define LINE_MAIN 20
#define LINE_ITER_CALL 25
#define LINE_MPI_A 30
#define LINE_MPI_B 40
#define LINE_IDLE 45
#define LINE_ITER_DECL 80
#define LINE_FUNC_CALL(j) (50u + (uint32_t)(j))
#define LINE_FUNC_DECL(j) (100u + 20u * (uint32_t)(j))
#define LINE_FUNC_BODY(j) (LINE_FUNC_DECL(j) + 5u)
#define NOISE_BINS 50 /* per-instance rate noise is piecewise constant on this grid */
#define T_START 1000000000ull
#define REALTIME 1700000000000000000ull

enum { KIND_BURST, KIND_USER, KIND_OPENMP }; /* openmp: a user region, but an OpenMP parallel region */
#define OMP_REGION_NAME "main._omp_fn.0"

typedef struct {
    const char *out;
    unsigned ranks, threads;
    unsigned long instances;
    double duration_ms, duration_jitter, period_ms, period_jitter_ms, mpi_ms, gap_ms;
    synth_counter counters[SYNTH_MAX_COUNTERS];
    size_t ncounters;
    synth_set sets[SYNTH_MAX_SETS];
    size_t nsets;
    double outliers, outlier_factor, noise, fine;
    double skew_us; /* a sample's counter values are those of this much later */
    double sample_cost_us; /* the tracer's time per sample, after its timestamp (recorded) */
    double tool_time_long; /* the recorded tool:time is (1 + this) x the tracer's time (tool:cpu exact) */
    synth_func funcs[SYNTH_MAX_FUNCS];
    size_t nfuncs;
    int kind;
    uint64_t seed;
    unsigned long lost;
    const char *model; /* --model FILE: recorded in the trace properties */
    const char *creator; /* --creator NAME: the archive's creator, as another tool's */
    const char *records; /* --truth-records PREFIX: thread 0's records of itself, as tests/truth_app's */
    int verbose;
    int nonconformant; /* --nonconformant: the representation before issue 10, for the checker's test */
} options;

/* One rank's local definitions and the refs its events use. */
typedef struct {
    hca_defs defs;
    hca_defs_map map;
    hca_ref cc_mpi[2], cc_iter, cc_idle, cc_func[SYNTH_MAX_FUNCS];
    hca_ref cc_func_in[SYNTH_MAX_FUNCS]; /* the functions under the open region (user, openmp) */
    hca_ref klass[SYNTH_MAX_SETS];
    hca_ref stats; /* the sampling statistics' class, as the tracer writes it */
    hca_ref tool;  /* the tracer's own time ("tool:"), with --sample-cost-us */
    hca_ref igen, comm_world, s_prog, s_arg;
} rank_defs;

/* One instance (iteration) of a location; independent of the sampling. */
typedef struct {
    uint64_t d, mpi[2], gap; /* ns */
    size_t set;
    int outlier;
    double m[SYNTH_MAX_COUNTERS];
    double g[SYNTH_MAX_COUNTERS][NOISE_BINS];
} instance;

enum { SEG_MPI_A, SEG_INST, SEG_MPI_B, SEG_GAP };
#define PATH_MAX_DEPTH 8 /* deepest calling context written: main, region, main, function */

typedef struct {
    uint64_t t0, t1;
    int type;
    const instance *in;
} segment;

/* Ground truth accumulated while writing. */
typedef struct {
    uint64_t instances, outliers, samples, samples_in, samples_in_used, events;
    double dur_used_sum;
    double *durations; /* of every instance of the key, for the expected exclusions */
    size_t ndurations, cap_durations;
    uint64_t counter_instances[SYNTH_MAX_COUNTERS], counter_used[SYNTH_MAX_COUNTERS];
} truth;

typedef struct {
    const options *o;
    const rank_defs *rd;
    OTF2_EvtWriter *w;
    uint32_t rank, thread;
    int64_t offset;                     /* local clock = global - offset */
    double c_start[SYNTH_MAX_COUNTERS]; /* running values at the current segment's start */
    double out_rate[SYNTH_MAX_COUNTERS];
    uint64_t now;                       /* last global timestamp written */
    uint64_t next_sample;
    synth_rng srng;
    size_t set;
    truth *tr;
    uint64_t samples;                   /* written on this location */
    hca_ref path[PATH_MAX_DEPTH];       /* the location's current calling context, root first */
    int depth;
    uint64_t tool;                      /* the tracer's time so far (--sample-cost-us), ns */
    FILE *records[2];                   /* --truth-records: as measured traced, and the program's own */
    unsigned long instance;             /* the key's instances so far */
    int bad;
} loc_writer;

static loc_writer *current; /* for the flush callback: deterministic timestamps */

static uint64_t flush_time(void *user)
{
    (void)user;
    return current ? current->now + current->tool - (uint64_t)current->offset : 0;
}

static hca_flush_clock flush_clock = { flush_time, NULL, NULL };

/* ---- options ------------------------------------------------------------ */

static void usage(FILE *f)
{
    fprintf(f,
            "usage: " PROG " --out DIR [options]\n"
            "Writes a synthetic hcatrace OTF2 archive DIR/traces.otf2 and its ground truth DIR/truth.txt.\n"
            "  --out DIR              output directory (created; must not hold a trace)\n"
            "  --kind burst|user|openmp  region: compute between two MPI_Allreduce call sites, a user\n"
            "                         region \"iteration\", or a thread's share of an OpenMP parallel\n"
            "                         region \"" OMP_REGION_NAME "\" (default burst)\n"
            "  --ranks N              processes (default 1)\n"
            "  --threads T            locations per process (default 1)\n"
            "  --instances N          instances per location (default 100)\n"
            "  --duration-ms D        mean instance duration (default 10)\n"
            "  --duration-jitter J    relative, uniform in [-J, J] (default 0.05)\n"
            "  --period-ms P          sampling period (default 5)\n"
            "  --period-jitter PJ     ms, uniform in [-PJ, PJ] (default 0)\n"
            "  --mpi-ms M             duration of each MPI call (default 0.2)\n"
            "  --gap-ms G             time between instances outside the key (default 0.5)\n"
            "  --counter SPEC         NAME:LO-HI=RATE,... rates in events/s over normalized time\n"
            "                         (RATE~END: a ramp from RATE to END over the piece),\n"
            "                         contiguous from 0 to 1 (repeatable; none: time only)\n"
            "  --sets SPEC            rotating counter sets 'a,b;a,c' (default: one set of all)\n"
            "  --outliers FRACTION    instances per location made outliers (default 0)\n"
            "  --outlier-factor F     outlier duration factor, uniform in [(1+F)/2, F] (default 3)\n"
            "  --noise REL            multiplicative rate noise per instance and per 1/%d of it (default 0)\n"
            "  --functions SPEC       NAME:LO-HI,... function sampled over normalized time (default compute:0-1)\n"
            "  --seed S               (default 1)\n"
            "  --fine-factor K        sample K times more often; same instances (default 1)\n"
            "  --model FILE           record this model in the trace properties, as the tracer\n"
            "                         does with HCATRACE_MODEL (HCATRACE::MODEL, MODEL_TEXT)\n"
            "  --skew-us S            a sample's counter values are those of S us after its time\n"
            "                         (a tracer's skew; default 0)\n"
            "  --sample-cost-us C     the tracer spends C us after each sample's timestamp: every\n"
            "                         later event is C us later, task-clock counts it, and the\n"
            "                         trace records it as the tracer does (\"tool:\" metrics;\n"
            "                         the truth stays the program's own; default 0: not recorded)\n"
            "  --tool-time-long F     the tracer's wall time is recorded (1 + F) times as long as it\n"
            "                         was (its CPU time exactly): a removal that takes more wall\n"
            "                         time from an instance than it spent (default 0)\n"
            "  --lost-samples N       samples reported lost per location in the sampling statistics\n"
            "                         (written half way and at the end; default 0)\n"
            "  --truth-records PREFIX  each rank's thread 0 records itself in the key's instances, as\n"
            "                         tests/truth_app does (PREFIX.RANK, its format): time, task-clock\n"
            "                         and page-faults every 0.1 ms and at both ends, holding the\n"
            "                         tracer's time (trace time, as measured traced); PREFIX_own.RANK\n"
            "                         the same records without it (the program's own time)\n"
            "  --creator NAME         the archive's creator (default hcasynth), to pose as another tool\n"
            "  --nonconformant        the calling contexts and metric classes written before issue 10:\n"
            "                         region contexts apart from the samples', unwind distance 2,\n"
            "                         SYNCHRONOUS_STRICT classes (for tests of the conformance checker)\n"
            "  -v, --verbose          print a summary\n"
            "  -h, --help\n",
            NOISE_BINS);
}

static int parse_num(const char *name, const char *s, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || errno || !(v >= lo && v <= hi)) {
        fprintf(stderr, PROG ": --%s: '%s' is not a number in [%g, %g]\n", name, s, lo, hi);
        return -1;
    }
    *out = v;
    return 0;
}

static int parse_options(int argc, char **argv, options *o)
{
    static const struct option longopts[] = {
        { "out", required_argument, NULL, 'o' },
        { "kind", required_argument, NULL, 'k' },
        { "ranks", required_argument, NULL, 'r' },
        { "threads", required_argument, NULL, 't' },
        { "instances", required_argument, NULL, 'n' },
        { "duration-ms", required_argument, NULL, 'd' },
        { "duration-jitter", required_argument, NULL, 'j' },
        { "period-ms", required_argument, NULL, 'p' },
        { "period-jitter", required_argument, NULL, 'q' },
        { "mpi-ms", required_argument, NULL, 'm' },
        { "gap-ms", required_argument, NULL, 'g' },
        { "counter", required_argument, NULL, 'c' },
        { "sets", required_argument, NULL, 's' },
        { "outliers", required_argument, NULL, 'O' },
        { "outlier-factor", required_argument, NULL, 'F' },
        { "noise", required_argument, NULL, 'N' },
        { "functions", required_argument, NULL, 'f' },
        { "seed", required_argument, NULL, 'S' },
        { "fine-factor", required_argument, NULL, 'K' },
        { "lost-samples", required_argument, NULL, 'L' },
        { "skew-us", required_argument, NULL, 'W' },
        { "sample-cost-us", required_argument, NULL, 'C' },
        { "tool-time-long", required_argument, NULL, 'T' },
        { "model", required_argument, NULL, 'M' },
        { "creator", required_argument, NULL, 'Y' },
        { "truth-records", required_argument, NULL, 'R' },
        { "nonconformant", no_argument, NULL, 'X' },
        { "verbose", no_argument, NULL, 'v' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    memset(o, 0, sizeof(*o));
    o->ranks = 1;
    o->threads = 1;
    o->instances = 100;
    o->duration_ms = 10;
    o->duration_jitter = 0.05;
    o->period_ms = 5;
    o->mpi_ms = 0.2;
    o->gap_ms = 0.5;
    o->outlier_factor = 3;
    o->seed = 1;
    o->fine = 1;
    const char *sets = NULL, *funcs = "compute:0-1";
    char err[256];
    double v = 0;
    int c;
    while ((c = getopt_long(argc, argv, "vh", longopts, NULL)) != -1) {
        int bad = 0;
        switch (c) {
        case 'o':
            o->out = optarg;
            break;
        case 'k':
            if (strcmp(optarg, "burst") == 0)
                o->kind = KIND_BURST;
            else if (strcmp(optarg, "user") == 0)
                o->kind = KIND_USER;
            else if (strcmp(optarg, "openmp") == 0)
                o->kind = KIND_OPENMP;
            else {
                fprintf(stderr, PROG ": --kind: burst, user or openmp, not '%s'\n", optarg);
                bad = 1;
            }
            break;
        case 'r':
            bad = parse_num("ranks", optarg, 1, 65536, &v);
            o->ranks = (unsigned)v;
            break;
        case 't':
            bad = parse_num("threads", optarg, 1, 4096, &v);
            o->threads = (unsigned)v;
            break;
        case 'n':
            bad = parse_num("instances", optarg, 1, 1e8, &v);
            o->instances = (unsigned long)v;
            break;
        case 'd':
            bad = parse_num("duration-ms", optarg, 1e-3, 1e7, &o->duration_ms);
            break;
        case 'j':
            bad = parse_num("duration-jitter", optarg, 0, 0.9, &o->duration_jitter);
            break;
        case 'p':
            bad = parse_num("period-ms", optarg, 1e-4, 1e7, &o->period_ms);
            break;
        case 'q':
            bad = parse_num("period-jitter", optarg, 0, 1e7, &o->period_jitter_ms);
            break;
        case 'm':
            bad = parse_num("mpi-ms", optarg, 1e-4, 1e7, &o->mpi_ms);
            break;
        case 'g':
            bad = parse_num("gap-ms", optarg, 1e-4, 1e7, &o->gap_ms);
            break;
        case 'c':
            if (o->ncounters == SYNTH_MAX_COUNTERS) {
                fprintf(stderr, PROG ": at most %d counters\n", SYNTH_MAX_COUNTERS);
                bad = 1;
            } else if (synth_parse_counter(optarg, &o->counters[o->ncounters], err, sizeof(err))) {
                fprintf(stderr, PROG ": %s\n", err);
                bad = 1;
            } else {
                for (size_t k = 0; k < o->ncounters; k++)
                    if (strcmp(o->counters[k].name, o->counters[o->ncounters].name) == 0) {
                        fprintf(stderr, PROG ": counter %s given twice\n", o->counters[k].name);
                        bad = 1;
                    }
                o->ncounters++;
            }
            break;
        case 's':
            sets = optarg;
            break;
        case 'O':
            bad = parse_num("outliers", optarg, 0, 0.5, &o->outliers);
            break;
        case 'F':
            bad = parse_num("outlier-factor", optarg, 0.01, 100, &o->outlier_factor);
            break;
        case 'N':
            bad = parse_num("noise", optarg, 0, 0.9, &o->noise);
            break;
        case 'f':
            funcs = optarg;
            break;
        case 'X':
            o->nonconformant = 1;
            break;
        case 'S':
            bad = parse_num("seed", optarg, 0, 1e15, &v);
            o->seed = (uint64_t)v;
            break;
        case 'K':
            bad = parse_num("fine-factor", optarg, 1, 1e6, &o->fine);
            break;
        case 'L':
            bad = parse_num("lost-samples", optarg, 0, 1e12, &v);
            o->lost = (unsigned long)v;
            break;
        case 'W':
            bad = parse_num("skew-us", optarg, 0, 1e6, &o->skew_us);
            break;
        case 'C':
            bad = parse_num("sample-cost-us", optarg, 0, 1e6, &o->sample_cost_us);
            break;
        case 'T':
            bad = parse_num("tool-time-long", optarg, 0, 100, &o->tool_time_long);
            break;
        case 'M':
            o->model = optarg;
            break;
        case 'Y':
            o->creator = optarg;
            break;
        case 'R':
            o->records = optarg;
            break;
        case 'v':
            o->verbose = 1;
            break;
        case 'h':
            usage(stdout);
            exit(0);
        default:
            usage(stderr);
            return -1;
        }
        if (bad)
            return -1;
    }
    if (optind != argc || !o->out) {
        fprintf(stderr, PROG ": %s\n", optind != argc ? "unexpected argument" : "--out DIR is required");
        usage(stderr);
        return -1;
    }
    if (o->period_jitter_ms >= o->period_ms) {
        fprintf(stderr, PROG ": --period-jitter must be smaller than --period-ms\n");
        return -1;
    }
    if (synth_parse_functions(funcs, o->funcs, SYNTH_MAX_FUNCS, &o->nfuncs, err, sizeof(err))) {
        fprintf(stderr, PROG ": %s\n", err);
        return -1;
    }
    if (sets) {
        if (!o->ncounters) {
            fprintf(stderr, PROG ": --sets needs --counter\n");
            return -1;
        }
        if (synth_parse_sets(sets, o->counters, o->ncounters, o->sets, SYNTH_MAX_SETS, &o->nsets, err,
                             sizeof(err))) {
            fprintf(stderr, PROG ": %s\n", err);
            return -1;
        }
    } else if (o->ncounters) {
        o->nsets = 1;
        o->sets[0].n = o->ncounters;
        for (size_t k = 0; k < o->ncounters; k++)
            o->sets[0].idx[k] = k;
    }
    return 0;
}

/* ---- definitions -------------------------------------------------------- */

static int is_hardware(const char *name)
{
    static const char *const hw[] = { "instructions", "cycles", "cache-misses", "cache-references",
                                      "branches", "branch-misses", "ref-cycles" };
    for (size_t i = 0; i < sizeof(hw) / sizeof(hw[0]); i++)
        if (strcmp(name, hw[i]) == 0)
            return 1;
    return 0;
}

/* A class of the tracer's running totals (its members named by `names`), as
 * the tracer defines it. */
static hca_ref tracer_class(hca_defs *d, int n, const char *const *names, const char *description, const char *unit,
                            OTF2_MetricOccurrence mode)
{
    hca_ref members[HCA_MAX_CLASS_MEMBERS];
    for (int i = 0; i < n && i < HCA_MAX_CLASS_MEMBERS; i++)
        members[i] = hca_defs_metric_member(d, names[i], description, unit, OTF2_METRIC_TYPE_OTHER,
                                            OTF2_METRIC_ACCUMULATED_START, OTF2_TYPE_UINT64);
    return hca_defs_metric_class(d, (uint8_t)n, members, mode);
}

/* Rank r's local definitions, in an order that depends on r (odd ranks reverse
 * their lists), so that the mapping tables are not the identity. */
static int build_rank_defs(const options *o, uint32_t r, rank_defs *rd)
{
    hca_defs *d = &rd->defs;
    int rev = r & 1;
    hca_defs_init(d);
    rd->s_prog = hca_defs_string(d, "./app");
    rd->s_arg = hca_defs_string(d, "--synthetic");
    hca_ref main_r = hca_defs_region(d, "main", HCA_KIND_FUNCTION, FILE_NAME, LINE_MAIN, 0,
                                     OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_SAMPLING);
    hca_ref func_r[SYNTH_MAX_FUNCS];
    for (size_t k = 0; k < o->nfuncs; k++) {
        size_t j = rev ? o->nfuncs - 1 - k : k;
        func_r[j] = hca_defs_region(d, o->funcs[j].name, HCA_KIND_FUNCTION, FILE_NAME, LINE_FUNC_DECL(j), 0,
                                    OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_SAMPLING);
    }
    hca_ref region;
    if (o->kind == KIND_BURST)
        region = hca_defs_region(d, "MPI_Allreduce", HCA_KIND_MPI, "", 0, 0, OTF2_REGION_ROLE_COLL_ALL2ALL,
                                 OTF2_PARADIGM_MPI);
    else if (o->kind == KIND_OPENMP)
        region = hca_defs_region(d, OMP_REGION_NAME, HCA_KIND_OPENMP, FILE_NAME, LINE_ITER_DECL, 0,
                                 OTF2_REGION_ROLE_PARALLEL, OTF2_PARADIGM_OPENMP);
    else
        region = hca_defs_region(d, "iteration", HCA_KIND_USER, FILE_NAME, LINE_ITER_DECL, 0,
                                 OTF2_REGION_ROLE_CODE, OTF2_PARADIGM_USER);
    if (o->kind == KIND_BURST) {
        for (int k = 0; k < 2; k++) {
            int s = rev ? 1 - k : k;
            hca_ref scl = hca_defs_scl(d, FILE_NAME, s ? LINE_MPI_B : LINE_MPI_A);
            hca_ref caller = hca_defs_cc(d, main_r, scl, HCA_UNDEF);
            rd->cc_mpi[s] = hca_defs_cc(d, region, HCA_UNDEF, caller);
        }
    } else {
        hca_ref caller = hca_defs_cc(d, main_r, hca_defs_scl(d, FILE_NAME, LINE_ITER_CALL), HCA_UNDEF);
        rd->cc_iter = hca_defs_cc(d, region, HCA_UNDEF, caller);
    }
    rd->cc_idle = hca_defs_cc(d, main_r, hca_defs_scl(d, FILE_NAME, LINE_IDLE), HCA_UNDEF);
    for (size_t k = 0; k < o->nfuncs; k++) {
        size_t j = rev ? o->nfuncs - 1 - k : k;
        hca_ref caller = hca_defs_cc(d, main_r, hca_defs_scl(d, FILE_NAME, LINE_FUNC_CALL(j)), HCA_UNDEF);
        rd->cc_func[j] = hca_defs_cc(d, func_r[j], hca_defs_scl(d, FILE_NAME, LINE_FUNC_BODY(j)), caller);
        rd->cc_func_in[j] = rd->cc_func[j];
        if (o->kind != KIND_BURST && !o->nonconformant) {
            /* samples inside the open region hang under its node, as the tracer writes them */
            caller = hca_defs_cc(d, main_r, hca_defs_scl(d, FILE_NAME, LINE_FUNC_CALL(j)), rd->cc_iter);
            rd->cc_func_in[j] =
                hca_defs_cc(d, func_r[j], hca_defs_scl(d, FILE_NAME, LINE_FUNC_BODY(j)), caller);
        }
    }
    hca_ref member[SYNTH_MAX_COUNTERS] = { 0 };
    for (size_t k = 0; k < o->ncounters; k++) {
        size_t c = rev ? o->ncounters - 1 - k : k;
        member[c] = hca_defs_metric_member(d, o->counters[c].name, "synthetic counter", HCA_UNIT_COUNT,
                                           is_hardware(o->counters[c].name) ? OTF2_METRIC_TYPE_PAPI
                                                                            : OTF2_METRIC_TYPE_OTHER,
                                           OTF2_METRIC_ACCUMULATED_START, OTF2_TYPE_UINT64);
    }
    for (size_t k = 0; k < o->nsets; k++) {
        size_t s = (k + r) % o->nsets;
        hca_ref m[SYNTH_MAX_COUNTERS];
        for (size_t i = 0; i < o->sets[s].n; i++)
            m[i] = member[o->sets[s].idx[i]];
        rd->klass[s] = hca_defs_metric_class(d, (uint8_t)o->sets[s].n, m,
                                             o->nonconformant ? OTF2_METRIC_SYNCHRONOUS_STRICT
                                                              : OTF2_METRIC_SYNCHRONOUS);
    }
    static const char *const stat_names[HCA_NSTATS] = HCA_STAT_NAMES;
    rd->stats = tracer_class(d, HCA_NSTATS, stat_names, "sampling statistics", HCA_UNIT_COUNT,
                             o->nonconformant ? OTF2_METRIC_SYNCHRONOUS_STRICT : OTF2_METRIC_ASYNCHRONOUS);
    rd->tool = HCA_UNDEF;
    if (o->sample_cost_us > 0) {
        static const char *const tool_names[HCA_NTOOL] = HCA_TOOL_NAMES;
        /* with every boundary and sample: SYNCHRONOUS (not at every enter/leave: without a sample, none) */
        rd->tool = tracer_class(d, HCA_NTOOL, tool_names, "the tracer's own time", HCA_UNIT_NS, OTF2_METRIC_SYNCHRONOUS);
    }
    uint64_t period = (uint64_t)llround(o->period_ms * 1e6 / o->fine);
    rd->igen = hca_defs_interrupt_generator(d, "timer", OTF2_INTERRUPT_GENERATOR_MODE_TIME, period);
    rd->comm_world = HCA_UNDEF;
    if (o->kind == KIND_BURST) {
        uint32_t *world = malloc(o->ranks * sizeof(*world));
        if (!world)
            return -1;
        for (uint32_t i = 0; i < o->ranks; i++)
            world[i] = i;
        rd->comm_world = hca_defs_comm(d, HCA_COMM_WORLD_NAME, HCA_UNDEF, HCA_COMM_KEY_WORLD, o->ranks, world);
        free(world);
    }
    /* every adder returns HCA_UNDEF on failure; a failure leaves counts short */
    return rd->igen == HCA_UNDEF || rd->cc_idle == HCA_UNDEF ? -1 : 0;
}

/* ---- instances ---------------------------------------------------------- */

static void make_instance(const options *o, synth_rng *ir, instance *in)
{
    double d = o->duration_ms * 1e6 * (1.0 + o->duration_jitter * synth_symmetric(ir));
    double f = 1.0;
    double fo = synth_uniform(ir); /* drawn always: keeps the stream aligned */
    if (in->outlier)
        f = (1.0 + o->outlier_factor) / 2.0 + fo * (o->outlier_factor - (1.0 + o->outlier_factor) / 2.0);
    in->d = (uint64_t)llround(d * f);
    if (in->d < 2)
        in->d = 2;
    for (int k = 0; k < 2; k++)
        in->mpi[k] = (uint64_t)llround(o->mpi_ms * 1e6 * (1.0 + 0.1 * synth_symmetric(ir))) + 1;
    in->gap = (uint64_t)llround(o->gap_ms * 1e6 * (1.0 + 0.1 * synth_symmetric(ir))) + 1;
    for (size_t c = 0; c < o->ncounters; c++) {
        in->m[c] = 1.0 + o->noise * synth_symmetric(ir);
        for (int b = 0; b < NOISE_BINS; b++)
            in->g[c][b] = 1.0 + o->noise * synth_symmetric(ir);
    }
}

/* Events of counter c from the instance's start to normalized time x. */
static double instance_count(const options *o, const instance *in, size_t c, double x)
{
    double sum = 0.0;
    for (int b = 0; b < NOISE_BINS; b++) {
        double lo = (double)b / NOISE_BINS, hi = (double)(b + 1) / NOISE_BINS;
        if (lo >= x)
            break;
        if (hi > x)
            hi = x;
        sum += in->g[c][b] * synth_counter_integral(&o->counters[c], lo, hi);
    }
    return sum * in->m[c] * (double)in->d * 1e-9;
}

static double counter_at(const loc_writer *L, const segment *s, size_t c, uint64_t t)
{
    if (s->type == SEG_INST) {
        double x = (double)(t - s->t0) / (double)(s->t1 - s->t0);
        return L->c_start[c] + instance_count(L->o, s->in, c, x);
    }
    return L->c_start[c] + (double)(t - s->t0) * 1e-9 * L->out_rate[c];
}

/* ---- events ------------------------------------------------------------- */

/* The trace's time of the program's time t: later by the tracer's time so far. */
static OTF2_TimeStamp local_time(const loc_writer *L, uint64_t t)
{
    return t + L->tool - (uint64_t)L->offset;
}

/* The tracer's time so far, as the tracer writes it with each boundary and sample. */
static void ev_tool(loc_writer *L, uint64_t t)
{
    if (L->rd->tool == HCA_UNDEF)
        return;
    OTF2_Type types[HCA_NTOOL] = { OTF2_TYPE_UINT64, OTF2_TYPE_UINT64 };
    OTF2_MetricValue values[HCA_NTOOL];
    values[HCA_TOOL_MEMBER_TIME].unsigned_int = (uint64_t)llround((double)L->tool * (1 + L->o->tool_time_long));
    values[HCA_TOOL_MEMBER_CPU].unsigned_int = L->tool;
    L->bad |= OTF2_EvtWriter_Metric(L->w, NULL, local_time(L, t), L->rd->tool, HCA_NTOOL, types, values) !=
              OTF2_SUCCESS;
}

/* The Metric at time t, with the counter values of time tv (a sample's skew). */
static void ev_metric_at(loc_writer *L, const segment *s, uint64_t t, uint64_t tv)
{
    const options *o = L->o;
    if (!o->nsets)
        return;
    const synth_set *set = &o->sets[L->set];
    OTF2_Type types[SYNTH_MAX_COUNTERS];
    OTF2_MetricValue values[SYNTH_MAX_COUNTERS];
    for (size_t i = 0; i < set->n; i++) {
        types[i] = OTF2_TYPE_UINT64;
        values[i].unsigned_int = (uint64_t)floor(counter_at(L, s, set->idx[i], tv));
        if (hca_counts_cpu_time(o->counters[set->idx[i]].name)) /* the tracer's time is CPU time too */
            values[i].unsigned_int += L->tool;
    }
    L->bad |= OTF2_EvtWriter_Metric(L->w, NULL, local_time(L, t), L->rd->klass[L->set], (uint8_t)set->n, types,
                                    values) != OTF2_SUCCESS;
    L->now = t;
}

static void ev_metric(loc_writer *L, const segment *s, uint64_t t)
{
    ev_metric_at(L, s, t, t);
}

/* OTF2's unwind distance of an event referencing cc: the nodes of its path
 * new since the location's previous context, plus one; cc's path becomes the
 * current context. --nonconformant: 2, as written before issue 10. */
static uint32_t unwind_to(loc_writer *L, hca_ref cc)
{
    hca_ref path[PATH_MAX_DEPTH];
    int n = 0;
    for (hca_ref c = cc; c != HCA_UNDEF && n < PATH_MAX_DEPTH; c = L->rd->defs.ccs[c].parent)
        path[n++] = c;
    int common = 0;
    while (common < n && common < L->depth && L->path[common] == path[n - 1 - common])
        common++;
    for (int i = 0; i < n; i++)
        L->path[i] = path[n - 1 - i];
    L->depth = n;
    return L->o->nonconformant ? 2 : (uint32_t)(n - common + 1);
}

static void ev_enter(loc_writer *L, const segment *s, uint64_t t, hca_ref cc)
{
    ev_tool(L, t);
    ev_metric(L, s, t);
    uint32_t unwind = unwind_to(L, cc);
    L->bad |= OTF2_EvtWriter_CallingContextEnter(L->w, NULL, local_time(L, t), cc, unwind) != OTF2_SUCCESS;
    L->now = t;
}

static void ev_leave(loc_writer *L, const segment *s, uint64_t t, hca_ref cc)
{
    ev_tool(L, t);
    ev_metric(L, s, t);
    L->bad |= OTF2_EvtWriter_CallingContextLeave(L->w, NULL, local_time(L, t), cc) != OTF2_SUCCESS;
    unwind_to(L, L->rd->defs.ccs[cc].parent); /* OTF2: the parent is the next event's previous context */
    L->now = t;
}

static void ev_sample(loc_writer *L, const segment *s, uint64_t t)
{
    const options *o = L->o;
    /* a tracer whose sample reads its counters skew_us after its timestamp:
     * the segment's end comes after that read, so no sample is that close
     * to it */
    uint64_t tv = t + (uint64_t)llround(o->skew_us * 1e3);
    if (tv >= s->t1 && tv > t)
        return;
    hca_ref cc = L->rd->cc_idle;
    if (s->type == SEG_MPI_A || s->type == SEG_MPI_B)
        cc = L->rd->cc_mpi[s->type == SEG_MPI_B];
    else if (s->type == SEG_INST) {
        double x = (double)(t - s->t0) / (double)(s->t1 - s->t0);
        size_t f = synth_function_at(o->funcs, o->nfuncs, x);
        cc = o->kind == KIND_BURST ? L->rd->cc_func[f] : L->rd->cc_func_in[f];
        L->tr->samples_in++;
        if (!s->in->outlier)
            L->tr->samples_in_used++;
    }
    ev_tool(L, t);
    ev_metric_at(L, s, t, tv);
    uint32_t unwind = unwind_to(L, cc);
    L->bad |= OTF2_EvtWriter_CallingContextSample(L->w, NULL, local_time(L, t), cc, unwind, L->rd->igen) !=
              OTF2_SUCCESS;
    L->tr->samples++;
    L->samples++;
    L->now = t;
    L->tool += (uint64_t)llround(o->sample_cost_us * 1e3); /* the tracer's time after the sample */
}

/* The sampling statistics (running counts), as the tracer writes them. */
static void ev_stats(loc_writer *L, uint64_t t, uint64_t lost)
{
    OTF2_Type types[HCA_NSTATS];
    OTF2_MetricValue values[HCA_NSTATS];
    const uint64_t v[HCA_NSTATS] = { [HCA_STAT_SAMPLES] = L->samples, [HCA_STAT_LOST_BUFFER_FULL] = lost };
    for (int i = 0; i < HCA_NSTATS; i++) {
        types[i] = OTF2_TYPE_UINT64;
        values[i].unsigned_int = v[i];
    }
    L->bad |=
        OTF2_EvtWriter_Metric(L->w, NULL, local_time(L, t), L->rd->stats, HCA_NSTATS, types, values) != OTF2_SUCCESS;
}

static uint64_t sample_step(loc_writer *L)
{
    const options *o = L->o;
    double p = (o->period_ms + o->period_jitter_ms * synth_symmetric(&L->srng)) * 1e6 / o->fine;
    uint64_t step = (uint64_t)llround(p);
    return step ? step : 1;
}

/* The index of the counter named name, or -1. */
static int counter_index(const options *o, const char *name)
{
    for (size_t c = 0; c < o->ncounters; c++)
        if (!strcmp(o->counters[c].name, name))
            return (int)c;
    return -1;
}

/* The time of the record after one at t in an instance ending at t1: 0.1 ms
 * later, the end, then none (past the end). */
static uint64_t next_record_time(uint64_t t, uint64_t t1)
{
    if (t >= t1)
        return t1 + 1;
    return t + 100000 < t1 ? t + 100000 : t1;
}

/* --truth-records: the records of the key's instance s at the program's times
 * *next, every 0.1 ms, before until (the next sample; a record at a sample's
 * time comes before it) and at most at its end, which is recorded too, as
 * tests/truth_app records itself: "R time cpu faults phase task-clock". The
 * traced record holds the tracer's time so far, in its time and its CPU time;
 * the own record does not. */
static void write_records(loc_writer *L, const segment *s, uint64_t *next, uint64_t until)
{
    const options *o = L->o;
    int tc = counter_index(o, "task-clock"), pf = counter_index(o, "page-faults");
    for (; *next < until && *next <= s->t1; *next = next_record_time(*next, s->t1)) {
        double x = (double)(*next - s->t0) / (double)(s->t1 - s->t0);
        unsigned long long cpu = tc >= 0 ? (unsigned long long)floor(counter_at(L, s, (size_t)tc, *next)) : 0;
        unsigned long long faults = pf >= 0 ? (unsigned long long)floor(counter_at(L, s, (size_t)pf, *next)) : 0;
        size_t phase = synth_function_at(o->funcs, o->nfuncs, x);
        for (int traced = 0; traced < 2; traced++) {
            unsigned long long tool = traced ? L->tool : 0;
            fprintf(L->records[!traced], "R %llu %llu %llu %zu %llu\n",
                    (unsigned long long)(*next - (uint64_t)L->offset) + tool, cpu + tool, faults, phase, cpu + tool);
        }
    }
}

/* Writes a segment: its opening boundary, the samples before its end, its
 * closing boundary. Ties: a boundary goes before a sample at the same time. */
static void write_segment(loc_writer *L, const segment *s)
{
    const options *o = L->o;
    int mpi = s->type == SEG_MPI_A || s->type == SEG_MPI_B;
    hca_ref cc = mpi ? L->rd->cc_mpi[s->type == SEG_MPI_B] : L->rd->cc_iter;
    int region = mpi || (s->type == SEG_INST && o->kind != KIND_BURST);
    int collectives = mpi && L->thread == 0;
    if (region)
        ev_enter(L, s, s->t0, cc);
    if (collectives)
        L->bad |= OTF2_EvtWriter_MpiCollectiveBegin(L->w, NULL, local_time(L, s->t0)) != OTF2_SUCCESS;
    int recorded = L->records[0] && s->type == SEG_INST;
    uint64_t next_record = s->t0;
    if (recorded) {
        for (int i = 0; i < 2; i++)
            fprintf(L->records[i], "I %lu\n", L->instance);
        L->instance++;
    }
    while (L->next_sample < s->t1) {
        if (recorded)
            write_records(L, s, &next_record, L->next_sample);
        ev_sample(L, s, L->next_sample);
        L->next_sample += sample_step(L);
    }
    if (recorded)
        write_records(L, s, &next_record, UINT64_MAX);
    if (collectives)
        L->bad |= OTF2_EvtWriter_MpiCollectiveEnd(L->w, NULL, local_time(L, s->t1), OTF2_COLLECTIVE_OP_ALLREDUCE,
                                                  L->rd->comm_world, OTF2_COLLECTIVE_ROOT_NONE, 8, 8) !=
                  OTF2_SUCCESS;
    if (region)
        ev_leave(L, s, s->t1, cc);
    for (size_t c = 0; c < o->ncounters; c++)
        L->c_start[c] = counter_at(L, s, c, s->t1);
}

/* Chooses exactly round(fraction * n) outliers with a partial Fisher-Yates shuffle. */
static void choose_outliers(const options *o, uint32_t rank, uint32_t thread, unsigned char *flag)
{
    unsigned long n = o->instances, k = (unsigned long)llround(o->outliers * (double)n);
    unsigned long *idx = malloc(n * sizeof(*idx));
    memset(flag, 0, n);
    if (!idx)
        return;
    for (unsigned long i = 0; i < n; i++)
        idx[i] = i;
    synth_rng rng;
    synth_rng_init(&rng, o->seed, rank, thread, 2);
    for (unsigned long i = 0; i < k; i++) {
        unsigned long j = i + (unsigned long)(synth_uniform(&rng) * (double)(n - i));
        unsigned long tmp = idx[i];
        idx[i] = idx[j];
        idx[j] = tmp;
        flag[idx[i]] = 1;
    }
    free(idx);
}

static int write_location(OTF2_Archive *ar, const options *o, const rank_defs *rd, uint32_t rank, uint32_t thread,
                          int64_t offset, truth *tr, hca_location_info *info, uint64_t *end_time,
                          uint64_t *first_t0)
{
    loc_writer L;
    memset(&L, 0, sizeof(L));
    L.o = o;
    L.rd = rd;
    L.rank = rank;
    L.thread = thread;
    L.offset = offset;
    L.tr = tr;
    uint64_t id = hca_location_id(rank, thread);
    L.w = OTF2_Archive_GetEvtWriter(ar, id);
    unsigned char *outlier = malloc(o->instances);
    if (!L.w || !outlier) {
        free(outlier);
        return -1;
    }
    current = &L;
    choose_outliers(o, rank, thread, outlier);
    synth_rng ir;
    synth_rng_init(&ir, o->seed, rank, thread, 1);
    synth_rng_init(&L.srng, o->seed, rank, thread, 3);
    for (size_t c = 0; c < o->ncounters; c++) {
        L.c_start[c] = floor(synth_uniform(&ir) * 1e9);
        L.out_rate[c] = 0.5 * synth_counter_integral(&o->counters[c], 0, 1);
    }
    uint64_t t = T_START + 137000ull * rank + 53000ull * thread;
    L.now = t;
    if (thread == 0) {
        L.bad |= OTF2_EvtWriter_ProgramBegin(L.w, NULL, local_time(&L, t), rd->s_prog, 1, &rd->s_arg) !=
                 OTF2_SUCCESS;
    }
    L.next_sample = t + 1 + (uint64_t)(synth_uniform(&L.srng) * o->period_ms * 1e6 / o->fine);
    instance *in = calloc(1, sizeof(*in));
    if (!in) {
        free(outlier);
        return -1;
    }
    for (int i = 0; i < 2 && o->records && thread == 0; i++) {
        char path[4096];
        snprintf(path, sizeof(path), "%s%s.%u", o->records, i ? "_own" : "", rank);
        L.records[i] = fopen(path, "w");
        L.bad |= !L.records[i];
    }
    for (unsigned long i = 0; i < o->instances && !L.bad; i++) {
        in->outlier = outlier[i];
        make_instance(o, &ir, in);
        in->set = o->nsets ? (rank + thread + i) % o->nsets : 0;
        L.set = in->set;
        segment s = { t, t, SEG_GAP, in };
        if (i == o->instances / 2) /* same timestamp as the boundary that follows */
            ev_stats(&L, t, o->lost / 2);
        if (o->kind == KIND_BURST) {
            s.type = SEG_MPI_A;
            s.t1 = s.t0 + in->mpi[0];
            write_segment(&L, &s);
            s.t0 = s.t1;
        }
        s.type = SEG_INST;
        s.t1 = s.t0 + in->d;
        if (i == 0)
            *first_t0 = s.t0;
        write_segment(&L, &s);
        tr->instances++;
        if (tr->ndurations == tr->cap_durations) {
            size_t cap = tr->cap_durations ? 2 * tr->cap_durations : 1024;
            double *p = realloc(tr->durations, cap * sizeof(*p));
            if (!p) {
                L.bad = 1;
                break;
            }
            tr->durations = p;
            tr->cap_durations = cap;
        }
        tr->durations[tr->ndurations++] = (double)in->d;
        if (in->outlier)
            tr->outliers++;
        else
            tr->dur_used_sum += (double)in->d;
        for (size_t k = 0; o->nsets && k < o->sets[in->set].n; k++) {
            tr->counter_instances[o->sets[in->set].idx[k]]++;
            if (!in->outlier)
                tr->counter_used[o->sets[in->set].idx[k]]++;
        }
        s.t0 = s.t1;
        if (o->kind == KIND_BURST) {
            s.type = SEG_MPI_B;
            s.t1 = s.t0 + in->mpi[1];
            write_segment(&L, &s);
            s.t0 = s.t1;
        }
        s.type = SEG_GAP;
        s.t1 = s.t0 + in->gap;
        write_segment(&L, &s);
        t = s.t1;
    }
    free(in);
    free(outlier);
    ev_stats(&L, t, o->lost);
    if (thread == 0)
        L.bad |= OTF2_EvtWriter_ProgramEnd(L.w, NULL, local_time(&L, t), 0) != OTF2_SUCCESS;
    uint64_t nevents = 0;
    OTF2_EvtWriter_GetNumberOfEvents(L.w, &nevents);
    L.bad |= OTF2_Archive_CloseEvtWriter(ar, L.w) != OTF2_SUCCESS;
    for (int i = 0; i < 2; i++)
        L.bad |= L.records[i] && fclose(L.records[i]) != 0;
    current = NULL;
    *info = (hca_location_info){ id, rank, thread, nevents };
    *end_time = t + L.tool;
    tr->events += nevents;
    return L.bad ? -1 : 0;
}

/* ---- truth -------------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median_sorted(const double *v, size_t n)
{
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* How many instances hcafold's documented default rule excludes (fold/regions.h:
 * |d - median| > 1.5 * max(1.4826 * MAD, 0.005 * median), one duration group),
 * computed here independently from the durations written. */
static uint64_t expected_exclusions(const truth *tr)
{
    size_t n = tr->ndurations;
    if (n < 3)
        return 0;
    double *d = malloc(n * sizeof(*d)), *dev = malloc(n * sizeof(*dev));
    uint64_t count = 0;
    if (d && dev) {
        memcpy(d, tr->durations, n * sizeof(*d));
        qsort(d, n, sizeof(*d), cmp_double);
        double med = median_sorted(d, n);
        for (size_t i = 0; i < n; i++)
            dev[i] = fabs(d[i] - med);
        qsort(dev, n, sizeof(*dev), cmp_double);
        double spread = 1.4826 * median_sorted(dev, n);
        if (spread < 0.005 * med)
            spread = 0.005 * med;
        double lo = med - 1.5 * spread, hi = med + 1.5 * spread;
        for (size_t i = 0; i < n; i++)
            count += d[i] < lo || d[i] > hi;
    }
    free(d);
    free(dev);
    return count;
}

static void key_name(const options *o, char *buf, size_t len)
{
    if (o->kind == KIND_BURST)
        snprintf(buf, len, "MPI_Allreduce@" FILE_NAME ":%d -> MPI_Allreduce@" FILE_NAME ":%d", LINE_MPI_A,
                 LINE_MPI_B);
    else
        snprintf(buf, len, "%s", o->kind == KIND_OPENMP ? OMP_REGION_NAME : "iteration");
}

static int write_truth(const options *o, const truth *tr, const hca_location_info *locs, const uint64_t *first_t0,
                       uint32_t nlocs, const int64_t *offsets)
{
    char path[4096], name[256];
    snprintf(path, sizeof(path), "%s/truth.txt", o->out);
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    key_name(o, name, sizeof(name));
    fprintf(f, "# hcasynth ground truth (key=value)\n");
    static const char *const kind_names[] = { [KIND_BURST] = "burst", [KIND_USER] = "user", [KIND_OPENMP] = "openmp" };
    fprintf(f, "kind=%s\nregion=%s\n", kind_names[o->kind], name);
    fprintf(f, "ranks=%u\nthreads=%u\nlocations=%u\n", o->ranks, o->threads, nlocs);
    fprintf(f, "instances_per_location=%lu\ninstances=%" PRIu64 "\noutliers=%" PRIu64 "\nused_instances=%" PRIu64
               "\n",
            o->instances, tr->instances, tr->outliers, tr->instances - tr->outliers);
    fprintf(f, "excluded_expected=%" PRIu64 "\n", expected_exclusions(tr));
    fprintf(f, "samples=%" PRIu64 "\nsamples_in_instances=%" PRIu64 "\nsamples_in_used=%" PRIu64 "\n",
            tr->samples, tr->samples_in, tr->samples_in_used);
    fprintf(f, "events=%" PRIu64 "\nsamples_lost=%" PRIu64 "\n", tr->events, (uint64_t)o->lost * nlocs);
    fprintf(f, "duration_ms=%.17g\nduration_jitter=%.17g\nmean_duration_ns_used=%.17g\n", o->duration_ms,
            o->duration_jitter, tr->instances > tr->outliers ? tr->dur_used_sum / (double)(tr->instances - tr->outliers) : 0.0);
    fprintf(f, "period_ns=%.17g\nperiod_jitter_ns=%.17g\nfine_factor=%.17g\nnoise=%.17g\nseed=%" PRIu64 "\n",
            o->period_ms * 1e6 / o->fine, o->period_jitter_ms * 1e6 / o->fine, o->fine, o->noise, o->seed);
    fprintf(f, "counters=");
    for (size_t c = 0; c < o->ncounters; c++)
        fprintf(f, "%s%s", c ? "," : "", o->counters[c].name);
    fprintf(f, "\nsets=");
    for (size_t s = 0; s < o->nsets; s++) {
        for (size_t i = 0; i < o->sets[s].n; i++)
            fprintf(f, "%s%s", i ? "," : (s ? ";" : ""), o->counters[o->sets[s].idx[i]].name);
    }
    fprintf(f, "\n");
    for (size_t c = 0; c < o->ncounters; c++) {
        const synth_counter *k = &o->counters[c];
        fprintf(f, "counter.%s.bounds=0", k->name);
        for (size_t i = 0; i < k->nseg; i++)
            fprintf(f, ",%.17g", k->seg[i].hi);
        fprintf(f, "\ncounter.%s.rates=", k->name);
        for (size_t i = 0; i < k->nseg; i++)
            fprintf(f, "%s%.17g", i ? "," : "", k->seg[i].rate);
        fprintf(f, "\ncounter.%s.rates_end=", k->name);
        for (size_t i = 0; i < k->nseg; i++)
            fprintf(f, "%s%.17g", i ? "," : "", k->seg[i].rate_end);
        fprintf(f, "\ncounter.%s.mean_rate=%.17g\n", k->name, synth_counter_integral(k, 0, 1));
        fprintf(f, "counter.%s.instances=%" PRIu64 "\ncounter.%s.used_instances=%" PRIu64 "\n", k->name,
                tr->counter_instances[c], k->name, tr->counter_used[c]);
    }
    fprintf(f, "functions=");
    for (size_t j = 0; j < o->nfuncs; j++)
        fprintf(f, "%s%s", j ? "," : "", o->funcs[j].name);
    fprintf(f, "\n");
    for (size_t j = 0; j < o->nfuncs; j++)
        fprintf(f,
                "function.%s.range=%.17g-%.17g\nfunction.%s.file=" FILE_NAME "\nfunction.%s.line=%u\n"
                "function.%s.caller_line=%u\n",
                o->funcs[j].name, o->funcs[j].lo, o->funcs[j].hi, o->funcs[j].name, o->funcs[j].name,
                LINE_FUNC_BODY(j), o->funcs[j].name, LINE_FUNC_CALL(j));
    for (uint32_t r = 0; r < o->ranks; r++)
        fprintf(f, "clock_offset.%u=%" PRId64 "\n", r, offsets[r]);
    for (uint32_t i = 0; i < nlocs; i++)
        fprintf(f, "first_t0.%" PRIu64 "=%" PRIu64 "\n", locs[i].id, first_t0[i]);
    return fclose(f) == 0 ? 0 : -1;
}

/* ---- main --------------------------------------------------------------- */

static int make_out_dir(const char *dir)
{
    char path[4096];
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, PROG ": cannot create %s: %s\n", dir, strerror(errno));
        return -1;
    }
    snprintf(path, sizeof(path), "%s/traces.otf2", dir);
    struct stat st;
    if (stat(path, &st) == 0) {
        fprintf(stderr, PROG ": %s exists: not overwriting a trace\n", path);
        return -1;
    }
    return 0;
}

/* The model properties (the id from the file's `model` line, and the whole
 * file), as the tracer records them. */
static int set_model_properties(OTF2_Archive *ar, const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, PROG ": %s: %s\n", path, strerror(errno));
        return -1;
    }
    static char text[1 << 16];
    size_t n = fread(text, 1, sizeof(text) - 1, f);
    fclose(f);
    text[n] = 0;
    char id[128] = "";
    for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
        if (sscanf(l, "model %127s", id) == 1)
            break;
    if (!id[0]) {
        fprintf(stderr, PROG ": %s has no 'model' line\n", path);
        return -1;
    }
    return OTF2_Archive_SetProperty(ar, HCA_PROP_MODEL, id, false) != OTF2_SUCCESS ||
                   OTF2_Archive_SetProperty(ar, HCA_PROP_MODEL_TEXT, text, false) != OTF2_SUCCESS
               ? -1
               : 0;
}

int main(int argc, char **argv)
{
    options o;
    if (parse_options(argc, argv, &o))
        return 2;
    if (make_out_dir(o.out))
        return 1;
    uint32_t nlocs = o.ranks * o.threads;
    rank_defs *rds = calloc(o.ranks, sizeof(*rds));
    hca_location_info *locs = calloc(nlocs, sizeof(*locs));
    uint64_t *first_t0 = calloc(nlocs, sizeof(*first_t0));
    int64_t *offsets = calloc(o.ranks, sizeof(*offsets));
    char **hosts = calloc(o.ranks, sizeof(*hosts)), **procs = calloc(o.ranks, sizeof(*procs));
    truth tr;
    memset(&tr, 0, sizeof(tr));
    hca_defs global;
    hca_defs_init(&global);
    int bad = !rds || !locs || !first_t0 || !offsets || !hosts || !procs;
    for (uint32_t r = 0; r < o.ranks && !bad; r++) {
        bad |= build_rank_defs(&o, r, &rds[r]) != 0;
        bad |= hca_defs_merge(&global, &rds[r].defs, &rds[r].map) != 0;
        offsets[r] = 2500 * (int64_t)r;
        hosts[r] = strdup("synthhost");
        char name[32];
        snprintf(name, sizeof(name), HCA_MPI_PROCESS_NAME_FMT, (int)r);
        procs[r] = strdup(name);
        bad |= !hosts[r] || !procs[r];
    }
    OTF2_Archive *ar = NULL;
    if (!bad) {
        ar = OTF2_Archive_Open(o.out, HCA_ARCHIVE_NAME, OTF2_FILEMODE_WRITE, OTF2_CHUNK_SIZE_EVENTS_DEFAULT,
                               OTF2_CHUNK_SIZE_DEFINITIONS_DEFAULT, OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
        bad = !ar;
    }
    if (!bad) {
        bad |= hca_archive_set_flush(ar, &flush_clock) != OTF2_SUCCESS;
        bad |= OTF2_Archive_SetSerialCollectiveCallbacks(ar) != OTF2_SUCCESS;
        bad |= OTF2_Archive_SetCreator(ar, o.creator ? o.creator : "hcasynth") != OTF2_SUCCESS;
        bad |= OTF2_Archive_SetMachineName(ar, HCA_MACHINE_NAME) != OTF2_SUCCESS;
        if (o.model)
            bad |= set_model_properties(ar, o.model) != 0;
        bad |= OTF2_Archive_OpenEvtFiles(ar) != OTF2_SUCCESS;
    }
    uint64_t end = T_START;
    for (uint32_t r = 0; r < o.ranks && !bad; r++)
        for (uint32_t th = 0; th < o.threads && !bad; th++) {
            uint32_t i = r * o.threads + th;
            uint64_t loc_end = 0;
            bad |= write_location(ar, &o, &rds[r], r, th, offsets[r], &tr, &locs[i], &loc_end, &first_t0[i]) != 0;
            if (loc_end > end)
                end = loc_end;
        }
    if (!bad) {
        bad |= OTF2_Archive_CloseEvtFiles(ar) != OTF2_SUCCESS;
        bad |= OTF2_Archive_OpenDefFiles(ar) != OTF2_SUCCESS;
        for (uint32_t i = 0; i < nlocs && !bad; i++) {
            OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(ar, locs[i].id);
            if (!dw) {
                bad = 1;
                break;
            }
            const rank_defs *rd = &rds[locs[i].rank];
            int64_t off = offsets[locs[i].rank];
            bad |= hca_defs_write_mappings(&rd->map, dw) != 0;
            bad |= OTF2_DefWriter_WriteClockOffset(dw, T_START - 1000000 - (uint64_t)off, off, 0.0) != OTF2_SUCCESS;
            bad |= OTF2_DefWriter_WriteClockOffset(dw, end + 1000000 - (uint64_t)off, off, 0.0) != OTF2_SUCCESS;
            bad |= OTF2_Archive_CloseDefWriter(ar, dw) != OTF2_SUCCESS;
        }
        bad |= OTF2_Archive_CloseDefFiles(ar) != OTF2_SUCCESS;
        OTF2_GlobalDefWriter *gw = OTF2_Archive_GetGlobalDefWriter(ar);
        hca_system_info sys = { o.ranks,  (const char *const *)hosts, (const char *const *)procs, locs, nlocs,
                                1000000000ull, T_START, end - T_START + 1, REALTIME, o.kind == KIND_BURST };
        bad |= !gw || hca_defs_write_global(&global, &sys, gw) != 0;
        if (gw)
            bad |= OTF2_Archive_CloseGlobalDefWriter(ar, gw) != OTF2_SUCCESS;
    }
    if (ar)
        bad |= OTF2_Archive_Close(ar) != OTF2_SUCCESS;
    if (!bad)
        bad |= write_truth(&o, &tr, locs, first_t0, nlocs, offsets) != 0;
    if (bad)
        fprintf(stderr, PROG ": writing the trace in %s failed\n", o.out);
    else if (o.verbose)
        printf(PROG ": %s/traces.otf2: %u locations, %" PRIu64 " events, %" PRIu64 " instances (%" PRIu64
               " outliers), %" PRIu64 " samples (%" PRIu64 " in instances)\n",
               o.out, nlocs, tr.events, tr.instances, tr.outliers, tr.samples, tr.samples_in);
    for (uint32_t r = 0; rds && r < o.ranks; r++) {
        hca_defs_free(&rds[r].defs);
        hca_defs_map_free(&rds[r].map);
        if (hosts)
            free(hosts[r]);
        if (procs)
            free(procs[r]);
    }
    hca_defs_free(&global);
    free(tr.durations);
    free(rds);
    free(locs);
    free(first_t0);
    free(offsets);
    free(hosts);
    free(procs);
    return bad ? 1 : 0;
}
