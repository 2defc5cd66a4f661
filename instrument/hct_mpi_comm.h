/* hct_mpi_comm.h: MPI communicators: local IDs, world-rank members, job-wide
 * identity (hct_mpi_comm.c). */
#ifndef HCT_MPI_COMM_H
#define HCT_MPI_COMM_H

#include <stdint.h>

#include <mpi.h>

#include "hct.h"

/* WORLD and SELF are the registry's first IDs */
#define HCT_COMM_WORLD 0u
#define HCT_COMM_SELF 1u
void hct_comm_init(void) HCT_HIDDEN;
/* Local ID of a communicator; unknown ones are registered on the fly. */
uint32_t hct_comm_id(MPI_Comm comm) HCT_HIDDEN;
/* After a successful creation call (collective over newcomm's members). */
void hct_comm_created(MPI_Comm parent, MPI_Comm newcomm, const char *how) HCT_HIDDEN;
void hct_comm_freed(MPI_Comm comm) HCT_HIDDEN;

#endif
