/* hct_buffers.c: OTF2 chunks within a budget (see hct_buffers.h). Each buffer keeps
 * the chunks it was given (perBufferData: a list); after a flush they are reused, so
 * a steady run allocates nothing. Only event buffers count against the budget (the
 * definitions are written at the end); a buffer always gets its first chunk. */
#include "hct_buffers.h"

#include <stdatomic.h>
#include <stdlib.h>

#include "hct_config.h"

typedef struct {
    void **chunk;
    size_t n, used, cap;
    size_t bytes; /* of the chunks counted against the budget */
} chunk_list;

static size_t budget;
static void (*near_full)(void);
static atomic_size_t event_bytes;

static void *chunk_allocate(void *user, OTF2_FileType type, OTF2_LocationRef location, void **per_buffer,
                            uint64_t size)
{
    (void)user;
    (void)location;
    chunk_list *l = *per_buffer;
    if (!l) {
        l = calloc(1, sizeof(*l));
        if (!l)
            return NULL;
        *per_buffer = l;
    }
    if (l->used < l->n)
        return l->chunk[l->used++];
    int counted = type == OTF2_FILETYPE_EVENTS;
    if (counted && l->n > 0 && atomic_load(&event_bytes) + size > budget)
        return NULL; /* OTF2 flushes this buffer and starts again with its chunks */
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 8;
        void **c = realloc(l->chunk, cap * sizeof(*c));
        if (!c)
            return NULL;
        l->chunk = c;
        l->cap = cap;
    }
    void *chunk = malloc(size);
    if (!chunk)
        return NULL;
    l->chunk[l->n++] = chunk;
    l->used = l->n;
    if (counted) {
        l->bytes += size;
        size_t now = atomic_fetch_add(&event_bytes, size) + size;
        if (near_full && l->n > 1 && now + size > budget)
            near_full(); /* the next full chunk of this buffer flushes */
    }
    return chunk;
}

static void chunk_free_all(void *user, OTF2_FileType type, OTF2_LocationRef location, void **per_buffer, bool final)
{
    (void)user;
    (void)type;
    (void)location;
    chunk_list *l = *per_buffer;
    if (!l)
        return;
    l->used = 0; /* kept for the next chunks of this buffer */
    if (!final)
        return;
    for (size_t i = 0; i < l->n; i++)
        free(l->chunk[i]);
    atomic_fetch_sub(&event_bytes, l->bytes);
    free(l->chunk);
    free(l);
    *per_buffer = NULL;
}

size_t hct_buffers_budget(unsigned mib, int set, const char *local_ranks)
{
    if (!set) {
        char *end = NULL;
        unsigned long n = local_ranks ? strtoul(local_ranks, &end, 10) : 0;
        if (n > 1 && end && *end == 0 && end != local_ranks)
            mib = (unsigned)(mib / n);
        if (mib < HCT_MIN_TOTAL_MEMORY_MIB)
            mib = HCT_MIN_TOTAL_MEMORY_MIB;
    }
    return (size_t)mib << 20;
}

const char *hct_buffers_local_ranks(void)
{
    const char *n = getenv("OMPI_COMM_WORLD_LOCAL_SIZE"); /* Open MPI */
    return n ? n : getenv("MPI_LOCALNRANKS");             /* MPICH's Hydra */
}

static const OTF2_MemoryCallbacks callbacks = { chunk_allocate, chunk_free_all };

OTF2_ErrorCode hct_buffers_attach(OTF2_Archive *archive, size_t budget_bytes, void (*near_full_fn)(void))
{
    budget = budget_bytes;
    near_full = near_full_fn;
    return OTF2_Archive_SetMemoryCallbacks(archive, &callbacks, NULL);
}
