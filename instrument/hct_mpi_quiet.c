/* hct_mpi_quiet.c: the tracer's own waits for other ranks, asleep (see
 * hct_mpi_quiet.h). */
#include "hct_mpi_quiet.h"

#include <time.h>

/* The sleep after the poll-th test that found the request pending. */
static long sleep_ns(unsigned poll)
{
    if (poll < HCT_QUIET_SPINS)
        return 0;
    unsigned shift = poll - HCT_QUIET_SPINS;
    long ns = HCT_QUIET_MIN_NS;
    while (shift-- > 0 && ns < HCT_QUIET_MAX_NS)
        ns *= 2;
    return ns < HCT_QUIET_MAX_NS ? ns : HCT_QUIET_MAX_NS;
}

int hct_quiet_wait(MPI_Request *req)
{
    for (unsigned poll = 0;; poll++) {
        int done = 0;
        int rc = PMPI_Test(req, &done, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS || done)
            return rc;
        long ns = sleep_ns(poll);
        if (ns > 0) {
            struct timespec ts = { 0, ns };
            nanosleep(&ts, NULL);
        }
    }
}

int hct_quiet_barrier(MPI_Comm comm)
{
    MPI_Request req;
    int rc = PMPI_Ibarrier(comm, &req);
    return rc == MPI_SUCCESS ? hct_quiet_wait(&req) : rc;
}
