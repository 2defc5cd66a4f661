/* hct_boundary.h: what a region boundary and a thread's start and end do
 * besides the region event itself: pending samples, then counter values,
 * the drain outside the instance (hct_boundary.c). */
#ifndef HCT_BOUNDARY_H
#define HCT_BOUNDARY_H

#include <stdint.h>

#include "hct.h"
#include "hct_thin.h"

/* At load: which counters and which sampling this process records. */
void hct_extras_setup(void) HCT_HIDDEN;
/* On the thread itself, when it gets its location: counters and sampling. */
void hct_extras_start(hct_thread *t) HCT_HIDDEN;
/* A region boundary of t (t->in_tool > 0, t->extras): the pending samples,
 * then the counter values at the returned time (not before `not_before`, when
 * non-zero); the caller writes its region event at that time. An enter's time
 * is read after the drain, a leave's before it (the drain is not the
 * instance's; the samples older than the time are written first all the
 * same). Enters kept back are the caller's (hct_boundary below); the end of
 * a kept-back instance written with counter values calls this directly
 * (hct_thin_counters.c), so that this file stays below hct_thin.c. */
uint64_t hct_boundary_read(hct_thread *t, int enter, uint64_t not_before, int with_values) HCT_HIDDEN;
static inline uint64_t hct_boundary_values(hct_thread *t, int enter, uint64_t not_before)
{
    return hct_boundary_read(t, enter, not_before, 1);
}
/* The same after the enters kept back were written (something nests in them). */
static inline uint64_t hct_boundary(hct_thread *t, int enter, uint64_t not_before)
{
    hct_thin_flush(t);
    return hct_boundary_values(t, enter, not_before);
}
static inline uint64_t hct_boundary_ts(hct_thread *t, int enter)
{
    hct_thin_flush(t); /* an enter kept back: something nests in it */
    return t->extras ? hct_boundary_values(t, enter, 0) : hct_timestamp(t);
}
/* A boundary with its time and tool time but no counter values (an MPI call
 * after a short burst, or before one predicted short: hct_mpi_burst.h);
 * t->extras. */
static inline uint64_t hct_boundary_bare(hct_thread *t, int enter)
{
    hct_thin_flush(t);
    return hct_boundary_read(t, enter, 0, 0);
}
/* The end of recording: every thread's sampling stopped; t's last samples and
 * sampling statistics written (`self`: called by t itself); resources released. */
void hct_extras_disarm_all(void) HCT_HIDDEN;
void hct_extras_finish(hct_thread *t, int self) HCT_HIDDEN;
void hct_extras_close(hct_thread *t) HCT_HIDDEN;
int hct_extras_wanted(void) HCT_HIDDEN; /* counters or sampling configured */

#endif
