/* hct_mpi_quiet.h: the tracer's own waits for other ranks, asleep
 * (hct_mpi_quiet.c). At MPI_Init and MPI_Finalize the ranks reach the
 * tracer's collectives at different times (one still naming its call sites,
 * another writing the global definitions); a blocking PMPI call polls
 * meanwhile, and Open MPI, oversubscribed, polls with sched_yield: on 8 ranks
 * sharing 2 cores the waiting ranks took the CPU from the ones still working
 * (docs/benchmarks.md, "The start and the end of a rank"). These waits test
 * the request, then sleep between tests, longer and longer up to
 * HCT_QUIET_MAX_NS. */
#ifndef HCT_MPI_QUIET_H
#define HCT_MPI_QUIET_H

#include <mpi.h>

#include "hct.h"

#define HCT_QUIET_MIN_NS 10000L    /* the first sleep: 10 us */
#define HCT_QUIET_MAX_NS 1000000L  /* the longest: 1 ms, a wakeup costs a few us */
#define HCT_QUIET_SPINS 4          /* tests before the first sleep */

/* Waits for the request: PMPI_Test, HCT_QUIET_SPINS times at once, then
 * with a sleep between tests from HCT_QUIET_MIN_NS doubling to
 * HCT_QUIET_MAX_NS; MPI's code. */
int hct_quiet_wait(MPI_Request *req) HCT_HIDDEN;

/* A barrier over comm whose waiting ranks sleep (PMPI_Ibarrier). */
int hct_quiet_barrier(MPI_Comm comm) HCT_HIDDEN;

#endif
