/* forks.c: samples taken in the OpenMP runtime: the forking thread's given to
 * the body it forked, any thread's in a barrier named as the barrier (the
 * rule is in forks.h). */
#include "forks.h"

#include <stdlib.h>
#include <string.h>

#include <otf2/otf2.h>

int fold_runtime_function(const fold_trace *t, uint32_t region)
{
    if (region >= t->nregions || !t->regions[region].file)
        return 0;
    const char *file = t->regions[region].file, *slash = strrchr(file, '/');
    const char *base = slash ? slash + 1 : file;
    return strncmp(base, "libgomp.", 8) == 0 || strncmp(base, "libomp.", 7) == 0 || strncmp(base, "libiomp5.", 9) == 0;
}

/* The C library's syscall(): the runtime's futex wait when libgomp's own
 * frames are not in the stack (seen under ASan at the master's join). */
static int libc_syscall(const fold_trace *t, uint32_t region)
{
    if (region >= t->nregions || !t->regions[region].name || strcmp(t->regions[region].name, "syscall") != 0)
        return 0;
    const char *file = t->regions[region].file, *slash = file ? strrchr(file, '/') : NULL;
    const char *base = slash ? slash + 1 : file;
    return !base || strncmp(base, "libc.", 5) == 0;
}

static int is_function(const fold_trace *t, uint32_t ctx)
{
    uint32_t r = t->contexts[ctx].region;
    return r < t->nregions && t->regions[r].kind == FOLD_KIND_FUNCTION;
}

uint32_t *fold_fork_bodies(const fold_trace *t)
{
    uint32_t *bodies = malloc((t->ncontexts + 1) * sizeof(*bodies));
    if (!bodies)
        return NULL;
    for (size_t c = 0; c < t->ncontexts; c++)
        bodies[c] = FOLD_NONE;
    for (size_t c = 0; c < t->ncontexts; c++) {
        uint32_t region_node = t->contexts[c].parent, fn = t->contexts[c].region;
        if (region_node >= t->ncontexts || !is_function(t, (uint32_t)c) || fold_runtime_function(t, fn))
            continue;
        uint32_t pr = t->contexts[region_node].region;
        if (pr >= t->nregions || t->regions[pr].role != OTF2_REGION_ROLE_PARALLEL || !t->regions[pr].name ||
            !t->regions[fn].name || strcmp(t->regions[pr].name, t->regions[fn].name) != 0)
            continue; /* not the body (named as its region): a sample taken where its frame was lost */
        /* the frame that forked it: the nearest sampled frame above (as in a sample's path) */
        uint32_t p = t->contexts[region_node].parent;
        while (p < t->ncontexts && !is_function(t, p))
            p = t->contexts[p].parent;
        /* bodies of one name are one body (C++: the outlined clone and its
         * inlined frames are several functions of the region's name) */
        if (p < t->ncontexts && bodies[p] != FOLD_FORK_MANY)
            bodies[p] = bodies[p] == FOLD_NONE || strcmp(t->regions[bodies[p]].name, t->regions[fn].name) == 0
                            ? (bodies[p] == FOLD_NONE ? fn : bodies[p])
                            : FOLD_FORK_MANY;
    }
    return bodies;
}

/* Whether context c is a barrier's node (explicit or implicit, or a taskwait):
 * what runs below it is the runtime waiting. */
static int barrier_node(const fold_trace *t, uint32_t c)
{
    uint32_t r = c < t->ncontexts ? t->contexts[c].region : FOLD_NONE;
    if (r >= t->nregions || t->regions[r].kind != FOLD_KIND_OPENMP)
        return 0;
    int role = t->regions[r].role;
    return role == OTF2_REGION_ROLE_BARRIER || role == OTF2_REGION_ROLE_IMPLICIT_BARRIER ||
           role == OTF2_REGION_ROLE_TASK_WAIT;
}

uint32_t fold_fork_cut(const fold_trace *t, const uint32_t *bodies, const uint32_t *path, uint32_t n,
                       uint32_t *body)
{
    *body = FOLD_NONE;
    /* from the root: the first frame under a barrier, or the first runtime
     * frame below a frame of the program's */
    for (uint32_t d = 1; bodies && d < n; d++) {
        uint32_t here = path[n - 1 - d], caller = path[n - d];
        if (barrier_node(t, t->contexts[here].parent)) {
            *body = t->contexts[t->contexts[here].parent].region;
            return d + 1;
        }
        if (!fold_runtime_function(t, t->contexts[here].region) &&
            !(libc_syscall(t, t->contexts[here].region) && bodies[caller] != FOLD_NONE &&
              bodies[caller] != FOLD_FORK_MANY))
            continue;
        if (fold_runtime_function(t, t->contexts[caller].region))
            return n; /* the runtime's own thread (a worker): its body is the region's anchor */
        uint32_t b = bodies[caller];
        if (b == FOLD_NONE || b == FOLD_FORK_MANY)
            return n;
        *body = b;
        return d + 1;
    }
    return n;
}
