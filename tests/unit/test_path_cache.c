/* test_path_cache.c: unit tests of the cached call path of a recurring call
 * site (instrument/hct_path_cache.c): the same path from the same place is
 * found again; a call from another caller (the same frame position, another
 * return address) or from further out (two callers apart) is not; a path
 * through a frame of variable size (a variable-length array) is never cached
 * (the same site on another path is); built with frame pointers, no path is. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "hct_path.h"
#include "hct_path_cache.h"

volatile int sink;

/* What a get of a cached path gives: its 3 frames; in the sanitized build
 * (-fno-omit-frame-pointer: every frame addressed through rbp) and on other
 * architectures than x86-64 (no anchor: HCT_PATH_ANCHOR) nothing is ever
 * cached, so -1. */
#if defined(__SANITIZE_ADDRESS__) || !defined(__x86_64__)
#define HIT (-1)
#else
#define HIT 3
#endif

enum { PUT, GET };

/* The fork's place: puts `stored` as the site's path, or gets it. */
__attribute__((noinline)) static int probe(int op, const void *site, uintptr_t *frames)
{
    const void *anchor = HCT_PATH_ANCHOR();
    if (op == PUT) {
        static const uintptr_t stored[3] = { 0x1000, 0x2000, 0x3000 };
        hct_path_cache_put(site, anchor, stored, 3);
        memcpy(frames, stored, sizeof(stored));
        return 3;
    }
    return hct_path_cache_get(site, anchor, frames);
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
    int n = caller_vla(op, site, frames, 64 + sink % 2);
    sink += n;
    return n;
}

typedef int (*path_fn)(int op, const void *site, uintptr_t *frames);
typedef struct {
    path_fn via;
    int op;
} step;

/* Calls each step's via(op) from one call instruction (a fork's call site
 * reached again and again); results into out. */
__attribute__((noinline)) static void run(const step *steps, int n, const void *site, int *out)
{
    uintptr_t frames[HCT_PATH_FRAMES];
    for (int i = 0; i < n; i++) {
        memset(frames, 0, sizeof(frames));
        out[i] = steps[i].via(steps[i].op, site, frames);
        if (steps[i].op == GET && out[i] == 3 && !(frames[0] == 0x1000 && frames[1] == 0x2000 && frames[2] == 0x3000))
            out[i] = -99; /* not what was put */
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

static void variable_frame_never_cached(void **state)
{
    (void)state;
    /* the same site on a path without it: cached */
    const step steps[] = { { vla_64, PUT }, { vla_64, GET }, { vla_64, PUT }, { vla_64, GET }, { caller_a, PUT },
                           { caller_a, GET } };
    int out[6];
    run(steps, 6, (const void *)0x405000, out);
    assert_int_equal(out[1], -1);
    assert_int_equal(out[3], -1);
    assert_int_equal(out[5], HIT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(same_place_found_again),
        cmocka_unit_test(another_caller_not_found),
        cmocka_unit_test(another_path_further_out_not_found),
        cmocka_unit_test(variable_frame_never_cached),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
