/* hct_core.c: the tracer's lifecycle, the top of its layers. Decides at load
 * time whether this process is traced (never launchers, never when disabled),
 * opens the archive of a serial program at once (MPI ranks wait for MPI_Init:
 * hct_mpi_env.c) and writes its definitions and closes it at the end. Nothing
 * calls into this file: it has no header. */
#include "hct.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hct_boundary.h"
#include "hct_callsite.h"
#include "hct_comms.h"
#include "hct_diag.h"
#include "hct_expdir.h"
#include "hct_journal.h"
#include "hct_launcher.h"
#include "hct_locations.h"
#include "hct_mpi_env.h"
#include "hct_recording.h"
#include "hct_regions.h"
#include "hct_rescue.h"
#include "hct_ticks.h"
#include "hct_writer.h"

extern char **environ;

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

/* ---- serial (non-MPI) processes ------------------------------------------ */

static void serial_start(void)
{
    char err[512];
    int claimed = hct_expdir_claim(hct.cfg.dir, hct.exe, hct.expdir, sizeof(hct.expdir), err, sizeof(err));
    if (claimed < 0) {
        hct_message("%s; running untraced", err);
        hct.mode = HCT_OFF;
        return;
    }
    if (claimed > 0)
        hct_message("%s", err);
    hct.rank = 0;
    hct.size = 1;
    if (hct_writer_open(NULL, hct_journal_before_flush, hct_journal_prepare, err, sizeof(err)) != 0) {
        hct_message("%s; running untraced", err);
        hct.mode = HCT_OFF;
        return;
    }
    hct.mode = HCT_SERIAL;
    hct.first_ts = hca_clock_now();
    atomic_store(&hct.active, 1);
    hct_write_program_begin();
}

/* The whole end of a serial trace. */
static void serial_finish(void)
{
    hct_stop_recording();
    if (hct.write_error[0]) {
        /* a write failed during the run (a full disk): OTF2 cannot close a file after
         * that (it writes its buffered data again and crashes), and the definitions
         * would not fit either; what was written before stays, with its journal */
        hct_message("writing the trace in %s failed: %s; the trace is incomplete: what was written before the "
                    "failure is kept (hcafold %s rebuilds it)", hct.expdir, hct.write_error, hct.expdir);
        return;
    }
    hca_location_info *locs = NULL;
    uint32_t nlocs = hct_writer_close_locations(&locs);
    int bad = hct_callsite_define(hct_region_def) != 0 || hct_regions_define_thinned() != 0 || hct_comms_define() != 0;
    hca_defs global;
    hca_defs_init(&global);
    hca_defs_map map;
    bad |= hca_defs_merge(&global, &hct.defs, &map) != 0;
    if (!bad) {
        hct_clock_offset zero = { hct.first_ts, 0, 0.0 };
        bad |= hct_writer_local_defs(&map, &zero, 1) != 0;
        uint64_t last = hca_clock_now();
        char host[256] = "localhost";
        gethostname(host, sizeof(host) - 1);
        const char *hosts[1] = { host };
        const char *procs[1] = { hct.exe };
        hca_system_info sys = { 1, hosts, procs, locs, nlocs, HCA_CLOCK_RESOLUTION, hct.program_begin_ts,
                                last - hct.program_begin_ts + 1, hca_clock_realtime_of(hct.program_begin_ts),
                                0 };
        bad |= hct_writer_global_defs(&global, &sys) != 0;
        hca_defs_map_free(&map);
    }
    bad |= hct_writer_close() != 0;
    uint64_t nevents = 0;
    for (uint32_t i = 0; i < nlocs; i++)
        nevents += locs[i].nevents;
    hct_writer_report(bad, nevents, nlocs);
    if (!bad && !hct.write_error[0])
        hct_journal_remove();
    free(locs);
    hca_defs_free(&global);
}

/* ---- abnormal ends ---------------------------------------------------------- */

/* A signal ends the process (hct_rescue.c): a serial trace is finished as at a normal
 * end; an MPI rank writes its events and partial definitions (hct_mpi_rescue). */
static void abnormal_end(const char *how)
{
    switch (hct.mode) {
    case HCT_SERIAL:
        serial_finish();
        hct_message("the program ended by %s; its trace in %s holds what it did until then", how, hct.expdir);
        break;
    case HCT_MPI:
        hct_mpi_rescue(how);
        break;
    case HCT_MPI_PENDING:
    case HCT_OFF:
        break;
    }
    hct.mode = HCT_OFF;
}

/* 1 when the calling thread is inside the tracer (for hct_rescue: a signal
 * handler; a thread-local read only). */
static int inside_tracer(void)
{
    const hct_thread *t = hct_thread_self();
    return t && t->in_tool > 0;
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
    hct.env_rank = job_rank_from_env();
    hct_config_problems_here(hct.env_rank == 0);
    hct_config_read(&hct.cfg, environ, hct_config_problem_line);
    if (!hct.cfg.enable)
        return;
    hct_otf2_errors_captured();
    hca_defs_init(&hct.defs);
    hct_ticks_init();
    read_program_identity();
    hct_extras_setup(); /* counters and sampling: what this machine records */
    if (!hct_thread_register())
        return;
    if (launched_by_mpi())
        hct.mode = HCT_MPI_PENDING; /* the archive opens in MPI_Init */
    else
        serial_start();
    if (hct.mode != HCT_OFF)
        hct_rescue_arm(abnormal_end, inside_tracer);
}

__attribute__((destructor)) static void hct_unload(void)
{
    if (hct.mode != HCT_OFF && !hct_rescue_claim())
        return; /* a signal or MPI_Abort ended it already */
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
        hct_mpi_rescue("exit without MPI_Finalize");
        break;
    case HCT_OFF:
        break;
    }
    hct.mode = HCT_OFF;
}
