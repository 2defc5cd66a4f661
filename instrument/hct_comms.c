/* hct_comms.c: the process's communicator definitions, one local ID space for
 * MPI communicators (hct_mpi_comm.c) and OpenMP thread teams (hct_openmp.c).
 * IDs are dense and handed out under a lock when a communicator or team first
 * appears; a team's members are collected while it runs (one bit per thread,
 * set without a lock). At the end every entry becomes a definition of
 * hct.defs, in ID order (docs/trace-format.md, "Communicators"); so do the entries
 * made since the last flush of an event buffer, at that flush (hct_journal.c). */
#include "hct_comms.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


#define TEAM_WORDS (HCT_MAX_THREADS / 64)

typedef struct {
    char name[64];
    uint32_t parent;
    uint64_t key;
    uint32_t nmembers;
    uint32_t *members;      /* MPI: world ranks */
    _Atomic uint64_t *team; /* OpenMP: bit per thread index; NULL for MPI */
} comm_entry;

static comm_entry *entries;
static uint32_t nentries, cap_entries;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* Called with lock held; takes ownership of members. */
static uint32_t add_entry(const char *name, uint32_t parent, uint64_t key, uint32_t nmembers, uint32_t *members,
                          _Atomic uint64_t *team)
{
    if (nentries == cap_entries) {
        uint32_t ncap = cap_entries ? cap_entries * 2 : 64;
        comm_entry *p = realloc(entries, ncap * sizeof(*p));
        if (!p) {
            free(members);
            free((void *)team);
            return HCA_UNDEF;
        }
        entries = p;
        cap_entries = ncap;
    }
    comm_entry *e = &entries[nentries];
    snprintf(e->name, sizeof(e->name), "%s", name);
    e->parent = parent;
    e->key = key;
    e->nmembers = nmembers;
    e->members = members;
    e->team = team;
    return nentries++;
}

uint32_t hct_comms_add(const char *name, uint32_t parent, uint64_t key, uint32_t nmembers, uint32_t *members)
{
    pthread_mutex_lock(&lock);
    uint32_t id = add_entry(name, parent, key, nmembers, members, NULL);
    pthread_mutex_unlock(&lock);
    return id;
}

_Atomic uint64_t *hct_comms_add_team(const char *name, uint64_t key, uint32_t *id)
{
    _Atomic uint64_t *bits = calloc(TEAM_WORDS, sizeof(*bits));
    if (!bits)
        return NULL;
    pthread_mutex_lock(&lock);
    *id = add_entry(name, HCA_UNDEF, key, 0, NULL, bits);
    pthread_mutex_unlock(&lock);
    return *id == HCA_UNDEF ? NULL : bits;
}

/* A defined team's members as they are now (more threads may have joined it). */
static int update_team(hca_comm_def *c, const uint32_t *members, uint32_t n)
{
    if (n == c->nmembers)
        return 0;
    uint32_t *m = malloc((n + 1) * sizeof(*m));
    if (!m)
        return -1;
    memcpy(m, members, n * sizeof(*m));
    free(c->members);
    c->members = m;
    c->nmembers = n;
    return 0;
}

int hct_comms_define(void)
{
    int rc = 0;
    pthread_mutex_lock(&lock);
    uint32_t defined = hct.defs.ncomms; /* by an earlier call (a flush during the run) */
    for (uint32_t i = 0; i < nentries && rc == 0; i++) {
        const comm_entry *e = &entries[i];
        if (!e->team) {
            if (i >= defined && hca_defs_comm(&hct.defs, e->name, e->parent, e->key, e->nmembers, e->members) != i)
                rc = -1;
            continue;
        }
        uint32_t members[HCT_MAX_THREADS], n = 0;
        for (uint32_t k = 0; k < HCT_MAX_THREADS; k++)
            if (atomic_load_explicit(&e->team[k / 64], memory_order_relaxed) & (1ull << (k % 64)))
                members[n++] = k;
        if (i < defined)
            rc = update_team(&hct.defs.comms[i], members, n);
        else if (hca_defs_team(&hct.defs, e->name, (uint32_t)hct.rank, e->key, n, members) != i)
            rc = -1;
    }
    pthread_mutex_unlock(&lock);
    return rc;
}
