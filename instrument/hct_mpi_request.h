/* hct_mpi_request.h: MPI requests in flight, for their completion records
 * (hct_mpi_request.c). */
#ifndef HCT_MPI_REQUEST_H
#define HCT_MPI_REQUEST_H

#include <stdint.h>

#include <mpi.h>

#include "hct.h"

enum hct_req_kind { HCT_REQ_SEND = 1, HCT_REQ_RECV, HCT_REQ_COLL, HCT_REQ_PSEND, HCT_REQ_PRECV };
typedef struct {
    MPI_Request handle;
    uint64_t id;
    uint32_t comm;
    int kind, peer, tag, root;
    uint64_t bytes_sent, bytes_recv;
    int coll_op;
    int active; /* persistent requests: started and not completed */
    uint64_t seq; /* insertion order, for handles shared by several requests */
} hct_request;

uint64_t hct_request_new_id(void) HCT_HIDDEN;
void hct_request_add(const hct_request *r) HCT_HIDDEN;
/* Copies the oldest entry of handle into out; returns 0 if not tracked. */
int hct_request_find(MPI_Request handle, hct_request *out) HCT_HIDDEN;
/* Like find, and removes the entry from the table. */
int hct_request_take(MPI_Request handle, hct_request *out) HCT_HIDDEN;
void hct_request_remove(MPI_Request handle) HCT_HIDDEN; /* all entries of handle */
uint64_t hct_request_untracked(void) HCT_HIDDEN;
void hct_request_set_active(MPI_Request handle, int active, uint64_t id) HCT_HIDDEN;

/* Records completion of a tracked request (entry taken before the call) with
 * the status the completion produced. */
void hct_request_complete(hct_thread *t, uint64_t ts, const hct_request *r, const MPI_Status *status) HCT_HIDDEN;

#endif
