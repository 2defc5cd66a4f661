/* hct_omp_arrivals.h: when the threads of an OpenMP team arrived at its
 * barriers, for hct_omp_sync.c (hct_omp_arrivals.c): a slot per thread of the
 * team, each on its own cache line and written only by its thread (no shared
 * write per arrival: a compare-and-swap of every thread on one line was most
 * of LULESH's tracer time at 2 threads, docs/benchmarks.md "Two OpenMP
 * threads"), read by a thread that leaves the barrier when it needs the
 * team's latest arrival. Each slot holds, by the parity of the barrier, the
 * thread's arrival and its arrival less its own tool time since its last
 * barrier. A barrier's readers read the slots of its parity while every
 * thread has arrived at it and none can have arrived at the next one of the
 * same parity: the slots hold that barrier's arrivals (or, for a thread the
 * tracer does not follow in this team, times from before the team's fork,
 * smaller than all of them). Threads numbered HCT_OMP_ARRIVAL_SLOTS and up
 * share one slot of running maxima (compare-and-swap). */
#ifndef HCT_OMP_ARRIVALS_H
#define HCT_OMP_ARRIVALS_H

#include <stdatomic.h>
#include <stdint.h>

#ifndef HCT_HIDDEN
#define HCT_HIDDEN __attribute__((visibility("hidden")))
#endif

#define HCT_OMP_ARRIVAL_SLOTS 8 /* threads with a slot of their own */

/* One cache line. */
typedef struct {
    _Alignas(64) _Atomic uint64_t arrived[2]; /* by parity of the barrier */
    _Atomic uint64_t untraced[2];             /* the arrival less the thread's tool time since its last barrier */
} hct_omp_arrival;

/* A team's: own[] belongs to a team's master (reused by its teams of a
 * level, never zeroed again: times only grow); shared to one team (zeroed at
 * its fork). own NULL: every thread uses shared. */
typedef struct {
    hct_omp_arrival *own; /* [HCT_OMP_ARRIVAL_SLOTS] */
    hct_omp_arrival shared;
} hct_omp_arrivals;

/* At the fork: own is a master's slots (zero-initialized once), or NULL. */
void hct_omp_arrivals_init(hct_omp_arrivals *a, hct_omp_arrival *own) HCT_HIDDEN;
/* Thread number `num` of the team arrives at a barrier of parity `parity`
 * (0 or 1) at `arrived`; `untraced`: arrived less its tool time since its last
 * barrier. */
void hct_omp_arrivals_put(hct_omp_arrivals *a, uint32_t num, int parity, uint64_t arrived,
                          uint64_t untraced) HCT_HIDDEN;
/* The team's latest arrival and latest untraced arrival at the barrier of
 * `parity` that every thread of the team (team_size threads) has arrived at. */
void hct_omp_arrivals_latest(const hct_omp_arrivals *a, uint32_t team_size, int parity, uint64_t *arrived,
                             uint64_t *untraced) HCT_HIDDEN;

#endif
