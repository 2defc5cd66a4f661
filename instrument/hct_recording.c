/* hct_recording.c: the first and the last events of a traced process: the
 * program's begin on the master location once the archive is open, and the
 * stop of recording (samples, last counter values, the program's end), for
 * serial programs (hct_core.c) and MPI jobs (hct_mpi_env.c) alike. */
#include "hct_recording.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "hct.h"
#include "hct_boundary.h"
#include "hct_diag.h"
#include "hct_locations.h"
#include "hct_markers.h"
#include "hct_sampling.h"
#include "hct_rescue.h"

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

/* Waits (briefly) until no thread is inside a wrapper, after recording stopped. */
static void wait_quiescent(void)
{
    for (int spin = 0; spin < 1000; spin++) {
        int busy = 0;
        uint32_t n = atomic_load(&hct.nthreads);
        for (uint32_t i = 0; i < n; i++)
            if (hct.threads[i] && hct.threads[i]->in_tool && hct.threads[i] != hct_thread_self())
                busy = 1;
        if (!busy)
            return;
        struct timespec ts = { 0, 1000000 };
        nanosleep(&ts, NULL);
    }
}

/* Sampling stops everywhere; the master location gets its pending samples,
 * last counter values and the end of the program; then, once no thread is
 * inside the tracer, every other location its samples and last counter values.
 * Called on another thread than the master (a signal to the process, which
 * the kernel gives to any thread that does not block it: in an MPI rank
 * waiting in a collective, often to a thread of the MPI runtime), recording
 * stops first and the master's section under way ends before its location is
 * written from here (they wrote to it at once before). */
void hct_stop_recording(void)
{
    hct_thread *master = hct.threads[0];
    int self = master && master == hct_thread_self();
    hct_extras_disarm_all();
    if (!self) {
        atomic_store(&hct.active, 0);
        wait_quiescent();
    }
    if (master && master->writer) {
        if (self) {
            /* each open region's leave as any leave: its enter if kept back
             * (at its time, with its tool time then), the samples before each;
             * the others after (hct_extras_finish). Drained first, the samples
             * went before a kept-back enter then written after them, at the
             * last one's time but with its older tool time: the total grew by
             * theirs and the drain's from it to its leave, microseconds later
             * (docs/trace-format.md, "Partial traces") */
            master->in_tool++;
            hct_markers_close_open(master);
        }
        hct_extras_finish(master, self);
        /* no counter values here: a counter set's class is SYNCHRONOUS, its
         * values come with calling-context events only */
        uint64_t ts = hct_timestamp(master);
        hct_otf2_check(master, OTF2_EvtWriter_ProgramEnd(master->writer, NULL, ts, OTF2_UNDEFINED_INT64));
        if (self)
            hct_tool_exit(master);
    }
    atomic_store(&hct.active, 0);
    wait_quiescent();
    uint32_t n = atomic_load(&hct.nthreads);
    for (uint32_t i = 1; i < n; i++)
        if (hct.threads[i])
            hct_extras_finish(hct.threads[i], hct.threads[i] == hct_thread_self());
    for (uint32_t i = 0; i < n; i++)
        if (hct.threads[i])
            hct_extras_close(hct.threads[i]);
    hct_sampling_report();
}
