/* hct_mpi.h: what the MPI wrappers (C and Fortran) share: region keys of the
 * intercepted functions and inline helpers that record the OTF2 events of one
 * call; it includes the headers of the communicator and request tables
 * (hct_mpi_comm.h, hct_mpi_request.h) and of the MPI lifecycle (hct_mpi_env.h). */
#ifndef HCT_MPI_H
#define HCT_MPI_H

#include <mpi.h>

#include "hct.h"
#include "hct_boundary.h"
#include "hct_diag.h"
#include "hct_locations.h"
#include "hct_mpi_burst.h"
#include "hct_mpi_comm.h"
#include "hct_mpi_env.h"
#include "hct_mpi_functions.h"
#include "hct_mpi_path.h"
#include "hct_mpi_request.h"
#include "hct_rescue.h"

enum hct_mpi_key {
#define HCT_KEY(name, role) HCT_MPI_##name,
    HCT_MPI_FUNCTIONS(HCT_KEY)
#undef HCT_KEY
    HCT_MPI_NFUNCTIONS
};

/* ---- calls ---- */
typedef struct {
    hct_thread *t;
    uint32_t cc;
    uint64_t ts;  /* time of the last record; records share it where they are simultaneous */
    int after;    /* a record was written after the PMPI call */
} hct_call;

/* Starts recording an MPI call: returns 0 (and records nothing) when this
 * thread does not trace or is already inside an MPI wrapper. anchor: the
 * wrapper's HCT_PATH_ANCHOR() (its call path from the thread's cache when
 * provably the same: hct_mpi_path.h). */
static inline int hct_call_enter(hct_call *c, enum hct_mpi_key key, const void *return_address,
                                 const void *anchor)
{
    hct_thread *t = hct_thread_get();
    if (!t || t->mpi_depth)
        return 0;
    t->in_tool++;
    uintptr_t frames[HCT_PATH_FRAMES];
    int n = hct.cfg.callsites ? hct_mpi_path(t, return_address, anchor, frames) : 0;
    /* pending samples, then counter values (none after a short burst) */
    uint64_t ts = hct_mpi_burst_short(t) ? hct_boundary_bare(t, 1) : hct_boundary_ts(t, 1);
    uint32_t unwind = 0, cc = hct_mpi_path_enter(t, return_address, (uint32_t)key, frames, n, &unwind);
    if (cc == HCA_UNDEF) {
        t->dropped_events++;
        hct_tool_exit(t);
        return 0;
    }
    t->mpi_depth = 1;
    hct_mpi_call_entered(t);
    c->t = t;
    c->cc = cc;
    c->ts = ts;
    c->after = 0;
    hct_otf2_check(t, OTF2_EvtWriter_CallingContextEnter(t->writer, NULL, c->ts, cc, unwind));
    hct_tool_exit(t);
    return 1;
}

static inline void hct_call_leave(hct_call *c)
{
    hct_thread *t = c->t;
    t->in_tool++;
    /* without counters, the leave follows the last record after the call at
     * once: same time; with them, its own time, read with its counter values
     * (none before a burst predicted short: hct_mpi_burst.h) */
    uint64_t ts = !t->extras                      ? (c->after ? c->ts : hct_timestamp(t))
                  : hct_mpi_leave_bare(t, c->cc) ? hct_boundary_bare(t, 0)
                                                 : hct_boundary(t, 0, 0);
    hct_otf2_check(t, OTF2_EvtWriter_CallingContextLeave(t->writer, NULL, ts, c->cc));
    hct_path_leave(&t->path);
    t->mpi_depth = 0;
    hct_mpi_burst_begin(t, c->cc);
    hct_tool_exit(t);
}

/* Bytes of `count` elements of `type` (0 when unknown). */
static inline uint64_t hct_type_bytes(MPI_Datatype type, int count)
{
    int size = 0;
    if (count <= 0 || type == MPI_DATATYPE_NULL || PMPI_Type_size(type, &size) != MPI_SUCCESS || size < 0)
        return 0;
    return (uint64_t)size * (uint64_t)count;
}

#endif
