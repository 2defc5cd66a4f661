/* hct_mpi.h: what the MPI wrappers (C and Fortran) share: region keys of the
 * intercepted functions, the communicator and request tables, and inline
 * helpers that record the OTF2 events of one call. */
#ifndef HCT_MPI_H
#define HCT_MPI_H

#include <mpi.h>

#include "hct.h"
#include "hct_mpi_functions.h"

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
 * thread does not trace or is already inside an MPI wrapper. */
static inline int hct_call_enter(hct_call *c, enum hct_mpi_key key, const void *return_address)
{
    hct_thread *t = hct_thread_get();
    if (!t || t->mpi_depth)
        return 0;
    uint32_t cc = hct_callsite_cc((uint32_t)key, return_address);
    if (cc == HCA_UNDEF) {
        t->dropped_events++;
        return 0;
    }
    t->in_tool++;
    t->mpi_depth = 1;
    c->t = t;
    c->cc = cc;
    c->ts = hct_boundary_ts(t, 1); /* pending samples, then counter values */
    c->after = 0;
    hct_otf2_check(t, OTF2_EvtWriter_CallingContextEnter(t->writer, NULL, c->ts, cc, 2));
    t->in_tool--;
    return 1;
}

static inline void hct_call_leave(hct_call *c)
{
    hct_thread *t = c->t;
    t->in_tool++;
    /* without counters, the leave follows the last record after the call at
     * once: same time; with them, its own time, read with its counter values */
    uint64_t ts = t->extras ? hct_boundary(t, 0, 0) : c->after ? c->ts : hct_timestamp(t);
    hct_otf2_check(t, OTF2_EvtWriter_CallingContextLeave(t->writer, NULL, ts, c->cc));
    t->mpi_depth = 0;
    t->in_tool--;
}

/* ---- communicators (hct_mpi_comm.c); WORLD and SELF are the registry's first IDs ---- */
#define HCT_COMM_WORLD 0u
#define HCT_COMM_SELF 1u
void hct_comm_init(void) HCT_HIDDEN;
/* Local ID of a communicator; unknown ones are registered on the fly. */
uint32_t hct_comm_id(MPI_Comm comm) HCT_HIDDEN;
/* After a successful creation call (collective over newcomm's members). */
void hct_comm_created(MPI_Comm parent, MPI_Comm newcomm, const char *how) HCT_HIDDEN;
void hct_comm_freed(MPI_Comm comm) HCT_HIDDEN;

/* ---- requests (hct_mpi_request.c) ---- */
enum hct_req_kind { HCT_REQ_SEND = 1, HCT_REQ_RECV, HCT_REQ_COLL, HCT_REQ_PSEND, HCT_REQ_PRECV };
typedef struct {
    MPI_Request handle;
    uint64_t id;
    uint32_t comm;
    int kind, peer, tag, root;
    uint64_t bytes_sent, bytes_recv;
    int coll_op;
    int active; /* persistent requests: started and not completed */
    uint64_t seq; /* insertion order, for handles shared by several requests */
} hct_request;

uint64_t hct_request_new_id(void) HCT_HIDDEN;
void hct_request_add(const hct_request *r) HCT_HIDDEN;
/* Copies the oldest entry of handle into out; returns 0 if not tracked. */
int hct_request_find(MPI_Request handle, hct_request *out) HCT_HIDDEN;
/* Like find, and removes the entry from the table. */
int hct_request_take(MPI_Request handle, hct_request *out) HCT_HIDDEN;
void hct_request_remove(MPI_Request handle) HCT_HIDDEN; /* all entries of handle */
uint64_t hct_request_untracked(void) HCT_HIDDEN;
void hct_request_set_active(MPI_Request handle, int active, uint64_t id) HCT_HIDDEN;

/* Records completion of a tracked request (entry taken before the call) with
 * the status the completion produced. */
void hct_request_complete(hct_thread *t, uint64_t ts, const hct_request *r, const MPI_Status *status) HCT_HIDDEN;

/* ---- environment (hct_mpi_env.c) ---- */
extern MPI_Comm hct_private_comm HCT_HIDDEN;

static inline uint64_t hct_type_bytes(MPI_Datatype type, int count)
{
    int size = 0;
    if (count <= 0 || type == MPI_DATATYPE_NULL || PMPI_Type_size(type, &size) != MPI_SUCCESS || size < 0)
        return 0;
    return (uint64_t)size * (uint64_t)count;
}

#endif
