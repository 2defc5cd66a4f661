/* hct_sampling_wall.h: the wall-clock sampling source: a POSIX timer on
 * CLOCK_MONOTONIC per thread, delivered to that thread (hct_sampling_wall.c). */
#ifndef HCT_SAMPLING_WALL_H
#define HCT_SAMPLING_WALL_H

#include <signal.h>
#include <stdint.h>
#include <time.h>

#include "hct.h"

/* A timer on `clock` (CLOCK_MONOTONIC here; the CPU-time source passes
 * CLOCK_THREAD_CPUTIME_ID) that raises signo on the calling thread with value
 * in si_value (si_code SI_TIMER); not armed. Returns 0, or -1 (errno set). */
int hct_thread_timer_create(clockid_t clock, int signo, void *value, timer_t *timer) HCT_HIDDEN;
/* Arms it once, to expire at `due` (trace clock, CLOCK_MONOTONIC ns).
 * Async-signal-safe. */
void hct_wall_timer_arm_at(timer_t timer, uint64_t due) HCT_HIDDEN;

/* The timestamp of the first sample of a signal that arrived at `now` for
 * its n expiries, the first at `due`: `now` when the signal came promptly
 * (one expiry, within HCT_WALL_PROMPT_NS: the thread ran, and the sample's
 * timestamp and counter values are read back to back), else `due`. */
uint64_t hct_wall_stamp(uint64_t due, uint64_t now, int n) HCT_HIDDEN;
#define HCT_WALL_PROMPT_NS 250000u

#endif
