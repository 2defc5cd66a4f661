/* hct_stack_pages.c: drops the stack pages of the calling thread below its
 * stack pointer (see hct_stack_pages.h). */
#include "hct_stack_pages.h"

#include <pthread.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

long hct_stack_pages_release(size_t keep)
{
    pthread_attr_t attr;
    void *low = NULL;
    size_t size = 0;
    if (pthread_getattr_np(pthread_self(), &attr) != 0)
        return -1;
    int rc = pthread_attr_getstack(&attr, &low, &size);
    pthread_attr_destroy(&attr);
    long page = sysconf(_SC_PAGESIZE);
    if (rc != 0 || page <= 0)
        return -1;
    size_t p = (size_t)page;
    char *base = low, *top = base + size, *here = __builtin_frame_address(0);
    if (here <= base || here > top)
        return -1;
    char *start = base + (p - (uintptr_t)base % p) % p; /* the first whole page */
    if ((size_t)(here - start) <= keep)
        return 0;
    char *end = here - keep;
    end -= (uintptr_t)end % p;
    if (end <= start || madvise(start, (size_t)(end - start), MADV_DONTNEED) != 0)
        return 0;
    return (long)(end - start);
}
