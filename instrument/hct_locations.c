/* hct_locations.c: one OTF2 location per traced thread. A thread is registered
 * (index, entry of hct.threads) on its first call into the tracer and gets its
 * event writer, counters and sampling there; the fast path is one
 * initial-exec TLS load. */
#include "hct_locations.h"

#include <pthread.h>
#include <stdlib.h>

#include "hct_boundary.h"
#include "hct_prefault.h"
#include "hct_writer.h"

static HCT_TLS hct_thread *tls_thread;
static pthread_mutex_t thread_lock = PTHREAD_MUTEX_INITIALIZER;

hct_thread *hct_thread_register(void)
{
    hct_thread *t = calloc(1, sizeof(*t));
    if (!t)
        return NULL;
    /* every page of the state touched now: calloc may hand out zero pages
     * not yet faulted in (its caches of call paths are large), and their
     * faults would count in the program's first regions */
    hct_prefault_touch(t, sizeof(*t));
    pthread_mutex_lock(&thread_lock);
    uint32_t index = atomic_load(&hct.nthreads);
    if (index >= HCT_MAX_THREADS) {
        pthread_mutex_unlock(&thread_lock);
        free(t);
        return NULL;
    }
    t->index = index;
    hct.threads[index] = t;
    atomic_store(&hct.nthreads, index + 1);
    pthread_mutex_unlock(&thread_lock);
    tls_thread = t;
    return t;
}

hct_thread *hct_thread_get(void)
{
    hct_thread *t = tls_thread;
    if (__builtin_expect(t && t->writer && atomic_load_explicit(&hct.active, memory_order_relaxed), 1))
        return t;
    if (!atomic_load(&hct.active))
        return NULL;
    if (!t && !(t = hct_thread_register()))
        return NULL;
    if (!t->writer) {
        t->location_id = hca_location_id((uint32_t)hct.rank, t->index);
        t->writer = hct_writer_location(t->location_id);
        if (!t->writer)
            return NULL;
        t->has_location = 1;
        hct_extras_start(t); /* counters and sampling of this thread */
    }
    return t;
}

hct_thread *hct_thread_self(void)
{
    return tls_thread;
}
