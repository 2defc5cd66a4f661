/* hct_mpi_request.c: the non-blocking requests in flight, keyed by their MPI
 * handle, so that completion (wait/test) can be recorded with the ID, peer, tag
 * and size of the operation that started it. A fixed table, no allocation;
 * when it is full new requests go untracked and are counted. */
#include "hct_mpi_request.h"

#include <pthread.h>
#include <string.h>

#include "hct_mpi.h"
#include "hct_rescue.h"

#define SLOTS 16384u
#define EMPTY ((MPI_Request)NULL)

static hct_request table[SLOTS];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic uint64_t next_id = 1;
static uint32_t used;
static uint64_t untracked; /* requests not tracked because the table was full */

static uint32_t slot_of(MPI_Request r)
{
    return (uint32_t)(((uintptr_t)r * 0x9e3779b97f4a7c15ull) >> 40) & (SLOTS - 1);
}

uint64_t hct_request_new_id(void)
{
    return atomic_fetch_add(&next_id, 1);
}

/* The oldest entry of handle (a handle can be shared by several requests in
 * flight: Open MPI returns one completed request object for eager sends).
 * Called with lock held. */
static hct_request *find_slot(MPI_Request handle)
{
    hct_request *best = NULL;
    uint32_t i = slot_of(handle);
    for (uint32_t n = 0; n < SLOTS && table[i].handle != EMPTY; n++, i = (i + 1) & (SLOTS - 1))
        if (table[i].handle == handle && (!best || table[i].seq < best->seq))
            best = &table[i];
    return best;
}

void hct_request_add(const hct_request *r)
{
    if (r->handle == EMPTY || r->handle == MPI_REQUEST_NULL)
        return;
    pthread_mutex_lock(&lock);
    if (used + 1 < SLOTS * 3 / 4) {
        static uint64_t seq;
        uint32_t i = slot_of(r->handle);
        while (table[i].handle != EMPTY)
            i = (i + 1) & (SLOTS - 1);
        table[i] = *r;
        table[i].seq = ++seq;
        used++;
    } else {
        untracked++;
    }
    pthread_mutex_unlock(&lock);
}

int hct_request_find(MPI_Request handle, hct_request *out)
{
    if (handle == MPI_REQUEST_NULL || handle == EMPTY)
        return 0;
    pthread_mutex_lock(&lock);
    const hct_request *slot = find_slot(handle);
    if (slot)
        *out = *slot;
    pthread_mutex_unlock(&lock);
    return slot != NULL;
}

void hct_request_set_active(MPI_Request handle, int active, uint64_t id)
{
    pthread_mutex_lock(&lock);
    hct_request *slot = find_slot(handle);
    if (slot) {
        slot->active = active;
        slot->id = id;
    }
    pthread_mutex_unlock(&lock);
}

/* Called with lock held. */
static void remove_slot(const hct_request *slot)
{
    /* backward-shift deletion keeps probe chains intact without tombstones */
    uint32_t hole = (uint32_t)(slot - table);
    uint32_t i = (hole + 1) & (SLOTS - 1);
    while (table[i].handle != EMPTY) {
        uint32_t home = slot_of(table[i].handle);
        uint32_t dist_i = (i - home) & (SLOTS - 1), dist_hole = (hole - home) & (SLOTS - 1);
        if (dist_hole < dist_i) {
            table[hole] = table[i];
            hole = i;
        }
        i = (i + 1) & (SLOTS - 1);
    }
    memset(&table[hole], 0, sizeof(table[hole]));
    used--;
}

int hct_request_take(MPI_Request handle, hct_request *out)
{
    if (handle == MPI_REQUEST_NULL || handle == EMPTY)
        return 0;
    pthread_mutex_lock(&lock);
    hct_request *slot = find_slot(handle);
    if (slot) {
        *out = *slot;
        remove_slot(slot);
    }
    pthread_mutex_unlock(&lock);
    return slot != NULL;
}

void hct_request_remove(MPI_Request handle)
{
    hct_request r;
    while (hct_request_take(handle, &r))
        ;
}

uint64_t hct_request_untracked(void)
{
    return untracked;
}

void hct_request_complete(hct_thread *t, uint64_t ts, const hct_request *r, const MPI_Status *status)
{
    int cancelled = 0;
    if (status && status != MPI_STATUS_IGNORE)
        PMPI_Test_cancelled(status, &cancelled);
    t->in_tool++;
    if (cancelled) {
        hct_otf2_check(t, OTF2_EvtWriter_MpiRequestCancelled(t->writer, NULL, ts, r->id));
    } else {
        switch (r->kind) {
        case HCT_REQ_SEND:
        case HCT_REQ_PSEND:
            hct_otf2_check(t, OTF2_EvtWriter_MpiIsendComplete(t->writer, NULL, ts, r->id));
            break;
        case HCT_REQ_RECV:
        case HCT_REQ_PRECV: {
            int source = r->peer, tag = r->tag, count = 0;
            uint64_t bytes = r->bytes_recv;
            if (status && status != MPI_STATUS_IGNORE) {
                source = status->MPI_SOURCE;
                tag = status->MPI_TAG;
                if (PMPI_Get_count(status, MPI_BYTE, &count) == MPI_SUCCESS && count != MPI_UNDEFINED)
                    bytes = (uint64_t)count;
            }
            if (source >= 0)
                hct_otf2_check(t, OTF2_EvtWriter_MpiIrecv(t->writer, NULL, ts, (uint32_t)source, r->comm,
                                                          (uint32_t)tag, bytes, r->id));
            break;
        }
        case HCT_REQ_COLL:
            hct_otf2_check(t, OTF2_EvtWriter_NonBlockingCollectiveComplete(
                                  t->writer, NULL, ts, (OTF2_CollectiveOp)r->coll_op, r->comm, (uint32_t)r->root,
                                  r->bytes_sent, r->bytes_recv, r->id));
            break;
        default:
            break;
        }
    }
    hct_tool_exit(t);
}
