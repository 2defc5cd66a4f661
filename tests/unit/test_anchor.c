/* test_anchor.c: unit tests of where source bands start (fold/anchor.c): at
 * the deepest caller the samples share when they split below it; for samples
 * that run one chain, at the caller of the region's boundary functions as the
 * calling contexts show it, else at a common caller an earlier region split
 * at, else at the outermost frame of the boundary functions' file; at the
 * leaf's caller when the leaf itself calls a boundary function; never at
 * the C library's start when the program's own frames are there. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "anchor.h"

/* regions: 0 _start, 1 __libc_start_main, 2 main, 3 phase_update, 4 run_kernel,
 * 5 exchange_halo, 6 phase_stencil, 7 time_step, 8 redistribute */
enum { START, LIBC, MAIN, UPDATE, KERNEL, HALO, STENCIL, STEP, REDIST, NREGIONS };

static fold_region_def regions[NREGIONS] = {
    { "_start", "", 0, 0, 0, FOLD_KIND_FUNCTION },          { "__libc_start_main", "libc.so.6", 0, 0, 0, FOLD_KIND_FUNCTION },
    { "main", "src/app.c", 200, 0, 0, FOLD_KIND_FUNCTION }, { "phase_update", "src/app.c", 50, 0, 0, FOLD_KIND_FUNCTION },
    { "run_kernel", "src/app.c", 10, 0, 0, FOLD_KIND_FUNCTION }, { "exchange_halo", "src/app.c", 80, 0, 0, FOLD_KIND_FUNCTION },
    { "phase_stencil", "src/app.c", 40, 0, 0, FOLD_KIND_FUNCTION }, { "time_step", "src/app.c", 150, 0, 0, FOLD_KIND_FUNCTION },
    { "redistribute", "src/app.c", 120, 0, 0, FOLD_KIND_FUNCTION },
};

static void make_trace(fold_trace *t, fold_context_def *contexts, size_t n)
{
    memset(t, 0, sizeof(*t));
    t->regions = regions;
    t->nregions = NREGIONS;
    t->contexts = contexts;
    t->ncontexts = n;
}

/* n stacks of the given chain of regions (root first) */
static fold_stack_sample *stacks_of(const uint32_t *chain, uint32_t len, size_t n, fold_frame *frames)
{
    fold_stack_sample *s = calloc(n, sizeof(*s));
    assert_non_null(s);
    for (uint32_t d = 0; d < len; d++)
        frames[d] = (fold_frame){ chain[d], 1 };
    for (size_t i = 0; i < n; i++)
        s[i] = (fold_stack_sample){ 0.5, frames, len };
    return s;
}

static void split_below_the_common_caller(void **state)
{
    (void)state;
    fold_trace t;
    make_trace(&t, NULL, 0);
    static const uint32_t a[] = { START, LIBC, MAIN, STENCIL, KERNEL }, b[] = { START, LIBC, MAIN, UPDATE, KERNEL };
    fold_frame fa[5], fb[5];
    fold_stack_sample *sa = stacks_of(a, 5, 10, fa), *sb = stacks_of(b, 5, 10, fb);
    fold_stack_sample s[20];
    memcpy(s, sa, sizeof(*s) * 10);
    memcpy(s + 10, sb, sizeof(*s) * 10);
    fold_anchors known = { NULL, 0, 0 };
    assert_int_equal(fold_anchor_depth(&t, s, 20, NULL, 0, &known), 2); /* main */
    assert_int_equal(known.n, 1);
    assert_int_equal(known.functions[0], MAIN);
    free(known.functions);
    free(sa);
    free(sb);
}

/* One chain: the boundary call sits in exchange_halo, which the calling
 * contexts show called from time_step: the cut is at time_step, phase_update
 * below it. Without that context: the outermost frame of exchange_halo's
 * file, main (never __libc_start_main, as the full stack drew it before). */
static void one_chain_cut_at_the_boundary_callers_caller(void **state)
{
    (void)state;
    fold_context_def contexts[] = { { STEP, FOLD_NONE, "src/app.c", 160, 0 }, { HALO, 0, "src/app.c", 90, 1 } };
    fold_trace t;
    make_trace(&t, contexts, 2);
    static const uint32_t c[] = { START, LIBC, MAIN, STEP, UPDATE, KERNEL };
    fold_frame f[6];
    fold_stack_sample *s = stacks_of(c, 6, 10, f);
    const char *callers[] = { "exchange_halo", NULL };
    assert_int_equal(fold_anchor_depth(&t, s, 10, callers, 2, NULL), 3);
    make_trace(&t, NULL, 0);
    assert_int_equal(fold_anchor_depth(&t, s, 10, callers, 2, NULL), 2);
    free(s);
}

/* One chain under time_step, which an earlier region split at: cut there. */
static void one_chain_cut_where_an_earlier_region_split(void **state)
{
    (void)state;
    fold_trace t;
    make_trace(&t, NULL, 0);
    static const uint32_t c[] = { START, LIBC, MAIN, STEP, UPDATE, KERNEL };
    fold_frame f[6];
    fold_stack_sample *s = stacks_of(c, 6, 10, f);
    const char *callers[] = { "exchange_halo" };
    uint32_t step = STEP;
    fold_anchors known = { &step, 1, 1 };
    assert_int_equal(fold_anchor_depth(&t, s, 10, callers, 1, &known), 3);
    assert_int_equal(fold_anchor_depth(&t, s, 10, callers, 1, NULL), 2); /* the file rule: main */
    free(s);
}

/* One chain whose leaf itself calls the boundary function (miniFE's
 * matvec_std::operator() calls exchange_externals, whose MPI_Wait opens the
 * burst, then computes throughout): the cut is at the leaf's caller, so the
 * band below names the leaf, never at the root (the band was
 * __libc_start_main, 100 % of miniFE's time step with 8 ranks). */
static void one_chain_whose_leaf_calls_the_boundary(void **state)
{
    (void)state;
    fold_context_def contexts[] = { { KERNEL, FOLD_NONE, "src/app.c", 12, 0 }, { HALO, 0, "src/app.c", 90, 1 } };
    fold_trace t;
    make_trace(&t, contexts, 2);
    static const uint32_t c[] = { START, LIBC, MAIN, STEP, KERNEL };
    fold_frame f[5];
    fold_stack_sample *s = stacks_of(c, 5, 10, f);
    const char *callers[] = { "exchange_halo", NULL };
    assert_int_equal(fold_anchor_depth(&t, s, 10, callers, 2, NULL), 3); /* time_step; run_kernel below */
    free(s);
}

/* One chain whose boundary call sits two helpers below the chain's function
 * (CoMD: timestep -> redistributeAtoms -> haloExchange -> exchangeData, whose
 * MPI_Sendrecv opens the burst that then runs computeForce): the cut is at
 * time_step, the nearest function of the chain above exchange_halo in the
 * calling contexts, so the band below names phase_update; the file rule gave
 * main, and CoMD's time step banded `timestep` 100 %. */
static void one_chain_cut_above_the_boundary_helpers(void **state)
{
    (void)state;
    fold_context_def contexts[] = { { MAIN, FOLD_NONE, "src/app.c", 210, 0 },
                                    { STEP, 0, "src/app.c", 160, 1 },
                                    { REDIST, 1, "src/app.c", 125, 2 },
                                    { HALO, 2, "src/app.c", 90, 3 } };
    fold_trace t;
    make_trace(&t, contexts, 4);
    static const uint32_t c[] = { START, LIBC, MAIN, STEP, UPDATE, KERNEL };
    fold_frame f[6];
    fold_stack_sample *s = stacks_of(c, 6, 10, f);
    const char *callers[] = { "exchange_halo", NULL };
    assert_int_equal(fold_anchor_depth(&t, s, 10, callers, 2, NULL), 3);
    free(s);
}

/* Most samples end in one function (an OpenMP body to which the master's
 * time waiting at the join is given, forks.h) and a few go on into a
 * kernel and split below it: the chain ends at that function, not at the
 * kernel; cut deeper than where most stacks end, they were cut at their
 * leaves and TeaLeaf's calc_ur burst banded its leaves. */
static void chain_ends_where_most_samples_end(void **state)
{
    (void)state;
    fold_trace t;
    make_trace(&t, NULL, 0);
    static const uint32_t body[] = { START, LIBC, MAIN, STEP, UPDATE },
                          a[] = { START, LIBC, MAIN, STEP, UPDATE, KERNEL, STENCIL },
                          b[] = { START, LIBC, MAIN, STEP, UPDATE, KERNEL, HALO };
    fold_frame fw[5], fa[7], fb[7];
    fold_stack_sample *sw = stacks_of(body, 5, 6, fw), *sa = stacks_of(a, 7, 2, fa), *sb = stacks_of(b, 7, 2, fb);
    fold_stack_sample s[10];
    memcpy(s, sw, sizeof(*s) * 6);
    memcpy(s + 6, sa, sizeof(*s) * 2);
    memcpy(s + 8, sb, sizeof(*s) * 2);
    assert_int_equal(fold_anchor_depth(&t, s, 10, NULL, 0, NULL), 2); /* main: time_step below */
    free(sw);
    free(sa);
    free(sb);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(split_below_the_common_caller),
        cmocka_unit_test(one_chain_cut_at_the_boundary_callers_caller),
        cmocka_unit_test(one_chain_cut_where_an_earlier_region_split),
        cmocka_unit_test(one_chain_whose_leaf_calls_the_boundary),
        cmocka_unit_test(one_chain_cut_above_the_boundary_helpers),
        cmocka_unit_test(chain_ends_where_most_samples_end),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
