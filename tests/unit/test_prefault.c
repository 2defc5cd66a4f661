/* test_prefault.c: unit tests of instrument/hct_prefault.c, a buffer's pages
 * made resident a step ahead of its writer: after init only the first step is
 * resident (mincore), a write near its end populates the next ones and none
 * further, a write at the end populates the rest; writes into populated pages
 * take no page fault (the thread's minor faults, getrusage), writes into pages
 * not populated do (so that the count can tell). Where the kernel has no
 * MADV_POPULATE_WRITE (before Linux 5.14, or qemu-user, which takes the advice
 * without acting on it) init touches everything: the whole buffer is then
 * checked resident, the steps skipped, the faults still checked. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cmocka.h>

#include "hct_prefault.h"

#define BYTES ((size_t)1 << 20)

static size_t page;

static size_t resident_bytes(const unsigned char *base, size_t bytes)
{
    unsigned char v[BYTES / 4096 + 1];
    assert_int_equal(mincore((void *)base, bytes, v), 0);
    size_t n = 0;
    for (size_t i = 0; i < bytes / page; i++)
        n += v[i] & 1;
    return n * page;
}

static long minor_faults(void)
{
    struct rusage ru;
    getrusage(RUSAGE_THREAD, &ru);
    return ru.ru_minflt;
}

/* One byte written per page of [from, to): the minor faults it took. Not
 * instrumented by ASan, whose first check of a page's shadow faults too. */
__attribute__((no_sanitize_address)) static long write_faults(unsigned char *base, size_t from, size_t to)
{
    long before = minor_faults();
    for (size_t off = from; off < to; off += page)
        base[off] = 1;
    return minor_faults() - before;
}

static unsigned char *fresh(void)
{
    void *m = mmap(NULL, BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(m != MAP_FAILED);
    return m;
}

static void test_steps_ahead(void **state)
{
    (void)state;
    unsigned char *base = fresh();
    hct_prefault p;
    hct_prefault_init(&p, base, BYTES);
    if (p.done == BYTES) {
        assert_int_equal(resident_bytes(base, BYTES), BYTES);
        munmap(base, BYTES);
        skip(); /* no MADV_POPULATE_WRITE: the whole buffer at once, as before */
    }
    assert_int_equal(p.done, HCT_PREFAULT_STEP);
    assert_int_equal(resident_bytes(base, BYTES), HCT_PREFAULT_STEP);
    /* within the first half step: nothing more */
    hct_prefault_ahead(&p, HCT_PREFAULT_STEP / 2 - 8);
    assert_int_equal(resident_bytes(base, BYTES), HCT_PREFAULT_STEP);
    /* past it: up to two steps after the step written in, no further */
    hct_prefault_ahead(&p, HCT_PREFAULT_STEP / 2 + 8);
    assert_int_equal(p.done, 2 * HCT_PREFAULT_STEP);
    assert_int_equal(resident_bytes(base, BYTES), 2 * HCT_PREFAULT_STEP);
    hct_prefault_ahead(&p, 5 * HCT_PREFAULT_STEP + 100);
    assert_int_equal(p.done, 7 * HCT_PREFAULT_STEP);
    assert_int_equal(resident_bytes(base, BYTES), 7 * HCT_PREFAULT_STEP);
    /* the end: the rest, never past the buffer */
    hct_prefault_ahead(&p, BYTES - 8);
    assert_int_equal(p.done, BYTES);
    assert_int_equal(resident_bytes(base, BYTES), BYTES);
    munmap(base, BYTES);
}

static void test_no_faults_where_populated(void **state)
{
    (void)state;
    unsigned char *base = fresh();
    hct_prefault p;
    hct_prefault_init(&p, base, BYTES);
    hct_prefault_ahead(&p, 3 * HCT_PREFAULT_STEP);
    size_t done = p.done;
    assert_true(done >= 4 * HCT_PREFAULT_STEP);
    /* the counting loop run once on a resident page first: under qemu-user its
     * first run faults in the emulator's own translation (1 fault in 1 of about
     * 10 runs), which is not the buffer's */
    unsigned char warm[64];
    memset(warm, 0, sizeof(warm));
    write_faults(warm, 0, 1);
    assert_int_equal(write_faults(base, 0, done), 0);
    if (done < BYTES) /* the pages not populated fault: the count can tell */
        assert_true(write_faults(base, done, BYTES) >= (long)((BYTES - done) / page) / 2);
    munmap(base, BYTES);
}

int main(void)
{
    page = (size_t)sysconf(_SC_PAGESIZE);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_steps_ahead),
        cmocka_unit_test(test_no_faults_where_populated),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
