/* hct_rescue.h: the ends a traced process can still act on: SIGTERM and SIGINT (a
 * batch system's wall-time limit, mpirun killing a job, Ctrl-C) and the fatal signals
 * (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT). The handler hands the end to the
 * lifecycle once (writing what the process holds), then the signal goes on to the
 * disposition the process had before (the default one: the process ends by the same
 * signal, with the same status). */
#ifndef HCT_RESCUE_H
#define HCT_RESCUE_H

#include "hct.h"

/* Installs the handlers (again: after MPI_Init, whose runtime installs its own, which
 * then come after ours); a signal the process ignores stays ignored. end (kept when
 * NULL) is called once, from the handler, with the signal's name. */
void hct_rescue_arm(void (*end)(const char *how)) HCT_HIDDEN;

/* 1 for the first caller (a handler, MPI_Abort, an exit without MPI_Finalize): it
 * writes what the process holds; 0 for every later one. */
int hct_rescue_claim(void) HCT_HIDDEN;

#endif
