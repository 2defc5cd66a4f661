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

/* What a running thread loses to a wall-clock signal beyond the handler's
 * own measured time, measured once per process (about 1.5 ms): the median
 * over HCT_WALL_LATENCY_TRIALS trials of a timer 50 us ahead while the
 * calling thread reads the clock without pause, of
 *   latency: how long the thread ran on after the expiry before the
 *            interrupt stopped it (its last reading before the handler);
 *   ret:     the handler's return (sigreturn), from the handler's last clock
 *            reading to the thread's next one.
 * The caller's handler for the timer's signal, seeing probe->armed, only
 * sets handler_end to the clock and then hit. Both 0 when the timer never
 * fired. */
typedef struct {
    volatile sig_atomic_t armed, hit;
    volatile uint64_t handler_end;
} hct_wall_probe;
typedef struct {
    uint64_t latency, ret; /* ns */
} hct_wall_costs;
hct_wall_costs hct_wall_measure(timer_t timer, hct_wall_probe *probe) HCT_HIDDEN;
#define HCT_WALL_LATENCY_TRIALS 9

/* hct_wall_stamp, the timestamp of a sample: hct_delivery.h */

#endif
