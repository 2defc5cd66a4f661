/* hct_mpi_record.h: the OTF2 records of MPI operations, shared by the C and the
 * Fortran wrappers: messages, non-blocking requests and their completion,
 * collectives. Each helper takes an entered call (hct_call_enter). */
#ifndef HCT_MPI_RECORD_H
#define HCT_MPI_RECORD_H

#include "hct_mpi.h"
#include "hct_sampling.h"

#define HCT_RA __builtin_return_address(0)

/* The frame of every wrapper (C and Fortran): ENTER at the top, LEAVE before
 * returning; traced_ says whether this call is recorded. The wrapper's frame
 * is the anchor of its call path's cache (hct_mpi_path.h). */
#define ENTER(name) \
    hct_call c_;    \
    int traced_ = hct_call_enter(&c_, HCT_MPI_##name, HCT_RA, HCT_PATH_ANCHOR())
#define LEAVE()                  \
    do {                         \
        if (traced_)             \
            hct_call_leave(&c_); \
    } while (0)

/* Time of a record written after the PMPI call: read once, then shared by
 * the following records and the leave (saves a clock read per record). */
static inline uint64_t hct_rec_ts(hct_call *c)
{
    if (!c->after) {
        if (c->t->extras) /* samples taken inside PMPI are older: they go first */
            hct_sampling_drain(c->t); /* a section of the tracer of its own (hct_sampling.h) */
        c->ts = hct_timestamp(c->t);
        c->after = 1;
    }
    return c->ts;
}

/* Time of a record written before the PMPI call: the enter's. */
static inline uint64_t hct_rec_ts_before(const hct_call *c)
{
    return c->ts;
}

static inline void hct_rec_send(hct_call *c, int dest, MPI_Comm comm, int tag, uint64_t bytes)
{
    uint32_t id = hct_comm_id(comm);
    if (dest < 0 || id == HCA_UNDEF)
        return;
    hct_otf2_check(c->t, OTF2_EvtWriter_MpiSend(c->t->writer, NULL, hct_rec_ts_before(c), (uint32_t)dest, id,
                                                (uint32_t)tag, bytes));
}

/* After a blocking receive: source and size from the status when available. */
void hct_rec_recv(hct_call *c, int source, MPI_Comm comm, int tag, uint64_t bytes, const MPI_Status *status) HCT_HIDDEN;

/* After a successful Isend/Irecv (and persistent *_init): remember the request. */
void hct_rec_isend(hct_call *c, int dest, MPI_Comm comm, int tag, uint64_t bytes, MPI_Request req) HCT_HIDDEN;
void hct_rec_irecv(hct_call *c, int source, MPI_Comm comm, int tag, uint64_t bytes, MPI_Request req) HCT_HIDDEN;
void hct_rec_persistent(int kind, int peer, MPI_Comm comm, int tag, uint64_t bytes, MPI_Request req) HCT_HIDDEN;
void hct_rec_start(hct_call *c, MPI_Request req) HCT_HIDDEN;

static inline void hct_rec_coll_begin(hct_call *c)
{
    hct_otf2_check(c->t, OTF2_EvtWriter_MpiCollectiveBegin(c->t->writer, NULL, hct_rec_ts_before(c)));
}

/* root: rank in comm, or -1 for none. */
void hct_rec_coll_end(hct_call *c, OTF2_CollectiveOp op, MPI_Comm comm, int root, uint64_t sent,
                      uint64_t received) HCT_HIDDEN;
void hct_rec_icoll(hct_call *c, OTF2_CollectiveOp op, MPI_Comm comm, int root, uint64_t sent, uint64_t received,
                   MPI_Request req) HCT_HIDDEN;

/* Completion of request arrays (wait/test families): before the PMPI call,
 * hct_reqs_save takes the tracked entries of reqs[0..n) out of the table into
 * per-thread space and returns the status array to pass to PMPI (a private one
 * when `statuses` was ignored but receives need theirs); after it,
 * hct_reqs_done_one records the completion of entry i, and hct_reqs_finish puts
 * back what did not complete (and persistent requests, now inactive). */
typedef struct {
    hct_request *saved; /* n entries; id 0 = untracked */
    MPI_Status *statuses;
    int n;
} hct_reqs;

MPI_Status *hct_reqs_save(hct_call *c, hct_reqs *rs, int n, const MPI_Request *reqs, MPI_Status *statuses) HCT_HIDDEN;
void hct_reqs_done_one(hct_call *c, hct_reqs *rs, int i, const MPI_Status *status) HCT_HIDDEN;
void hct_reqs_finish(hct_reqs *rs) HCT_HIDDEN;
/* Per-thread space of per_request bytes for each of n requests (8-byte
 * aligned), apart from what hct_reqs_save(c, rs, n, ...) uses with the same n:
 * valid from before that save until the next call that reserves space. The
 * Fortran wrappers keep their converted handles and statuses there. NULL if
 * n <= 0 or on allocation failure. */
void *hct_reqs_extra(hct_call *c, int n, size_t per_request) HCT_HIDDEN;

/* After PMPI_Init[_thread] returned rc: starts MPI tracing and records the
 * Init region (key) of call site ra, begun at t_begin (before tracing began). */
void hct_rec_init(int rc, uint64_t t_begin, enum hct_mpi_key key, const void *ra) HCT_HIDDEN;

/* Bytes helpers of collectives with count arrays. */
uint64_t hct_sum_bytes(MPI_Datatype type, const int *counts, int n) HCT_HIDDEN;
int hct_comm_size(MPI_Comm comm) HCT_HIDDEN;
int hct_comm_rank(MPI_Comm comm) HCT_HIDDEN;

#endif
