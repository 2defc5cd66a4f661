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
    uintptr_t mask = ~((uintptr_t)page - 1);
    uintptr_t here = (uintptr_t)__builtin_frame_address(0);
    uintptr_t start = ((uintptr_t)low + (uintptr_t)page - 1) & mask;
    if (here < start + keep || here > (uintptr_t)low + size)
        return here > (uintptr_t)low + size ? -1 : 0;
    uintptr_t end = (here - keep) & mask;
    if (end <= start || madvise((void *)start, end - start, MADV_DONTNEED) != 0)
        return 0;
    return (long)(end - start);
}
