/* hct_core.c: the tracer's lifecycle. Decides at load time whether this process
 * is traced (never launchers, never when disabled), keeps one OTF2 location per
 * thread, opens the archive (at load for serial programs, at MPI_Init for MPI
 * ranks) and writes definitions and closes it at the end. */
#include "hct.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "hct_expdir.h"
#include "hct_launcher.h"
#include "hct_markers.h"
#include "hct_mpi.h"
#include "hct_writer.h"

hct_state hct;
static HCT_TLS hct_thread *tls_thread;
static pthread_mutex_t thread_lock = PTHREAD_MUTEX_INITIALIZER;
static int message_rank_ok = 1; /* only one rank of a job prints configuration problems */

extern char **environ;

void hct_message(const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n > sizeof(line) - 2)
        n = (int)sizeof(line) - 2;
    line[n++] = '\n';
    /* one write: lines of different ranks do not interleave */
    char out[1100];
    int len = snprintf(out, sizeof(out), "hcatrace: %.*s", n, line);
    if (len > 0) {
        ssize_t w = write(STDERR_FILENO, out, (size_t)(len < (int)sizeof(out) ? len : (int)sizeof(out) - 1));
        (void)w;
    }
}

static void report_config_problem(const char *line)
{
    if (message_rank_ok)
        hct_message("%s", line);
}

void hct_config_problem(const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    report_config_problem(line);
}

void hct_otf2_check(hct_thread *t, OTF2_ErrorCode rc)
{
    if (rc == OTF2_SUCCESS)
        return;
    t->dropped_events++;
    if (!hct.write_error[0])
        snprintf(hct.write_error, sizeof(hct.write_error), "%s", OTF2_Error_GetDescription(rc));
}

/* OTF2 reports its own errors here instead of printing them; the first one is
 * kept for the final message. */
static OTF2_ErrorCode otf2_error(void *user, const char *file, uint64_t line, const char *function,
                                 OTF2_ErrorCode code, const char *fmt, va_list va)
{
    (void)user;
    (void)file;
    (void)line;
    (void)function;
    if (!hct.write_error[0]) {
        char msg[200];
        vsnprintf(msg, sizeof(msg), fmt ? fmt : "", va);
        snprintf(hct.write_error, sizeof(hct.write_error), "%s (%s)", msg, OTF2_Error_GetDescription(code));
    }
    return code;
}

/* ---- threads ------------------------------------------------------------- */

static hct_thread *thread_register(void)
{
    hct_thread *t = calloc(1, sizeof(*t));
    if (!t)
        return NULL;
    pthread_mutex_lock(&thread_lock);
    uint32_t index = atomic_load(&hct.nthreads);
    if (index >= HCT_MAX_THREADS) {
        pthread_mutex_unlock(&thread_lock);
        free(t);
        return NULL;
    }
    t->index = index;
    hct.threads[index] = t;
    atomic_store(&hct.nthreads, index + 1);
    pthread_mutex_unlock(&thread_lock);
    tls_thread = t;
    return t;
}

hct_thread *hct_thread_get(void)
{
    hct_thread *t = tls_thread;
    if (__builtin_expect(t && t->writer && atomic_load_explicit(&hct.active, memory_order_relaxed), 1))
        return t;
    if (!atomic_load(&hct.active))
        return NULL;
    if (!t && !(t = thread_register()))
        return NULL;
    if (!t->writer) {
        t->location_id = hca_location_id((uint32_t)hct.rank, t->index);
        t->writer = hct_writer_location(t->location_id);
        if (!t->writer)
            return NULL;
        t->has_location = 1;
        hct_extras_start(t); /* counters and sampling of this thread */
    }
    return t;
}

hct_thread *hct_master_thread(void)
{
    return hct.threads[0];
}

/* Waits (briefly) until no thread is inside a wrapper, after recording stopped. */
static void wait_quiescent(void)
{
    for (int spin = 0; spin < 1000; spin++) {
        int busy = 0;
        uint32_t n = atomic_load(&hct.nthreads);
        for (uint32_t i = 0; i < n; i++)
            if (hct.threads[i] && hct.threads[i]->in_tool && hct.threads[i] != tls_thread)
                busy = 1;
        if (!busy)
            return;
        struct timespec ts = { 0, 1000000 };
        nanosleep(&ts, NULL);
    }
}

/* Stops recording: sampling stops everywhere; the master location gets its
 * pending samples, last counter values and the end of the program; then, once
 * no thread is inside the tracer, every other location its samples and last
 * counter values. */
void hct_stop_recording(void)
{
    hct_thread *master = hct.threads[0];
    hct_extras_disarm_all();
    if (master && master->writer) {
        int self = master == tls_thread;
        if (self) {
            master->in_tool++;
            hct_sampling_drain(master); /* older than anything written now */
            hct_markers_close_open(master, hct_timestamp(master));
        }
        hct_extras_finish(master, self);
        uint64_t ts = hct_timestamp(master);
        hct_counters_final(master, ts, self); /* the totals, with the end of the program */
        hct_otf2_check(master, OTF2_EvtWriter_ProgramEnd(master->writer, NULL, ts, OTF2_UNDEFINED_INT64));
        if (self)
            master->in_tool--;
    }
    atomic_store(&hct.active, 0);
    wait_quiescent();
    uint32_t n = atomic_load(&hct.nthreads);
    for (uint32_t i = 1; i < n; i++)
        if (hct.threads[i])
            hct_extras_finish(hct.threads[i], hct.threads[i] == tls_thread);
    for (uint32_t i = 0; i < n; i++)
        if (hct.threads[i])
            hct_extras_close(hct.threads[i]);
    hct_sampling_report();
}

/* ---- program identity ----------------------------------------------------- */

static void read_program_identity(void)
{
    char path[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
    if (n <= 0)
        snprintf(path, sizeof(path), "%s", program_invocation_name);
    else
        path[n] = 0;
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t len = strnlen(base, sizeof(hct.exe) - 1);
    memcpy(hct.exe, base, len);
    hct.exe[len] = 0;
    hct.program_name_string = hca_defs_string(&hct.defs, path);
}

/* Arguments of the program, from /proc/self/cmdline, as local string IDs. */
static uint32_t program_arguments(OTF2_StringRef *args, uint32_t max)
{
    FILE *f = fopen("/proc/self/cmdline", "r");
    if (!f)
        return 0;
    char buf[4096];
    size_t len = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[len] = 0;
    uint32_t n = 0;
    size_t pos = strlen(buf) + 1; /* skip argv[0] */
    while (pos < len && n < max) {
        args[n++] = hca_defs_string(&hct.defs, buf + pos);
        pos += strlen(buf + pos) + 1;
    }
    return n;
}

/* First events of the master location, once its archive is open. */
void hct_write_program_begin(void)
{
    hct_thread *t = hct_thread_get();
    if (!t)
        return;
    OTF2_StringRef args[64];
    uint32_t nargs = program_arguments(args, 64);
    if (t->last_ts < hct.program_begin_ts)
        t->last_ts = hct.program_begin_ts;
    hct_otf2_check(t, OTF2_EvtWriter_ProgramBegin(t->writer, NULL, hct.program_begin_ts,
                                                  hct.program_name_string, nargs, args));
}

/* ---- serial (non-MPI) processes ------------------------------------------ */

static void serial_start(void)
{
    char err[512];
    if (hct_expdir_claim(hct.cfg.dir, hct.exe, hct.expdir, sizeof(hct.expdir), err, sizeof(err)) != 0) {
        hct_message("%s; running untraced", err);
        hct.mode = HCT_OFF;
        return;
    }
    hct.rank = 0;
    hct.size = 1;
    if (hct_writer_open(NULL, err, sizeof(err)) != 0) {
        hct_message("%s; running untraced", err);
        hct.mode = HCT_OFF;
        return;
    }
    hct.mode = HCT_SERIAL;
    hct.first_ts = hca_clock_now();
    atomic_store(&hct.active, 1);
    hct_write_program_begin();
}

static void serial_finish(void)
{
    hct_stop_recording();
    hct_writer_finish_serial();
}

/* ---- load and unload ------------------------------------------------------ */

static int launched_by_mpi(void)
{
    static const char *const vars[] = { "OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE",
                                        "MPI_LOCALRANKID" };
    for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
        if (getenv(vars[i]))
            return 1;
    return 0;
}

static int job_rank_from_env(void)
{
    static const char *const vars[] = { "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK" };
    for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
        const char *v = getenv(vars[i]);
        if (v)
            return atoi(v);
    }
    return 0;
}

__attribute__((constructor)) static void hct_load(void)
{
    hct.program_begin_ts = hca_clock_now();
    hct.mode = HCT_OFF;
    if (hct_is_launcher(program_invocation_short_name))
        return;
    message_rank_ok = job_rank_from_env() == 0;
    hct_config_read(&hct.cfg, environ, report_config_problem);
    if (!hct.cfg.enable)
        return;
    OTF2_Error_RegisterCallback(otf2_error, NULL);
    hca_defs_init(&hct.defs);
    read_program_identity();
    hct_extras_setup(); /* counters and sampling: what this machine records */
    if (!thread_register())
        return;
    if (launched_by_mpi())
        hct.mode = HCT_MPI_PENDING; /* the archive opens in MPI_Init */
    else
        serial_start();
}

__attribute__((destructor)) static void hct_unload(void)
{
    switch (hct.mode) {
    case HCT_SERIAL:
        serial_finish();
        break;
    case HCT_MPI_PENDING:
        /* an MPI-launched program that never called MPI_Init: one process */
        serial_start();
        if (hct.mode == HCT_SERIAL)
            serial_finish();
        break;
    case HCT_MPI:
        if (atomic_load(&hct.active) && hct.rank == 0)
            hct_message("the program exited without MPI_Finalize; its trace in %s is incomplete", hct.expdir);
        atomic_store(&hct.active, 0);
        break;
    case HCT_OFF:
        break;
    }
    hct.mode = HCT_OFF;
}
