/* hct_mpi_comm.c: the communicators of the traced process. Each gets a local ID
 * used in events; its members are kept as world ranks, and its job-wide identity
 * (world rank of its rank 0, that rank's creation counter) is agreed on by a
 * broadcast when it is created, so that unification can match it across ranks.
 * Local IDs and definitions come from the process's registry (hct_comms.c). */
#include "hct_mpi_comm.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hct_comms.h"
#include "hct_mpi.h"

#define SLOTS 8192u
#define EMPTY ((MPI_Comm)NULL)

typedef struct {
    _Atomic(MPI_Comm) handle;
    _Atomic uint32_t id; /* HCA_UNDEF once freed */
} comm_slot;

static comm_slot slots[SLOTS];
static uint32_t created_here; /* creation counter of this rank as a root */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static uint32_t slot_of(MPI_Comm c)
{
    return (uint32_t)(((uintptr_t)c * 0x9e3779b97f4a7c15ull) >> 40) & (SLOTS - 1);
}

/* Called with lock held. */
static void map_handle(MPI_Comm c, uint32_t id)
{
    uint32_t i = slot_of(c);
    for (uint32_t n = 0; n < SLOTS; n++, i = (i + 1) & (SLOTS - 1)) {
        MPI_Comm h = atomic_load(&slots[i].handle);
        if (h == c || h == EMPTY) {
            atomic_store(&slots[i].id, id);
            atomic_store(&slots[i].handle, c);
            return;
        }
    }
}

static uint32_t lookup(MPI_Comm c)
{
    uint32_t i = slot_of(c);
    for (uint32_t n = 0; n < SLOTS; n++, i = (i + 1) & (SLOTS - 1)) {
        MPI_Comm h = atomic_load_explicit(&slots[i].handle, memory_order_acquire);
        if (h == c)
            return atomic_load_explicit(&slots[i].id, memory_order_relaxed);
        if (h == EMPTY)
            return HCA_UNDEF;
    }
    return HCA_UNDEF;
}

/* World ranks of comm's members, in comm rank order (malloc'ed). */
static uint32_t *world_ranks_of(MPI_Comm comm, uint32_t *n)
{
    MPI_Group group, world;
    int size = 0;
    *n = 0;
    if (PMPI_Comm_size(comm, &size) != MPI_SUCCESS || size <= 0)
        return NULL;
    int *ranks = calloc(2 * (size_t)size, sizeof(int));
    uint32_t *out = malloc((size_t)size * sizeof(uint32_t));
    if (!ranks || !out) {
        free(ranks);
        free(out);
        return NULL;
    }
    for (int i = 0; i < size; i++)
        ranks[i] = i;
    PMPI_Comm_group(comm, &group);
    PMPI_Comm_group(MPI_COMM_WORLD, &world);
    PMPI_Group_translate_ranks(group, size, ranks, world, ranks + size);
    PMPI_Group_free(&group);
    PMPI_Group_free(&world);
    for (int i = 0; i < size; i++)
        out[i] = (uint32_t)ranks[size + i];
    free(ranks);
    *n = (uint32_t)size;
    return out;
}

void hct_comm_init(void)
{
    pthread_mutex_lock(&lock);
    uint32_t n;
    uint32_t *members = world_ranks_of(MPI_COMM_WORLD, &n);
    map_handle(MPI_COMM_WORLD, hct_comms_add(HCA_COMM_WORLD_NAME, HCA_UNDEF, HCA_COMM_KEY_WORLD, n, members));
    map_handle(MPI_COMM_SELF, hct_comms_add(HCA_COMM_SELF_NAME, HCA_UNDEF, HCA_COMM_KEY_SELF, 0, NULL));
    pthread_mutex_unlock(&lock);
}

uint32_t hct_comm_id(MPI_Comm comm)
{
    uint32_t id = lookup(comm);
    if (id != HCA_UNDEF || comm == MPI_COMM_NULL)
        return id;
    /* created by a call we do not intercept: identified by its members only */
    int inter = 0;
    PMPI_Comm_test_inter(comm, &inter);
    if (inter)
        return HCA_UNDEF;
    uint32_t n;
    uint32_t *members = world_ranks_of(comm, &n);
    uint64_t h = 1469598103934665603ull;
    for (uint32_t i = 0; i < n; i++)
        h = (h ^ members[i]) * 1099511628211ull;
    pthread_mutex_lock(&lock);
    id = lookup(comm);
    if (id == HCA_UNDEF) {
        id = hct_comms_add("communicator", HCA_UNDEF, h | (1ull << 63), n, members);
        map_handle(comm, id);
    } else {
        free(members);
    }
    pthread_mutex_unlock(&lock);
    return id;
}

void hct_comm_created(MPI_Comm parent, MPI_Comm newcomm, const char *how)
{
    if (newcomm == MPI_COMM_NULL)
        return;
    int inter = 0;
    PMPI_Comm_test_inter(newcomm, &inter);
    if (inter)
        return;
    int rank = 0, world_rank = 0;
    PMPI_Comm_rank(newcomm, &rank);
    PMPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    uint32_t ident[2] = { (uint32_t)world_rank, 0 };
    pthread_mutex_lock(&lock);
    if (rank == 0)
        ident[1] = ++created_here;
    pthread_mutex_unlock(&lock);
    PMPI_Bcast(ident, 2, MPI_UINT32_T, 0, newcomm);
    uint32_t n;
    uint32_t *members = world_ranks_of(newcomm, &n);
    uint32_t parent_id = parent == MPI_COMM_NULL ? HCA_UNDEF : hct_comm_id(parent);
    char name[64];
    snprintf(name, sizeof(name), "%s %u.%u", how, ident[0], ident[1]);
    pthread_mutex_lock(&lock);
    map_handle(newcomm, hct_comms_add(name, parent_id, HCA_COMM_KEY(ident[0], ident[1]), n, members));
    pthread_mutex_unlock(&lock);
}

void hct_comm_freed(MPI_Comm comm)
{
    pthread_mutex_lock(&lock);
    uint32_t i = slot_of(comm);
    for (uint32_t n = 0; n < SLOTS; n++, i = (i + 1) & (SLOTS - 1)) {
        MPI_Comm h = atomic_load(&slots[i].handle);
        if (h == comm) {
            atomic_store(&slots[i].id, HCA_UNDEF);
            break;
        }
        if (h == EMPTY)
            break;
    }
    pthread_mutex_unlock(&lock);
}
