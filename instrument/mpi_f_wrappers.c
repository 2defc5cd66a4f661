/* mpi_f_wrappers.c: the Fortran MPI functions libhcatrace.so intercepts. Open
 * MPI's Fortran bindings (mpif.h and `use mpi`: mpi_send_ etc. in
 * libmpi_mpifh.so) call PMPI_* directly, so the C wrappers never see Fortran
 * calls. Each wrapper here (gfortran names: lowercase plus "_", and "__" as an
 * alias) records the call like its C twin in mpi_c_wrappers.c, keyed by the
 * Fortran call site, and performs the operation by calling the real Fortran
 * binding (dlsym RTLD_NEXT), which keeps MPI_IN_PLACE, MPI_BOTTOM, the ignored
 * statuses and integer kinds in Open MPI's hands. Handles are converted to C
 * only to read information. With tracing off a wrapper is a plain forward.
 * The list is in hct_mpi_functions.h; `use mpi_f08` is not intercepted. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "hct_mpi_record.h"

/* A Fortran status: MPI_STATUS_SIZE integers, the size of a C status in Open MPI. */
#define F_STATUS_SIZE (sizeof(MPI_Status) / sizeof(MPI_Fint))
_Static_assert(sizeof(MPI_Status) % sizeof(MPI_Fint) == 0, "Fortran status size");

#define F_EXPORT __attribute__((visibility("default")))

/* ---- the real bindings ---------------------------------------------------- */

/* Resolved on first use; concurrent first uses store the same address. */
static inline void *f_real(void *_Atomic *slot, const char *name)
{
    void *p = atomic_load_explicit(slot, memory_order_acquire);
    if (__builtin_expect(p != NULL, 1))
        return p;
    p = dlsym(RTLD_NEXT, name);
    if (!p) {
        fprintf(stderr, "hcatrace: the Fortran MPI binding %s was not found after libhcatrace.so\n", name);
        abort();
    }
    atomic_store_explicit(slot, p, memory_order_release);
    return p;
}

/* F_WRAPPER(mpi_send, (params)) { body }: declares the type of the real
 * binding and its slot, exports mpi_send_ and its alias mpi_send__, and
 * begins the definition of mpi_send_. REAL(mpi_send) is the real binding. */
#define F_WRAPPER(fname, params)                                                \
    typedef void fname##_fn params;                                             \
    static void *_Atomic fname##_real;                                          \
    F_EXPORT void fname##_ params;                                              \
    F_EXPORT void fname##__ params __attribute__((alias(#fname "_")));          \
    void fname##_ params
#define REAL(fname) ((fname##_fn *)f_real(&fname##_real, #fname "_"))

/* Untraced: the real call and nothing else. */
#define FORWARD(fname, args)     \
    do {                         \
        if (!traced_) {          \
            REAL(fname) args;    \
            return;              \
        }                        \
    } while (0)
/* The real call succeeded (a missing ierr is taken as success). */
#define OK(ierr) ((ierr) == NULL || *(ierr) == MPI_SUCCESS)

/* ---- reading Fortran arguments -------------------------------------------- */

static inline MPI_Comm f_comm(const MPI_Fint *f)
{
    MPI_Comm c = PMPI_Comm_f2c(*f);
    return c ? c : MPI_COMM_NULL; /* an invalid handle: recorded as nothing */
}

static inline MPI_Datatype f_type(const MPI_Fint *f)
{
    MPI_Datatype t = PMPI_Type_f2c(*f);
    return t ? t : MPI_DATATYPE_NULL;
}

static inline uint64_t f_bytes(const MPI_Fint *type, const MPI_Fint *count)
{
    return hct_type_bytes(f_type(type), (int)*count);
}

static uint64_t f_sum_bytes(const MPI_Fint *type, const MPI_Fint *counts, int n)
{
    MPI_Datatype t = f_type(type);
    uint64_t total = 0;
    for (int i = 0; counts && i < n; i++)
        total += hct_type_bytes(t, (int)counts[i]);
    return total;
}

static inline int f_status_ignored(const MPI_Fint *st)
{
    return st == NULL || st == MPI_F_STATUS_IGNORE || st == MPI_F_STATUSES_IGNORE;
}

/* The C form of a Fortran status, or NULL when it was ignored. */
static const MPI_Status *f_status_c(const MPI_Fint *st, MPI_Status *out)
{
    if (f_status_ignored(st) || PMPI_Status_f2c(st, out) != MPI_SUCCESS)
        return NULL;
    return out;
}

/* Status k of a Fortran statuses array (or the ignore sentinel). */
static inline MPI_Fint *f_status_at(MPI_Fint *st, int k)
{
    return f_status_ignored(st) ? NULL : st + (size_t)k * F_STATUS_SIZE;
}

static void f_rec_recv(hct_call *c, const MPI_Fint *source, MPI_Comm comm, const MPI_Fint *tag, uint64_t bytes,
                       const MPI_Fint *status)
{
    MPI_Status st;
    hct_rec_recv(c, (int)*source, comm, (int)*tag, bytes, f_status_c(status, &st));
}

/* ---- environment ---------------------------------------------------------- */

F_WRAPPER(mpi_init, (MPI_Fint *ierr))
{
    uint64_t t = hca_clock_now();
    REAL(mpi_init)(ierr);
    hct_rec_init(ierr ? (int)*ierr : MPI_SUCCESS, t, HCT_MPI_Init, HCT_RA);
}

F_WRAPPER(mpi_init_thread, (MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr))
{
    uint64_t t = hca_clock_now();
    REAL(mpi_init_thread)(required, provided, ierr);
    hct_rec_init(ierr ? (int)*ierr : MPI_SUCCESS, t, HCT_MPI_Init_thread, HCT_RA);
}

F_WRAPPER(mpi_abort, (MPI_Fint *comm, MPI_Fint *errorcode, MPI_Fint *ierr))
{
    hct_mpi_abort(); /* the runtime ends this process and kills the others */
    REAL(mpi_abort)(comm, errorcode, ierr);
}

F_WRAPPER(mpi_finalize, (MPI_Fint *ierr))
{
    ENTER(Finalize);
    LEAVE();
    hct_mpi_finish();
    REAL(mpi_finalize)(ierr);
}

/* ---- blocking point-to-point --------------------------------------------- */

#define F_SEND_WRAPPER(name, fname)                                                                      \
    F_WRAPPER(fname, (void *buf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *dest, MPI_Fint *tag,         \
                      MPI_Fint *comm, MPI_Fint *ierr))                                                   \
    {                                                                                                    \
        ENTER(name);                                                                                     \
        if (traced_)                                                                                     \
            hct_rec_send(&c_, (int)*dest, f_comm(comm), (int)*tag, f_bytes(type, count));                \
        REAL(fname)(buf, count, type, dest, tag, comm, ierr);                                            \
        LEAVE();                                                                                         \
    }
F_SEND_WRAPPER(Send, mpi_send)
F_SEND_WRAPPER(Ssend, mpi_ssend)
F_SEND_WRAPPER(Bsend, mpi_bsend)
F_SEND_WRAPPER(Rsend, mpi_rsend)

F_WRAPPER(mpi_recv, (void *buf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *source, MPI_Fint *tag, MPI_Fint *comm,
                     MPI_Fint *status, MPI_Fint *ierr))
{
    ENTER(Recv);
    FORWARD(mpi_recv, (buf, count, type, source, tag, comm, status, ierr));
    MPI_Fint own[F_STATUS_SIZE];
    MPI_Fint *st = f_status_ignored(status) ? own : status;
    REAL(mpi_recv)(buf, count, type, source, tag, comm, st, ierr);
    if (OK(ierr))
        f_rec_recv(&c_, source, f_comm(comm), tag, f_bytes(type, count), st);
    LEAVE();
}

F_WRAPPER(mpi_sendrecv, (void *sbuf, MPI_Fint *scount, MPI_Fint *stype, MPI_Fint *dest, MPI_Fint *stag, void *rbuf,
                         MPI_Fint *rcount, MPI_Fint *rtype, MPI_Fint *source, MPI_Fint *rtag, MPI_Fint *comm,
                         MPI_Fint *status, MPI_Fint *ierr))
{
    ENTER(Sendrecv);
    FORWARD(mpi_sendrecv, (sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag, comm, status, ierr));
    MPI_Comm cc = f_comm(comm);
    hct_rec_send(&c_, (int)*dest, cc, (int)*stag, f_bytes(stype, scount));
    MPI_Fint own[F_STATUS_SIZE];
    MPI_Fint *st = f_status_ignored(status) ? own : status;
    REAL(mpi_sendrecv)(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag, comm, st, ierr);
    if (OK(ierr))
        f_rec_recv(&c_, source, cc, rtag, f_bytes(rtype, rcount), st);
    LEAVE();
}

F_WRAPPER(mpi_sendrecv_replace, (void *buf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *dest, MPI_Fint *stag,
                                 MPI_Fint *source, MPI_Fint *rtag, MPI_Fint *comm, MPI_Fint *status, MPI_Fint *ierr))
{
    ENTER(Sendrecv_replace);
    FORWARD(mpi_sendrecv_replace, (buf, count, type, dest, stag, source, rtag, comm, status, ierr));
    MPI_Comm cc = f_comm(comm);
    uint64_t bytes = f_bytes(type, count);
    hct_rec_send(&c_, (int)*dest, cc, (int)*stag, bytes);
    MPI_Fint own[F_STATUS_SIZE];
    MPI_Fint *st = f_status_ignored(status) ? own : status;
    REAL(mpi_sendrecv_replace)(buf, count, type, dest, stag, source, rtag, comm, st, ierr);
    if (OK(ierr))
        f_rec_recv(&c_, source, cc, rtag, bytes, st);
    LEAVE();
}

F_WRAPPER(mpi_probe, (MPI_Fint *source, MPI_Fint *tag, MPI_Fint *comm, MPI_Fint *status, MPI_Fint *ierr))
{
    ENTER(Probe);
    REAL(mpi_probe)(source, tag, comm, status, ierr);
    LEAVE();
}

F_WRAPPER(mpi_iprobe,
          (MPI_Fint *source, MPI_Fint *tag, MPI_Fint *comm, MPI_Fint *flag, MPI_Fint *status, MPI_Fint *ierr))
{
    ENTER(Iprobe);
    REAL(mpi_iprobe)(source, tag, comm, flag, status, ierr);
    LEAVE();
}

/* ---- non-blocking point-to-point ----------------------------------------- */

/* rec(c, peer, comm, tag, bytes, C request) after a successful real call. */
#define F_REQ_WRAPPER(name, fname, rec)                                                                  \
    F_WRAPPER(fname, (void *buf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *peer, MPI_Fint *tag,         \
                      MPI_Fint *comm, MPI_Fint *req, MPI_Fint *ierr))                                    \
    {                                                                                                    \
        ENTER(name);                                                                                     \
        REAL(fname)(buf, count, type, peer, tag, comm, req, ierr);                                       \
        if (traced_ && OK(ierr))                                                                         \
            rec;                                                                                         \
        LEAVE();                                                                                         \
    }
#define F_ARGS (int)*peer, f_comm(comm), (int)*tag, f_bytes(type, count)
F_REQ_WRAPPER(Isend, mpi_isend, hct_rec_isend(&c_, F_ARGS, PMPI_Request_f2c(*req)))
F_REQ_WRAPPER(Issend, mpi_issend, hct_rec_isend(&c_, F_ARGS, PMPI_Request_f2c(*req)))
F_REQ_WRAPPER(Ibsend, mpi_ibsend, hct_rec_isend(&c_, F_ARGS, PMPI_Request_f2c(*req)))
F_REQ_WRAPPER(Irsend, mpi_irsend, hct_rec_isend(&c_, F_ARGS, PMPI_Request_f2c(*req)))
F_REQ_WRAPPER(Irecv, mpi_irecv, hct_rec_irecv(&c_, F_ARGS, PMPI_Request_f2c(*req)))
F_REQ_WRAPPER(Send_init, mpi_send_init, hct_rec_persistent(HCT_REQ_PSEND, F_ARGS, PMPI_Request_f2c(*req)))
F_REQ_WRAPPER(Recv_init, mpi_recv_init, hct_rec_persistent(HCT_REQ_PRECV, F_ARGS, PMPI_Request_f2c(*req)))
#undef F_ARGS

F_WRAPPER(mpi_start, (MPI_Fint *req, MPI_Fint *ierr))
{
    ENTER(Start);
    if (traced_)
        hct_rec_start(&c_, PMPI_Request_f2c(*req));
    REAL(mpi_start)(req, ierr);
    LEAVE();
}

F_WRAPPER(mpi_startall, (MPI_Fint *count, MPI_Fint *reqs, MPI_Fint *ierr))
{
    ENTER(Startall);
    for (int i = 0; traced_ && i < (int)*count; i++)
        hct_rec_start(&c_, PMPI_Request_f2c(reqs[i]));
    REAL(mpi_startall)(count, reqs, ierr);
    LEAVE();
}

F_WRAPPER(mpi_request_free, (MPI_Fint *req, MPI_Fint *ierr))
{
    ENTER(Request_free);
    FORWARD(mpi_request_free, (req, ierr));
    MPI_Request handle = PMPI_Request_f2c(*req);
    REAL(mpi_request_free)(req, ierr);
    hct_request_remove(handle);
    LEAVE();
}

/* ---- completion ----------------------------------------------------------- */
/* As in C: the tracked entries of the requests leave the table before the real
 * call (hct_reqs_save on the C handles), completed ones are recorded with their
 * statuses after it (hct_reqs_done_one), the rest go back (hct_reqs_finish).
 * Fortran indices are 1-based. */

/* Saves the n Fortran requests (hct_reqs_save on their C handles) and returns
 * the statuses to pass to the real call: the user's, or private ones (per-thread
 * space) when the user's are ignored but a tracked receive needs its status. */
static MPI_Fint *f_reqs_save(hct_call *c, hct_reqs *rs, int n, const MPI_Fint *freqs, MPI_Fint *user)
{
    rs->n = 0;
    MPI_Request *creqs = hct_reqs_extra(c, n, sizeof(MPI_Request) + F_STATUS_SIZE * sizeof(MPI_Fint));
    if (!creqs)
        return user;
    for (int i = 0; i < n; i++)
        creqs[i] = PMPI_Request_f2c(freqs[i]);
    hct_reqs_save(c, rs, n, creqs, MPI_STATUSES_IGNORE);
    if (!f_status_ignored(user))
        return user;
    for (int i = 0; i < rs->n; i++)
        if (rs->saved[i].handle != NULL &&
            (rs->saved[i].kind == HCT_REQ_RECV || rs->saved[i].kind == HCT_REQ_PRECV))
            return (MPI_Fint *)(creqs + n);
    return user;
}

static void f_done_one(hct_call *c, hct_reqs *rs, int i, const MPI_Fint *status)
{
    MPI_Status st;
    hct_reqs_done_one(c, rs, i, f_status_c(status, &st));
}

F_WRAPPER(mpi_wait, (MPI_Fint *req, MPI_Fint *status, MPI_Fint *ierr))
{
    ENTER(Wait);
    FORWARD(mpi_wait, (req, status, ierr));
    hct_reqs rs;
    MPI_Fint *st = f_reqs_save(&c_, &rs, 1, req, status);
    REAL(mpi_wait)(req, st, ierr);
    if (OK(ierr))
        f_done_one(&c_, &rs, 0, st);
    hct_reqs_finish(&rs);
    LEAVE();
}

F_WRAPPER(mpi_waitall, (MPI_Fint *count, MPI_Fint *reqs, MPI_Fint *statuses, MPI_Fint *ierr))
{
    ENTER(Waitall);
    FORWARD(mpi_waitall, (count, reqs, statuses, ierr));
    int n = (int)*count;
    hct_reqs rs;
    MPI_Fint *st = f_reqs_save(&c_, &rs, n, reqs, statuses);
    REAL(mpi_waitall)(count, reqs, st, ierr);
    if (OK(ierr))
        for (int i = 0; i < n; i++)
            f_done_one(&c_, &rs, i, f_status_at(st, i));
    hct_reqs_finish(&rs);
    LEAVE();
}

F_WRAPPER(mpi_waitany, (MPI_Fint *count, MPI_Fint *reqs, MPI_Fint *index, MPI_Fint *status, MPI_Fint *ierr))
{
    ENTER(Waitany);
    FORWARD(mpi_waitany, (count, reqs, index, status, ierr));
    hct_reqs rs;
    MPI_Fint *st = f_reqs_save(&c_, &rs, (int)*count, reqs, status);
    REAL(mpi_waitany)(count, reqs, index, st, ierr);
    if (OK(ierr) && *index != MPI_UNDEFINED)
        f_done_one(&c_, &rs, (int)*index - 1, st);
    hct_reqs_finish(&rs);
    LEAVE();
}

F_WRAPPER(mpi_waitsome, (MPI_Fint *incount, MPI_Fint *reqs, MPI_Fint *outcount, MPI_Fint *indices,
                         MPI_Fint *statuses, MPI_Fint *ierr))
{
    ENTER(Waitsome);
    FORWARD(mpi_waitsome, (incount, reqs, outcount, indices, statuses, ierr));
    hct_reqs rs;
    MPI_Fint *st = f_reqs_save(&c_, &rs, (int)*incount, reqs, statuses);
    REAL(mpi_waitsome)(incount, reqs, outcount, indices, st, ierr);
    if (OK(ierr) && *outcount != MPI_UNDEFINED)
        for (int k = 0; k < (int)*outcount; k++)
            f_done_one(&c_, &rs, (int)indices[k] - 1, f_status_at(st, k));
    hct_reqs_finish(&rs);
    LEAVE();
}

/* flag: a default Fortran LOGICAL, non-zero when true. */
F_WRAPPER(mpi_test, (MPI_Fint *req, MPI_Fint *flag, MPI_Fint *status, MPI_Fint *ierr))
{
    ENTER(Test);
    FORWARD(mpi_test, (req, flag, status, ierr));
    hct_reqs rs;
    MPI_Fint *st = f_reqs_save(&c_, &rs, 1, req, status);
    REAL(mpi_test)(req, flag, st, ierr);
    if (OK(ierr) && *flag)
        f_done_one(&c_, &rs, 0, st);
    hct_reqs_finish(&rs);
    LEAVE();
}

F_WRAPPER(mpi_testall, (MPI_Fint *count, MPI_Fint *reqs, MPI_Fint *flag, MPI_Fint *statuses, MPI_Fint *ierr))
{
    ENTER(Testall);
    FORWARD(mpi_testall, (count, reqs, flag, statuses, ierr));
    int n = (int)*count;
    hct_reqs rs;
    MPI_Fint *st = f_reqs_save(&c_, &rs, n, reqs, statuses);
    REAL(mpi_testall)(count, reqs, flag, st, ierr);
    if (OK(ierr) && *flag)
        for (int i = 0; i < n; i++)
            f_done_one(&c_, &rs, i, f_status_at(st, i));
    hct_reqs_finish(&rs);
    LEAVE();
}

F_WRAPPER(mpi_testany, (MPI_Fint *count, MPI_Fint *reqs, MPI_Fint *index, MPI_Fint *flag, MPI_Fint *status,
                        MPI_Fint *ierr))
{
    ENTER(Testany);
    FORWARD(mpi_testany, (count, reqs, index, flag, status, ierr));
    hct_reqs rs;
    MPI_Fint *st = f_reqs_save(&c_, &rs, (int)*count, reqs, status);
    REAL(mpi_testany)(count, reqs, index, flag, st, ierr);
    if (OK(ierr) && *flag && *index != MPI_UNDEFINED)
        f_done_one(&c_, &rs, (int)*index - 1, st);
    hct_reqs_finish(&rs);
    LEAVE();
}

F_WRAPPER(mpi_testsome, (MPI_Fint *incount, MPI_Fint *reqs, MPI_Fint *outcount, MPI_Fint *indices,
                         MPI_Fint *statuses, MPI_Fint *ierr))
{
    ENTER(Testsome);
    FORWARD(mpi_testsome, (incount, reqs, outcount, indices, statuses, ierr));
    hct_reqs rs;
    MPI_Fint *st = f_reqs_save(&c_, &rs, (int)*incount, reqs, statuses);
    REAL(mpi_testsome)(incount, reqs, outcount, indices, st, ierr);
    if (OK(ierr) && *outcount != MPI_UNDEFINED)
        for (int k = 0; k < (int)*outcount; k++)
            f_done_one(&c_, &rs, (int)indices[k] - 1, f_status_at(st, k));
    hct_reqs_finish(&rs);
    LEAVE();
}

/* ---- collectives ---------------------------------------------------------- */
/* Bytes are those of this rank's send and receive buffers, as in C. Each body
 * starts traced (FORWARD) and has cc = the C communicator. */

#define COLL(fname, args, op, root, sent, received)                    \
    do {                                                               \
        hct_rec_coll_begin(&c_);                                       \
        REAL(fname) args;                                              \
        hct_rec_coll_end(&c_, op, cc, root, sent, received);           \
        LEAVE();                                                       \
    } while (0)

F_WRAPPER(mpi_barrier, (MPI_Fint *comm, MPI_Fint *ierr))
{
    ENTER(Barrier);
    FORWARD(mpi_barrier, (comm, ierr));
    MPI_Comm cc = f_comm(comm);
    COLL(mpi_barrier, (comm, ierr), OTF2_COLLECTIVE_OP_BARRIER, -1, 0, 0);
}

F_WRAPPER(mpi_bcast, (void *buf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr))
{
    ENTER(Bcast);
    FORWARD(mpi_bcast, (buf, count, type, root, comm, ierr));
    MPI_Comm cc = f_comm(comm);
    uint64_t bytes = f_bytes(type, count);
    int me = hct_comm_rank(cc), r = (int)*root;
    COLL(mpi_bcast, (buf, count, type, root, comm, ierr), OTF2_COLLECTIVE_OP_BCAST, r, me == r ? bytes : 0,
         me == r ? 0 : bytes);
}

F_WRAPPER(mpi_reduce, (void *sbuf, void *rbuf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *op, MPI_Fint *root,
                       MPI_Fint *comm, MPI_Fint *ierr))
{
    ENTER(Reduce);
    FORWARD(mpi_reduce, (sbuf, rbuf, count, type, op, root, comm, ierr));
    MPI_Comm cc = f_comm(comm);
    uint64_t bytes = f_bytes(type, count);
    int me = hct_comm_rank(cc), r = (int)*root;
    COLL(mpi_reduce, (sbuf, rbuf, count, type, op, root, comm, ierr), OTF2_COLLECTIVE_OP_REDUCE, r, bytes,
         me == r ? bytes : 0);
}

F_WRAPPER(mpi_allreduce,
          (void *sbuf, void *rbuf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *op, MPI_Fint *comm, MPI_Fint *ierr))
{
    ENTER(Allreduce);
    FORWARD(mpi_allreduce, (sbuf, rbuf, count, type, op, comm, ierr));
    MPI_Comm cc = f_comm(comm);
    uint64_t bytes = f_bytes(type, count);
    COLL(mpi_allreduce, (sbuf, rbuf, count, type, op, comm, ierr), OTF2_COLLECTIVE_OP_ALLREDUCE, -1, bytes, bytes);
}

F_WRAPPER(mpi_gather, (void *sbuf, MPI_Fint *scount, MPI_Fint *stype, void *rbuf, MPI_Fint *rcount,
                       MPI_Fint *rtype, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr))
{
    ENTER(Gather);
    FORWARD(mpi_gather, (sbuf, scount, stype, rbuf, rcount, rtype, root, comm, ierr));
    MPI_Comm cc = f_comm(comm);
    int r = (int)*root;
    uint64_t recv = hct_comm_rank(cc) == r ? f_bytes(rtype, rcount) * (uint64_t)hct_comm_size(cc) : 0;
    COLL(mpi_gather, (sbuf, scount, stype, rbuf, rcount, rtype, root, comm, ierr), OTF2_COLLECTIVE_OP_GATHER, r,
         f_bytes(stype, scount), recv);
}

F_WRAPPER(mpi_gatherv, (void *sbuf, MPI_Fint *scount, MPI_Fint *stype, void *rbuf, MPI_Fint *rcounts,
                        MPI_Fint *displs, MPI_Fint *rtype, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr))
{
    ENTER(Gatherv);
    FORWARD(mpi_gatherv, (sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm, ierr));
    MPI_Comm cc = f_comm(comm);
    int r = (int)*root;
    uint64_t recv = hct_comm_rank(cc) == r ? f_sum_bytes(rtype, rcounts, hct_comm_size(cc)) : 0;
    COLL(mpi_gatherv, (sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm, ierr),
         OTF2_COLLECTIVE_OP_GATHERV, r, f_bytes(stype, scount), recv);
}

F_WRAPPER(mpi_scatter, (void *sbuf, MPI_Fint *scount, MPI_Fint *stype, void *rbuf, MPI_Fint *rcount,
                        MPI_Fint *rtype, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr))
{
    ENTER(Scatter);
    FORWARD(mpi_scatter, (sbuf, scount, stype, rbuf, rcount, rtype, root, comm, ierr));
    MPI_Comm cc = f_comm(comm);
    int r = (int)*root;
    uint64_t sent = hct_comm_rank(cc) == r ? f_bytes(stype, scount) * (uint64_t)hct_comm_size(cc) : 0;
    COLL(mpi_scatter, (sbuf, scount, stype, rbuf, rcount, rtype, root, comm, ierr), OTF2_COLLECTIVE_OP_SCATTER, r,
         sent, f_bytes(rtype, rcount));
}

F_WRAPPER(mpi_scatterv, (void *sbuf, MPI_Fint *scounts, MPI_Fint *displs, MPI_Fint *stype, void *rbuf,
                         MPI_Fint *rcount, MPI_Fint *rtype, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr))
{
    ENTER(Scatterv);
    FORWARD(mpi_scatterv, (sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm, ierr));
    MPI_Comm cc = f_comm(comm);
    int r = (int)*root;
    uint64_t sent = hct_comm_rank(cc) == r ? f_sum_bytes(stype, scounts, hct_comm_size(cc)) : 0;
    COLL(mpi_scatterv, (sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm, ierr),
         OTF2_COLLECTIVE_OP_SCATTERV, r, sent, f_bytes(rtype, rcount));
}

F_WRAPPER(mpi_allgather, (void *sbuf, MPI_Fint *scount, MPI_Fint *stype, void *rbuf, MPI_Fint *rcount,
                          MPI_Fint *rtype, MPI_Fint *comm, MPI_Fint *ierr))
{
    ENTER(Allgather);
    FORWARD(mpi_allgather, (sbuf, scount, stype, rbuf, rcount, rtype, comm, ierr));
    MPI_Comm cc = f_comm(comm);
    uint64_t recv = f_bytes(rtype, rcount) * (uint64_t)hct_comm_size(cc);
    COLL(mpi_allgather, (sbuf, scount, stype, rbuf, rcount, rtype, comm, ierr), OTF2_COLLECTIVE_OP_ALLGATHER, -1,
         f_bytes(stype, scount), recv);
}

F_WRAPPER(mpi_allgatherv, (void *sbuf, MPI_Fint *scount, MPI_Fint *stype, void *rbuf, MPI_Fint *rcounts,
                           MPI_Fint *displs, MPI_Fint *rtype, MPI_Fint *comm, MPI_Fint *ierr))
{
    ENTER(Allgatherv);
    FORWARD(mpi_allgatherv, (sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm, ierr));
    MPI_Comm cc = f_comm(comm);
    uint64_t recv = f_sum_bytes(rtype, rcounts, hct_comm_size(cc));
    COLL(mpi_allgatherv, (sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm, ierr),
         OTF2_COLLECTIVE_OP_ALLGATHERV, -1, f_bytes(stype, scount), recv);
}

F_WRAPPER(mpi_alltoall, (void *sbuf, MPI_Fint *scount, MPI_Fint *stype, void *rbuf, MPI_Fint *rcount,
                         MPI_Fint *rtype, MPI_Fint *comm, MPI_Fint *ierr))
{
    ENTER(Alltoall);
    FORWARD(mpi_alltoall, (sbuf, scount, stype, rbuf, rcount, rtype, comm, ierr));
    MPI_Comm cc = f_comm(comm);
    uint64_t n = (uint64_t)hct_comm_size(cc);
    COLL(mpi_alltoall, (sbuf, scount, stype, rbuf, rcount, rtype, comm, ierr), OTF2_COLLECTIVE_OP_ALLTOALL, -1,
         n * f_bytes(stype, scount), n * f_bytes(rtype, rcount));
}

F_WRAPPER(mpi_alltoallv, (void *sbuf, MPI_Fint *scounts, MPI_Fint *sdispls, MPI_Fint *stype, void *rbuf,
                          MPI_Fint *rcounts, MPI_Fint *rdispls, MPI_Fint *rtype, MPI_Fint *comm, MPI_Fint *ierr))
{
    ENTER(Alltoallv);
    FORWARD(mpi_alltoallv, (sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm, ierr));
    MPI_Comm cc = f_comm(comm);
    int n = hct_comm_size(cc);
    COLL(mpi_alltoallv, (sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm, ierr),
         OTF2_COLLECTIVE_OP_ALLTOALLV, -1, f_sum_bytes(stype, scounts, n), f_sum_bytes(rtype, rcounts, n));
}

F_WRAPPER(mpi_reduce_scatter, (void *sbuf, void *rbuf, MPI_Fint *rcounts, MPI_Fint *type, MPI_Fint *op,
                               MPI_Fint *comm, MPI_Fint *ierr))
{
    ENTER(Reduce_scatter);
    FORWARD(mpi_reduce_scatter, (sbuf, rbuf, rcounts, type, op, comm, ierr));
    MPI_Comm cc = f_comm(comm);
    uint64_t sent = f_sum_bytes(type, rcounts, hct_comm_size(cc));
    uint64_t recv = f_bytes(type, &rcounts[hct_comm_rank(cc)]);
    COLL(mpi_reduce_scatter, (sbuf, rbuf, rcounts, type, op, comm, ierr), OTF2_COLLECTIVE_OP_REDUCE_SCATTER, -1,
         sent, recv);
}

F_WRAPPER(mpi_reduce_scatter_block, (void *sbuf, void *rbuf, MPI_Fint *rcount, MPI_Fint *type, MPI_Fint *op,
                                     MPI_Fint *comm, MPI_Fint *ierr))
{
    ENTER(Reduce_scatter_block);
    FORWARD(mpi_reduce_scatter_block, (sbuf, rbuf, rcount, type, op, comm, ierr));
    MPI_Comm cc = f_comm(comm);
    uint64_t recv = f_bytes(type, rcount);
    COLL(mpi_reduce_scatter_block, (sbuf, rbuf, rcount, type, op, comm, ierr),
         OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK, -1, recv * (uint64_t)hct_comm_size(cc), recv);
}

#define F_SCAN_WRAPPER(name, fname, op)                                                                  \
    F_WRAPPER(fname, (void *sbuf, void *rbuf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *mop,            \
                      MPI_Fint *comm, MPI_Fint *ierr))                                                   \
    {                                                                                                    \
        ENTER(name);                                                                                     \
        FORWARD(fname, (sbuf, rbuf, count, type, mop, comm, ierr));                                      \
        MPI_Comm cc = f_comm(comm);                                                                      \
        uint64_t bytes = f_bytes(type, count);                                                           \
        COLL(fname, (sbuf, rbuf, count, type, mop, comm, ierr), op, -1, bytes, bytes);                   \
    }
F_SCAN_WRAPPER(Scan, mpi_scan, OTF2_COLLECTIVE_OP_SCAN)
F_SCAN_WRAPPER(Exscan, mpi_exscan, OTF2_COLLECTIVE_OP_EXSCAN)

/* ---- non-blocking collectives -------------------------------------------- */

#define ICOLL_DONE(op, root, sent, received)                                           \
    do {                                                                               \
        if (OK(ierr))                                                                  \
            hct_rec_icoll(&c_, op, cc, root, sent, received, PMPI_Request_f2c(*req));  \
        LEAVE();                                                                       \
    } while (0)

F_WRAPPER(mpi_ibarrier, (MPI_Fint *comm, MPI_Fint *req, MPI_Fint *ierr))
{
    ENTER(Ibarrier);
    REAL(mpi_ibarrier)(comm, req, ierr);
    if (!traced_)
        return;
    MPI_Comm cc = f_comm(comm);
    ICOLL_DONE(OTF2_COLLECTIVE_OP_BARRIER, -1, 0, 0);
}

F_WRAPPER(mpi_ibcast, (void *buf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *req,
                       MPI_Fint *ierr))
{
    ENTER(Ibcast);
    REAL(mpi_ibcast)(buf, count, type, root, comm, req, ierr);
    if (!traced_)
        return;
    MPI_Comm cc = f_comm(comm);
    uint64_t bytes = f_bytes(type, count);
    int me = hct_comm_rank(cc), r = (int)*root;
    ICOLL_DONE(OTF2_COLLECTIVE_OP_BCAST, r, me == r ? bytes : 0, me == r ? 0 : bytes);
}

F_WRAPPER(mpi_ireduce, (void *sbuf, void *rbuf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *op, MPI_Fint *root,
                        MPI_Fint *comm, MPI_Fint *req, MPI_Fint *ierr))
{
    ENTER(Ireduce);
    REAL(mpi_ireduce)(sbuf, rbuf, count, type, op, root, comm, req, ierr);
    if (!traced_)
        return;
    MPI_Comm cc = f_comm(comm);
    uint64_t bytes = f_bytes(type, count);
    int me = hct_comm_rank(cc), r = (int)*root;
    ICOLL_DONE(OTF2_COLLECTIVE_OP_REDUCE, r, bytes, me == r ? bytes : 0);
}

F_WRAPPER(mpi_iallreduce, (void *sbuf, void *rbuf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *op, MPI_Fint *comm,
                           MPI_Fint *req, MPI_Fint *ierr))
{
    ENTER(Iallreduce);
    REAL(mpi_iallreduce)(sbuf, rbuf, count, type, op, comm, req, ierr);
    if (!traced_)
        return;
    MPI_Comm cc = f_comm(comm);
    uint64_t bytes = f_bytes(type, count);
    ICOLL_DONE(OTF2_COLLECTIVE_OP_ALLREDUCE, -1, bytes, bytes);
}

F_WRAPPER(mpi_iallgather, (void *sbuf, MPI_Fint *scount, MPI_Fint *stype, void *rbuf, MPI_Fint *rcount,
                           MPI_Fint *rtype, MPI_Fint *comm, MPI_Fint *req, MPI_Fint *ierr))
{
    ENTER(Iallgather);
    REAL(mpi_iallgather)(sbuf, scount, stype, rbuf, rcount, rtype, comm, req, ierr);
    if (!traced_)
        return;
    MPI_Comm cc = f_comm(comm);
    uint64_t recv = f_bytes(rtype, rcount) * (uint64_t)hct_comm_size(cc);
    ICOLL_DONE(OTF2_COLLECTIVE_OP_ALLGATHER, -1, f_bytes(stype, scount), recv);
}

F_WRAPPER(mpi_ialltoall, (void *sbuf, MPI_Fint *scount, MPI_Fint *stype, void *rbuf, MPI_Fint *rcount,
                          MPI_Fint *rtype, MPI_Fint *comm, MPI_Fint *req, MPI_Fint *ierr))
{
    ENTER(Ialltoall);
    REAL(mpi_ialltoall)(sbuf, scount, stype, rbuf, rcount, rtype, comm, req, ierr);
    if (!traced_)
        return;
    MPI_Comm cc = f_comm(comm);
    uint64_t n = (uint64_t)hct_comm_size(cc);
    ICOLL_DONE(OTF2_COLLECTIVE_OP_ALLTOALL, -1, n * f_bytes(stype, scount), n * f_bytes(rtype, rcount));
}

/* ---- communicators -------------------------------------------------------- */

/* Collective creation of *newcomm from comm; the body starts traced. */
#define COMM_CREATE(name, fname, args)                                                          \
    do {                                                                                        \
        MPI_Comm parent_ = f_comm(comm);                                                        \
        hct_rec_coll_begin(&c_);                                                                \
        REAL(fname) args;                                                                       \
        if (OK(ierr))                                                                           \
            hct_comm_created(parent_, f_comm(newcomm), "MPI_" #name);                           \
        hct_rec_coll_end(&c_, OTF2_COLLECTIVE_OP_CREATE_HANDLE, parent_, -1, 0, 0);             \
        LEAVE();                                                                                \
    } while (0)

F_WRAPPER(mpi_comm_dup, (MPI_Fint *comm, MPI_Fint *newcomm, MPI_Fint *ierr))
{
    ENTER(Comm_dup);
    FORWARD(mpi_comm_dup, (comm, newcomm, ierr));
    COMM_CREATE(Comm_dup, mpi_comm_dup, (comm, newcomm, ierr));
}

F_WRAPPER(mpi_comm_split, (MPI_Fint *comm, MPI_Fint *color, MPI_Fint *key, MPI_Fint *newcomm, MPI_Fint *ierr))
{
    ENTER(Comm_split);
    FORWARD(mpi_comm_split, (comm, color, key, newcomm, ierr));
    COMM_CREATE(Comm_split, mpi_comm_split, (comm, color, key, newcomm, ierr));
}

F_WRAPPER(mpi_comm_split_type, (MPI_Fint *comm, MPI_Fint *type, MPI_Fint *key, MPI_Fint *info, MPI_Fint *newcomm,
                                MPI_Fint *ierr))
{
    ENTER(Comm_split_type);
    FORWARD(mpi_comm_split_type, (comm, type, key, info, newcomm, ierr));
    COMM_CREATE(Comm_split_type, mpi_comm_split_type, (comm, type, key, info, newcomm, ierr));
}

F_WRAPPER(mpi_comm_create, (MPI_Fint *comm, MPI_Fint *group, MPI_Fint *newcomm, MPI_Fint *ierr))
{
    ENTER(Comm_create);
    FORWARD(mpi_comm_create, (comm, group, newcomm, ierr));
    COMM_CREATE(Comm_create, mpi_comm_create, (comm, group, newcomm, ierr));
}

/* periods and reorder: Fortran LOGICALs, passed through. */
F_WRAPPER(mpi_cart_create, (MPI_Fint *comm, MPI_Fint *ndims, MPI_Fint *dims, MPI_Fint *periods, MPI_Fint *reorder,
                            MPI_Fint *newcomm, MPI_Fint *ierr))
{
    ENTER(Cart_create);
    FORWARD(mpi_cart_create, (comm, ndims, dims, periods, reorder, newcomm, ierr));
    COMM_CREATE(Cart_create, mpi_cart_create, (comm, ndims, dims, periods, reorder, newcomm, ierr));
}

F_WRAPPER(mpi_cart_sub, (MPI_Fint *comm, MPI_Fint *remain_dims, MPI_Fint *newcomm, MPI_Fint *ierr))
{
    ENTER(Cart_sub);
    FORWARD(mpi_cart_sub, (comm, remain_dims, newcomm, ierr));
    COMM_CREATE(Cart_sub, mpi_cart_sub, (comm, remain_dims, newcomm, ierr));
}

F_WRAPPER(mpi_comm_free, (MPI_Fint *comm, MPI_Fint *ierr))
{
    ENTER(Comm_free);
    FORWARD(mpi_comm_free, (comm, ierr));
    MPI_Comm old = f_comm(comm);
    hct_rec_coll_begin(&c_);
    REAL(mpi_comm_free)(comm, ierr);
    hct_rec_coll_end(&c_, OTF2_COLLECTIVE_OP_DESTROY_HANDLE, old, -1, 0, 0);
    hct_comm_freed(old);
    LEAVE();
}
