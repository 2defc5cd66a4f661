/* hct_mpi_functions.h: every MPI function libhcatrace.so intercepts, with the
 * OTF2 region role of its region (X-macro list; docs/mpi-calls.md mirrors it).
 * The position in this list is the function's region key. */
/* clang-format off */
#define HCT_MPI_FUNCTIONS(X) \
    X(Init, FUNCTION) X(Init_thread, FUNCTION) X(Finalize, FUNCTION) \
    X(Send, POINT2POINT) X(Ssend, POINT2POINT) X(Bsend, POINT2POINT) X(Rsend, POINT2POINT) \
    X(Recv, POINT2POINT) X(Sendrecv, POINT2POINT) X(Sendrecv_replace, POINT2POINT) \
    X(Probe, POINT2POINT) X(Iprobe, POINT2POINT) \
    X(Isend, POINT2POINT) X(Issend, POINT2POINT) X(Ibsend, POINT2POINT) X(Irsend, POINT2POINT) \
    X(Irecv, POINT2POINT) \
    X(Send_init, POINT2POINT) X(Recv_init, POINT2POINT) X(Start, POINT2POINT) X(Startall, POINT2POINT) \
    X(Request_free, FUNCTION) \
    X(Wait, FUNCTION) X(Waitall, FUNCTION) X(Waitany, FUNCTION) X(Waitsome, FUNCTION) \
    X(Test, FUNCTION) X(Testall, FUNCTION) X(Testany, FUNCTION) X(Testsome, FUNCTION) \
    X(Barrier, BARRIER) X(Bcast, COLL_ONE2ALL) X(Reduce, COLL_ALL2ONE) X(Allreduce, COLL_ALL2ALL) \
    X(Gather, COLL_ALL2ONE) X(Gatherv, COLL_ALL2ONE) X(Scatter, COLL_ONE2ALL) X(Scatterv, COLL_ONE2ALL) \
    X(Allgather, COLL_ALL2ALL) X(Allgatherv, COLL_ALL2ALL) X(Alltoall, COLL_ALL2ALL) \
    X(Alltoallv, COLL_ALL2ALL) X(Reduce_scatter, COLL_ALL2ALL) X(Reduce_scatter_block, COLL_ALL2ALL) \
    X(Scan, COLL_OTHER) X(Exscan, COLL_OTHER) \
    X(Ibarrier, BARRIER) X(Ibcast, COLL_ONE2ALL) X(Ireduce, COLL_ALL2ONE) X(Iallreduce, COLL_ALL2ALL) \
    X(Iallgather, COLL_ALL2ALL) X(Ialltoall, COLL_ALL2ALL) \
    X(Comm_dup, FUNCTION) X(Comm_split, FUNCTION) X(Comm_split_type, FUNCTION) X(Comm_create, FUNCTION) \
    X(Cart_create, FUNCTION) X(Cart_sub, FUNCTION) X(Comm_free, FUNCTION)
/* clang-format on */
