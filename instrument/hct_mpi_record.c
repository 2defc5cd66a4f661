/* hct_mpi_record.c: OTF2 records of MPI operations shared by the C and Fortran
 * wrappers (see hct_mpi_record.h). */
#include "hct_mpi_record.h"
#include "hct_rescue.h"

#include <stdlib.h>
#include <string.h>

void hct_rec_recv(hct_call *c, int source, MPI_Comm comm, int tag, uint64_t bytes, const MPI_Status *status)
{
    if (status && status != MPI_STATUS_IGNORE) {
        int count = 0;
        source = status->MPI_SOURCE;
        tag = status->MPI_TAG;
        if (PMPI_Get_count(status, MPI_BYTE, &count) == MPI_SUCCESS && count != MPI_UNDEFINED)
            bytes = (uint64_t)count;
    }
    uint32_t id = hct_comm_id(comm);
    if (source < 0 || tag < 0 || id == HCA_UNDEF)
        return; /* MPI_PROC_NULL, or MPI_ANY_SOURCE without a status */
    hct_otf2_check(c->t, OTF2_EvtWriter_MpiRecv(c->t->writer, NULL, hct_rec_ts(c), (uint32_t)source, id,
                                                (uint32_t)tag, bytes));
}

void hct_rec_isend(hct_call *c, int dest, MPI_Comm comm, int tag, uint64_t bytes, MPI_Request req)
{
    if (dest < 0)
        return; /* MPI_PROC_NULL */
    hct_request r = { .handle = req, .comm = hct_comm_id(comm), .kind = HCT_REQ_SEND, .peer = dest, .tag = tag,
                      .bytes_sent = bytes };
    if (r.comm == HCA_UNDEF)
        return;
    r.id = hct_request_new_id();
    hct_otf2_check(c->t, OTF2_EvtWriter_MpiIsend(c->t->writer, NULL, hct_rec_ts(c), (uint32_t)dest, r.comm,
                                                 (uint32_t)tag, bytes, r.id));
    hct_request_add(&r);
}

void hct_rec_irecv(hct_call *c, int source, MPI_Comm comm, int tag, uint64_t bytes, MPI_Request req)
{
    if (source == MPI_PROC_NULL)
        return;
    hct_request r = { .handle = req, .comm = hct_comm_id(comm), .kind = HCT_REQ_RECV, .peer = source, .tag = tag,
                      .bytes_recv = bytes };
    if (r.comm == HCA_UNDEF)
        return;
    r.id = hct_request_new_id();
    hct_otf2_check(c->t, OTF2_EvtWriter_MpiIrecvRequest(c->t->writer, NULL, hct_rec_ts(c), r.id));
    hct_request_add(&r);
}

void hct_rec_persistent(int kind, int peer, MPI_Comm comm, int tag, uint64_t bytes, MPI_Request req)
{
    hct_request r = { .handle = req, .comm = hct_comm_id(comm), .kind = kind, .peer = peer, .tag = tag };
    if (kind == HCT_REQ_PSEND)
        r.bytes_sent = bytes;
    else
        r.bytes_recv = bytes;
    if (peer != MPI_PROC_NULL && r.comm != HCA_UNDEF)
        hct_request_add(&r);
}

void hct_rec_start(hct_call *c, MPI_Request req)
{
    hct_request r;
    if (!hct_request_find(req, &r))
        return;
    uint64_t id = hct_request_new_id();
    hct_request_set_active(req, 1, id);
    if (r.kind == HCT_REQ_PSEND)
        hct_otf2_check(c->t, OTF2_EvtWriter_MpiIsend(c->t->writer, NULL, hct_rec_ts_before(c), (uint32_t)r.peer, r.comm,
                                                     (uint32_t)r.tag, r.bytes_sent, id));
    else if (r.kind == HCT_REQ_PRECV)
        hct_otf2_check(c->t, OTF2_EvtWriter_MpiIrecvRequest(c->t->writer, NULL, hct_rec_ts_before(c), id));
}

static uint32_t otf2_root(int root)
{
    if (root == MPI_ROOT)
        return OTF2_COLLECTIVE_ROOT_SELF;
    if (root == MPI_PROC_NULL)
        return OTF2_COLLECTIVE_ROOT_THIS_GROUP;
    return root < 0 ? OTF2_COLLECTIVE_ROOT_NONE : (uint32_t)root;
}

void hct_rec_coll_end(hct_call *c, OTF2_CollectiveOp op, MPI_Comm comm, int root, uint64_t sent, uint64_t received)
{
    uint32_t id = hct_comm_id(comm);
    if (id == HCA_UNDEF)
        id = HCT_COMM_SELF; /* intercommunicators are not described; keep Begin/End paired */
    hct_otf2_check(c->t, OTF2_EvtWriter_MpiCollectiveEnd(c->t->writer, NULL, hct_rec_ts(c), op, id, otf2_root(root),
                                                         sent, received));
}

void hct_rec_icoll(hct_call *c, OTF2_CollectiveOp op, MPI_Comm comm, int root, uint64_t sent, uint64_t received,
                   MPI_Request req)
{
    hct_request r = { .handle = req, .id = hct_request_new_id(), .comm = hct_comm_id(comm), .kind = HCT_REQ_COLL,
                      .root = (int)otf2_root(root), .bytes_sent = sent, .bytes_recv = received, .coll_op = op };
    if (r.comm == HCA_UNDEF)
        return;
    hct_otf2_check(c->t, OTF2_EvtWriter_NonBlockingCollectiveRequest(c->t->writer, NULL, hct_rec_ts(c), r.id));
    hct_request_add(&r);
}

/* Per-thread work space for n saved requests and statuses (plus `extra` bytes
 * per request after them, see hct_reqs_extra), grown only when a call has more
 * requests than any before it on this thread. */
static int reserve(hct_thread *t, int n, size_t extra)
{
    size_t need = (size_t)n * (sizeof(hct_request) + sizeof(MPI_Status) + extra);
    if (need <= t->scratch_size)
        return 0;
    size_t size = t->scratch_size ? t->scratch_size : 64 * (sizeof(hct_request) + sizeof(MPI_Status));
    while (size < need)
        size *= 2;
    void *p = realloc(t->scratch, size);
    if (!p)
        return -1;
    t->scratch = p;
    t->scratch_size = size;
    return 0;
}

MPI_Status *hct_reqs_save(hct_call *c, hct_reqs *rs, int n, const MPI_Request *reqs, MPI_Status *statuses)
{
    rs->n = 0;
    if (n <= 0 || reserve(c->t, n, 0) != 0)
        return statuses;
    rs->n = n;
    rs->saved = c->t->scratch;
    rs->statuses = (MPI_Status *)(rs->saved + n);
    int need_status = 0;
    for (int i = 0; i < n; i++) {
        if (!hct_request_take(reqs[i], &rs->saved[i]))
            rs->saved[i].handle = NULL;
        else if (rs->saved[i].kind == HCT_REQ_RECV || rs->saved[i].kind == HCT_REQ_PRECV)
            need_status = 1;
    }
    if (statuses == MPI_STATUSES_IGNORE && need_status)
        return rs->statuses;
    if (statuses != MPI_STATUSES_IGNORE)
        rs->statuses = statuses;
    return statuses;
}

void *hct_reqs_extra(hct_call *c, int n, size_t per_request)
{
    if (n <= 0 || reserve(c->t, n, per_request) != 0)
        return NULL;
    return (char *)c->t->scratch + (size_t)n * (sizeof(hct_request) + sizeof(MPI_Status));
}

static int is_persistent(const hct_request *r)
{
    return r->kind == HCT_REQ_PSEND || r->kind == HCT_REQ_PRECV;
}

void hct_reqs_done_one(hct_call *c, hct_reqs *rs, int i, const MPI_Status *status)
{
    if (i < 0 || i >= rs->n || rs->saved[i].handle == NULL)
        return;
    hct_request *r = &rs->saved[i];
    /* an inactive persistent request completes at once, with nothing to record */
    if (!is_persistent(r) || r->active)
        hct_request_complete(c->t, hct_rec_ts(c), r, status);
    if (is_persistent(r)) {
        r->active = 0;
        hct_request_add(r);
    }
    r->handle = NULL;
}

void hct_reqs_finish(hct_reqs *rs)
{
    for (int i = 0; i < rs->n; i++)
        if (rs->saved[i].handle != NULL)
            hct_request_add(&rs->saved[i]);
    rs->n = 0;
}

void hct_rec_init(int rc, uint64_t t_begin, enum hct_mpi_key key, const void *ra)
{
    if (rc != MPI_SUCCESS || !hct_mpi_start())
        return;
    hct_thread *t = hct_thread_get();
    if (!t)
        return;
    t->in_tool++;
    uintptr_t frames[HCT_PATH_FRAMES];
    /* unwound (no anchor); the thread's cache of MPI call paths allocated */
    int n = hct.cfg.callsites ? hct_mpi_path(t, ra, NULL, frames) : 0;
    uint32_t unwind = 0, cc = hct_path_enter(&t->path, (uint32_t)key, frames, n, &unwind);
    if (cc == HCA_UNDEF) {
        hct_tool_exit(t);
        return;
    }
    if (t_begin > t->last_ts)
        t->last_ts = t_begin;
    /* the enter predates the counters (they start in MPI_Init); the leave has them */
    hct_otf2_check(t, OTF2_EvtWriter_CallingContextEnter(t->writer, NULL, t->last_ts, cc, unwind));
    uint64_t ts = hct_boundary_ts(t, 0);
    hct_otf2_check(t, OTF2_EvtWriter_CallingContextLeave(t->writer, NULL, ts, cc));
    hct_path_leave(&t->path);
    hct_tool_exit(t);
}

uint64_t hct_sum_bytes(MPI_Datatype type, const int *counts, int n)
{
    uint64_t total = 0;
    for (int i = 0; counts && i < n; i++)
        total += hct_type_bytes(type, counts[i]);
    return total;
}

int hct_comm_size(MPI_Comm comm)
{
    int size = 0;
    PMPI_Comm_size(comm, &size);
    return size;
}

int hct_comm_rank(MPI_Comm comm)
{
    int rank = 0;
    PMPI_Comm_rank(comm, &rank);
    return rank;
}
