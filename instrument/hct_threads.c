/* hct_threads.c: threads created with pthread_create while recording get their
 * location, counters and sampling as soon as they start, before they run any
 * of their own code, so that threads which never call into the tracer (compute
 * workers, OpenMP threads of libgomp) are sampled too. Threads that exist
 * before recording starts (those an MPI library creates inside MPI_Init) are
 * left alone until they call into the tracer. */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "hct.h"
#include "hct_boundary.h"
#include "hct_locations.h"

typedef int (*create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

struct start {
    void *(*fn)(void *);
    void *arg;
};

static void *trampoline(void *p)
{
    struct start s = *(struct start *)p;
    free(p);
    if (atomic_load(&hct.active))
        hct_thread_get(); /* its location, counters and sampling */
    return s.fn(s.arg);
}

__attribute__((visibility("default"))) int pthread_create(pthread_t *thread, const pthread_attr_t *attr,
                                                          void *(*fn)(void *), void *arg)
{
    static create_fn real;
    if (!real) {
        real = (create_fn)dlsym(RTLD_NEXT, "pthread_create");
        if (!real)
            return EAGAIN;
    }
    if (!atomic_load(&hct.active) || !hct_extras_wanted())
        return real(thread, attr, fn, arg);
    struct start *s = malloc(sizeof(*s));
    if (!s)
        return real(thread, attr, fn, arg);
    s->fn = fn;
    s->arg = arg;
    int rc = real(thread, attr, trampoline, s);
    if (rc != 0)
        free(s);
    return rc;
}
