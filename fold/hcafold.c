/* hcafold.c: the hcafold command: options (getopt_long), the output directory,
 * the analysis, the outputs, messages and exit codes (see hcafold(1)). */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis.h"
#include "fit.h"
#include "compare.h"
#include "score.h"
#include "hca_model_path.h"
#include "model.h"
#include "outdir.h"
#include "read.h"
#include "sources.h"
#include "hca_recover.h"

#ifndef HCATRACE_VERSION
#define HCATRACE_VERSION "unknown"
#endif

#define MAX_SELECT 64

/* Exit codes of hcafold (docs/output.md, hcafold(1)); only this file knows them. */
enum fold_exit {
    EXIT_DONE = 0,
    EXIT_USAGE = 2,
    EXIT_BAD_TRACE = 3, /* not an OTF2 archive, corrupt or truncated */
    EXIT_NOTHING = 4,   /* no region with enough instances and samples */
    EXIT_OUTPUT = 5,    /* the output directory or a file could not be written */
    EXIT_MODEL = 6,     /* the events of the --model are missing from the trace (outputs written) */
    EXIT_NO_MEMORY = 7  /* memory ran out */
};

/* The analysis' outcome as an exit code. */
static enum fold_exit analysis_exit(enum fold_analysis_status st)
{
    switch (st) {
    case FOLD_ANALYSIS_OK:
        return EXIT_DONE;
    case FOLD_ANALYSIS_BAD_TRACE:
        return EXIT_BAD_TRACE;
    case FOLD_ANALYSIS_NOTHING:
        return EXIT_NOTHING;
    case FOLD_ANALYSIS_NO_MEMORY:
        return EXIT_NO_MEMORY;
    case FOLD_ANALYSIS_BAD_SELECTION:
        return EXIT_USAGE;
    }
    return EXIT_BAD_TRACE;
}

/* Options that have only a long name: their getopt_long values, beyond any character. */
enum long_only {
    OPT_MIN_INSTANCES = 256,
    OPT_MIN_SAMPLES,
    OPT_MAD,
    OPT_GRID,
    OPT_MAX_POINTS,
    OPT_COARSE_MAX_POINTS,
    OPT_REPLICATES,
    OPT_MPI,
    OPT_KEEP_TOOL_TIME,
    OPT_LIST_MODELS,
    OPT_RECOVER,
    OPT_COMPARE,
    OPT_SOURCE_DIR,
    OPT_SCORE,
    OPT_FILTER,
    OPT_SUGGEST_FILTER
};

static void usage(FILE *out)
{
    fputs("usage: hcafold [OPTIONS] TRACE\n"
          "       hcafold [OPTIONS] --compare BEFORE AFTER\n"
          "       hcafold --score [--filter PATTERNS|FILE] [--suggest-filter FILE] TRACE\n"
          "Fold the samples of every repeating region of an hcatrace trace onto normalized\n"
          "region time: counter rates, phases and source lines over the region.\n"
          "TRACE is an experiment directory or its traces.otf2.\n"
          "\n"
          "  -o, --output DIR       where to write (default: <trace>.fold beside traces.otf2)\n"
          "  -r, --region TEXT      fold only regions whose name contains TEXT (repeatable)\n"
          "  -c, --counter NAME     fold only this counter (repeatable)\n"
          "  -f, --format LIST      outputs among json,csv,png,svg,html (default: all)\n"
          "  -j, --jobs N           threads reading the trace (default: online CPUs)\n"
          "      --min-instances N  skip regions with fewer used instances (default 10)\n"
          "      --min-samples N    skip regions with fewer samples (default 20)\n"
          "      --mad K            exclude instances outside median +- K*MAD of duration (default 1.5)\n"
          "      --grid N           points of the output curves, 3 to 10000 (default 101)\n"
          "      --max-points N     cap on folded points fed to a fit (default 20000; given alone,\n"
          "                         exact)\n"
          "      --coarse-max-points N  a counter whose fit at --max-points resolves its rates\n"
          "                         over more than 0.08 of the region is fitted again from up to\n"
          "                         N points (default 100000; 0: never)\n"
          "      --replicates N     bootstrap replicates of the 95 % intervals (default 60; 0: none)\n"
          "      --mpi              also fold the MPI calls themselves\n"
          "      --keep-tool-time   fold the run as it ran: the tracer's own time (samples,\n"
          "                         buffer drains) not removed from durations and task-clock\n"
          "      --source-dir DIR   where the sources are when not at the path the trace records\n"
          "                         (repeatable): /a/b/x.c is looked for as DIR/a/b/x.c, DIR/b/x.c,\n"
          "                         DIR/x.c; a file found nowhere: its lines left out, said once\n"
          "      --recover          only rebuild the global view of a job that ended without\n"
          "                         MPI_Finalize (as every fold of such a trace does first)\n"
          "  -m, --model NAME|FILE  evaluate this model (models/NAME.model; 'auto': the one for\n"
          "                         the trace's PMU; default: the one recorded in the trace,\n"
          "                         if any; 'none': no model)\n"
          "  -s, --set NAME=VALUE   set a model parameter (repeatable), e.g. --set P_L2_HIT=12\n"
          "      --compare          fold two traces of the same program (BEFORE AFTER) and compare\n"
          "                         them: regions, phases, rates, POP metrics; writes compare.html\n"
          "                         (default: <AFTER>.compare beside the AFTER trace)\n"
          "      --score            no fold: per region, the trace's bytes and the tracer's time,\n"
          "                         what HCATRACE_THIN (defaults) and a filter would save, and a\n"
          "                         suggested filter (as scorep-score)\n"
          "      --filter SPEC      with --score: evaluate this HCATRACE_FILTER value\n"
          "      --suggest-filter FILE  with --score: write the suggested filter to FILE\n"
          "      --list-models      the models found by name (for --model and HCATRACE_MODEL)\n"
          "  -q, --quiet            no summary on stdout, no progress\n"
          "  -v, --verbose          progress on stderr at every step (default: a bar on a\n"
          "                         terminal; elsewhere, as in a batch job's log, a line at\n"
          "                         each tenth of the locations read and regions folded)\n"
          "  -h, --help             this help\n"
          "  -V, --version          the version\n"
          "\n"
          "Exit status: 0 done, 2 usage error (also: unknown or malformed model), 3 unreadable\n"
          "trace, 4 nothing to fold, 5 output could not be written, 6 the --model's events\n"
          "are missing from the trace (the rest is written), 7 out of memory.\n",
          out);
}

static int parse_size(const char *s, size_t lo, size_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (!*s || *end || errno || v < lo || s[0] == '-')
        return -1;
    *out = (size_t)v;
    return 0;
}

/* "json,csv,png,svg" -> a set of enum fold_format bits. */
static int parse_formats(const char *list, unsigned *formats)
{
    static const struct {
        const char *name;
        enum fold_format format;
    } names[] = { { "json", FOLD_FORMAT_JSON }, { "csv", FOLD_FORMAT_CSV }, { "png", FOLD_FORMAT_PNG },
                  { "svg", FOLD_FORMAT_SVG }, { "html", FOLD_FORMAT_HTML } };
    char buf[256];
    snprintf(buf, sizeof(buf), "%s", list);
    *formats = 0;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        size_t i = 0;
        while (i < sizeof(names) / sizeof(names[0]) && strcmp(tok, names[i].name) != 0)
            i++;
        if (i == sizeof(names) / sizeof(names[0]))
            return -1;
        *formats |= (unsigned)names[i].format;
    }
    return *formats ? 0 : -1;
}

/* The long name of the option whose getopt_long value is val. */
static const char *long_name(const struct option *opts, int val)
{
    while (opts->name && opts->val != val)
        opts++;
    return opts->name ? opts->name : "?";
}

static void default_output(const char *anchor, char *out, size_t len)
{
    size_t n = strlen(anchor);
    if (n > 5 && strcmp(anchor + n - 5, ".otf2") == 0)
        n -= 5;
    snprintf(out, len, "%.*s.fold", (int)n, anchor);
}

/* One line per model found by name: name, title, the PMUs it is for, its file. */
static void print_model(const char *name, const char *path, void *user)
{
    (void)user;
    char err[512];
    hca_model *m = hca_model_load(path, err, sizeof(err));
    if (!m) {
        printf("%-22s (does not load: %s)\n", name, err);
        return;
    }
    const char *match = hca_model_match(m);
    printf("%-22s %s%s%s%s\n    %s\n", name, hca_model_title(m), match && *match ? " [" : "", match ? match : "",
           match && *match ? "]" : "", path);
    hca_model_free(m);
}

static int list_models(void)
{
    char where[4096];
    hca_model_dirs(where, sizeof(where));
    printf("models (searched in %s; 'auto' picks the one for this machine's PMU):\n", where);
    if (hca_model_list(print_model, NULL) == 0)
        puts("  none found");
    return EXIT_DONE;
}

/* A job's directory with partial definitions and no anchor file: rebuilt first, the
 * loss said. 1 when rebuilt, 0 when there was nothing to do, -1 on failure. */
static int recover_if_needed(const char *trace, int asked)
{
    struct stat st;
    if (stat(trace, &st) != 0 || !S_ISDIR(st.st_mode) || !hca_recover_needed(trace)) {
        if (asked)
            fprintf(stderr, "hcafold: %s: nothing to recover (no rank-N.partial without a traces.otf2)\n", trace);
        return asked ? -1 : 0;
    }
    char summary[2048], err[1024];
    if (hca_recover(trace, summary, sizeof(summary), err, sizeof(err)) != 0) {
        fprintf(stderr, "hcafold: %s\n", err);
        return -1;
    }
    fprintf(stderr, "hcafold: %s: the job ended without MPI_Finalize; its trace was rebuilt from what each rank "
            "wrote: %s\n", trace, summary);
    return 1;
}

/* Progress on stderr. On a terminal: a bar redrawn in place. Elsewhere (a batch job's log):
 * lines, at each tenth of the locations and of the regions (every step with -v); the events'
 * tenths too when the trace is big. -q: none. */
enum progress_mode { PROGRESS_OFF, PROGRESS_BAR, PROGRESS_LINES, PROGRESS_EVERY_STEP };
static enum progress_mode progress_mode;
#define PROGRESS_BIG_TRACE (1u << 24) /* events: above this, the events' tenths are said too */

static void progress_bar(const char *stage, size_t done, size_t total)
{
    int width = 30, filled = total ? (int)((double)width * (double)done / (double)total) : width;
    fprintf(stderr, "\rhcafold: %-10s [%.*s%*s] %zu/%zu", stage, filled, "##############################",
            width - filled, "", done, total);
    if (done >= total)
        fputs("\r\033[K", stderr);
    fflush(stderr);
}

/* The tenth (0..10) done reaches; a line is due when it passes the last one said. */
static int progress_due(int *last_tenth, size_t done, size_t total, int every_step)
{
    int tenth = total ? (int)(10 * done / total) : 10;
    if (!every_step && tenth <= *last_tenth)
        return 0;
    *last_tenth = tenth;
    return 1;
}

/* Called by fold_analyze (reader threads never at once); the tenths start again with each trace. */
static void progress(enum fold_progress_step step, size_t done, size_t total, const char *region)
{
    static int events_tenth = -1, locations_tenth = -1, regions_tenth = -1;
    static size_t events_done, events_total;
    if (step == FOLD_PROGRESS_EVENTS) {
        events_done = done;
        events_total = total;
    }
    if (progress_mode == PROGRESS_OFF)
        return;
    if (progress_mode == PROGRESS_BAR) {
        if (step == FOLD_PROGRESS_EVENTS)
            progress_bar("reading", done, total);
        else if (step == FOLD_PROGRESS_FOLDED || step == FOLD_PROGRESS_SKIPPED)
            progress_bar("folding", done, total);
        return;
    }
    int every = progress_mode == PROGRESS_EVERY_STEP;
    switch (step) {
    case FOLD_PROGRESS_EVENTS:
        if (total >= PROGRESS_BIG_TRACE && progress_due(&events_tenth, done, total, 0))
            fprintf(stderr, "hcafold: read %d %% of %zu events\n", (int)(100.0 * (double)done / (double)total),
                    total);
        break;
    case FOLD_PROGRESS_LOCATIONS:
        if (progress_due(&locations_tenth, done, total, every))
            fprintf(stderr, "hcafold: read %zu/%zu locations (%d %% of the events)\n", done, total,
                    events_total ? (int)(100.0 * (double)events_done / (double)events_total) : 100);
        if (done == total)
            events_tenth = locations_tenth = -1;
        break;
    case FOLD_PROGRESS_FOLDED:
    case FOLD_PROGRESS_SKIPPED:
        if (progress_due(&regions_tenth, done, total, every))
            fprintf(stderr, "hcafold: %s region %zu/%zu: %s\n", step == FOLD_PROGRESS_FOLDED ? "folded" : "skipped",
                    done, total, region);
        if (done == total)
            regions_tenth = -1;
        break;
    }
    fflush(stderr);
}

/* -q: none; -v: lines at every step; else a bar on a terminal, lines in tenths elsewhere. */
static enum progress_mode progress_mode_for(int quiet, int verbose)
{
    if (quiet)
        return PROGRESS_OFF;
    if (verbose)
        return PROGRESS_EVERY_STEP;
    return isatty(STDERR_FILENO) ? PROGRESS_BAR : PROGRESS_LINES;
}

/* Source files whose lines the summary or report.html wanted and that are not
 * found from here: said once, after the outputs. */
static void missing_sources(const fold_sources *sources)
{
    const char *first = NULL;
    size_t n = fold_sources_missing(sources, &first);
    if (n == 1)
        fprintf(stderr, "hcafold: source lines not shown: %s not found (use --source-dir)\n", first);
    else if (n > 1)
        fprintf(stderr, "hcafold: source lines not shown: %s and %zu other files not found (use --source-dir)\n",
                first, n - 1);
}

/* hcafold --compare: both traces folded with the same options, compared
 * (compare.h), the comparison on stdout and in compare.html. */
static int compare_runs(const char *before_path, const char *after_path, const fold_options *o, const char *output,
                        int quiet)
{
    fold_report before, after;
    memset(&before, 0, sizeof(before));
    memset(&after, 0, sizeof(after));
    char err[PATH_MAX + 256] = "", outdir[PATH_MAX];
    enum fold_analysis_status st = fold_analyze(before_path, o, &before, err, sizeof(err));
    if (st == FOLD_ANALYSIS_OK)
        st = fold_analyze(after_path, o, &after, err, sizeof(err));
    enum fold_exit rc = analysis_exit(st);
    fold_comparison c;
    memset(&c, 0, sizeof(c));
    if (rc == EXIT_DONE && fold_compare(&before, &after, &c) != 0) {
        snprintf(err, sizeof(err), "out of memory comparing the folds");
        rc = EXIT_NO_MEMORY;
    }
    if (rc == EXIT_DONE) {
        if (output)
            snprintf(outdir, sizeof(outdir), "%s", output);
        else {
            size_t n = strlen(after.trace);
            if (n > 5 && strcmp(after.trace + n - 5, ".otf2") == 0)
                n -= 5;
            snprintf(outdir, sizeof(outdir), "%.*s.compare", (int)n, after.trace);
        }
        if (fold_outdir_prepare(outdir) != 0) {
            snprintf(err, sizeof(err), "cannot create %s: %s", outdir, strerror(errno));
            rc = EXIT_OUTPUT;
        } else if (fold_write_compare_html(&before, &after, &c, outdir, err, sizeof(err)) != 0) {
            rc = EXIT_OUTPUT;
        }
    }
    if (rc != EXIT_DONE)
        fprintf(stderr, "hcafold: %s\n", err);
    else if (!quiet) {
        fold_write_compare_summary(&before, &after, &c, stdout);
        printf("\noutput: %s/compare.html\n", outdir);
    }
    fold_comparison_free(&c);
    fold_report_free(&before);
    fold_report_free(&after);
    return (int)rc;
}

/* hcafold --score: the trace's cost per region (score.h) */
static int score_trace(const char *trace, int is_dir, const fold_score_options *so)
{
    char path[PATH_MAX], err[1024] = "";
    if (snprintf(path, sizeof(path), is_dir ? "%s/traces.otf2" : "%s", trace) >= (int)sizeof(path)) {
        fprintf(stderr, "hcafold: %s: path too long\n", trace);
        return EXIT_USAGE;
    }
    int rc = fold_score(path, so, stdout, err, sizeof(err));
    if (rc != 0)
        fprintf(stderr, "hcafold: %s\n", err);
    return rc == 0 ? EXIT_DONE : rc == 1 ? EXIT_BAD_TRACE : rc == 2 ? EXIT_USAGE : EXIT_OUTPUT;
}

int main(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "output", required_argument, NULL, 'o' }, { "region", required_argument, NULL, 'r' },
        { "counter", required_argument, NULL, 'c' }, { "format", required_argument, NULL, 'f' },
        { "jobs", required_argument, NULL, 'j' },    { "quiet", no_argument, NULL, 'q' },
        { "verbose", no_argument, NULL, 'v' },
        { "help", no_argument, NULL, 'h' },          { "version", no_argument, NULL, 'V' },
        { "min-instances", required_argument, NULL, OPT_MIN_INSTANCES },
        { "min-samples", required_argument, NULL, OPT_MIN_SAMPLES },
        { "mad", required_argument, NULL, OPT_MAD },
        { "grid", required_argument, NULL, OPT_GRID },
        { "max-points", required_argument, NULL, OPT_MAX_POINTS },
        { "coarse-max-points", required_argument, NULL, OPT_COARSE_MAX_POINTS },
        { "replicates", required_argument, NULL, OPT_REPLICATES },
        { "mpi", no_argument, NULL, OPT_MPI },      { "list-models", no_argument, NULL, OPT_LIST_MODELS },
        { "keep-tool-time", no_argument, NULL, OPT_KEEP_TOOL_TIME },
        { "recover", no_argument, NULL, OPT_RECOVER },
        { "compare", no_argument, NULL, OPT_COMPARE },
        { "source-dir", required_argument, NULL, OPT_SOURCE_DIR },
        { "score", no_argument, NULL, OPT_SCORE },
        { "filter", required_argument, NULL, OPT_FILTER },
        { "suggest-filter", required_argument, NULL, OPT_SUGGEST_FILTER },
        { "model", required_argument, NULL, 'm' },  { "set", required_argument, NULL, 's' },
        { NULL, 0, NULL, 0 }
    };
    /* large arrays come and go while folding: keep freed memory for reuse
     * rather than unmapping it (and faulting fresh pages in again) */
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 256 << 20);
    fold_options o;
    fold_options_defaults(&o);
    const char *regions[MAX_SELECT], *counters[MAX_SELECT], *sets[MAX_SELECT], *source_dirs[MAX_SELECT];
    size_t nsource_dirs = 0;
    fold_model_options mo = { NULL, sets, 0 };
    int no_model = 0;
    const char *output = NULL;
    unsigned formats = FOLD_FORMAT_ALL;
    int quiet = 0, verbose = 0, recover_only = 0, compare = 0, score = 0, opt;
    int max_given = 0, coarse_given = 0;
    fold_score_options so = { NULL, NULL, 1000, 50000 }; /* HCATRACE_THIN's defaults */
    size_t v;
    struct stat st;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    o.jobs = cpus > 0 ? (unsigned)cpus : 1;
    while ((opt = getopt_long(argc, argv, "o:r:c:f:j:m:s:qvhV", longopts, NULL)) != -1) {
        switch (opt) {
        case 'o':
            output = optarg;
            break;
        case 'r':
        case 'c':
            if ((opt == 'r' ? o.nregions : o.ncounters) >= MAX_SELECT) {
                fprintf(stderr, "hcafold: at most %d -%c options\n", MAX_SELECT, opt);
                return EXIT_USAGE;
            }
            if (opt == 'r')
                regions[o.nregions++] = optarg;
            else
                counters[o.ncounters++] = optarg;
            break;
        case 'f':
            if (parse_formats(optarg, &formats) != 0) {
                fprintf(stderr, "hcafold: unknown format in '%s' (use json,csv,png,svg,html)\n", optarg);
                return EXIT_USAGE;
            }
            break;
        case 'j':
            if (parse_size(optarg, 1, &v) != 0 || v > 256) {
                fprintf(stderr, "hcafold: --jobs needs a number from 1 to 256, not '%s'\n", optarg);
                return EXIT_USAGE;
            }
            o.jobs = (unsigned)v;
            break;
        case 'q':
            quiet = 1;
            break;
        case 'v':
            verbose = 1;
            break;
        case 'm':
            no_model = strcmp(optarg, "none") == 0;
            mo.name = no_model ? NULL : optarg;
            break;
        case 's':
            if (mo.nset >= MAX_SELECT) {
                fprintf(stderr, "hcafold: at most %d --set options\n", MAX_SELECT);
                return EXIT_USAGE;
            }
            sets[mo.nset++] = optarg;
            break;
        case 'h':
            usage(stdout);
            return EXIT_DONE;
        case 'V':
            printf("hcafold %s\n", HCATRACE_VERSION);
            return EXIT_DONE;
        case OPT_MIN_INSTANCES:
        case OPT_MIN_SAMPLES:
        case OPT_GRID:
        case OPT_MAX_POINTS:
            if (parse_size(optarg, opt == OPT_GRID ? 3 : 1, &v) != 0) {
                fprintf(stderr, "hcafold: --%s needs a positive number, not '%s'\n", long_name(longopts, opt),
                        optarg);
                return EXIT_USAGE;
            }
            if (opt == OPT_GRID && v > FOLD_MAX_GRID) {
                fprintf(stderr, "hcafold: --grid needs a number from 3 to %d, not '%s'\n", FOLD_MAX_GRID, optarg);
                return EXIT_USAGE;
            }
            if (opt == OPT_MIN_INSTANCES)
                o.min_instances = v;
            else if (opt == OPT_MIN_SAMPLES)
                o.min_samples = v;
            else if (opt == OPT_GRID)
                o.fit.grid = v;
            else {
                o.fit.max_points = v;
                max_given = 1;
            }
            break;
        case OPT_COARSE_MAX_POINTS:
            if (parse_size(optarg, 0, &v) != 0) {
                fprintf(stderr, "hcafold: --coarse-max-points needs 0 or a positive number, not '%s'\n", optarg);
                return EXIT_USAGE;
            }
            o.fit.coarse_max_points = v;
            coarse_given = 1;
            break;
        case OPT_REPLICATES:
            if (parse_size(optarg, 0, &v) != 0 || v == 1 || v > 100000) {
                fprintf(stderr, "hcafold: --replicates needs 0 or a number from 2 to 100000, not '%s'\n", optarg);
                return EXIT_USAGE;
            }
            o.bootstrap.replicates = v;
            break;
        case OPT_MAD: {
            char *end;
            double k = strtod(optarg, &end);
            if (!*optarg || *end || !(k > 0)) {
                fprintf(stderr, "hcafold: --mad needs a positive number, not '%s'\n", optarg);
                return EXIT_USAGE;
            }
            o.mad_k = k;
            break;
        }
        case OPT_MPI:
            o.include_mpi = 1;
            break;
        case OPT_KEEP_TOOL_TIME:
            o.keep_tool_time = 1;
            break;
        case OPT_LIST_MODELS:
            return list_models();
        case OPT_RECOVER:
            recover_only = 1;
            break;
        case OPT_COMPARE:
            compare = 1;
            break;
        case OPT_SOURCE_DIR:
            if (nsource_dirs >= MAX_SELECT) {
                fprintf(stderr, "hcafold: at most %d --source-dir options\n", MAX_SELECT);
                return EXIT_USAGE;
            }
            if (stat(optarg, &st) != 0 || !S_ISDIR(st.st_mode)) /* sources never stop a fold */
                fprintf(stderr, "hcafold: --source-dir %s: not a directory (ignored)\n", optarg);
            else
                source_dirs[nsource_dirs++] = optarg;
            break;
        case OPT_SCORE:
            score = 1;
            break;
        case OPT_FILTER:
            so.filter = optarg;
            break;
        case OPT_SUGGEST_FILTER:
            so.suggest_path = optarg;
            break;
        default:
            usage(stderr);
            return EXIT_USAGE;
        }
    }
    if (max_given && !coarse_given)
        o.fit.coarse_max_points = 0; /* a cap given alone is exact */
    o.regions = o.nregions ? regions : NULL;
    o.counters = o.ncounters ? counters : NULL;
    if (compare) {
        if (optind != argc - 2) {
            fputs("hcafold: --compare needs two traces, BEFORE and AFTER\n", stderr);
            usage(stderr);
            return EXIT_USAGE;
        }
        progress_mode = progress_mode_for(quiet, verbose);
        o.progress = progress;
        return compare_runs(argv[optind], argv[optind + 1], &o, output, quiet);
    }
    if (optind != argc - 1) {
        fputs(optind >= argc ? "hcafold: no trace given\n" : "hcafold: one trace at a time\n", stderr);
        usage(stderr);
        return EXIT_USAGE;
    }
    /* a directory is searched for its archive by the reader (fold_read) */
    const char *trace = argv[optind];
    if (stat(trace, &st) != 0) {
        fprintf(stderr, "hcafold: %s: %s\n", trace, strerror(errno));
        return EXIT_BAD_TRACE;
    }
    char outdir[PATH_MAX], err[1024] = "";
    int recovered = recover_if_needed(trace, recover_only);
    if (recovered < 0)
        return EXIT_BAD_TRACE;
    if (recover_only)
        return EXIT_DONE;
    if (score)
        return score_trace(trace, S_ISDIR(st.st_mode), &so);
    progress_mode = progress_mode_for(quiet, verbose);
    o.progress = progress;

    fold_report report;
    memset(&report, 0, sizeof(report));
    enum fold_analysis_status analysis = fold_analyze(trace, &o, &report, err, sizeof(err));
    if (analysis != FOLD_ANALYSIS_OK) {
        fprintf(stderr, "hcafold: %s\n", err);
        /* nothing to fold: the whole run and why each region was skipped are
         * still written (fold.json, report.html); the exit status says 4 */
        if (analysis != FOLD_ANALYSIS_NOTHING || !report.trace) {
            fold_report_free(&report);
            return analysis_exit(analysis);
        }
        formats &= FOLD_FORMAT_JSON | FOLD_FORMAT_HTML;
        no_model = 1;
        mo.nset = 0;
    }
    const char *loss = recovered ? NULL : fold_trace_property(report.owner, HCA_PROP_RECOVERED);
    if (loss) /* rebuilt earlier: the loss is said at every fold */
        fprintf(stderr, "hcafold: %s is a partial trace (the job ended without MPI_Finalize): %s\n", report.trace,
                loss);
    if (output)
        snprintf(outdir, sizeof(outdir), "%s", output);
    else
        default_output(report.trace, outdir, sizeof(outdir));
    enum fold_exit model_rc = EXIT_DONE;
    if (!no_model) {
        int mrc = fold_model_apply(&report, &mo, err, sizeof(err));
        if (mrc == FOLD_MODEL_BAD || mrc == FOLD_MODEL_NOMEM) {
            fprintf(stderr, "hcafold: %s\n", err);
            fold_report_free(&report);
            return mrc == FOLD_MODEL_BAD ? EXIT_USAGE : EXIT_NO_MEMORY;
        }
        if (mrc == FOLD_MODEL_NONE && mo.nset) {
            fputs("hcafold: --set needs a model: the trace records none, give --model\n", stderr);
            fold_report_free(&report);
            return EXIT_USAGE;
        }
        if (mrc == FOLD_MODEL_MISSING) {
            fprintf(stderr, "hcafold: %s\n", err);
            model_rc = mo.name ? EXIT_MODEL : EXIT_DONE;
        }
    } else if (mo.nset) {
        fputs("hcafold: --set needs a model (--model none was given)\n", stderr);
        fold_report_free(&report);
        return EXIT_USAGE;
    }
    if (fold_outdir_prepare(outdir) != 0) {
        fprintf(stderr, "hcafold: cannot prepare %s: %s\n", outdir, strerror(errno));
        fold_report_free(&report);
        return EXIT_OUTPUT;
    }
    report.sources = fold_sources_new(report.trace, source_dirs, nsource_dirs);
    enum fold_exit rc = EXIT_DONE;
    if ((formats & FOLD_FORMAT_JSON) && fold_write_json(&report, outdir, err, sizeof(err)) != 0)
        rc = EXIT_OUTPUT;
    /* plots read the CSV files: they are written whenever plots are asked for */
    if (rc == EXIT_DONE && (formats & (FOLD_FORMAT_CSV | FOLD_FORMAT_PLOTS)) &&
        (fold_write_csv(&report, outdir, err, sizeof(err)) != 0 || fold_write_model_csv(&report, outdir, err, sizeof(err)) != 0))
        rc = EXIT_OUTPUT;
    if (rc == EXIT_DONE && (formats & FOLD_FORMAT_PLOTS) &&
        (fold_write_plots(&report, outdir, formats, err, sizeof(err)) != 0 ||
         fold_write_model_plots(&report, outdir, formats, err, sizeof(err)) != 0))
        rc = EXIT_OUTPUT;
    if (rc == EXIT_DONE && (formats & FOLD_FORMAT_HTML) && fold_write_html(&report, outdir, err, sizeof(err)) != 0)
        rc = EXIT_OUTPUT;
    if (formats & FOLD_FORMAT_PLOTS)
        fold_outdir_finish(outdir);
    if (rc != EXIT_DONE)
        fprintf(stderr, "hcafold: %s\n", err);
    if (!quiet) {
        fold_write_summary(&report, stdout);
        printf("\noutput: %s/ (report.html, fold.json, <region>.csv, <region>.png/.svg)\n", outdir);
    }
    missing_sources(report.sources);
    fold_sources_free(report.sources);
    fold_report_free(&report);
    if (rc == EXIT_DONE && analysis != FOLD_ANALYSIS_OK)
        rc = analysis_exit(analysis);
    return rc != EXIT_DONE ? (int)rc : (int)model_rc;
}
