/* test_forks.c: unit tests of the forking thread's samples in the OpenMP
 * runtime (fold/forks.c): a sample of the master waiting in GOMP_parallel
 * (or in libgomp's code below it) under a frame whose parallel region runs
 * the body step._omp_fn.0 is cut at the runtime's frame and named as the
 * body; a sample in the body itself, a worker thread's sample, and a frame
 * that forks two different bodies stay as they are; a sample waiting in a
 * barrier is named as the barrier. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <otf2/otf2.h>

#include "forks.h"

enum { MAIN, STEP, BODY, BODY_REGION, GOMP, LIBGOMP, CLONE, OTHER, OTHER_REGION, BARRIER, SYSCALL, NREGIONS };

static fold_region_def regions[NREGIONS] = {
    { "main", "src/app.c", 10, 0, 0, FOLD_KIND_FUNCTION },
    { "step", "src/app.c", 40, 0, 0, FOLD_KIND_FUNCTION },
    { "step._omp_fn.0", "src/app.c", 44, 0, 0, FOLD_KIND_FUNCTION },
    { "step._omp_fn.0", "src/app.c", 44, OTF2_PARADIGM_OPENMP, OTF2_REGION_ROLE_PARALLEL, FOLD_KIND_OPENMP },
    { "GOMP_parallel", "/usr/lib/x86_64-linux-gnu/libgomp.so.1.0.0", 0, 0, 0, FOLD_KIND_FUNCTION },
    { "libgomp.so.1 (OpenMP runtime)", "/usr/lib/x86_64-linux-gnu/libgomp.so.1.0.0", 0, 0, 0, FOLD_KIND_FUNCTION },
    { "clone3", "/usr/lib/x86_64-linux-gnu/libc.so.6", 0, 0, 0, FOLD_KIND_FUNCTION },
    { "step._omp_fn.1", "src/app.c", 50, 0, 0, FOLD_KIND_FUNCTION },
    { "step._omp_fn.1", "src/app.c", 50, OTF2_PARADIGM_OPENMP, OTF2_REGION_ROLE_PARALLEL, FOLD_KIND_OPENMP },
    { "omp barrier", "", 0, OTF2_PARADIGM_OPENMP, OTF2_REGION_ROLE_IMPLICIT_BARRIER, FOLD_KIND_OPENMP },
    { "syscall", "/usr/lib/x86_64-linux-gnu/libc.so.6", 0, 0, 0, FOLD_KIND_FUNCTION },
};

/* contexts: 0 main, 1 main>step, 2 step>[parallel region], 3 region>body,
 * 4 step>GOMP_parallel, 5 GOMP_parallel>libgomp, 6 step>libgomp (GOMP_parallel
 * tail-called away), 7 clone3 (a worker's root), 8 clone3>libgomp,
 * 9 libgomp>[parallel region], 10 region>body, 11 body>[barrier],
 * 12 barrier>libgomp, 13 barrier>syscall (libgomp's frame lost),
 * 14 step>syscall (the join's futex wait, libgomp's frames lost) */
static fold_context_def contexts[] = {
    { MAIN, FOLD_NONE, "src/app.c", 12, 0 }, { STEP, 0, "src/app.c", 44, 1 },   { BODY_REGION, 1, NULL, 0, 2 },
    { BODY, 2, "src/app.c", 45, 3 },         { GOMP, 1, NULL, 0, 2 },           { LIBGOMP, 4, NULL, 0, 3 },
    { LIBGOMP, 1, NULL, 0, 2 },              { CLONE, FOLD_NONE, NULL, 0, 0 }, { LIBGOMP, 7, NULL, 0, 1 },
    { BODY_REGION, 8, NULL, 0, 2 },          { BODY, 9, "src/app.c", 45, 3 },   { BARRIER, 3, NULL, 0, 4 },
    { LIBGOMP, 11, NULL, 0, 5 },             { SYSCALL, 11, NULL, 0, 5 },           { SYSCALL, 1, NULL, 0, 2 },
};

static void make_trace(fold_trace *t, size_t ncontexts)
{
    memset(t, 0, sizeof(*t));
    t->regions = regions;
    t->nregions = NREGIONS;
    t->contexts = contexts;
    t->ncontexts = ncontexts;
}

static void master_waiting_at_the_join_is_the_body(void **state)
{
    (void)state;
    fold_trace t;
    make_trace(&t, sizeof(contexts) / sizeof(contexts[0]));
    uint32_t *bodies = fold_fork_bodies(&t);
    assert_non_null(bodies);
    assert_int_equal(bodies[1], BODY); /* step forks step._omp_fn.0 */
    uint32_t body;
    const uint32_t wait[] = { 5, 4, 1, 0 }; /* leaf first: libgomp < GOMP_parallel < step < main */
    assert_int_equal(fold_fork_cut(&t, bodies, wait, 4, &body), 3); /* main, step, the runtime's frame */
    assert_int_equal(body, BODY);
    const uint32_t tail[] = { 6, 1, 0 }; /* libgomp < step < main */
    assert_int_equal(fold_fork_cut(&t, bodies, tail, 3, &body), 3);
    assert_int_equal(body, BODY);
    /* the C library's futex syscall right under the forking frame (seen
     * under ASan: libgomp's frames not in the stack) */
    const uint32_t futex[] = { 14, 1, 0 }; /* syscall < step < main */
    assert_int_equal(fold_fork_cut(&t, bodies, futex, 3, &body), 3);
    assert_int_equal(body, BODY);
    const uint32_t in_body[] = { 3, 1, 0 }; /* the body's sampled path (region node left out) */
    assert_int_equal(fold_fork_cut(&t, bodies, in_body, 3, &body), 3);
    assert_int_equal(body, FOLD_NONE);
    const uint32_t worker[] = { 10, 8, 7 }; /* body < libgomp < clone3: left to the region's anchor */
    assert_int_equal(fold_fork_cut(&t, bodies, worker, 3, &body), 3);
    assert_int_equal(body, FOLD_NONE);
    free(bodies);
}

/* Waiting in a barrier inside the body (libgomp's frames, or a futex
 * syscall whose libgomp frame was lost): named as the barrier, never as the
 * runtime or the C library (CloverLeaf's OpenMP loops banded
 * `libgomp.so.1 (OpenMP runtime)` and `syscall`). */
static void waiting_in_a_barrier_is_the_barrier(void **state)
{
    (void)state;
    fold_trace t;
    make_trace(&t, sizeof(contexts) / sizeof(contexts[0]));
    uint32_t *bodies = fold_fork_bodies(&t);
    assert_non_null(bodies);
    uint32_t body;
    const uint32_t master[] = { 12, 3, 1, 0 }; /* libgomp < (barrier) < body < step < main */
    assert_int_equal(fold_fork_cut(&t, bodies, master, 4, &body), 4);
    assert_int_equal(body, BARRIER);
    const uint32_t futex[] = { 13, 3, 1, 0 }; /* syscall < (barrier) < body < step < main */
    assert_int_equal(fold_fork_cut(&t, bodies, futex, 4, &body), 4);
    assert_int_equal(body, BARRIER);
    free(bodies);
}

static void two_bodies_from_one_frame_stay_the_runtime(void **state)
{
    (void)state;
    fold_context_def more[sizeof(contexts) / sizeof(contexts[0]) + 2];
    memcpy(more, contexts, sizeof(contexts));
    size_t n = sizeof(contexts) / sizeof(contexts[0]);
    more[n] = (fold_context_def){ OTHER_REGION, 1, NULL, 0, 2 };
    more[n + 1] = (fold_context_def){ OTHER, (uint32_t)n, "src/app.c", 51, 3 };
    fold_trace t;
    make_trace(&t, n + 2);
    t.contexts = more;
    uint32_t *bodies = fold_fork_bodies(&t);
    assert_non_null(bodies);
    assert_int_equal(bodies[1], FOLD_FORK_MANY);
    uint32_t body;
    const uint32_t wait[] = { 5, 4, 1, 0 };
    assert_int_equal(fold_fork_cut(&t, bodies, wait, 4, &body), 4); /* which body: unknown */
    assert_int_equal(body, FOLD_NONE);
    free(bodies);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(master_waiting_at_the_join_is_the_body),
        cmocka_unit_test(waiting_in_a_barrier_is_the_barrier),
        cmocka_unit_test(two_bodies_from_one_frame_stay_the_runtime),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
