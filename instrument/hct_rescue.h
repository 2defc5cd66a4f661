/* hct_rescue.h: the ends a traced process can still act on: SIGTERM and SIGINT (a
 * batch system's wall-time limit, mpirun killing a job, Ctrl-C) and the fatal signals
 * (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT). The handler hands the end to the
 * lifecycle once (writing what the process holds), then the signal goes on to the
 * disposition the process had before (the default one: the process ends by the same
 * signal, with the same status). */
#ifndef HCT_RESCUE_H
#define HCT_RESCUE_H

#include <signal.h>

#include "hct.h"
#include "hct_frame_keys.h"
#include "hct_sample_defer.h"

/* Installs the handlers (again: after MPI_Init, whose runtime installs its own, which
 * then come after ours); a signal the process ignores stays ignored. end (kept when
 * NULL) is called once, from the handler, with the signal's name; inside_tracer
 * (kept when NULL; async-signal-safe) says whether the calling thread is inside
 * the tracer (SIGTERM and SIGINT then wait for hct_tool_exit). */
void hct_rescue_arm(void (*end)(const char *how), int (*inside_tracer)(void)) HCT_HIDDEN;

/* 1 for the first caller (a handler, MPI_Abort, an exit without MPI_Finalize): it
 * writes what the process holds; 0 for every later one. */
int hct_rescue_claim(void) HCT_HIDDEN;

/* SIGTERM or SIGINT, when it arrived while its thread was inside the tracer
 * (in_tool > 0; 0: none). The handler defers it to the end of that section, so
 * that the end never writes the trace around a half-written record (a region
 * entered and not yet on the open-region stack). */
extern volatile sig_atomic_t hct_rescue_deferred HCT_HIDDEN;
/* Raises the deferred signal again (its handler then runs the end). */
void hct_rescue_raise_deferred(void) HCT_HIDDEN;

/* Leaves a section inside the tracer (t->in_tool++ ... hct_tool_exit(t)); at
 * the outermost exit, the section's waits for the frames worker not measured
 * otherwise join the thread's tool time (hct_frame_keys.h), a sample that
 * interrupted the section is taken (hct_sample_defer.h), then a deferred end
 * signal is raised. */
static inline void hct_tool_exit(hct_thread *t)
{
    if (t->in_tool == 1 && hct_frame_keys_waited) { /* still inside: no handler adds meanwhile */
        t->tool_ns += hct_frame_keys_waited;
        hct_frame_keys_waited = 0;
    }
    if (--t->in_tool == 0) {
        if (t->sample_deferred)
            hct_sample_raise_deferred(t);
        if (hct_rescue_deferred)
            hct_rescue_raise_deferred();
    }
}

#endif
