/* hct_mpi_burst.c: the thread's open compute burst since its last MPI call,
 * which decides whether the next call's enter reads the counters
 * (hct_mpi_burst.h). */
#include "hct_mpi_burst.h"

HCT_TLS hct_mpi_burst_state hct_mpi_burst;
