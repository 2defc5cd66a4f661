/* test_stack_pages.c: unit tests of instrument/hct_stack_pages.c, a thread's
 * stack pages below its frame given back: a thread that went 256 KiB deep and
 * came back has those pages resident (mincore); after hct_stack_pages_release
 * none of them is, except the margin kept below the caller, and the thread goes
 * as deep again with the same results (a no-op madvise fails the first check). */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "hct_stack_pages.h"

#define DEPTH 64     /* levels of 4 KiB each: 256 KiB of stack */
#define KEEP (16u << 10)

static size_t page;

/* Touches a 4 KiB frame per level; the sum depends on every level. */
static __attribute__((noinline)) long deep(int level)
{
    volatile unsigned char frame[4096];
    for (size_t i = 0; i < sizeof(frame); i += 512)
        frame[i] = (unsigned char)(level + i / 512);
    long below = level > 0 ? deep(level - 1) : 0;
    long sum = below;
    for (size_t i = 0; i < sizeof(frame); i += 512)
        sum += frame[i];
    return sum;
}

/* Resident bytes of [from, to), both page-aligned. */
static size_t resident(uintptr_t from, uintptr_t to)
{
    if (to <= from)
        return 0;
    size_t n = (to - from) / page, count = 0;
    unsigned char v[4096];
    assert_true(n <= sizeof(v));
    assert_int_equal(mincore((void *)from, to - from, v), 0);
    for (size_t i = 0; i < n; i++)
        count += v[i] & 1;
    return count * page;
}

typedef struct {
    long first, again, released;
    size_t before, after;
} result;

static __attribute__((noinline)) void measure(result *r)
{
    pthread_attr_t attr;
    void *low = NULL;
    size_t size = 0;
    assert_int_equal(pthread_getattr_np(pthread_self(), &attr), 0);
    assert_int_equal(pthread_attr_getstack(&attr, &low, &size), 0);
    pthread_attr_destroy(&attr);
    uintptr_t here = (uintptr_t)__builtin_frame_address(0);
    uintptr_t from = ((uintptr_t)low + page - 1) & ~(uintptr_t)(page - 1);
    uintptr_t to = (here - 2 * KEEP) & ~(uintptr_t)(page - 1); /* below the margin the release keeps */
    r->first = deep(DEPTH);
    r->before = resident(from, to);
    r->released = hct_stack_pages_release(KEEP);
    r->after = resident(from, to);
    r->again = deep(DEPTH);
}

static void *thread_main(void *arg)
{
    measure(arg);
    return NULL;
}

static void deep_pages_given_back(void **state)
{
    (void)state;
    pthread_attr_t attr;
    assert_int_equal(pthread_attr_init(&attr), 0);
    assert_int_equal(pthread_attr_setstacksize(&attr, (size_t)1 << 20), 0);
    pthread_t th;
    result r;
    memset(&r, 0, sizeof(r));
    assert_int_equal(pthread_create(&th, &attr, thread_main, &r), 0);
    assert_int_equal(pthread_join(th, NULL), 0);
    pthread_attr_destroy(&attr);
    print_message("stack resident below the frame: %zu kB before, %zu kB after; %ld kB released\n", r.before >> 10,
                  r.after >> 10, r.released >> 10);
    assert_true(r.before >= (size_t)(DEPTH / 2) * 4096); /* the deep calls' pages were there */
    assert_true(r.released >= (long)r.before);
    assert_int_equal(r.after, 0);
    assert_int_equal(r.again, r.first); /* the stack works as before */
}

int main(void)
{
    page = (size_t)sysconf(_SC_PAGESIZE);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(deep_pages_given_back),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
