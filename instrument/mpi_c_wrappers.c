/* mpi_c_wrappers.c: the C MPI functions libhcatrace.so intercepts (PMPI). Each
 * wrapper records the call as a calling-context region keyed by its call site,
 * plus the MPI records of the operation, around the PMPI call; with tracing off
 * it is a plain forward. The list is in hct_mpi_functions.h and docs/mpi-calls.md. */
#include "hct_mpi_record.h"


/* ---- environment ---------------------------------------------------------- */

int MPI_Init(int *argc, char ***argv)
{
    uint64_t t = hca_clock_now();
    int rc = PMPI_Init(argc, argv);
    hct_rec_init(rc, t, HCT_MPI_Init, HCT_RA);
    return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    uint64_t t = hca_clock_now();
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    hct_rec_init(rc, t, HCT_MPI_Init_thread, HCT_RA);
    return rc;
}

int MPI_Abort(MPI_Comm comm, int errorcode)
{
    hct_mpi_abort(); /* the runtime ends this process and kills the others */
    return PMPI_Abort(comm, errorcode);
}

int MPI_Finalize(void)
{
    ENTER(Finalize);
    LEAVE();
    hct_mpi_finish();
    return PMPI_Finalize();
}

/* ---- blocking point-to-point --------------------------------------------- */

#define SEND_WRAPPER(name)                                                                        \
    int MPI_##name(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) \
    {                                                                                             \
        ENTER(name);                                                                              \
        if (traced_)                                                                              \
            hct_rec_send(&c_, dest, comm, tag, hct_type_bytes(type, count));                      \
        int rc = PMPI_##name(buf, count, type, dest, tag, comm);                                  \
        LEAVE();                                                                                  \
        return rc;                                                                                \
    }
SEND_WRAPPER(Send)
SEND_WRAPPER(Ssend)
SEND_WRAPPER(Bsend)
SEND_WRAPPER(Rsend)

int MPI_Recv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    ENTER(Recv);
    MPI_Status own = { 0 };
    if (traced_ && status == MPI_STATUS_IGNORE)
        status = &own;
    int rc = PMPI_Recv(buf, count, type, source, tag, comm, status);
    if (traced_ && rc == MPI_SUCCESS)
        hct_rec_recv(&c_, source, comm, tag, hct_type_bytes(type, count), status);
    LEAVE();
    return rc;
}

int MPI_Sendrecv(const void *sbuf, int scount, MPI_Datatype stype, int dest, int stag, void *rbuf, int rcount,
                 MPI_Datatype rtype, int source, int rtag, MPI_Comm comm, MPI_Status *status)
{
    ENTER(Sendrecv);
    MPI_Status own = { 0 };
    if (traced_) {
        hct_rec_send(&c_, dest, comm, stag, hct_type_bytes(stype, scount));
        if (status == MPI_STATUS_IGNORE)
            status = &own;
    }
    int rc = PMPI_Sendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag, comm, status);
    if (traced_ && rc == MPI_SUCCESS)
        hct_rec_recv(&c_, source, comm, rtag, hct_type_bytes(rtype, rcount), status);
    LEAVE();
    return rc;
}

int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype type, int dest, int stag, int source, int rtag,
                         MPI_Comm comm, MPI_Status *status)
{
    ENTER(Sendrecv_replace);
    MPI_Status own = { 0 };
    if (traced_) {
        hct_rec_send(&c_, dest, comm, stag, hct_type_bytes(type, count));
        if (status == MPI_STATUS_IGNORE)
            status = &own;
    }
    int rc = PMPI_Sendrecv_replace(buf, count, type, dest, stag, source, rtag, comm, status);
    if (traced_ && rc == MPI_SUCCESS)
        hct_rec_recv(&c_, source, comm, rtag, hct_type_bytes(type, count), status);
    LEAVE();
    return rc;
}

int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    ENTER(Probe);
    int rc = PMPI_Probe(source, tag, comm, status);
    LEAVE();
    return rc;
}

int MPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
    ENTER(Iprobe);
    int rc = PMPI_Iprobe(source, tag, comm, flag, status);
    LEAVE();
    return rc;
}

/* ---- non-blocking point-to-point ----------------------------------------- */

#define ISEND_WRAPPER(name)                                                                      \
    int MPI_##name(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, \
                   MPI_Request *req)                                                             \
    {                                                                                            \
        ENTER(name);                                                                             \
        int rc = PMPI_##name(buf, count, type, dest, tag, comm, req);                            \
        if (traced_ && rc == MPI_SUCCESS)                                                        \
            hct_rec_isend(&c_, dest, comm, tag, hct_type_bytes(type, count), *req);              \
        LEAVE();                                                                                 \
        return rc;                                                                               \
    }
ISEND_WRAPPER(Isend)
ISEND_WRAPPER(Issend)
ISEND_WRAPPER(Ibsend)
ISEND_WRAPPER(Irsend)

int MPI_Irecv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Request *req)
{
    ENTER(Irecv);
    int rc = PMPI_Irecv(buf, count, type, source, tag, comm, req);
    if (traced_ && rc == MPI_SUCCESS)
        hct_rec_irecv(&c_, source, comm, tag, hct_type_bytes(type, count), *req);
    LEAVE();
    return rc;
}

int MPI_Send_init(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request *req)
{
    ENTER(Send_init);
    int rc = PMPI_Send_init(buf, count, type, dest, tag, comm, req);
    if (traced_ && rc == MPI_SUCCESS)
        hct_rec_persistent(HCT_REQ_PSEND, dest, comm, tag, hct_type_bytes(type, count), *req);
    LEAVE();
    return rc;
}

int MPI_Recv_init(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Request *req)
{
    ENTER(Recv_init);
    int rc = PMPI_Recv_init(buf, count, type, source, tag, comm, req);
    if (traced_ && rc == MPI_SUCCESS)
        hct_rec_persistent(HCT_REQ_PRECV, source, comm, tag, hct_type_bytes(type, count), *req);
    LEAVE();
    return rc;
}

int MPI_Start(MPI_Request *req)
{
    ENTER(Start);
    if (traced_)
        hct_rec_start(&c_, *req);
    int rc = PMPI_Start(req);
    LEAVE();
    return rc;
}

int MPI_Startall(int n, MPI_Request reqs[])
{
    ENTER(Startall);
    for (int i = 0; traced_ && i < n; i++)
        hct_rec_start(&c_, reqs[i]);
    int rc = PMPI_Startall(n, reqs);
    LEAVE();
    return rc;
}

int MPI_Request_free(MPI_Request *req)
{
    ENTER(Request_free);
    MPI_Request handle = *req;
    int rc = PMPI_Request_free(req);
    if (traced_)
        hct_request_remove(handle);
    LEAVE();
    return rc;
}

/* ---- completion ----------------------------------------------------------- */

int MPI_Wait(MPI_Request *req, MPI_Status *status)
{
    ENTER(Wait);
    if (!traced_)
        return PMPI_Wait(req, status);
    hct_reqs rs;
    MPI_Status *st = hct_reqs_save(&c_, &rs, 1, req, status);
    int rc = PMPI_Wait(req, st);
    if (rc == MPI_SUCCESS)
        hct_reqs_done_one(&c_, &rs, 0, st == MPI_STATUS_IGNORE ? NULL : st);
    hct_reqs_finish(&rs);
    LEAVE();
    return rc;
}

int MPI_Waitall(int n, MPI_Request reqs[], MPI_Status statuses[])
{
    ENTER(Waitall);
    if (!traced_)
        return PMPI_Waitall(n, reqs, statuses);
    hct_reqs rs;
    MPI_Status *st = hct_reqs_save(&c_, &rs, n, reqs, statuses);
    int rc = PMPI_Waitall(n, reqs, st);
    if (rc == MPI_SUCCESS)
        for (int i = 0; i < n; i++)
            hct_reqs_done_one(&c_, &rs, i, st == MPI_STATUSES_IGNORE ? NULL : &st[i]);
    hct_reqs_finish(&rs);
    LEAVE();
    return rc;
}

int MPI_Waitany(int n, MPI_Request reqs[], int *index, MPI_Status *status)
{
    ENTER(Waitany);
    if (!traced_)
        return PMPI_Waitany(n, reqs, index, status);
    hct_reqs rs;
    MPI_Status own = { 0 };
    hct_reqs_save(&c_, &rs, n, reqs, MPI_STATUSES_IGNORE);
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
    int rc = PMPI_Waitany(n, reqs, index, st);
    if (rc == MPI_SUCCESS && *index != MPI_UNDEFINED)
        hct_reqs_done_one(&c_, &rs, *index, st);
    hct_reqs_finish(&rs);
    LEAVE();
    return rc;
}

int MPI_Waitsome(int n, MPI_Request reqs[], int *outcount, int indices[], MPI_Status statuses[])
{
    ENTER(Waitsome);
    if (!traced_)
        return PMPI_Waitsome(n, reqs, outcount, indices, statuses);
    hct_reqs rs;
    MPI_Status *st = hct_reqs_save(&c_, &rs, n, reqs, statuses);
    int rc = PMPI_Waitsome(n, reqs, outcount, indices, st);
    if (rc == MPI_SUCCESS && *outcount != MPI_UNDEFINED)
        for (int k = 0; k < *outcount; k++)
            hct_reqs_done_one(&c_, &rs, indices[k], st == MPI_STATUSES_IGNORE ? NULL : &st[k]);
    hct_reqs_finish(&rs);
    LEAVE();
    return rc;
}

int MPI_Test(MPI_Request *req, int *flag, MPI_Status *status)
{
    ENTER(Test);
    if (!traced_)
        return PMPI_Test(req, flag, status);
    hct_reqs rs;
    MPI_Status *st = hct_reqs_save(&c_, &rs, 1, req, status);
    int rc = PMPI_Test(req, flag, st);
    if (rc == MPI_SUCCESS && *flag)
        hct_reqs_done_one(&c_, &rs, 0, st == MPI_STATUS_IGNORE ? NULL : st);
    hct_reqs_finish(&rs);
    LEAVE();
    return rc;
}

int MPI_Testall(int n, MPI_Request reqs[], int *flag, MPI_Status statuses[])
{
    ENTER(Testall);
    if (!traced_)
        return PMPI_Testall(n, reqs, flag, statuses);
    hct_reqs rs;
    MPI_Status *st = hct_reqs_save(&c_, &rs, n, reqs, statuses);
    int rc = PMPI_Testall(n, reqs, flag, st);
    if (rc == MPI_SUCCESS && *flag)
        for (int i = 0; i < n; i++)
            hct_reqs_done_one(&c_, &rs, i, st == MPI_STATUSES_IGNORE ? NULL : &st[i]);
    hct_reqs_finish(&rs);
    LEAVE();
    return rc;
}

int MPI_Testany(int n, MPI_Request reqs[], int *index, int *flag, MPI_Status *status)
{
    ENTER(Testany);
    if (!traced_)
        return PMPI_Testany(n, reqs, index, flag, status);
    hct_reqs rs;
    MPI_Status own = { 0 };
    hct_reqs_save(&c_, &rs, n, reqs, MPI_STATUSES_IGNORE);
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
    int rc = PMPI_Testany(n, reqs, index, flag, st);
    if (rc == MPI_SUCCESS && *flag && *index != MPI_UNDEFINED)
        hct_reqs_done_one(&c_, &rs, *index, st);
    hct_reqs_finish(&rs);
    LEAVE();
    return rc;
}

int MPI_Testsome(int n, MPI_Request reqs[], int *outcount, int indices[], MPI_Status statuses[])
{
    ENTER(Testsome);
    if (!traced_)
        return PMPI_Testsome(n, reqs, outcount, indices, statuses);
    hct_reqs rs;
    MPI_Status *st = hct_reqs_save(&c_, &rs, n, reqs, statuses);
    int rc = PMPI_Testsome(n, reqs, outcount, indices, st);
    if (rc == MPI_SUCCESS && *outcount != MPI_UNDEFINED)
        for (int k = 0; k < *outcount; k++)
            hct_reqs_done_one(&c_, &rs, indices[k], st == MPI_STATUSES_IGNORE ? NULL : &st[k]);
    hct_reqs_finish(&rs);
    LEAVE();
    return rc;
}

/* ---- collectives ---------------------------------------------------------- */
/* Bytes are those of this rank's send and receive buffers (docs/trace-format.md). */

#define COLL(name, call, op, comm, root, sent, received)                \
    do {                                                               \
        if (traced_)                                                   \
            hct_rec_coll_begin(&c_);                                   \
        rc = call;                                                     \
        if (traced_)                                                   \
            hct_rec_coll_end(&c_, op, comm, root, sent, received);     \
    } while (0)

int MPI_Barrier(MPI_Comm comm)
{
    ENTER(Barrier);
    int rc;
    COLL(Barrier, PMPI_Barrier(comm), OTF2_COLLECTIVE_OP_BARRIER, comm, -1, 0, 0);
    LEAVE();
    return rc;
}

int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    ENTER(Bcast);
    int rc;
    uint64_t bytes = traced_ ? hct_type_bytes(type, count) : 0;
    int me = traced_ ? hct_comm_rank(comm) : 0;
    COLL(Bcast, PMPI_Bcast(buf, count, type, root, comm), OTF2_COLLECTIVE_OP_BCAST, comm, root,
         me == root ? bytes : 0, me == root ? 0 : bytes);
    LEAVE();
    return rc;
}

int MPI_Reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm)
{
    ENTER(Reduce);
    int rc;
    uint64_t bytes = traced_ ? hct_type_bytes(type, count) : 0;
    int me = traced_ ? hct_comm_rank(comm) : 0;
    COLL(Reduce, PMPI_Reduce(sbuf, rbuf, count, type, op, root, comm), OTF2_COLLECTIVE_OP_REDUCE, comm, root, bytes,
         me == root ? bytes : 0);
    LEAVE();
    return rc;
}

int MPI_Allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    ENTER(Allreduce);
    int rc;
    uint64_t bytes = traced_ ? hct_type_bytes(type, count) : 0;
    COLL(Allreduce, PMPI_Allreduce(sbuf, rbuf, count, type, op, comm), OTF2_COLLECTIVE_OP_ALLREDUCE, comm, -1, bytes,
         bytes);
    LEAVE();
    return rc;
}

int MPI_Gather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
               int root, MPI_Comm comm)
{
    ENTER(Gather);
    int rc;
    int me = traced_ ? hct_comm_rank(comm) : 0;
    uint64_t recv = traced_ && me == root ? hct_type_bytes(rtype, rcount) * (uint64_t)hct_comm_size(comm) : 0;
    COLL(Gather, PMPI_Gather(sbuf, scount, stype, rbuf, rcount, rtype, root, comm), OTF2_COLLECTIVE_OP_GATHER, comm,
         root, traced_ ? hct_type_bytes(stype, scount) : 0, recv);
    LEAVE();
    return rc;
}

int MPI_Gatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, const int rcounts[],
                const int displs[], MPI_Datatype rtype, int root, MPI_Comm comm)
{
    ENTER(Gatherv);
    int rc;
    int me = traced_ ? hct_comm_rank(comm) : 0;
    uint64_t recv = traced_ && me == root ? hct_sum_bytes(rtype, rcounts, hct_comm_size(comm)) : 0;
    COLL(Gatherv, PMPI_Gatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm),
         OTF2_COLLECTIVE_OP_GATHERV, comm, root, traced_ ? hct_type_bytes(stype, scount) : 0, recv);
    LEAVE();
    return rc;
}

int MPI_Scatter(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
                int root, MPI_Comm comm)
{
    ENTER(Scatter);
    int rc;
    int me = traced_ ? hct_comm_rank(comm) : 0;
    uint64_t sent = traced_ && me == root ? hct_type_bytes(stype, scount) * (uint64_t)hct_comm_size(comm) : 0;
    COLL(Scatter, PMPI_Scatter(sbuf, scount, stype, rbuf, rcount, rtype, root, comm), OTF2_COLLECTIVE_OP_SCATTER,
         comm, root, sent, traced_ ? hct_type_bytes(rtype, rcount) : 0);
    LEAVE();
    return rc;
}

int MPI_Scatterv(const void *sbuf, const int scounts[], const int displs[], MPI_Datatype stype, void *rbuf,
                 int rcount, MPI_Datatype rtype, int root, MPI_Comm comm)
{
    ENTER(Scatterv);
    int rc;
    int me = traced_ ? hct_comm_rank(comm) : 0;
    uint64_t sent = traced_ && me == root ? hct_sum_bytes(stype, scounts, hct_comm_size(comm)) : 0;
    COLL(Scatterv, PMPI_Scatterv(sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm),
         OTF2_COLLECTIVE_OP_SCATTERV, comm, root, sent, traced_ ? hct_type_bytes(rtype, rcount) : 0);
    LEAVE();
    return rc;
}

int MPI_Allgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
                  MPI_Comm comm)
{
    ENTER(Allgather);
    int rc;
    uint64_t recv = traced_ ? hct_type_bytes(rtype, rcount) * (uint64_t)hct_comm_size(comm) : 0;
    COLL(Allgather, PMPI_Allgather(sbuf, scount, stype, rbuf, rcount, rtype, comm), OTF2_COLLECTIVE_OP_ALLGATHER,
         comm, -1, traced_ ? hct_type_bytes(stype, scount) : 0, recv);
    LEAVE();
    return rc;
}

int MPI_Allgatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, const int rcounts[],
                   const int displs[], MPI_Datatype rtype, MPI_Comm comm)
{
    ENTER(Allgatherv);
    int rc;
    uint64_t recv = traced_ ? hct_sum_bytes(rtype, rcounts, hct_comm_size(comm)) : 0;
    COLL(Allgatherv, PMPI_Allgatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm),
         OTF2_COLLECTIVE_OP_ALLGATHERV, comm, -1, traced_ ? hct_type_bytes(stype, scount) : 0, recv);
    LEAVE();
    return rc;
}

int MPI_Alltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
                 MPI_Comm comm)
{
    ENTER(Alltoall);
    int rc;
    uint64_t n = traced_ ? (uint64_t)hct_comm_size(comm) : 0;
    COLL(Alltoall, PMPI_Alltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm), OTF2_COLLECTIVE_OP_ALLTOALL, comm,
         -1, traced_ ? n * hct_type_bytes(stype, scount) : 0, traced_ ? n * hct_type_bytes(rtype, rcount) : 0);
    LEAVE();
    return rc;
}

int MPI_Alltoallv(const void *sbuf, const int scounts[], const int sdispls[], MPI_Datatype stype, void *rbuf,
                  const int rcounts[], const int rdispls[], MPI_Datatype rtype, MPI_Comm comm)
{
    ENTER(Alltoallv);
    int rc;
    int n = traced_ ? hct_comm_size(comm) : 0;
    COLL(Alltoallv, PMPI_Alltoallv(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm),
         OTF2_COLLECTIVE_OP_ALLTOALLV, comm, -1, traced_ ? hct_sum_bytes(stype, scounts, n) : 0,
         traced_ ? hct_sum_bytes(rtype, rcounts, n) : 0);
    LEAVE();
    return rc;
}

int MPI_Reduce_scatter(const void *sbuf, void *rbuf, const int rcounts[], MPI_Datatype type, MPI_Op op,
                       MPI_Comm comm)
{
    ENTER(Reduce_scatter);
    int rc;
    uint64_t sent = traced_ ? hct_sum_bytes(type, rcounts, hct_comm_size(comm)) : 0;
    uint64_t recv = traced_ ? hct_type_bytes(type, rcounts[hct_comm_rank(comm)]) : 0;
    COLL(Reduce_scatter, PMPI_Reduce_scatter(sbuf, rbuf, rcounts, type, op, comm), OTF2_COLLECTIVE_OP_REDUCE_SCATTER,
         comm, -1, sent, recv);
    LEAVE();
    return rc;
}

int MPI_Reduce_scatter_block(const void *sbuf, void *rbuf, int rcount, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    ENTER(Reduce_scatter_block);
    int rc;
    uint64_t recv = traced_ ? hct_type_bytes(type, rcount) : 0;
    uint64_t sent = traced_ ? recv * (uint64_t)hct_comm_size(comm) : 0;
    COLL(Reduce_scatter_block, PMPI_Reduce_scatter_block(sbuf, rbuf, rcount, type, op, comm),
         OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK, comm, -1, sent, recv);
    LEAVE();
    return rc;
}

int MPI_Scan(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    ENTER(Scan);
    int rc;
    uint64_t bytes = traced_ ? hct_type_bytes(type, count) : 0;
    COLL(Scan, PMPI_Scan(sbuf, rbuf, count, type, op, comm), OTF2_COLLECTIVE_OP_SCAN, comm, -1, bytes, bytes);
    LEAVE();
    return rc;
}

int MPI_Exscan(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    ENTER(Exscan);
    int rc;
    uint64_t bytes = traced_ ? hct_type_bytes(type, count) : 0;
    COLL(Exscan, PMPI_Exscan(sbuf, rbuf, count, type, op, comm), OTF2_COLLECTIVE_OP_EXSCAN, comm, -1, bytes, bytes);
    LEAVE();
    return rc;
}

/* ---- non-blocking collectives -------------------------------------------- */

#define ICOLL_DONE(op, comm, root, sent, received)                          \
    do {                                                                    \
        if (traced_ && rc == MPI_SUCCESS)                                   \
            hct_rec_icoll(&c_, op, comm, root, sent, received, *req);       \
    } while (0)

int MPI_Ibarrier(MPI_Comm comm, MPI_Request *req)
{
    ENTER(Ibarrier);
    int rc = PMPI_Ibarrier(comm, req);
    ICOLL_DONE(OTF2_COLLECTIVE_OP_BARRIER, comm, -1, 0, 0);
    LEAVE();
    return rc;
}

int MPI_Ibcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm, MPI_Request *req)
{
    ENTER(Ibcast);
    int rc = PMPI_Ibcast(buf, count, type, root, comm, req);
    uint64_t bytes = traced_ ? hct_type_bytes(type, count) : 0;
    int me = traced_ ? hct_comm_rank(comm) : 0;
    ICOLL_DONE(OTF2_COLLECTIVE_OP_BCAST, comm, root, me == root ? bytes : 0, me == root ? 0 : bytes);
    LEAVE();
    return rc;
}

int MPI_Ireduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm,
                MPI_Request *req)
{
    ENTER(Ireduce);
    int rc = PMPI_Ireduce(sbuf, rbuf, count, type, op, root, comm, req);
    uint64_t bytes = traced_ ? hct_type_bytes(type, count) : 0;
    int me = traced_ ? hct_comm_rank(comm) : 0;
    ICOLL_DONE(OTF2_COLLECTIVE_OP_REDUCE, comm, root, bytes, me == root ? bytes : 0);
    LEAVE();
    return rc;
}

int MPI_Iallreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                   MPI_Request *req)
{
    ENTER(Iallreduce);
    int rc = PMPI_Iallreduce(sbuf, rbuf, count, type, op, comm, req);
    uint64_t bytes = traced_ ? hct_type_bytes(type, count) : 0;
    ICOLL_DONE(OTF2_COLLECTIVE_OP_ALLREDUCE, comm, -1, bytes, bytes);
    LEAVE();
    return rc;
}

int MPI_Iallgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
                   MPI_Comm comm, MPI_Request *req)
{
    ENTER(Iallgather);
    int rc = PMPI_Iallgather(sbuf, scount, stype, rbuf, rcount, rtype, comm, req);
    uint64_t recv = traced_ ? hct_type_bytes(rtype, rcount) * (uint64_t)hct_comm_size(comm) : 0;
    ICOLL_DONE(OTF2_COLLECTIVE_OP_ALLGATHER, comm, -1, traced_ ? hct_type_bytes(stype, scount) : 0, recv);
    LEAVE();
    return rc;
}

int MPI_Ialltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
                  MPI_Comm comm, MPI_Request *req)
{
    ENTER(Ialltoall);
    int rc = PMPI_Ialltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm, req);
    uint64_t n = traced_ ? (uint64_t)hct_comm_size(comm) : 0;
    ICOLL_DONE(OTF2_COLLECTIVE_OP_ALLTOALL, comm, -1, traced_ ? n * hct_type_bytes(stype, scount) : 0,
               traced_ ? n * hct_type_bytes(rtype, rcount) : 0);
    LEAVE();
    return rc;
}

/* ---- communicators -------------------------------------------------------- */

#define COMM_CREATE(name, call, parent, newcomm)                                              \
    do {                                                                                      \
        if (traced_)                                                                          \
            hct_rec_coll_begin(&c_);                                                          \
        rc = call;                                                                            \
        if (traced_ && rc == MPI_SUCCESS)                                                     \
            hct_comm_created(parent, *(newcomm), "MPI_" #name);                               \
        if (traced_)                                                                          \
            hct_rec_coll_end(&c_, OTF2_COLLECTIVE_OP_CREATE_HANDLE, parent, -1, 0, 0);        \
    } while (0)

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    ENTER(Comm_dup);
    int rc;
    COMM_CREATE(Comm_dup, PMPI_Comm_dup(comm, newcomm), comm, newcomm);
    LEAVE();
    return rc;
}

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    ENTER(Comm_split);
    int rc;
    COMM_CREATE(Comm_split, PMPI_Comm_split(comm, color, key, newcomm), comm, newcomm);
    LEAVE();
    return rc;
}

int MPI_Comm_split_type(MPI_Comm comm, int type, int key, MPI_Info info, MPI_Comm *newcomm)
{
    ENTER(Comm_split_type);
    int rc;
    COMM_CREATE(Comm_split_type, PMPI_Comm_split_type(comm, type, key, info, newcomm), comm, newcomm);
    LEAVE();
    return rc;
}

int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
    ENTER(Comm_create);
    int rc;
    COMM_CREATE(Comm_create, PMPI_Comm_create(comm, group, newcomm), comm, newcomm);
    LEAVE();
    return rc;
}

int MPI_Cart_create(MPI_Comm comm, int ndims, const int dims[], const int periods[], int reorder,
                    MPI_Comm *newcomm)
{
    ENTER(Cart_create);
    int rc;
    COMM_CREATE(Cart_create, PMPI_Cart_create(comm, ndims, dims, periods, reorder, newcomm), comm, newcomm);
    LEAVE();
    return rc;
}

int MPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm)
{
    ENTER(Cart_sub);
    int rc;
    COMM_CREATE(Cart_sub, PMPI_Cart_sub(comm, remain_dims, newcomm), comm, newcomm);
    LEAVE();
    return rc;
}

int MPI_Comm_free(MPI_Comm *comm)
{
    ENTER(Comm_free);
    MPI_Comm old = *comm;
    if (traced_)
        hct_rec_coll_begin(&c_);
    int rc = PMPI_Comm_free(comm);
    if (traced_) {
        hct_rec_coll_end(&c_, OTF2_COLLECTIVE_OP_DESTROY_HANDLE, old, -1, 0, 0);
        hct_comm_freed(old);
    }
    LEAVE();
    return rc;
}
