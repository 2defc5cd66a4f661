/* hct_sleep.h: sleeps that the sampler does not cut short (hct_sleep.c): the
 * C library's nanosleep, clock_nanosleep, usleep and sleep are wrapped. */
#ifndef HCT_SLEEP_H
#define HCT_SLEEP_H

#include "hct.h"

/* Called by the sampling signal handler (async-signal-safe): the calling
 * thread took a sampling signal. */
void hct_sleep_interrupted(void) HCT_HIDDEN;
/* 1 while the calling thread is inside one of the wrapped sleeps
 * (async-signal-safe: a thread-local read) */
int hct_sleep_asleep(void) HCT_HIDDEN;

#endif
