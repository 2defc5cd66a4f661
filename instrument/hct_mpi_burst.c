/* hct_mpi_burst.c: the thread's open compute burst since its last MPI call,
 * and what its MPI calls' contexts' past bursts were, which decide whether a
 * call's enter and leave read the counters (hct_mpi_burst.h). */
#include "hct_mpi_burst.h"

HCT_TLS hct_mpi_burst_state hct_mpi_burst;
