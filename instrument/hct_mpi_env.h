/* hct_mpi_env.h: the tracer's lifecycle inside an MPI job, started by the
 * MPI_Init wrappers and ended by MPI_Finalize's (hct_mpi_env.c). */
#ifndef HCT_MPI_ENV_H
#define HCT_MPI_ENV_H

#include <mpi.h>

#include "hct.h"

/* The tracer's private duplicate of MPI_COMM_WORLD. */
extern MPI_Comm hct_private_comm HCT_HIDDEN;

int hct_mpi_start(void) HCT_HIDDEN;   /* after PMPI_Init: open the job archive */
void hct_mpi_finish(void) HCT_HIDDEN; /* before PMPI_Finalize: write everything */
/* An end without MPI_Finalize, claimed by the caller (hct_rescue_claim): this rank's
 * events and partial definitions, without MPI. how: "SIGTERM", "MPI_Abort", ... */
void hct_mpi_rescue(const char *how) HCT_HIDDEN;
void hct_mpi_abort(void) HCT_HIDDEN; /* before PMPI_Abort */

#endif
