/* test_ring.c: unit tests of the sample ring (instrument/hct_ring.h): records
 * come out in order and intact, a record never wraps (the skip marker), a full
 * ring refuses records instead of overwriting, and a long random run against
 * a simple model, also with a consumer interleaved with the producer. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hct_ring.h"

typedef struct {
    uint32_t size;
    uint32_t seq;
    uint64_t payload[];
} rec;

static int put(hct_ring *r, uint32_t seq, uint32_t nwords)
{
    uint64_t size = sizeof(rec) + nwords * sizeof(uint64_t);
    rec *p = hct_ring_reserve(r, size);
    if (!p)
        return -1;
    p->size = (uint32_t)hct_ring_round(size);
    p->seq = seq;
    for (uint32_t i = 0; i < nwords; i++)
        p->payload[i] = (uint64_t)seq * 1000 + i;
    hct_ring_commit(r, size);
    return 0;
}

/* takes one record; returns its seq, checks its payload, -1 if empty */
static long get(hct_ring *r)
{
    const rec *p = hct_ring_peek(r);
    if (!p)
        return -1;
    uint32_t nwords = (uint32_t)((p->size - sizeof(rec)) / sizeof(uint64_t));
    for (uint32_t i = 0; i < nwords; i++)
        assert_int_equal(p->payload[i], (uint64_t)p->seq * 1000 + i);
    long seq = p->seq;
    hct_ring_pop(r);
    return seq;
}

static void in_order_and_intact(void **state)
{
    (void)state;
    uint64_t buf[64];
    hct_ring r;
    hct_ring_init(&r, buf, sizeof(buf));
    assert_true(hct_ring_empty(&r));
    assert_int_equal(get(&r), -1);
    for (uint32_t i = 0; i < 5; i++)
        assert_int_equal(put(&r, i, i), 0);
    for (uint32_t i = 0; i < 5; i++)
        assert_int_equal(get(&r), i);
    assert_true(hct_ring_empty(&r));
}

static void full_ring_refuses(void **state)
{
    (void)state;
    uint64_t buf[16]; /* 128 bytes */
    hct_ring r;
    hct_ring_init(&r, buf, sizeof(buf));
    assert_int_equal(put(&r, 1, 6), 0); /* 56 bytes */
    assert_int_equal(put(&r, 2, 6), 0); /* 112 */
    assert_int_equal(put(&r, 3, 6), -1);
    assert_int_equal(put(&r, 4, 1), 0); /* 16 more fit exactly */
    assert_int_equal(put(&r, 5, 0), -1);
    assert_null(hct_ring_reserve(&r, 4096)); /* larger than the ring */
    assert_int_equal(get(&r), 1);
    assert_int_equal(get(&r), 2);
    assert_int_equal(get(&r), 4);
    assert_int_equal(get(&r), -1);
}

static void records_never_wrap(void **state)
{
    (void)state;
    uint64_t buf[16]; /* 128 bytes */
    hct_ring r;
    hct_ring_init(&r, buf, sizeof(buf));
    assert_int_equal(put(&r, 1, 10), 0); /* 88 bytes at 0 */
    assert_int_equal(get(&r), 1);
    /* 40 bytes left before the end: a 56-byte record goes to the start */
    assert_int_equal(put(&r, 2, 6), 0);
    assert_ptr_equal(hct_ring_peek(&r), (void *)buf);
    assert_int_equal(get(&r), 2);
    /* 72 bytes free but not in one piece after 56 at 0: 64 at 56 fits */
    assert_int_equal(put(&r, 3, 6), 0);
    assert_int_equal(get(&r), 3);
    assert_true(hct_ring_empty(&r));
}

static void random_against_a_model(void **state)
{
    (void)state;
    uint64_t buf[512];
    hct_ring r;
    hct_ring_init(&r, buf, sizeof(buf));
    uint32_t next_put = 0, next_get = 0, refused = 0;
    srand(7);
    for (int step = 0; step < 200000; step++) {
        if (rand() % 3) {
            if (put(&r, next_put, (uint32_t)(rand() % 40)) == 0)
                next_put++;
            else
                refused++;
        } else {
            long seq = get(&r);
            if (seq >= 0)
                assert_int_equal(seq, next_get++);
            else
                assert_int_equal(next_get, next_put);
        }
    }
    long seq;
    while ((seq = get(&r)) >= 0)
        assert_int_equal(seq, next_get++);
    assert_int_equal(next_get, next_put);
    assert_true(refused > 0 && next_put > 10000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(in_order_and_intact),
        cmocka_unit_test(full_ring_refuses),
        cmocka_unit_test(records_never_wrap),
        cmocka_unit_test(random_against_a_model),
    };
    return cmocka_run_group_tests_name("sample ring", tests, NULL, NULL);
}
