/* test_path_cache.c: unit tests of the cached call path of a recurring call
 * site (instrument/hct_path_cache.c): the same path from the same place is
 * found again; a call from another caller (the same frame position, another
 * return address) or from further out (two callers apart) is not; a path
 * through frames of variable size (variable-length arrays: addressed through
 * rbp, as LULESH's main) is found again while they stay where they were, and
 * not when an outer one moved and another function called (the anchor the
 * same); built with frame pointers, the same; LULESH's 50 fork sites are
 * all kept; one site and anchor reached from two callers keeps both paths
 * (an MPI call in a function with several callers: LULESH's CommSend). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "hct_path.h"
#include "hct_path_cache.h"

volatile int sink;
static hct_path_cache cache; /* the thread's */

/* What a get of a cached path gives: its 3 frames; on other architectures
 * than x86-64 (no anchor: HCT_PATH_ANCHOR) nothing is ever cached, so -1. */
#if !defined(__x86_64__)
#define HIT (-1)
#define HIT_OTHER (-1)
#else
#define HIT 3
#define HIT_OTHER 5 /* run(): a get gave PUT_OTHER's path */
#endif

enum { PUT, GET, PUT_OTHER };

static const void *last_anchor; /* probe's last */

/* The fork's place: puts `stored` as the site's path, or gets it. */
__attribute__((noinline)) static int probe(int op, const void *site, uintptr_t *frames)
{
    const void *anchor = HCT_PATH_ANCHOR();
    last_anchor = anchor;
    if (op == PUT || op == PUT_OTHER) {
        static const uintptr_t stored[3] = { 0x1000, 0x2000, 0x3000 }, other[3] = { 0x1000, 0x2000, 0x5000 };
        const uintptr_t *put = op == PUT ? stored : other;
        hct_path_cache_put(&cache, site, anchor, put, 3);
        memcpy(frames, put, sizeof(stored));
        return 3;
    }
    int n = hct_path_cache_get(&cache, site, anchor, frames);
    sink += n; /* no tail call: probe's frame (its saved rbp) stays as for the put */
    return n;
}

/* two callers of the same shape (the same frame size: the same anchor) */
__attribute__((noinline)) static int caller_a(int op, const void *site, uintptr_t *frames)
{
    int n = probe(op, site, frames);
    sink += n;
    return n;
}

__attribute__((noinline)) static int caller_b(int op, const void *site, uintptr_t *frames)
{
    int n = probe(op, site, frames);
    sink += n;
    return n;
}

/* the same caller, from two places further out */
__attribute__((noinline)) static int outer_a(int op, const void *site, uintptr_t *frames)
{
    int n = caller_a(op, site, frames);
    sink += n;
    return n;
}

__attribute__((noinline)) static int outer_b(int op, const void *site, uintptr_t *frames)
{
    int n = caller_a(op, site, frames);
    sink += n;
    return n;
}

/* a frame whose size varies with len (noipa: not made a constant) */
__attribute__((noipa)) static int caller_vla(int op, const void *site, uintptr_t *frames, int len)
{
    volatile char buf[len];
    buf[0] = (char)op;
    int n = probe(buf[0], site, frames);
    sink += n + buf[len - 1];
    return n;
}

__attribute__((noinline)) static int vla_64(int op, const void *site, uintptr_t *frames)
{
    int n = caller_vla(op, site, frames, 64);
    sink += n;
    return n;
}

/* two functions of variable size calling caller_vla: theirs `outer`, its own `inner` */
__attribute__((noipa)) static int vla_outer_a(int op, const void *site, uintptr_t *frames, int outer, int inner)
{
    volatile char buf[outer];
    buf[0] = (char)op;
    int n = caller_vla(buf[0], site, frames, inner);
    sink += n + buf[outer - 1];
    return n;
}

__attribute__((noipa)) static int vla_outer_b(int op, const void *site, uintptr_t *frames, int outer, int inner)
{
    volatile char buf[outer];
    buf[0] = (char)op;
    int n = caller_vla(buf[0], site, frames, inner);
    sink += n + buf[outer - 1];
    return n;
}

typedef int (*path_fn)(int op, const void *site, uintptr_t *frames);
typedef struct {
    path_fn via;
    int op;
} step;

/* Calls each step's via(op) from one call instruction (a fork's call site
 * reached again and again); results into out (a get: HIT, HIT_OTHER, -1, or
 * -99 for frames never put). */
__attribute__((noinline)) static void run(const step *steps, int n, const void *site, int *out)
{
    uintptr_t frames[HCT_PATH_FRAMES];
    for (int i = 0; i < n; i++) {
        memset(frames, 0, sizeof(frames));
        out[i] = steps[i].via(steps[i].op, site, frames);
        if (steps[i].op == GET && out[i] == 3 && !(frames[0] == 0x1000 && frames[1] == 0x2000 && frames[2] == 0x3000))
            out[i] = frames[0] == 0x1000 && frames[1] == 0x2000 && frames[2] == 0x5000 ? HIT_OTHER : -99;
    }
}

static void same_place_found_again(void **state)
{
    (void)state;
    const step steps[] = { { caller_a, GET }, { caller_a, PUT }, { caller_a, GET }, { caller_a, GET }, { caller_a, GET } };
    int out[5];
    run(steps, 5, (const void *)0x401000, out);
    assert_int_equal(out[0], -1); /* nothing cached yet */
    assert_int_equal(out[2], HIT);
    assert_int_equal(out[3], HIT);
    assert_int_equal(out[4], HIT);
    run(steps, 1, (const void *)0x402000, out); /* another site */
    assert_int_equal(out[0], -1);
}

static void another_caller_not_found(void **state)
{
    (void)state;
    const step steps[] = { { caller_a, PUT }, { caller_b, GET }, { caller_a, GET } };
    int out[3];
    run(steps, 3, (const void *)0x403000, out);
    assert_int_equal(out[1], -1);
    assert_int_equal(out[2], HIT);
}

static void another_path_further_out_not_found(void **state)
{
    (void)state;
    const step steps[] = { { outer_a, PUT }, { outer_a, GET }, { outer_b, GET }, { outer_a, GET } };
    int out[4];
    run(steps, 4, (const void *)0x404000, out);
    assert_int_equal(out[1], HIT);
    assert_int_equal(out[2], -1);
    assert_int_equal(out[3], HIT);
}

static void variable_frame_found_again(void **state)
{
    (void)state;
    const step steps[] = { { vla_64, PUT }, { vla_64, GET }, { vla_64, GET }, { caller_a, GET } };
    int out[4];
    run(steps, 4, (const void *)0x405000, out);
    assert_int_equal(out[1], HIT);
    assert_int_equal(out[2], HIT);
    assert_int_equal(out[3], -1);
}

typedef int (*outer_fn)(int op, const void *site, uintptr_t *frames, int outer, int inner);

/* fn called from one call instruction */
__attribute__((noinline)) static int call_outer(outer_fn fn, int op, const void *site, int outer, int inner)
{
    uintptr_t frames[HCT_PATH_FRAMES];
    int n = fn(op, site, frames, outer, inner);
    if (op == GET && n == 3 && !(frames[0] == 0x1000 && frames[1] == 0x2000 && frames[2] == 0x3000))
        n = -99; /* not what was put */
    sink += n;
    return n;
}

/* vla_outer_a(64, 256) puts; vla_outer_b(192, inner) for every inner whose
 * probe has the same anchor (caller_vla's frame smaller by as much as
 * vla_outer_b's is larger): another path (vla_outer_b's return address lies
 * elsewhere), never found; vla_outer_a again: found. */
static void moved_variable_frame_not_found(void **state)
{
    (void)state;
    const void *site = (const void *)0x406000;
    /* one call instruction for all: a put, a get, vla_outer_b at each inner, a get */
    enum { CALLS = 259 };
    int out[CALLS];
    const void *anchor[CALLS];
    for (int i = 0; i < CALLS; i++) {
        int b = i >= 2 && i < CALLS - 1;
        out[i] = call_outer(b ? vla_outer_b : vla_outer_a, i == 0 ? PUT : GET, site, b ? 192 : 64, b ? i - 1 : 256);
        anchor[i] = last_anchor;
    }
    assert_int_equal(out[0], 3);
    assert_int_equal(out[1], HIT);
    int same_anchor = 0;
    for (int i = 2; i < CALLS - 1; i++)
        if (anchor[i] == anchor[0]) {
            same_anchor++;
            assert_int_equal(out[i], -1);
        }
    assert_true(same_anchor > 0); /* the case was reached */
    assert_int_equal(out[CALLS - 1], HIT);
}

/* 50 sites from one place (LULESH forks from 50), each put once, then each
 * found (a cache of fewer entries, or one site evicting another, fails). */
static void fifty_sites_kept(void **state)
{
    (void)state;
    enum { N = 50 };
    static const char sites[N * 0x40]; /* 50 addresses 64 bytes apart, as call sites */
    step steps[2 * N];
    int out[2 * N];
    for (int i = 0; i < 2 * N; i++)
        steps[i] = (step){ caller_a, i < N ? PUT : GET };
    for (int i = 0; i < 2 * N; i++) /* one site per call of run: the same call instruction */
        run(steps + i, 1, sites + 0x40 * (i % N), out + i);
    for (int i = N; i < 2 * N; i++)
        assert_int_equal(out[i], HIT);
}

/* caller_a and caller_b (the same anchor, another return address above it)
 * put their own paths at one site, then get alternately, from one call
 * instruction: each its own path (a cache of one path per site and anchor
 * replaced a's by b's: -1). */
static void two_callers_both_kept(void **state)
{
    (void)state;
    memset(&cache, 0, sizeof(cache)); /* the walks of the tests before not counted against it */
    const step steps[] = { { caller_a, PUT }, { caller_b, PUT_OTHER }, { caller_a, GET },
                           { caller_b, GET }, { caller_a, GET },       { caller_b, GET } };
    int out[6];
    run(steps, 6, (const void *)0x407000, out);
    assert_int_equal(out[0], 3);
    assert_int_equal(out[1], 3);
    assert_int_equal(out[2], HIT);
    assert_int_equal(out[3], HIT_OTHER);
    assert_int_equal(out[4], HIT);
    assert_int_equal(out[5], HIT_OTHER);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(same_place_found_again),
        cmocka_unit_test(another_caller_not_found),
        cmocka_unit_test(another_path_further_out_not_found),
        cmocka_unit_test(variable_frame_found_again),
        cmocka_unit_test(moved_variable_frame_not_found),
        cmocka_unit_test(fifty_sites_kept),
        cmocka_unit_test(two_callers_both_kept),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
